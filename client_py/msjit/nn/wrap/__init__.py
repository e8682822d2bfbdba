"""``nn.wrap`` (``mindspore.nn.wrap``): training wrappers (modules ``cell_wrapper``, ``loss_scale``)."""
from .cell_wrapper import ForwardValueAndGrad, TrainOneStepCell, WithEvalCell, WithLossCell
from .loss_scale import DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell, TrainOneStepWithLossScaleCell

__all__ = ["WithLossCell", "WithEvalCell", "ForwardValueAndGrad", "TrainOneStepCell", "TrainOneStepWithLossScaleCell",
           "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell"]

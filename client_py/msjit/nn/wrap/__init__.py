"""``nn.wrap`` (``mindspore.nn.wrap``): training wrappers (module ``wrap.cell_wrapper``)."""
from .cell_wrapper import ForwardValueAndGrad, TrainOneStepCell, WithEvalCell, WithLossCell

__all__ = ["WithLossCell", "WithEvalCell", "ForwardValueAndGrad", "TrainOneStepCell"]

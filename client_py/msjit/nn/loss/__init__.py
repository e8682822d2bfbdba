"""``nn.loss`` (``mindspore.nn.loss``): LossBase and the loss Cells (module ``loss.loss``)."""
from .loss import *  # noqa: F401,F403
from .loss import __all__  # noqa: F401

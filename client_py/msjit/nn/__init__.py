"""``msjit.nn`` (``mindspore.nn``): Cells, layers, losses, optimizers and training wrappers."""
from ..parameter import Parameter
from . import activation, dynamic_lr, learning_rate_schedule, loss, optim, padding, rnn_cells, rnns, transformer, wrap
from .activation import *  # noqa: F401,F403
from .dynamic_lr import *  # noqa: F401,F403
from .learning_rate_schedule import *  # noqa: F401,F403
from .cell import Cell
from .container import CellDict, CellList, SequentialCell
from .conv import Conv1d, Conv2d, Conv2dTranspose
from .layers import Dense, Dropout, Embedding, Flatten, Identity, OneHot, Pad
from .loss import *  # noqa: F401,F403
from .norm import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm
from .optim import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .rnns import *  # noqa: F401,F403
from .rnn_cells import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .pooling import AdaptiveAvgPool1d, AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d
from .wrap import *  # noqa: F401,F403

__all__ = (["Cell", "CellList", "CellDict", "SequentialCell", "Parameter", "Conv1d", "Conv2d", "Conv2dTranspose", "BatchNorm1d",
            "BatchNorm2d", "LayerNorm", "GroupNorm", "Dense", "Dropout", "Embedding", "Flatten", "Identity", "OneHot", "Pad",
            "MaxPool2d", "AvgPool2d", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool1d"]
           + activation.__all__ + dynamic_lr.__all__ + learning_rate_schedule.__all__ + loss.__all__
           + optim.__all__ + padding.__all__ + rnns.__all__ + rnn_cells.__all__ + transformer.__all__ + wrap.__all__)

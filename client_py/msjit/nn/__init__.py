"""``msjit.nn`` (``mindspore.nn``): Cells and layers."""
from ..parameter import Parameter
from .cell import Cell, CellList, SequentialCell
from .conv import BatchNorm2d, Conv2d, LayerNorm
from .layers import (GELU, Dense, Dropout, Embedding, Flatten, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax,
                     Tanh, get_activation)

__all__ = ["Cell", "CellList", "SequentialCell", "Parameter", "Conv2d", "BatchNorm2d", "LayerNorm", "Dense", "Dropout",
           "Embedding", "Flatten", "ReLU", "Sigmoid", "Tanh", "SiLU", "GELU", "Softmax", "LogSoftmax",
           "get_activation"]

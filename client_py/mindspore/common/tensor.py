"""``mindspore.common.tensor``: ``Tensor`` and the ``tensor`` factory."""
from msjit import Tensor, is_tensor, tensor

__all__ = ["Tensor", "tensor", "is_tensor"]

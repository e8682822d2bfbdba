"""Parameter: a named, mutable Tensor that a compiled graph reads by reference.

Inside a jitted graph a Parameter is a graph parameter input (``GraphProto.parameter``) passed at
run time after the call's inputs, never a baked-in constant (unless ``infer_boost="on"`` folds
it): updating it with ``set_data`` or in place is seen by the next call without recompiling.
Its array is updated in place and never replaced, so its shape and dtype are fixed for life
(as in MindSpore, ``set_data`` of another shape is a ValueError) and compiled graphs can keep a
reference to it.
"""
import numpy as np

from . import dtype as D
from .tensor import Tensor


class Parameter(Tensor):
    """``Parameter(default_input, name=None, requires_grad=True)``."""

    __slots__ = ("name", "requires_grad", "_version")

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False):
        super().__init__(default_input)
        if not self._array.flags.c_contiguous:
            self._array = np.ascontiguousarray(self._array)
        self.name = name
        self.requires_grad = bool(requires_grad)
        self._version = 0     # bumped by set_data / assign: guards graphs that folded the value

    def set_data(self, data, slice_shape=False):
        """Copy ``data`` into this Parameter (same shape; cast to its dtype unless that would
        lose kind or precision, which is a TypeError). Returns self. Under capture this is
        ``ops.assign`` (``ops`` installs that part: this module sits below capture)."""
        array = data._array if isinstance(data, Tensor) else np.asarray(data)
        if array.shape != self.shape:
            raise ValueError(f"Parameter {self.name!r}: can not change the shape of a Parameter; current "
                             f"shape is {self.shape}, incoming is {array.shape}")
        incoming = D.from_numpy(array.dtype)
        if incoming is not self.dtype and D.promote_types(self.dtype, incoming) is not self.dtype:
            raise TypeError(f"Parameter {self.name!r}: can not set data of dtype {incoming} into a "
                            f"Parameter of dtype {self.dtype}")
        np.copyto(self._array, array, casting="unsafe")
        self._version += 1
        return self

    @property
    def data(self):
        return self

    def clone(self, init="same"):
        return Parameter(self._array.copy(), self.name, self.requires_grad)

    def __repr__(self):
        return f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, " \
               f"requires_grad={self.requires_grad})"


def is_value_tensor(v):
    """A Tensor held by value: a graph input or a guard on dtype and shape. A Parameter is held by
    reference instead (a graph parameter, guarded by identity)."""
    return isinstance(v, Tensor) and not isinstance(v, Parameter)

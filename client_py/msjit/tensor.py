"""Tensor: a concrete, numpy-backed value. Operators come from TensorMixin (shared with Tracer)."""
import numpy as np

from . import dtype as D
from .mixin import TensorMixin


class Tensor(TensorMixin):
    """``Tensor(data, dtype=None)`` as in MindSpore.

    Without ``dtype`` the type comes from the data, except that Python floats (and lists of
    them) become float32; Python ints become int64. The data is always copied.
    """

    __slots__ = ("_array",)

    def __init__(self, input_data, dtype=None):
        if isinstance(input_data, Tensor):
            input_data = input_data._array
        if input_data is None:
            raise TypeError("Tensor: input_data must be an array, a sequence or a scalar, got None")
        if dtype is not None:
            array = np.array(input_data, dtype=D.as_dtype(dtype).np)
        else:
            array = np.array(input_data)
            if array.dtype == np.float64 and not isinstance(input_data, (np.ndarray, np.generic)):
                array = array.astype(np.float32)
            D.from_numpy(array.dtype)  # TypeError for unsupported element types
        self._array = array

    @staticmethod
    def _wrap(array):
        """A Tensor over ``array`` without copying or checking: the runtime's per-output fast path."""
        t = object.__new__(Tensor)
        t._array = array
        return t

    @property
    def shape(self):
        return self._array.shape

    @property
    def dtype(self):
        return D.from_numpy(self._array.dtype)

    def asnumpy(self):
        """The underlying numpy array (shared, not copied, as in MindSpore on CPU)."""
        return self._array

    def __array__(self, dtype=None):
        return self._array if dtype is None else self._array.astype(dtype)

    def __bool__(self):
        return bool(self._array)

    def __float__(self):
        return float(self._array)

    def __int__(self):
        return int(self._array)

    def __index__(self):
        """An integer tensor of one element as a Python int (``range(t)``, ``lst[t]``)."""
        if self._array.dtype.kind not in "iub" or self._array.size != 1:
            raise TypeError(f"only integer tensors of a single element can be converted to an index, "
                            f"got {self.dtype} of shape {self.shape}")
        return int(self._array.reshape(()))

    def __len__(self):
        if not self._array.ndim:
            raise TypeError("len() of a 0-d tensor")
        return len(self._array)

    def __iter__(self):
        """The rows (``x[0]``, ``x[1]``, ...), each an op so gradients flow through them."""
        if not self._array.ndim:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self._array)))

    def __str__(self):
        return str(self._array)

    def __repr__(self):
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=\n{self._array})"

"""Tensor operators and methods, attached to TensorMixin (so to Tensor and Tracer) by ``install``.

Most methods are a functional op with the tensor as its first argument: those are listed by
name in each ops module's ``TENSOR_METHODS`` and attached as the function itself. The ones
here differ from their functional op in signature or meaning.
"""
import numpy as np

from .. import ops
from ..mixin import TensorMixin


class _Methods:
    def __add__(self, other):
        return ops.add(self, other)

    def __radd__(self, other):
        return ops.add(other, self)

    def __sub__(self, other):
        return ops.sub(self, other)

    def __rsub__(self, other):
        return ops.sub(other, self)

    def __mul__(self, other):
        return ops.mul(self, other)

    def __rmul__(self, other):
        return ops.mul(other, self)

    def __truediv__(self, other):
        return ops.div(self, other)

    def __rtruediv__(self, other):
        return ops.div(other, self)

    def __matmul__(self, other):
        return ops.matmul(self, other)

    def __rmatmul__(self, other):
        return ops.matmul(other, self)

    def __neg__(self):
        return ops.neg(self)

    def __pow__(self, other):
        return ops.pow(self, other)

    def __rpow__(self, other):
        return ops.pow(other, self)

    def __abs__(self):
        return ops.abs(self)

    def __and__(self, other):
        return ops.logical_and(self, other)

    __rand__ = __and__

    def __or__(self, other):
        return ops.logical_or(self, other)

    __ror__ = __or__

    def __invert__(self):
        return ops.logical_not(self)

    def __eq__(self, other):
        return ops.equal(self, other) if _comparable(other) else NotImplemented

    def __ne__(self, other):
        return ops.not_equal(self, other) if _comparable(other) else NotImplemented

    def __lt__(self, other):
        return ops.less(self, other)

    def __le__(self, other):
        return ops.less_equal(self, other)

    def __gt__(self, other):
        return ops.greater(self, other)

    def __ge__(self, other):
        return ops.greater_equal(self, other)

    def __getitem__(self, index):
        return ops.getitem(self, index)

    def sum(self, axis=None, keepdims=False):
        return ops.sum(self, axis, keepdims)

    def mean(self, axis=None, keep_dims=False):
        return ops.mean(self, axis, keep_dims)

    def reshape(self, *shape):
        return ops.reshape(self, shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape)

    def transpose(self, *perm):
        perm = perm[0] if len(perm) == 1 and not isinstance(perm[0], int) else perm
        return ops.transpose(self, perm or tuple(reversed(range(self.ndim))))

    def astype(self, dtype):
        return ops.cast(self, dtype)

    def exp(self):
        return ops.exp(self)

    def log(self):
        return ops.log(self)

    def sqrt(self):
        return ops.sqrt(self)

    def tanh(self):
        return ops.tanh(self)

    def sigmoid(self):
        return ops.sigmoid(self)

    def abs(self):
        return ops.abs(self)

    def square(self):
        return ops.square(self)

    def rsqrt(self):
        return ops.rsqrt(self)

    def pow(self, exponent):
        return ops.pow(self, exponent)

    def max(self, axis=None, keepdims=False):
        return ops.amax(self, axis, keepdims)

    def min(self, axis=None, keepdims=False):
        return ops.amin(self, axis, keepdims)

    def expand_dims(self, axis):
        return ops.expand_dims(self, axis)

    def squeeze(self, axis=None):
        return ops.squeeze(self, axis)

    def flatten(self, order="C", *, start_dim=0, end_dim=-1):
        return ops.flatten(self, order, start_dim=start_dim, end_dim=end_dim)

    def view(self, *shape):
        return self.reshape(*shape)

    def swapaxes(self, axis0, axis1):
        perm = list(range(self.ndim))
        perm[axis0], perm[axis1] = perm[axis1], perm[axis0]
        return ops.transpose(self, perm)

    def repeat_interleave(self, repeats, dim=None):
        return ops.repeat_interleave(self, repeats, dim)

    def broadcast_to(self, shape):
        return ops.broadcast_to(self, shape)

    def tile(self, reps):
        return ops.tile(self, reps)




def _comparable(other):
    """== and != are elementwise against tensors, arrays and numbers; anything else (None, a
    string) compares unequal by identity, as Python objects do."""
    return isinstance(other, (TensorMixin, np.ndarray, int, float, bool, np.generic))




def install(tables):
    """Attach the operators above and every ``{method name: function}`` of ``tables``."""
    for name, value in vars(_Methods).items():
        if callable(value):
            setattr(TensorMixin, name, value)
    for table in tables:
        for name, fn in table.items():
            setattr(TensorMixin, name, fn)

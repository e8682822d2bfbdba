"""The operator surface shared by Tensor (concrete) and Tracer (under capture).

Defining operators once here means the two can never disagree: every operator is a call of
the functional op of the same meaning, which dispatches on its operands in ``ops.core.bind``.
"""
import math


class TensorMixin:
    __slots__ = ()
    __array_ufunc__ = None  # numpy defers to our reflected operators: np.float32(2) * t -> t.__rmul__

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)

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


# Imported last: ops -> ops.core -> tensor -> this module. Methods look `ops` up at call time.
from . import ops  # noqa: E402

"""The base shared by Tensor (concrete) and Tracer (under capture).

It holds no operators itself: ``ops`` attaches every operator and method when it is imported
(``ops.methods``), so both kinds of tensor get the very same ones, each a call of a functional
op that dispatches on its operands in ``core.bind``, and this module needs nothing above it.
"""
import math


class TensorMixin:
    __slots__ = ()
    __array_ufunc__ = None  # numpy defers to our reflected operators: np.float32(2) * t -> t.__rmul__
    __hash__ = object.__hash__  # by identity: == is elementwise, as in MindSpore

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)

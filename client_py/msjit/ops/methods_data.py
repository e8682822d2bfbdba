"""The Tensor methods about its data, dtype and layout (installed with ``methods``).

Those that need the values (``item``, ``tolist``, ``numpy``, ``unique``) read them through
``__array__``, which a Tracer refuses (ConcreteValueNeeded): they work eagerly only.
"""
import numpy as np

from .. import dtype as D
from .. import ops
from ..mixin import TensorMixin
from ..tensor import Tensor


class DataMethods:
    def asnumpy(self):
        return self.__array__()

    def numpy(self):
        return self.asnumpy()

    def item(self):
        """The single value as a Python scalar."""
        array = self.__array__()
        if array.size != 1:
            raise ValueError(f"item: the tensor must have exactly one element, got shape {array.shape}")
        return array.item()

    def tolist(self):
        return self.__array__().tolist()

    def astype(self, dtype, copy=True):
        return ops.cast(self, dtype)

    def to(self, *args, **kwargs):
        """``to(dtype)``, ``to(dtype=...)``, ``to(other_tensor)``; device strings are no-ops."""
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, TensorMixin):
                dtype = a.dtype
            elif a is not None and not isinstance(a, (str, bool)):
                dtype = a
        return self if dtype is None else ops.cast(self, dtype)

    def type(self, dtype=None):
        """The dtype's name (no argument), else a cast to ``dtype``."""
        return repr(self.dtype) if dtype is None else ops.cast(self, dtype)

    def type_as(self, other):
        return ops.cast(self, other.dtype)

    def copy(self):
        return self.clone()

    def clone(self):
        """A copy with its own storage and identity (an identity Reshape: gradients flow)."""
        out = ops.reshape(self, self.shape)
        if isinstance(out, Tensor):
            out._array = out._array.copy()
        return out

    def dim(self):
        return self.ndim

    ndimension = dim

    def numel(self):
        return self.size

    nelement = numel

    def is_contiguous(self):
        return True

    def contiguous(self):
        return self

    def is_floating_point(self):
        return self.dtype.is_floating

    def element_size(self):
        return self.dtype.np.itemsize

    @property
    def itemsize(self):
        return self.dtype.np.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.np.itemsize

    @property
    def strides(self):
        out, step = [], self.dtype.np.itemsize
        for d in reversed(self.shape):
            out.append(step)
            step *= d
        return tuple(reversed(out))

    @property
    def data(self):
        return self

    def stride(self, dim=None):
        """Element strides of the C-contiguous layout (all dims, or ``dim``'s)."""
        out = [s // self.dtype.np.itemsize for s in self.strides]
        return out if dim is None else out[dim]

    def storage_offset(self):
        return 0

    def requires_grad_(self, requires_grad=True):
        if hasattr(self, "requires_grad"):
            self.requires_grad = bool(requires_grad)
        return self

    def is_signed(self):
        return self.dtype.np.kind in "if"

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
        """The distinct values (sorted) and optionally the inverse indices and counts. Eager only."""
        if dim is not None:
            raise ValueError("unique: dim is not supported")
        values, inverse, counts = np.unique(self.__array__(), return_inverse=True, return_counts=True)
        out = (Tensor(values),) + ((Tensor(inverse.reshape(self.shape).astype(np.int64)),) if return_inverse else ()) \
            + ((Tensor(counts.astype(np.int64)),) if return_counts else ())
        return out[0] if len(out) == 1 else out

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        """Collapse runs of equal values of the flattened tensor. Eager only."""
        if dim is not None:
            raise ValueError("unique_consecutive: dim is not supported")
        flat = self.__array__().reshape(-1)
        starts = np.flatnonzero(np.concatenate([[True], flat[1:] != flat[:-1]])) if flat.size else np.arange(0)
        out = (Tensor(flat[starts]),)
        if return_inverse:
            out += (Tensor((np.cumsum(np.isin(np.arange(flat.size), starts)) - 1).reshape(self.shape)),)
        if return_counts:
            out += (Tensor(np.diff(np.append(starts, flat.size)).astype(np.int64)),)
        return out[0] if len(out) == 1 else out


# Data-type conversions: method name -> dtype.
for _name, _dt in (("float", D.float32), ("half", D.float16), ("double", D.float64), ("int", D.int32),
                   ("long", D.int64), ("bool", D.bool_), ("short", D.int16), ("byte", D.uint8), ("char", D.int8)):
    setattr(DataMethods, _name, (lambda dt: lambda self: ops.cast(self, dt))(_dt))
del _name, _dt

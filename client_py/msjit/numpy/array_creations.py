"""Creation functions of ``mindspore.numpy``: concrete Tensors (graph constants under capture)."""
import numpy as np

from .. import dtype as D
from ..ops import operands
from ..tensor import Tensor

__all__ = ["array", "asarray", "zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like",
           "empty_like", "arange", "linspace", "eye", "identity"]

# MindSpore's numpy makes Python ints int32 and Python floats float32.
_DEFAULT = {"bool": D.bool_, "int": D.int32, "float": D.float32}


def _default_dtype(values):
    kind = np.asarray(values).dtype.kind
    return {"b": D.bool_, "i": D.int32, "u": D.int32, "f": D.float32}.get(kind)


def array(obj, dtype=None, copy=True, ndmin=0):
    """A new Tensor from a Tensor, a (nested) list or tuple, a number or a numpy array."""
    if operands.is_tensor(obj):
        out = Tensor(obj, dtype) if dtype is not None or copy else obj
    elif isinstance(obj, np.ndarray):
        out = Tensor(obj, dtype)
    else:
        out = Tensor(obj, dtype if dtype is not None else _default_dtype(obj))
    if out.ndim < ndmin:
        out = Tensor(out.asnumpy().reshape((1,) * (ndmin - out.ndim) + out.shape))
    return out


def asarray(a, dtype=None):
    """``a`` as a Tensor (a Tensor of the right dtype is returned as it is)."""
    return array(a, dtype, copy=False)


def _shape(shape):
    return (int(shape),) if D.scalar_kind(shape) == "int" else tuple(int(d) for d in shape)


def full(shape, fill_value, dtype=None):
    """A Tensor of ``shape`` filled with ``fill_value`` (a number, or an array broadcast to it)."""
    if dtype is None:
        kind = D.scalar_kind(fill_value)
        dtype = _DEFAULT[kind] if kind else operands.operand("Full", fill_value).dtype
    value = fill_value.asnumpy() if operands.is_tensor(fill_value) else fill_value
    return Tensor(np.broadcast_to(np.asarray(value, D.as_dtype(dtype).np), _shape(shape)), dtype)


def zeros(shape, dtype=D.float32):
    return full(shape, 0, dtype)


def ones(shape, dtype=D.float32):
    return full(shape, 1, dtype)


def empty(shape, dtype=D.float32):
    """Uninitialized in numpy; zeros here."""
    return full(shape, 0, dtype)


def full_like(a, fill_value, dtype=None, shape=None):
    a = operands.operand("FullLike", a)
    return full(a.shape if shape is None else shape, fill_value, a.dtype if dtype is None else dtype)


def zeros_like(a, dtype=None, shape=None):
    return full_like(a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None):
    return full_like(a, 1, dtype, shape)


def empty_like(prototype, dtype=None, shape=None):
    return full_like(prototype, 0, dtype, shape)


def arange(start, stop=None, step=None, dtype=None):
    """``[start, stop)`` by ``step``: int32 for integer arguments, float32 otherwise."""
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    values = np.arange(start, stop, step)
    return Tensor(values, dtype if dtype is not None else _default_dtype(values))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values (float32 unless ``dtype``); ``retstep`` also returns the step."""
    values, step = np.linspace(start, stop, int(num), endpoint, retstep=True, axis=axis)
    out = Tensor(values, D.float32 if dtype is None else dtype)
    return (out, step) if retstep else out


def eye(N, M=None, k=0, dtype=D.float32):
    """Ones on the ``k``-th diagonal of an ``N x M`` matrix."""
    return Tensor(np.eye(int(N), None if M is None else int(M), int(k)), dtype)


def identity(n, dtype=D.float32):
    return eye(n, dtype=dtype)

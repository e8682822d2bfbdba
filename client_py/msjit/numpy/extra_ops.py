"""More of ``mindspore.numpy``: NaN-aware reductions, norms, stacking helpers, bitwise and sign
functions, random arrays; thin calls of ``msjit.ops`` like the rest of the package."""
import math

import numpy as np

from .. import dtype as D
from .. import ops
from ..ops import operands
from .array_creations import asarray

__all__ = ["append", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_arrays", "column_stack", "dstack",
           "hsplit", "vsplit", "dsplit", "rollaxis", "rot90", "take", "take_along_axis", "meshgrid", "copy",
           "cbrt", "copysign", "heaviside", "signbit", "isposinf", "isneginf", "logaddexp2", "bitwise_and",
           "bitwise_or", "bitwise_xor", "bitwise_not", "invert", "divmod", "kron", "multi_dot", "matrix_power",
           "norm", "cov", "diff", "trapz", "nansum", "nanmean", "nanmax", "nanmin", "nanvar", "nanstd",
           "nancumsum", "sometrue", "array_equal", "array_equiv", "logspace", "geomspace", "tri", "rand",
           "randn", "randint", "promote_types", "result_type"]


def _t(name, a):
    return operands.operand(name, a)


def append(arr, values, axis=None):
    """``values`` joined after ``arr`` (flattened when ``axis`` is None)."""
    if axis is None:
        return ops.concat([ops.reshape(arr, (-1,)), ops.reshape(values, (-1,))], 0)
    return ops.concat([arr, values], axis)


def _at_least(ndim, arys, place):
    out = []
    for a in arys:
        t = _t("AtLeast", a)
        out.append(t if t.ndim >= ndim else ops.reshape(t, place(t.shape)))
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    return _at_least(1, arys, lambda s: (1,))


def atleast_2d(*arys):
    return _at_least(2, arys, lambda s: (1,) * (2 - len(s)) + s)


def atleast_3d(*arys):
    return _at_least(3, arys, lambda s: (1, 1, 1) if not s else (1,) + s + (1,) if len(s) == 1 else s + (1,))


def broadcast_arrays(*args):
    """The arguments broadcast to their common shape."""
    ts = [_t("BroadcastArrays", a) for a in args]
    shape = ()
    for t in ts:
        shape = np.broadcast_shapes(shape, t.shape)
    return [ops.broadcast_to(t, shape) for t in ts]


def column_stack(tup):
    """1-D arrays as columns, 2-D ones as they are, joined along axis 1."""
    return ops.concat([ops.reshape(t, (-1, 1)) if _t("ColumnStack", t).ndim < 2 else t for t in tup], 1)


def dstack(tup):
    return ops.concat([atleast_3d(t) for t in tup], 2)


def _split_along(axis):
    def op(x, indices_or_sections):
        from .array_ops import split
        return split(x, indices_or_sections, axis)
    return op


hsplit = _split_along(1)
vsplit = _split_along(0)
dsplit = _split_along(2)


def rollaxis(x, axis, start=0):
    """Move ``axis`` to before position ``start``."""
    t = _t("RollAxis", x)
    axis, start = axis % t.ndim, start + t.ndim if start < 0 else start
    return ops.moveaxis(t, axis, start - 1 if axis < start else start)


def rot90(a, k=1, axes=(0, 1)):
    return ops.rot90(a, k, axes)


def take(a, indices, axis=None, mode=None):
    """Entries at ``indices`` along ``axis`` (None: of the flattened array)."""
    return ops.gather(ops.reshape(a, (-1,)) if axis is None else a, indices, 0 if axis is None else axis)


def take_along_axis(arr, indices, axis):
    return ops.gather_elements(arr, axis, indices)


def meshgrid(*xi, sparse=False, indexing="xy"):
    if sparse:
        raise ValueError("meshgrid: sparse=True is not supported")
    return list(ops.meshgrid(*xi, indexing=indexing))


def copy(a):
    return ops.add(_t("Copy", a), 0) if _t("Copy", a).dtype is not D.bool_ else ops.logical_and(a, True)


def cbrt(x):
    """Real cube root (negative for negative inputs)."""
    t = operands.floating_operand("Cbrt", x)
    return ops.mul(ops.sign(t), ops.pow(ops.abs(t), 1 / 3))


copysign = ops.copysign
heaviside = ops.heaviside
signbit = ops.signbit
isposinf = ops.isposinf
isneginf = ops.isneginf
logaddexp2 = ops.logaddexp2
bitwise_and = ops.bitwise_and
bitwise_or = ops.bitwise_or
bitwise_xor = ops.bitwise_xor
bitwise_not = invert = ops.invert
kron = ops.kron


def divmod(x1, x2):  # noqa: A001
    """``(floor_divide(x1, x2), remainder(x1, x2))``."""
    return ops.floor_divide(x1, x2), ops.remainder(x1, x2)


def multi_dot(arrays):
    """Chained matrix product, left to right."""
    out = arrays[0]
    for a in arrays[1:]:
        out = ops.matmul(out, a)
    return out


matrix_power = ops.matrix_power


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002
    return ops.norm(x, ord, axis, keepdims)


def cov(m, y=None, rowvar=True, bias=False, ddof=None):
    t = _t("Cov", m)
    if y is not None:
        t = ops.concat([atleast_2d(t), atleast_2d(y)], 0)
    if not rowvar and t.ndim == 2:
        t = ops.transpose(t, (1, 0))
    return ops.cov(t, correction=ddof if ddof is not None else 0 if bias else 1)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    return ops.diff(a, n, axis, prepend, append)


def trapz(y, x=None, dx=1.0, axis=-1):
    return ops.trapz(y, x, dx=dx, dim=axis)


def nansum(a, axis=None, dtype=None, keepdims=False):
    return ops.nansum(a, axis, keepdims, dtype=dtype)


def nanmean(a, axis=None, dtype=None, keepdims=False):
    return ops.nanmean(a, axis, keepdims, dtype=dtype)


def _nan_extremum(name, reduce, fill):
    def op(a, axis=None, keepdims=False):
        t = _t(name, a)
        return reduce(ops.where(ops.isnan(t), fill, t), axis, keepdims)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"numpy's {name}: NaN entries are ignored."
    return op


nanmax = _nan_extremum("nanmax", ops.amax, -math.inf)
nanmin = _nan_extremum("nanmin", ops.amin, math.inf)


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """Variance of the non-NaN entries."""
    t = operands.floating_operand("NanVar", a)
    m = ops.nanmean(t, axis, True)
    d = ops.where(ops.isnan(t), 0.0, ops.sub(t, m))
    count = ops.sum(ops.cast(ops.logical_not(ops.isnan(t)), t.dtype), axis, keepdims)
    out = ops.div(ops.sum(ops.mul(d, d), axis, keepdims), ops.sub(count, ddof))
    return out if dtype is None else ops.cast(out, dtype)


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    return ops.sqrt(nanvar(a, axis, dtype, ddof, keepdims))


def nancumsum(a, axis=None, dtype=None):
    t = _t("NanCumSum", a)
    t = ops.where(ops.isnan(t), 0, t)
    return ops.cumsum(ops.reshape(t, (-1,)) if axis is None else t, 0 if axis is None else axis, dtype)


def sometrue(a, axis=None, keepdims=False):
    return ops.any(a, axis, keepdims)


def array_equal(a1, a2, equal_nan=False):
    """Python bool: same shape and elements (needs concrete values)."""
    x, y = _t("ArrayEqual", a1), _t("ArrayEqual", a2)
    if x.shape != y.shape:
        return False
    same = ops.equal(x, y)
    if equal_nan:
        same = ops.logical_or(same, ops.logical_and(ops.isnan(x), ops.isnan(y)))
    return bool(ops.all(same))


def array_equiv(a1, a2):
    """Python bool: equal after broadcasting."""
    x, y = _t("ArrayEquiv", a1), _t("ArrayEquiv", a2)
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return False
    return bool(ops.all(ops.equal(x, y)))


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    values = np.logspace(start, stop, int(num), endpoint, base, axis=axis)
    return asarray(values, D.float32 if dtype is None else dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    values = np.geomspace(start, stop, int(num), endpoint, axis=axis)
    return asarray(values, D.float32 if dtype is None else dtype)


def tri(N, M=None, k=0, dtype=D.float32):
    return asarray(np.tri(int(N), None if M is None else int(M), int(k)), dtype)


def rand(*shape, dtype=D.float32):
    return ops.rand(*shape, dtype=dtype)


def randn(*shape, dtype=D.float32):
    return ops.randn(*shape, dtype=dtype)


def randint(minval, maxval=None, shape=None, dtype=D.int32):
    if maxval is None:
        minval, maxval = 0, minval
    return ops.randint(minval, maxval, () if shape is None else shape, dtype=dtype)


def promote_types(type1, type2):
    return D.promote_types(D.as_dtype(type1), D.as_dtype(type2))


def result_type(*arrays_and_dtypes):
    out = None
    for a in arrays_and_dtypes:
        dt = a.dtype if operands.is_tensor(a) else D.as_dtype(a) if not D.scalar_kind(a) else \
            operands.operand("ResultType", a).dtype
        out = dt if out is None else D.promote_types(out, dt)
    return out

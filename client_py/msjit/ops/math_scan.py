"""Cumulative ops and sorting, decomposed over the core primitives (static shapes, no loops
over values).

- ``cumsum``: a MatMul with an upper-triangular ones matrix along the (transposed-last) axis.
- ``cumprod``, ``cummax``, ``cummin``: a Hillis-Steele scan, log2(n) elementwise steps, each
  combining the running values with a copy shifted by 2**k (identity values shifted in).
- ``sort``, ``argsort``, ``topk``, ``median``: ranks by pairwise comparison (O(n^2) per row,
  ties broken by position: a stable sort), then each rank's source position by a one-hot
  reduction and the values by one Gather of the flattened input; fine for moderate sizes.
"""
import numpy as np

from .. import dtype as D
from ..core import bind
from . import functional as F
from . import prims as P
from .math_reduce import slice_last
from .operands import normalize_axes, operand

__all__ = ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "sort", "argsort", "topk", "median"]


def _c(value, like):
    return np.asarray(value, like.dtype.np)


def _cast(x, dt):
    return x if x.dtype is dt else bind(P.Cast, x, to=dt)


def _to_last(x, a):
    """Swap axis ``a`` with the last one (its own inverse)."""
    if a == x.ndim - 1:
        return x
    perm = list(range(x.ndim))
    perm[a], perm[-1] = perm[-1], perm[a]
    return bind(P.Transpose, x, perm=tuple(perm))


def _axis_last(name, input, axis, dtype=None):
    """(the input's shape, the normalized axis, the input with that axis last); 0-d as 1-d."""
    x = operand(name, input)
    shape = x.shape
    if dtype is not None:
        x = F.cast(x, dtype)
    if x.ndim == 0:
        x = F.reshape(x, (1,))
    a = normalize_axes(name, axis, x.ndim)[0]
    return shape, a, _to_last(x, a)


def cumsum(x, axis, dtype=None):
    """Running sum along ``axis``: ``y[..., j] = sum(x[..., :j+1])`` (one MatMul)."""
    shape, a, y = _axis_last("CumSum", x, axis, dtype)
    if y.dtype is D.bool_:
        y = _cast(y, D.int64)
    n = y.shape[-1]
    z = F.batch_matmul(F.reshape(y, (-1, n)), np.triu(np.ones((n, n), y.dtype.np)), name="CumSum")
    return F.reshape(_to_last(F.reshape(z, y.shape), a), shape)


def _scan_last(y, combine, identity):
    """Inclusive scan of the last axis of ``y`` with ``combine(running, shifted)``."""
    n, k = y.shape[-1], 1
    while k < n:
        pad = bind(P.BroadcastTo, _c(identity, y), shape=y.shape[:-1] + (k,))
        shifted = bind(P.Concat, pad, slice_last(y, 0, n - k), axis=y.ndim - 1)
        y = combine(y, shifted)
        k *= 2
    return y


def cumprod(input, dim, dtype=None):
    """Running product along ``dim``."""
    shape, a, y = _axis_last("CumProd", input, dim, dtype)
    if not y.dtype.is_floating:
        y = _cast(y, D.int64)                          # as MindSpore: integer products are int64
    y = _scan_last(y, lambda u, v: bind(P.Mul, u, v), 1)
    return F.reshape(_to_last(y, a), shape)


def _cumulative_extremum(name, prim, input, axis, index_dtype):
    shape, a, y = _axis_last(name, input, axis)
    if y.dtype.is_floating:
        worst = -np.inf if prim is P.Maximum else np.inf
    else:
        info = np.iinfo(y.dtype.np)
        worst = info.min if prim is P.Maximum else info.max
    values = _scan_last(y, lambda u, v: bind(prim, u, v), worst)
    n = y.shape[-1]
    # index: the last i <= j with y[i] == values[j]
    hit = bind(P.Equal, F.reshape(y, y.shape + (1,)), F.reshape(values, values.shape[:-1] + (1, n)))
    hit = bind(P.LogicalAnd, hit, np.triu(np.ones((n, n), bool)))
    iota = np.arange(n, dtype=np.int64).reshape(n, 1)
    idx = bind(P.ReduceMax, bind(P.Select, hit, iota, np.asarray(-1, np.int64)), axes=(y.ndim - 1,),
               keep_dims=False)
    return (F.reshape(_to_last(values, a), shape),
            F.reshape(_to_last(_cast(idx, index_dtype), a), shape))


def cummax(input, axis):
    """``(values, indices)``: running maximum along ``axis`` and the (last) position of it (int64)."""
    return _cumulative_extremum("Cummax", P.Maximum, input, axis, D.int64)


def cummin(input, axis):
    """``(values, indices)``: running minimum along ``axis`` and the (last) position of it (int32)."""
    return _cumulative_extremum("Cummin", P.Minimum, input, axis, D.int32)


def logcumsumexp(input, axis):
    """``log(cumsum(exp(input)))`` along ``axis``, shifted by the (constant) maximum of each row."""
    x = F.cast(operand("LogCumSumExp", input), D.float32) if not operand("LogCumSumExp", input).dtype.is_floating \
        else operand("LogCumSumExp", input)
    a = normalize_axes("LogCumSumExp", axis, max(x.ndim, 1))[0]
    if x.ndim == 0:
        return x
    m = bind(P.ReduceMax, x, axes=(a,), keep_dims=True)
    m = bind(P.StopGradient, bind(P.Select, bind(P.Less, bind(P.Abs, m), _c(np.inf, m)), m, _c(0, m)))
    return bind(P.Add, bind(P.Log, cumsum(bind(P.Exp, bind(P.Sub, x, m)), a)), m)


# ---- sorting ---------------------------------------------------------------------------------------

def _order_last(y, descending):
    """Source positions (int64, shape of ``y``) of the stably sorted last axis."""
    n = y.shape[-1]
    if y.dtype is D.bool_:
        y = _cast(y, D.int32)
    yi, yj = F.reshape(y, y.shape + (1,)), F.reshape(y, y.shape[:-1] + (1, n))
    first = bind(P.Greater if descending else P.Less, yj, yi)          # y[j] sorts before y[i]
    tie = bind(P.LogicalAnd, bind(P.Equal, yj, yi), np.tril(np.ones((n, n), bool), -1))
    rank = bind(P.ReduceSum, _cast(bind(P.LogicalOr, first, tie), D.int64), axes=(y.ndim,), keep_dims=False)
    hot = bind(P.Equal, F.reshape(rank, rank.shape + (1,)), np.arange(n, dtype=np.int64))    # [.., i, r]
    iota = np.arange(n, dtype=np.int64).reshape(n, 1)
    return bind(P.ReduceSum, bind(P.Select, hot, iota, np.asarray(0, np.int64)), axes=(y.ndim - 1,),
                keep_dims=False)


def _take_last(y, idx):
    """``y[..., idx[..., k]]`` row by row: one Gather of the flattened ``y``."""
    n, rows = y.shape[-1], int(np.prod(y.shape[:-1], dtype=np.int64))
    offsets = (np.arange(rows, dtype=np.int64) * n).reshape(y.shape[:-1] + (1,))
    flat = bind(P.Add, idx, offsets) if rows > 1 else idx
    return bind(P.Gather, F.reshape(y, (-1,)), flat, axis=0)


def _sorted(name, input, axis, descending, k=None):
    """(values, int64 positions) of the first ``k`` sorted entries along ``axis``."""
    shape, a, y = _axis_last(name, input, axis)
    idx = _order_last(y, descending)
    if k is not None:
        if not 0 <= k <= y.shape[-1]:
            raise ValueError(f"{name}: k={k} is out of range for axis {a} of size {y.shape[-1]}")
        idx = slice_last(idx, 0, k)
    values = _take_last(y, idx)
    if k is None:
        return F.reshape(_to_last(values, a), shape), F.reshape(_to_last(idx, a), shape)
    return _to_last(values, a), _to_last(idx, a)


def sort(input_x, axis=-1, descending=False):
    """``(values, indices)`` sorted along ``axis`` (stable: equal values keep their order)."""
    values, idx = _sorted("Sort", input_x, axis, descending)
    return values, _cast(idx, D.int32)


def argsort(input, axis=-1, descending=False):
    """Positions (int32) that sort ``input`` along ``axis`` (stable)."""
    return sort(input, axis, descending)[1]


def topk(input, k, dim=None, largest=True, sorted=True):
    """``(values, indices)`` of the ``k`` largest (or smallest) entries along ``dim`` (None:
    the last axis), in sorted order; ties keep the lower position first."""
    values, idx = _sorted("TopK", input, -1 if dim is None else dim, largest, int(k))
    return values, _cast(idx, D.int32)


def median(input, axis=-1, keepdims=False):
    """``(values, indices)``: the lower median along ``axis`` and its position (int64)."""
    x = operand("Median", input)
    if x.ndim == 0:
        values, idx = median(F.reshape(x, (1,)))
        return F.reshape(values, ()), F.reshape(idx, ())
    a = normalize_axes("Median", axis, x.ndim)[0]
    n = x.shape[a]
    values, idx = _sorted("Median", x, a, False)
    begin = tuple((n - 1) // 2 if i == a else 0 for i in range(x.ndim))
    end = tuple((n - 1) // 2 + 1 if i == a else d for i, d in enumerate(x.shape))
    pick = [bind(P.StridedSlice, t, begin=begin, end=end, strides=(1,) * x.ndim) for t in (values, idx)]
    shape = x.shape[:a] + ((1,) if keepdims else ()) + x.shape[a + 1:]
    return F.reshape(pick[0], shape), F.reshape(pick[1], shape)

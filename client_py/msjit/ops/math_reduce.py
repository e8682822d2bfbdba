"""Reductions beyond sum/mean/amax/amin, decomposed over the core primitives.

- ``prod``: no ReduceProd primitive; the reduced axes are moved last and folded by halving
  (log2(n) elementwise Muls), which keeps zeros, signs and the gradient exact.
- ``argmax``/``argmin``: reduce the extremum, compare, Select an iota (n elsewhere), reduce min:
  the first position, as numpy (NaN counts as the extremum, as numpy's argmax).
- ``all``/``any``: ReduceMin/ReduceMax of the operand as int32.
"""
import math

import numpy as np

from .. import dtype as D
from ..core import bind
from . import functional as F
from . import prims as P
from .operands import floating_operand, normalize_axes, operand

__all__ = ["prod", "max", "min", "argmax", "argmin", "all", "any", "std", "var", "std_mean", "var_mean",
           "aminmax", "logsumexp", "norm", "vector_norm", "matrix_norm", "count_nonzero", "nansum", "nanmean", "diff", "trapz",
           "cov"]


def _c(value, like):
    return np.asarray(value, like.dtype.np)


def _cast(x, dt):
    return x if x.dtype is dt else bind(P.Cast, x, to=dt)


def _count(shape, axes):
    return math.prod(shape[a] for a in (axes or range(len(shape))))


def _keep(x, axes, keepdims, shape):
    """A result reduced with keep_dims=True reshaped as a reduction with ``keepdims``."""
    return x if keepdims else F.reshape(x, P.reduced_shape(shape, axes, False))


def move_last(x, axes):
    """``x`` with ``axes`` (sorted, empty = all) transposed to the end and merged into one:
    shape ``kept + (n,)``."""
    axes = axes or tuple(range(x.ndim))
    kept = tuple(i for i in range(x.ndim) if i not in axes)
    perm = kept + tuple(axes)
    if perm != tuple(range(x.ndim)):
        x = bind(P.Transpose, x, perm=perm)
    return F.reshape(x, tuple(x.shape[:len(kept)]) + (-1,))


def slice_last(x, begin, end):
    """``x[..., begin:end]`` (StridedSlice)."""
    return bind(P.StridedSlice, x, begin=(0,) * (x.ndim - 1) + (begin,), end=x.shape[:-1] + (end,),
                strides=(1,) * x.ndim)


def fold_last(x, prim, identity):
    """Reduce the last axis with the binary ``prim`` by halving; ``identity`` for an empty axis."""
    n = x.shape[-1]
    if n == 0:
        return bind(P.BroadcastTo, _c(identity, x), shape=x.shape[:-1])
    while n > 1:
        h = n // 2
        y = bind(prim, slice_last(x, 0, h), slice_last(x, h, 2 * h))
        if n % 2:
            y = bind(P.Concat, y, slice_last(x, 2 * h, n), axis=x.ndim - 1)
        x, n = y, n - h
    return F.reshape(x, x.shape[:-1])


def prod(input, axis=None, keep_dims=False, dtype=None):
    """Product over ``axis`` (None = all); integer and bool inputs multiply as int64."""
    x = operand("ReduceProd", input)
    if dtype is not None:
        x = F.cast(x, dtype)
    elif not x.dtype.is_floating:
        x = _cast(x, D.int64)
    axes = normalize_axes("ReduceProd", axis, x.ndim)
    y = fold_last(move_last(x, axes), P.Mul, 1)
    return F.reshape(y, P.reduced_shape(x.shape, axes, bool(keep_dims)))


# ---- extrema with their positions ---------------------------------------------------------------

def _arg_extremum(name, prim, input, axis, keepdims, out_dtype):
    x = operand(name, input)
    if x.dtype is D.bool_:
        x = _cast(x, D.int32)
    shape = x.shape
    if axis is None:
        x, a = F.reshape(x, (-1,)), 0
    else:
        a = normalize_axes(name, axis, x.ndim)[0]
    n = x.shape[a]
    if n == 0:
        raise ValueError(f"{name}: cannot reduce the empty axis {a} of shape {shape}")
    m = bind(prim, x, axes=(a,), keep_dims=True)
    hit = bind(P.Equal, x, m)
    if x.dtype.is_floating:
        hit = bind(P.LogicalOr, hit, bind(P.NotEqual, x, x))      # NaN wins, as in numpy
    iota = np.arange(n, dtype=np.int64).reshape((n,) + (1,) * (x.ndim - a - 1))
    idx = bind(P.ReduceMin, bind(P.Select, hit, iota, np.asarray(n, np.int64)), axes=(a,), keep_dims=True)
    idx = _cast(idx, out_dtype)
    if axis is None:
        return F.reshape(idx, (1,) * len(shape) if keepdims else ())
    return idx if keepdims else F.reshape(idx, x.shape[:a] + x.shape[a + 1:])


def argmax(input, dim=None, keepdim=False):
    """Index (int64) of the first maximum along ``dim`` (None: of the flattened input)."""
    return _arg_extremum("Argmax", P.ReduceMax, input, dim, keepdim, D.int64)


def argmin(input, axis=None, keepdims=False):
    """Index (int32, as MindSpore) of the first minimum along ``axis`` (None: flattened)."""
    return _arg_extremum("Argmin", P.ReduceMin, input, axis, keepdims, D.int32)


def _extremum_with_index(name, reduce, input, axis, keepdims, initial, where):
    if where is not None:
        raise ValueError(f"{name}: the 'where' argument is not supported")
    x = operand(name, input)
    values = reduce(x, axis, keepdims)
    if initial is not None:
        values = (F.maximum if name == "Max" else F.minimum)(values, initial)
    return values, _arg_extremum(name, P.ReduceMax if name == "Max" else P.ReduceMin, x, axis, keepdims,
                                 D.int64)


def max(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001
    """``(values, indices)``: the maximum along ``axis`` and its first position (int64)."""
    return _extremum_with_index("Max", F.amax, input, axis, keepdims, initial, where)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001
    """``(values, indices)``: the minimum along ``axis`` and its first position (int64)."""
    return _extremum_with_index("Min", F.amin, input, axis, keepdims, initial, where)


def aminmax(input, *, axis=0, keepdims=False):
    """``(amin, amax)`` along ``axis``."""
    return F.amin(input, axis, keepdims), F.amax(input, axis, keepdims)


def _boolean(name, prim):
    def op(input, axis=None, keep_dims=False):
        x = _cast(F.cast(operand(name, input), D.bool_), D.int32)
        y = bind(prim, x, axes=normalize_axes(name, axis, x.ndim), keep_dims=bool(keep_dims))
        return _cast(y, D.bool_)
    op.__name__ = op.__qualname__ = name.lower()
    op.__doc__ = f"Reduce{name}: whether {name.lower()} elements along ``axis`` are true (None = all)."
    return op


all = _boolean("All", P.ReduceMin)  # noqa: A001
any = _boolean("Any", P.ReduceMax)  # noqa: A001


def count_nonzero(x, axis=(), keep_dims=False, dtype=D.int32):
    """Number of non-zero elements along ``axis`` (``()`` = all), as ``dtype``."""
    x = operand("CountNonZero", x)
    nz = _cast(bind(P.NotEqual, x, _c(0, x)), D.int32)
    y = bind(P.ReduceSum, nz, axes=normalize_axes("CountNonZero", axis, x.ndim), keep_dims=bool(keep_dims))
    return F.cast(y, dtype)


# ---- moments --------------------------------------------------------------------------------------

def var_mean(input, axis=None, ddof=0, keepdims=False):
    """``(variance, mean)`` along ``axis``; the variance divides by ``n - ddof``."""
    x = floating_operand("Var", input)
    axes = normalize_axes("Var", axis, x.ndim)
    m = bind(P.ReduceMean, x, axes=axes, keep_dims=True)
    d = bind(P.Sub, x, m)
    n = _count(x.shape, axes)
    s = bind(P.ReduceSum, bind(P.Mul, d, d), axes=axes, keep_dims=bool(keepdims))
    v = bind(P.Mul, s, _c(1 / (n - int(ddof)) if n > ddof else np.nan, s))
    return v, _keep(m, axes, keepdims, x.shape)


def var(input, axis=None, ddof=0, keepdims=False):
    """Variance along ``axis`` (None = all), dividing by ``n - ddof``."""
    return var_mean(input, axis, ddof, keepdims)[0]


def std_mean(input, axis=None, ddof=0, keepdims=False):
    """``(standard deviation, mean)`` along ``axis``."""
    v, m = var_mean(input, axis, ddof, keepdims)
    return bind(P.Sqrt, v), m


def std(input, axis=None, ddof=0, keepdims=False):
    """Standard deviation along ``axis`` (None = all), dividing by ``n - ddof``."""
    return bind(P.Sqrt, var(input, axis, ddof, keepdims))


def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input)))`` along ``dim``, shifted by the (constant) maximum."""
    x = floating_operand("LogSumExp", input)
    axes = normalize_axes("LogSumExp", dim, x.ndim)
    m = bind(P.ReduceMax, x, axes=axes, keep_dims=True)
    m = bind(P.StopGradient, bind(P.Select, bind(P.Less, bind(P.Abs, m), _c(np.inf, m)), m, _c(0, m)))
    s = bind(P.ReduceSum, bind(P.Exp, bind(P.Sub, x, m)), axes=axes, keep_dims=True)
    return _keep(bind(P.Add, bind(P.Log, s), m), axes, keepdim, x.shape)


# ---- norms ----------------------------------------------------------------------------------------

def _vector_norm(x, ord, axes, keepdim):
    kw = dict(axes=axes, keep_dims=bool(keepdim))
    if ord is None or ord == 2:
        return bind(P.Sqrt, bind(P.ReduceSum, bind(P.Mul, x, x), **kw))
    a = bind(P.Abs, x)
    if ord == math.inf:
        return bind(P.ReduceMax, a, **kw)
    if ord == -math.inf:
        return bind(P.ReduceMin, a, **kw)
    if ord == 0:
        return bind(P.ReduceSum, _cast(bind(P.NotEqual, x, _c(0, x)), x.dtype), **kw)
    if ord == 1:
        return bind(P.ReduceSum, a, **kw)
    s = bind(P.ReduceSum, bind(P.Pow, a, _c(ord, a)), **kw)
    return bind(P.Pow, s, _c(1 / ord, s))


def _matrix_norm(x, ord, axes, keepdim):
    if ord in (None, "fro"):
        return _vector_norm(x, None, tuple(sorted(axes)), keepdim)
    if ord not in (1, -1, math.inf, -math.inf):
        raise ValueError(f"Norm: matrix norm ord={ord!r} is not supported (supported: 'fro', 1, -1, inf, -inf)")
    rows, cols = axes if ord in (1, -1) else axes[::-1]
    s = bind(P.ReduceSum, bind(P.Abs, x), axes=(rows,), keep_dims=True)
    y = bind(P.ReduceMax if ord > 0 else P.ReduceMin, s, axes=(cols,), keep_dims=True)
    return _keep(y, tuple(sorted(axes)), keepdim, x.shape)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """Vector or matrix norm, as ``mindspore.ops.norm``: over ``dim`` (int: vector, 2-tuple:
    matrix); with ``dim`` None, the 2-norm of all elements, or for ``ord`` given the vector
    norm of a 1-D and the matrix norm of a 2-D input."""
    x = floating_operand("Norm", A) if dtype is None else F.cast(operand("Norm", A), dtype)
    if dim is None:
        if ord is None:
            return _vector_norm(x, None, (), keepdim)
        dim = tuple(range(x.ndim))
        if len(dim) not in (1, 2):
            raise ValueError(f"Norm: ord={ord!r} with dim=None needs a 1-D or 2-D input, got shape {x.shape}")
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    axes = tuple(normalize_axes("Norm", d, x.ndim)[0] for d in dims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdim)
    if len(axes) != 1 or isinstance(ord, str):
        raise ValueError(f"Norm: dim must be an int or a pair of ints, got {dim!r} (ord={ord!r})")
    return _vector_norm(x, ord, axes, keepdim)


def vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    """Vector norm over ``axis`` (None: all elements, flattened)."""
    t = floating_operand("VectorNorm", x) if dtype is None else F.cast(operand("VectorNorm", x), dtype)
    return _vector_norm(t, ord, normalize_axes("VectorNorm", axis, t.ndim), keepdims)


def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dtype=None):  # noqa: A002
    """Matrix norm of the planes ``axis`` (a pair of axes)."""
    return norm(A, ord, tuple(axis), keepdims, dtype=dtype)


def _nan_zeroed(name, input):
    x = operand(name, input)
    return bind(P.Select, bind(P.NotEqual, x, x), _c(0, x), x) if x.dtype.is_floating else x


def nansum(input, axis=None, keepdims=False, *, dtype=None):
    """Sum treating NaN as 0."""
    return F.sum(_nan_zeroed("NanSum", input), axis, keepdims, dtype=dtype)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):
    """Mean of the non-NaN elements."""
    x = operand("NanMean", input)
    if dtype is not None:
        x = F.cast(x, dtype)
    x = floating_operand("NanMean", x)
    count = F.sum(_cast(bind(P.Equal, x, x), x.dtype), axis, keepdims)
    return bind(P.Div, nansum(x, axis, keepdims), count)


def diff(x, n=1, axis=-1, prepend=None, append=None):
    """``n``-th forward difference along ``axis`` (after joining ``prepend`` and ``append``)."""
    t = operand("Diff", x)
    a = normalize_axes("Diff", axis, t.ndim)[0]
    parts = [p for p in (prepend, t, append) if p is not None]
    if len(parts) > 1:
        from .array_ops import concat
        t = concat(parts, a)
    for _ in range(int(n)):
        size = t.shape[a]
        if size == 0:
            break
        head, tail = (_along(t, a, b, e) for b, e in ((1, size), (0, size - 1)))
        t = bind(P.NotEqual if t.dtype is D.bool_ else P.Sub, head, tail)
    return t


def _along(x, a, begin, end):
    return bind(P.StridedSlice, x, begin=tuple(begin if i == a else 0 for i in range(x.ndim)),
                end=tuple(end if i == a else d for i, d in enumerate(x.shape)), strides=(1,) * x.ndim)


def trapz(y, x=None, *, dx=1.0, dim=-1):
    """Trapezoidal integral of ``y`` along ``dim`` (sample points ``x`` or spacing ``dx``)."""
    t = floating_operand("Trapz", y)
    a = normalize_axes("Trapz", dim, t.ndim)[0]
    n = t.shape[a]
    mid = bind(P.Add, _along(t, a, 1, n), _along(t, a, 0, n - 1))
    if x is None:
        return bind(P.Mul, bind(P.ReduceSum, mid, axes=(a,), keep_dims=False), _c(0.5 * dx, t))
    steps = diff(F.cast(operand("Trapz", x), t.dtype), axis=-1 if operand("Trapz", x).ndim == 1 else a)
    if steps.ndim == 1 and t.ndim > 1:
        steps = F.reshape(steps, tuple(-1 if i == a else 1 for i in range(t.ndim)))
    return bind(P.Mul, F.sum(F.mul(mid, steps), a), _c(0.5, t))


def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance of the variables in the rows of ``input`` (observations in the columns)."""
    if fweights is not None or aweights is not None:
        raise ValueError("Cov: fweights and aweights are not supported")
    x = floating_operand("Cov", input)
    if x.ndim > 2:
        raise ValueError(f"Cov: expected a 1-D or 2-D input, got shape {x.shape}")
    x = F.reshape(x, (1, -1)) if x.ndim < 2 else x
    d = bind(P.Sub, x, bind(P.ReduceMean, x, axes=(1,), keep_dims=True))
    c = bind(P.MatMul, d, d, transpose_b=True)
    c = bind(P.Mul, c, _c(1 / (x.shape[1] - correction) if x.shape[1] > correction else np.nan, c))
    return F.reshape(c, ()) if operand("Cov", input).ndim < 2 else c

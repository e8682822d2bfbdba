"""Math functions of ``mindspore.numpy``: numpy's argument names over the ``msjit.ops``
functions, each with numpy's optional result ``dtype``."""
from .. import dtype as D
from .. import ops
from ..ops import operands

__all__ = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder", "mod", "fmod",
           "power", "float_power", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "square",
           "reciprocal", "negative", "positive", "abs", "absolute", "fabs", "sign", "maximum", "minimum",
           "fmax", "fmin", "clip", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh",
           "tanh", "arcsinh", "arccosh", "arctanh", "floor", "ceil", "trunc", "fix", "rint", "around", "round",
           "hypot", "logaddexp", "deg2rad", "rad2deg", "radians", "degrees", "nan_to_num", "dot", "matmul",
           "inner", "outer", "tensordot", "vdot", "trace", "cross", "sum", "mean", "amax", "max", "amin", "min",
           "argmax", "argmin", "std", "var", "cumsum", "cumprod", "prod", "ptp", "average", "count_nonzero",
           "where", "lerp"]


def _cast(x, dtype):
    return x if dtype is None else ops.cast(x, dtype)


def _elementwise(name, fn):
    """numpy's ``name(x1[, x2], dtype=None)`` over the ops function ``fn``."""
    def op(*args, dtype=None):
        return _cast(fn(*args), dtype)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"numpy's {name} (``msjit.ops.{fn.__name__}``); ``dtype`` casts the result."
    return op


_TABLE = {
    "add": ops.add, "subtract": ops.sub, "multiply": ops.mul, "divide": ops.div, "true_divide": ops.div,
    "floor_divide": ops.floor_divide, "remainder": ops.remainder, "mod": ops.remainder, "fmod": ops.fmod,
    "exp": ops.exp, "exp2": ops.exp2, "expm1": ops.expm1, "log": ops.log, "log2": ops.log2,
    "log10": ops.log10, "log1p": ops.log1p, "sqrt": ops.sqrt, "square": ops.square, "reciprocal": ops.reciprocal,
    "negative": ops.neg, "positive": ops.positive, "abs": ops.abs, "absolute": ops.abs, "fabs": ops.abs,
    "sign": ops.sign, "maximum": ops.maximum, "minimum": ops.minimum, "fmax": ops.maximum, "fmin": ops.minimum,
    "sin": ops.sin, "cos": ops.cos, "tan": ops.tan, "arcsin": ops.asin, "arccos": ops.acos, "arctan": ops.atan,
    "arctan2": ops.atan2, "sinh": ops.sinh, "cosh": ops.cosh, "tanh": ops.tanh, "arcsinh": ops.asinh,
    "arccosh": ops.acosh, "arctanh": ops.atanh, "floor": ops.floor, "ceil": ops.ceil, "trunc": ops.trunc,
    "fix": ops.trunc, "rint": ops.round, "hypot": ops.hypot, "logaddexp": ops.logaddexp,
    "deg2rad": ops.deg2rad, "rad2deg": ops.rad2deg, "radians": ops.deg2rad, "degrees": ops.rad2deg,
    "matmul": ops.matmul,
}
globals().update({name: _elementwise(name, fn) for name, fn in _TABLE.items()})


def power(x1, x2, dtype=None):
    """``x1 ** x2``; integer operands keep their integer type (as numpy)."""
    x, y = operands.binary_operands("Pow", x1, x2)
    out = ops.pow(x, y)
    return _cast(out if x.dtype.is_floating else ops.cast(out, x.dtype), dtype)


def float_power(x1, x2, dtype=None):
    """``x1 ** x2`` in float64."""
    return _cast(ops.pow(ops.cast(operands.operand("Pow", x1), D.float64), x2), dtype)


def clip(x, xmin, xmax, dtype=None):
    return _cast(ops.clamp(x, xmin, xmax), dtype)


def around(a, decimals=0):
    return ops.round(a, decimals=decimals)


round = around  # noqa: A001


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    return ops.nan_to_num(x, nan, posinf, neginf)


def lerp(start, end, weight):
    return ops.lerp(start, end, weight)


def dot(a, b):
    return ops.dot(a, b)


def inner(a, b):
    return ops.inner(a, b)


def outer(a, b):
    """Outer product of the flattened operands."""
    return ops.outer(ops.reshape(a, (-1,)), ops.reshape(b, (-1,)))


def tensordot(a, b, axes=2):
    return ops.tensor_dot(a, b, axes)


def vdot(a, b):
    """Dot product of the flattened operands."""
    return ops.inner(ops.reshape(a, (-1,)), ops.reshape(b, (-1,)))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    if (offset, axis1, axis2) != (0, 0, 1):
        raise ValueError("trace: only offset=0, axis1=0, axis2=1 are supported")
    return _cast(ops.trace(a), dtype)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if (axisa, axisb, axisc) != (-1, -1, -1):
        raise ValueError("cross: axisa/axisb/axisc are not supported, use axis")
    return ops.cross(a, b, -1 if axis is None else axis)


# ---- reductions -----------------------------------------------------------------------------------

def sum(a, axis=None, dtype=None, keepdims=False, initial=None):  # noqa: A001
    total = ops.sum(a, axis, keepdims, dtype=dtype)
    return total if initial is None else ops.add(total, initial)


def mean(a, axis=None, keepdims=False, dtype=None):
    return _cast(ops.mean(a, axis, keepdims), dtype)


def _extremum(reduce, pick):
    def op(a, axis=None, keepdims=False, initial=None, where=True):
        if where is not True:
            raise ValueError(f"{reduce.__name__}: the 'where' argument is not supported")
        out = reduce(a, axis, keepdims)
        return out if initial is None else pick(out, initial)
    op.__name__ = op.__qualname__ = reduce.__name__
    op.__doc__ = f"numpy's {reduce.__name__} (``initial`` bounds the result)."
    return op


amax = max = _extremum(ops.amax, ops.maximum)  # noqa: A001
amin = min = _extremum(ops.amin, ops.minimum)  # noqa: A001


def ptp(x, axis=None, keepdims=False):
    """Range ``max - min`` along ``axis``."""
    return ops.sub(ops.amax(x, axis, keepdims), ops.amin(x, axis, keepdims))


def argmax(a, axis=None):
    return ops.argmax(a, axis)


def argmin(a, axis=None):
    return ops.argmin(a, axis)


def std(x, axis=None, ddof=0, keepdims=False):
    return ops.std(x, axis, ddof, keepdims)


def var(x, axis=None, ddof=0, keepdims=False):
    return ops.var(x, axis, ddof, keepdims)


def average(x, axis=None, weights=None, returned=False):
    """Mean, or weighted mean along ``axis`` (``weights`` 1-D along it, or of x's shape)."""
    if weights is None:
        avg, total = ops.mean(x, axis), None
    else:
        x, w = operands.binary_operands("Average", x, weights, floating=True)
        if w.ndim == 1 and x.ndim > 1:
            a = operands.normalize_axes("Average", axis, x.ndim)[0]
            w = ops.reshape(w, tuple(-1 if i == a else 1 for i in range(x.ndim)))
        total = ops.sum(ops.broadcast_to(w, x.shape), axis)
        avg = ops.div(ops.sum(ops.mul(x, w), axis), total)
    if returned:
        return avg, (ops.full_like(avg, x.size // avg.size if avg.size else 0) if total is None else total)
    return avg


def cumsum(a, axis=None, dtype=None):
    """Running sum along ``axis`` (None: of the flattened array)."""
    return ops.cumsum(ops.reshape(a, (-1,)) if axis is None else a, 0 if axis is None else axis, dtype)


def cumprod(a, axis=None, dtype=None):
    return ops.cumprod(ops.reshape(a, (-1,)) if axis is None else a, 0 if axis is None else axis, dtype)


def prod(a, axis=None, keepdims=False, dtype=None):
    return ops.prod(a, axis, keepdims, dtype)


def count_nonzero(x, axis=None, keepdims=False):
    return ops.count_nonzero(x, () if axis is None else axis, keepdims)


def where(condition, x=None, y=None):
    """``x`` where ``condition`` else ``y`` (both needed: the one-argument form's result shape
    depends on values)."""
    if x is None or y is None:
        raise ValueError("where: x and y must both be given (nonzero positions are not supported)")
    if D.scalar_kind(x) and D.scalar_kind(y):          # two Python numbers: numpy's defaults (int32)
        from .array_creations import asarray
        x, y = asarray(x), asarray(y)
    return ops.where(condition, x, y)

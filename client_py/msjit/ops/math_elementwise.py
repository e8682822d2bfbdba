"""Elementwise math with MindSpore's names, decomposed over the core primitives.

None of rounding, the inverse trigonometric or hyperbolic functions is a primitive:

- ``trunc`` is a Cast to int64 and back, guarded by a Select for values that are already
  integral in their float type (|x| >= 2**mantissa bits) and for NaN/inf; floor, ceil, round,
  fmod and remainder build on it. Their gradient is 0 (a Cast through an integer carries none).
- ``atan`` is Cephes' rational approximation after the range reductions x > tan(3pi/8) ->
  -1/x and x > 0.66 -> (x-1)/(x+1), chosen by Select *before* one polynomial evaluation (so no
  branch divides by zero): accurate to float64 rounding, and its derivative through autodiff
  to ~1e-15. atan2, asin, acos derive from it.
- ``log1p`` and ``expm1`` use Kahan's corrections (log(u) * x / (u - 1) with u = 1 + x, and
  (u - 1) * x / log(u) with u = exp(x)) that keep full relative accuracy near 0.
"""
import math

import numpy as np

from .. import dtype as D
from ..core import bind
from . import functional as F
from . import prims as P
from .operands import binary_operands, floating_operand, operand

__all__ = ["inv", "floor_divide", "floor_div", "remainder", "fmod", "floor", "ceil", "round", "trunc", "sign",
           "reciprocal", "log1p", "expm1", "log2", "log10", "exp2", "sinh", "cosh", "tan", "asin", "arcsin",
           "acos", "arccos", "atan", "arctan", "atan2", "arctan2", "asinh", "arcsinh", "acosh", "arccosh",
           "atanh", "arctanh", "erfc", "divide", "true_divide", "subtract", "multiply", "hypot", "xlogy",
           "logaddexp", "negative", "positive", "absolute", "eq", "deg2rad", "rad2deg", "frac"]

_MANTISSA = {D.float16: 10, D.float32: 23, D.float64: 52}


def _c(value, like):
    """A 0-d constant of ``like``'s dtype."""
    return np.asarray(value, like.dtype.np)


def _add(a, b):
    return bind(P.Add, a, b)


def _sub(a, b):
    return bind(P.Sub, a, b)


def _mul(a, b):
    return bind(P.Mul, a, b)


def _div(a, b):
    return bind(P.Div, a, b)


def _where(cond, a, b):
    return bind(P.Select, cond, a, b)


def _cast(x, dt):
    return x if x.dtype is dt else bind(P.Cast, x, to=dt)


def _signum(x):
    """+1 where x >= 0, -1 elsewhere (a constant for autodiff: it comes from a comparison)."""
    return _where(bind(P.Less, x, _c(0, x)), _c(-1, x), _c(1, x))


def _floating_unary(name, fn, doc):
    """A public unary op over floats (integers as float32) from a helper over float tensors."""
    def op(input):
        return fn(floating_operand(name, input))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


# ---- rounding --------------------------------------------------------------------------------------

def _trunc_parts(x):
    """(trunc(x), where x may have a fraction: False for NaN, inf and already integral values)."""
    fractional = bind(P.Less, bind(P.Abs, x), _c(2.0 ** _MANTISSA[x.dtype], x))
    t = _cast(_cast(_where(fractional, x, _c(0, x)), D.int64), x.dtype)
    return _where(fractional, t, x), fractional


def _trunc(x):
    return _trunc_parts(x)[0]


def _floor(x):
    t = _trunc(x)
    return _sub(t, _cast(bind(P.Greater, t, x), x.dtype))


def _round_half_even(x):
    t, fractional = _trunc_parts(x)
    f = bind(P.Abs, _sub(_where(fractional, x, _c(0, x)), _where(fractional, t, _c(0, x))))
    odd = bind(P.NotEqual, _trunc(_mul(t, _c(0.5, t))), _mul(t, _c(0.5, t)))
    up = bind(P.LogicalOr, bind(P.Greater, f, _c(0.5, f)),
              bind(P.LogicalAnd, bind(P.Equal, f, _c(0.5, f)), odd))
    return _add(t, _where(up, _signum(x), _c(0, x)))


def _rounding(name, fn):
    def op(input):
        x = operand(name, input)
        return fn(x) if x.dtype.is_floating else x      # integers are their own floor/ceil/trunc
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name} (integer inputs are returned as they are)."
    return op


trunc = _rounding("trunc", _trunc)
floor = _rounding("floor", _floor)
ceil = _rounding("ceil", lambda x: bind(P.Neg, _floor(bind(P.Neg, x))))


def round(input, *, decimals=0):  # noqa: A001
    """Round half to even (as numpy); ``decimals`` scales by 10**decimals first."""
    x = operand("Round", input)
    if not x.dtype.is_floating:
        return x
    if not decimals:
        return _round_half_even(x)
    scale = _c(10.0 ** decimals, x)
    return _div(_round_half_even(_mul(x, scale)), scale)


def frac(x):
    """The fractional part ``x - trunc(x)`` (sign of x)."""
    x = operand("Frac", x)
    return _sub(x, _trunc(x)) if x.dtype.is_floating else bind(P.Sub, x, x)


def sign(input):
    """-1, 0 or 1 with the input's dtype (NaN gives 0, as MindSpore)."""
    x = operand("Sign", input)
    if x.dtype is D.bool_:
        return x
    return _sub(_cast(bind(P.Greater, x, _c(0, x)), x.dtype), _cast(bind(P.Less, x, _c(0, x)), x.dtype))


# ---- division ---------------------------------------------------------------------------------------

def _int_quotient(x, y, rounding):
    """Integer division through float64 (exact for |values| < 2**53) then back to the int type."""
    q = rounding(_div(_cast(x, D.float64), _cast(y, D.float64)))
    return _cast(q, x.dtype)


def _quotient(name, input, other, rounding):
    x, y = binary_operands(name, input, other)
    if x.dtype is D.bool_:
        x, y = _cast(x, D.int64), _cast(y, D.int64)
    if x.dtype.is_floating:
        return x, y, rounding(_div(x, y))
    return x, y, _int_quotient(x, y, rounding)


def floor_divide(input, other):
    """``floor(input / other)``, in the promoted dtype (integers stay integers)."""
    return _quotient("FloorDiv", input, other, _floor)[2]


floor_div = floor_divide


def remainder(input, other):
    """Python's modulo: ``input - floor(input / other) * other`` (sign of ``other``)."""
    x, y, q = _quotient("FloorMod", input, other, _floor)
    return _sub(x, _mul(q, y))


def fmod(input, other):
    """C's fmod: ``input - trunc(input / other) * other`` (sign of ``input``)."""
    x, y, q = _quotient("Fmod", input, other, _trunc)
    return _sub(x, _mul(q, y))


def rounded_quotient(input, other, rounding_mode):
    """``div`` with ``rounding_mode`` "floor" or "trunc"."""
    if rounding_mode == "floor":
        return floor_divide(input, other)
    if rounding_mode == "trunc":
        return _quotient("TruncDiv", input, other, _trunc)[2]
    raise ValueError(f"Div: rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}")


div = divide = F.div


def true_divide(dividend, divisor):
    """``dividend / divisor`` (integers as float32)."""
    return F.div(dividend, divisor)


def subtract(input, other, *, alpha=1):
    """``input - alpha * other``."""
    return F.sub(input, other if alpha == 1 else F.mul(other, alpha))


multiply = F.mul
negative = F.neg
absolute = F.abs
eq = F.equal


def positive(input):
    """``input`` itself."""
    return operand("Positive", input)


def reciprocal(input):
    """``1 / input`` (integers as float32)."""
    x = floating_operand("Reciprocal", input)
    return _div(_c(1, x), x)


inv = reciprocal


# ---- exponentials and logarithms --------------------------------------------------------------------

def _nonzero(cond_zero, x):
    """``x`` with the positions of ``cond_zero`` replaced by 1 (a safe divisor in both directions)."""
    return _where(cond_zero, _c(1, x), x)


def _log1p(x):
    u = _add(_c(1, x), x)
    d = _sub(u, _c(1, u))
    exact = bind(P.Equal, d, _c(0, d))
    return _where(exact, x, _div(_mul(bind(P.Log, u), x), _nonzero(exact, d)))


def _expm1(x):
    u = bind(P.Exp, x)
    one = bind(P.Equal, u, _c(1, u))
    lu = bind(P.Log, _where(bind(P.Equal, u, _c(0, u)), _c(1, u), u))
    y = _div(_mul(_sub(u, _c(1, u)), x), _nonzero(one, lu))
    y = _where(bind(P.Equal, u, _c(0, u)), _c(-1, x), y)
    return _where(one, x, y)


def _sinh(x):
    small = bind(P.Less, bind(P.Abs, x), _c(1, x))
    em = _expm1(_where(small, x, _c(0, x)))
    near = _mul(_c(0.5, x), _add(em, _div(em, _add(em, _c(1, em)))))
    far = _mul(_c(0.5, x), _sub(bind(P.Exp, x), bind(P.Exp, bind(P.Neg, x))))
    return _where(small, near, far)


def _cosh(x):
    return _mul(_c(0.5, x), _add(bind(P.Exp, x), bind(P.Exp, bind(P.Neg, x))))


def _scaled_log(factor):
    return lambda x: _mul(bind(P.Log, x), _c(factor, x))


log1p = _floating_unary("log1p", _log1p, "``log(1 + x)``, accurate near 0.")
expm1 = _floating_unary("expm1", _expm1, "``exp(x) - 1``, accurate near 0.")
log2 = _floating_unary("log2", _scaled_log(1 / math.log(2)), "Base-2 logarithm.")
log10 = _floating_unary("log10", _scaled_log(1 / math.log(10)), "Base-10 logarithm.")
exp2 = _floating_unary("exp2", lambda x: bind(P.Pow, _c(2, x), x), "``2 ** x``.")
sinh = _floating_unary("sinh", _sinh, "Hyperbolic sine (through expm1 for |x| < 1).")
cosh = _floating_unary("cosh", _cosh, "Hyperbolic cosine.")
tan = _floating_unary("tan", lambda x: _div(bind(P.Sin, x), bind(P.Cos, x)), "Tangent: sin / cos.")
erfc = _floating_unary("erfc", lambda x: _sub(_c(1, x), bind(P.Erf, x)), "``1 - erf(x)``.")
deg2rad = _floating_unary("deg2rad", lambda x: _mul(x, _c(math.pi / 180, x)), "Degrees to radians.")
rad2deg = _floating_unary("rad2deg", lambda x: _mul(x, _c(180 / math.pi, x)), "Radians to degrees.")


# ---- inverse trigonometric and hyperbolic -----------------------------------------------------------

_ATAN_P = (-8.750608600031904122785e-1, -1.615753718733365076637e1, -7.500855792314704667340e1,
           -1.228866684490136173410e2, -6.485021904942025371773e1)
_ATAN_Q = (2.485846490142306297962e1, 1.650270098316988542046e2, 4.328810604912902668951e2,
           4.853903996359136964868e2, 1.945506571482613964425e2)
_T3P8 = 2.41421356237309504880          # tan(3 pi / 8)


def _polynomial(z, coefficients, monic=False):
    acc = _c(1, z) if monic else _c(coefficients[0], z)
    for c in coefficients[0 if monic else 1:]:
        acc = _add(_mul(acc, z), _c(c, z))
    return acc


def _atan(x):
    s = _signum(x)
    a = _mul(x, s)                                   # |x|, differentiable at 0
    big = bind(P.Greater, a, _c(_T3P8, a))
    mid = bind(P.LogicalAnd, bind(P.Greater, a, _c(0.66, a)), bind(P.LogicalNot, big))
    u = _where(big, _div(_c(-1, a), _where(big, a, _c(1, a))),
               _where(mid, _div(_sub(a, _c(1, a)), _add(a, _c(1, a))), a))
    z = _mul(u, u)
    r = _add(_mul(u, _div(_mul(z, _polynomial(z, _ATAN_P)), _polynomial(z, _ATAN_Q, monic=True))), u)
    base = _where(big, _c(math.pi / 2, a), _where(mid, _c(math.pi / 4, a), _c(0, a)))
    return _mul(s, _add(base, r))


def _atan2(y, x):
    zero = bind(P.Equal, x, _c(0, x))
    r = _atan(_div(y, _nonzero(zero, x)))
    half_turn = _where(bind(P.Less, y, _c(0, y)), _c(-math.pi, y), _c(math.pi, y))
    r = _where(bind(P.Less, x, _c(0, x)), _add(r, half_turn), r)
    axis = _mul(_cast(sign(y), y.dtype), _c(math.pi / 2, y))
    return _where(zero, axis, r)


def _asin(x):
    return _atan2(x, bind(P.Sqrt, _mul(_sub(_c(1, x), x), _add(_c(1, x), x))))


def _asinh(x):
    s = _signum(x)
    a = _mul(x, s)
    a2 = _mul(a, a)
    near = _log1p(_add(a, _div(a2, _add(_c(1, a), bind(P.Sqrt, _add(_c(1, a2), a2))))))
    huge = bind(P.Greater, a, _c(2.0 ** 28, a))
    far = _add(bind(P.Log, _where(huge, a, _c(1, a))), _c(math.log(2), a))
    return _mul(s, _where(huge, far, near))


def _acosh(x):
    t = _sub(x, _c(1, x))
    return _log1p(_add(t, bind(P.Sqrt, _add(_mul(_c(2, t), t), _mul(t, t)))))


def _atanh(x):
    return _mul(_c(0.5, x), _log1p(_div(_mul(_c(2, x), x), _sub(_c(1, x), x))))


atan = arctan = _floating_unary("atan", _atan, "Arc tangent (Cephes' rational approximation).")
asin = arcsin = _floating_unary("asin", _asin, "Arc sine: atan2(x, sqrt(1 - x^2)).")
acos = arccos = _floating_unary("acos", lambda x: _sub(_c(math.pi / 2, x), _asin(x)),
                                "Arc cosine: pi/2 - asin(x).")
asinh = arcsinh = _floating_unary("asinh", _asinh, "Inverse hyperbolic sine.")
acosh = arccosh = _floating_unary("acosh", _acosh, "Inverse hyperbolic cosine (NaN below 1).")
atanh = arctanh = _floating_unary("atanh", _atanh, "Inverse hyperbolic tangent.")


def _floating_pair(name, input, other):
    return binary_operands(name, input, other, floating=True)


def atan2(input, other):
    """Angle of the point (other, input) in (-pi, pi]."""
    return _atan2(*_floating_pair("Atan2", input, other))


arctan2 = atan2


def hypot(input, other):
    """``sqrt(input^2 + other^2)``."""
    x, y = _floating_pair("Hypot", input, other)
    return bind(P.Sqrt, _add(_mul(x, x), _mul(y, y)))


def xlogy(input, other):
    """``input * log(other)``, 0 where ``input`` is 0."""
    x, y = _floating_pair("Xlogy", input, other)
    zero = bind(P.Equal, x, _c(0, x))
    return _where(zero, _c(0, x), _mul(x, bind(P.Log, _nonzero(zero, y))))


def logaddexp(input, other):
    """``log(exp(input) + exp(other))`` without overflow."""
    x, y = _floating_pair("LogAddExp", input, other)
    m = bind(P.Maximum, x, y)
    return _add(m, _log1p(bind(P.Exp, bind(P.Neg, bind(P.Abs, _sub(x, y))))))


# Tensor methods that are these functions with the tensor first.
TENSOR_METHODS = {n: globals()[n] for n in (
    "inv", "floor_divide", "remainder", "fmod", "floor", "ceil", "round", "trunc", "sign", "reciprocal", "log1p",
    "expm1", "log2", "log10", "sinh", "cosh", "tan", "asin", "arcsin", "acos", "arccos", "atan", "arctan",
    "atan2", "arctan2", "asinh", "arcsinh", "acosh", "arccosh", "atanh", "arctanh", "erfc", "div", "divide",
    "true_divide", "subtract", "multiply", "hypot", "xlogy", "logaddexp", "negative", "positive",
    "absolute", "eq", "deg2rad", "rad2deg", "frac")}

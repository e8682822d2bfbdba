"""More elementwise math of ``mindspore.ops``: clamp and blends, classification (isnan, isclose,
nan_to_num), sign bits, NaN-aware extrema, bool bitwise ops, and the special functions lgamma,
digamma (Lanczos / asymptotic series after a shift, reflection below 1/2) and erfinv (Giles'
approximation refined by two Newton steps on Erf).
"""
import math

import numpy as np

from .. import dtype as D
from ..core import bind
from . import functional as F
from . import prims as P
from .math_elementwise import (_add, _c, _cast, _div, _log1p, _mul, _quotient, _sub, _trunc, _where, div, fmod,
                               remainder, sign)
from .operands import binary_operands, floating_operand, operand

__all__ = ["clamp", "clip", "lerp", "addcmul", "addcdiv", "logical_xor", "isnan", "isinf", "isfinite",
           "isclose", "allclose", "nan_to_num", "float_power", "floor_mod", "truncate_div", "truncate_mod",
           "fmax", "fmin", "logit", "signbit", "sgn", "sinc", "isposinf", "isneginf", "xdivy", "logaddexp2",
           "copysign", "heaviside", "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "lgamma",
           "digamma", "erfinv"]


def float_power(input, exponent):
    """``input ** exponent`` computed in float64."""
    x, y = binary_operands("FloatPower", input, exponent)
    return bind(P.Pow, _cast(x, D.float64), _cast(y, D.float64))


floor_mod = remainder


def truncate_div(x, y):
    """Quotient rounded toward zero (integers stay integers)."""
    return _quotient("TruncateDiv", x, y, _trunc)[2]


truncate_mod = fmod


def _nan_aware(name, prim):
    def op(input, other):
        x, y = binary_operands(name, input, other)
        out = bind(prim, x, y)
        if x.dtype.is_floating:                       # a NaN loses against a number
            out = _where(isnan(x), y, _where(isnan(y), x, out))
        return out
    op.__name__ = op.__qualname__ = name.lower()
    op.__doc__ = f"Elementwise {prim.name}, ignoring a NaN operand (NaN only when both are)."
    return op


fmax = _nan_aware("Fmax", P.Maximum)
fmin = _nan_aware("Fmin", P.Minimum)


def logit(input, eps=None):
    """``log(p / (1 - p))``, ``p`` clamped to [eps, 1 - eps] when ``eps`` is given."""
    p = floating_operand("Logit", input)
    if eps is not None:
        p = bind(P.Minimum, bind(P.Maximum, p, _c(eps, p)), _c(1 - eps, p))
    return bind(P.Log, _div(p, _sub(_c(1, p), p)))


def signbit(input):
    """True where the sign is negative (-0.0 included)."""
    x = operand("SignBit", input)
    if not x.dtype.is_floating:
        return bind(P.Less, x, _c(0, x))
    # -0.0: 1 / x is -inf
    neg_zero = bind(P.LogicalAnd, bind(P.Equal, x, _c(0, x)),
                    bind(P.Less, _div(_c(1, x), _where(bind(P.Equal, x, _c(0, x)), x, _c(1, x))), _c(0, x)))
    return bind(P.LogicalOr, bind(P.Less, x, _c(0, x)), neg_zero)


sgn = sign


def sinc(input):
    """``sin(pi x) / (pi x)``, 1 at 0 (integers as float32)."""
    x = floating_operand("Sinc", input)
    zero = bind(P.Equal, x, _c(0, x))
    px = _mul(_where(zero, _c(1, x), x), _c(math.pi, x))
    return _where(zero, _c(1, x), _div(bind(P.Sin, px), px))


def isposinf(input):
    x = operand("IsPosInf", input)
    return bind(P.Equal, x, _c(np.inf, x)) if x.dtype.is_floating else bind(P.NotEqual, x, x)


def isneginf(input):
    x = operand("IsNegInf", input)
    return bind(P.Equal, x, _c(-np.inf, x)) if x.dtype.is_floating else bind(P.NotEqual, x, x)


def xdivy(x, y):
    """``x / y``, 0 where ``x`` is 0."""
    a, b = binary_operands("Xdivy", x, y, floating=True)
    zero = bind(P.Equal, a, _c(0, a))
    return _where(zero, _c(0, a), _div(a, _where(zero, _c(1, b), b)))


def logaddexp2(input, other):
    """``log2(2**input + 2**other)`` without overflow."""
    x, y = binary_operands("LogAddExp2", input, other, floating=True)
    m = bind(P.Maximum, x, y)
    d = _mul(bind(P.Neg, bind(P.Abs, _sub(x, y))), _c(math.log(2), x))
    return _add(m, _mul(_log1p(bind(P.Exp, d)), _c(1 / math.log(2), x)))


def copysign(x, other):
    """``|x|`` with the sign of ``other`` (float result)."""
    a, b = binary_operands("CopySign", x, other, floating=True)
    return _where(signbit(b), bind(P.Neg, bind(P.Abs, a)), bind(P.Abs, a))


def heaviside(input, values):
    """0 where ``input < 0``, ``values`` where it is 0, 1 where it is positive."""
    x, v = binary_operands("Heaviside", input, values)
    step = _cast(bind(P.Greater, x, _c(0, x)), x.dtype)
    return _where(bind(P.Equal, x, _c(0, x)), v, step)


def _bitwise(name, fn):
    def op(input, other):
        x, y = binary_operands(name, input, other)
        if x.dtype is not D.bool_:
            raise TypeError(f"{name}: only bool tensors are supported (no integer bitwise primitive), got {x.dtype}")
        return fn(x, y)
    op.__name__ = op.__qualname__ = name.lower()
    op.__doc__ = f"{name} of bool tensors."
    return op


bitwise_and = _bitwise("BitwiseAnd", lambda x, y: bind(P.LogicalAnd, x, y))
bitwise_or = _bitwise("BitwiseOr", lambda x, y: bind(P.LogicalOr, x, y))
bitwise_xor = _bitwise("BitwiseXor", lambda x, y: bind(P.NotEqual, x, y))


def invert(x):
    """Bitwise not: ``~x`` for bool tensors, ``-x - 1`` for integers (two's complement)."""
    t = operand("Invert", x)
    if t.dtype is D.bool_:
        return bind(P.LogicalNot, t)
    if t.dtype.is_floating:
        raise TypeError(f"Invert: expected a bool or integer tensor, got {t.dtype}")
    return _sub(bind(P.Neg, t), _c(1, t))


# ---- combinations -----------------------------------------------------------------------------------

def clamp(input, min=None, max=None):  # noqa: A002
    """``input`` limited to [min, max] (either bound may be None, a number or a tensor)."""
    if min is None and max is None:
        raise ValueError("Clamp: at least one of 'min' and 'max' must be given")
    x = operand("Clamp", input)
    if min is not None:
        x = F.maximum(x, min)
    if max is not None:
        x = F.minimum(x, max)
    return x


clip = clamp


def lerp(input, end, weight):
    """``input + weight * (end - input)``."""
    return F.add(input, F.mul(weight, F.sub(end, input)))


def addcmul(input, tensor1, tensor2, value=1):
    """``input + value * tensor1 * tensor2``."""
    return F.add(input, F.mul(F.mul(tensor1, tensor2), value))


def addcdiv(input, tensor1, tensor2, value=1):
    """``input + value * tensor1 / tensor2``."""
    return F.add(input, F.mul(div(tensor1, tensor2), value))


def logical_xor(input, other):
    """Elementwise exclusive or (operands as bool)."""
    return bind(P.NotEqual, *(F.cast(operand("LogicalXor", v), D.bool_) for v in (input, other)))


# ---- classification ---------------------------------------------------------------------------------

def isnan(input):
    """True where NaN (never for integers)."""
    x = operand("IsNan", input)
    return bind(P.NotEqual, x, x)


def isinf(input):
    """True where +inf or -inf (never for integers)."""
    x = operand("IsInf", input)
    if not x.dtype.is_floating:
        return bind(P.NotEqual, x, x)
    return bind(P.Equal, bind(P.Abs, x), _c(np.inf, x))


def isfinite(input):
    """True where neither NaN nor infinite."""
    x = operand("IsFinite", input)
    if not x.dtype.is_floating:
        return bind(P.Equal, x, x)
    return bind(P.Less, bind(P.Abs, x), _c(np.inf, x))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """numpy's isclose: ``|a - b| <= atol + rtol * |b|`` for finite values, equality otherwise."""
    a, b = binary_operands("IsClose", input, other)
    if not a.dtype.is_floating:
        a, b = _cast(a, D.float32), _cast(b, D.float32)
    finite = bind(P.LogicalAnd, isfinite(a), isfinite(b))
    bound = _add(_c(atol, a), _mul(_c(rtol, a), bind(P.Abs, b)))
    gap = bind(P.Abs, _sub(_where(finite, a, _c(0, a)), _where(finite, b, _c(0, b))))
    close = bind(P.LogicalOr, bind(P.LogicalAnd, finite, bind(P.LessEqual, gap, bound)), bind(P.Equal, a, b))
    if equal_nan:
        close = bind(P.LogicalOr, close, bind(P.LogicalAnd, isnan(a), isnan(b)))
    return close


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Python bool: every element ``isclose`` (needs concrete values: eager only)."""
    from .math_reduce import all as all_
    return bool(all_(isclose(input, other, rtol, atol, equal_nan)))


def nan_to_num(input, nan=None, posinf=None, neginf=None):
    """NaN -> ``nan`` (0), +inf -> ``posinf`` (dtype max), -inf -> ``neginf`` (dtype min)."""
    x = operand("NanToNum", input)
    if not x.dtype.is_floating:
        return x
    info = np.finfo(x.dtype.np)
    x = _where(isnan(x), _c(0.0 if nan is None else nan, x), x)
    x = _where(bind(P.Equal, x, _c(np.inf, x)), _c(info.max if posinf is None else posinf, x), x)
    return _where(bind(P.Equal, x, _c(-np.inf, x)), _c(info.min if neginf is None else neginf, x), x)


# ---- special functions -----------------------------------------------------------------------------

_LANCZOS_G = 7
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7)


def _lgamma_right(x):
    """log|Gamma(x)| for x >= 1/2 (Lanczos, g=7)."""
    z = _sub(x, _c(1, x))
    a = _c(_LANCZOS[0], x)
    for i, p in enumerate(_LANCZOS[1:], 1):
        a = _add(a, _div(_c(p, x), _add(z, _c(i, x))))
    t = _add(z, _c(_LANCZOS_G + 0.5, x))
    return _add(_add(_c(0.5 * math.log(2 * math.pi), x), _mul(_add(z, _c(0.5, x)), bind(P.Log, t))),
                _sub(bind(P.Log, a), t))


def _reflected(x):
    """(x < 1/2, the argument mirrored to >= 1/2, sin(pi x))."""
    left = bind(P.Less, x, _c(0.5, x))
    return left, _where(left, _sub(_c(1, x), x), x), bind(P.Sin, _mul(x, _c(math.pi, x)))


def _in_float64(fn, x):
    """``fn`` evaluated in float64 (the Lanczos sums cancel too much in float32), cast back."""
    y = fn(_cast(x, D.float64))
    return _cast(y, x.dtype)


def _pole(x):
    """True at 0, -1, -2, ...: the poles of Gamma."""
    return bind(P.LogicalAnd, bind(P.LessEqual, x, _c(0, x)), bind(P.Equal, _trunc(x), x))


def _lgamma(x):
    left, r, s = _reflected(x)
    right = _lgamma_right(r)
    mirror = _sub(bind(P.Log, _div(_c(math.pi, x), bind(P.Abs, _where(_pole(x), _c(1, x), s)))), right)
    return _where(_pole(x), _c(np.inf, x), _where(left, mirror, right))


def lgamma(input):
    """``log|Gamma(x)|``; reflection ``log(pi / |sin(pi x)|) - lgamma(1 - x)`` below 1/2, inf at
    the poles; evaluated in float64."""
    return _in_float64(_lgamma, floating_operand("Lgamma", input))


def _digamma(x):
    left, r, s = _reflected(x)
    shift = _c(0, x)
    for k in range(10):
        shift = _add(shift, _div(_c(1, x), _add(r, _c(k, x))))
    y = _add(r, _c(10, x))
    inv2 = _div(_c(1, x), _mul(y, y))
    series = _c(-1 / 132, x)
    for c in (1 / 240, -1 / 252, 1 / 120, -1 / 12):
        series = _add(_mul(series, inv2), _c(c, x))
    right = _sub(_sub(_add(bind(P.Log, y), _mul(series, inv2)), _div(_c(0.5, x), y)), shift)
    pole = _pole(x)
    cot = _div(bind(P.Cos, _mul(x, _c(math.pi, x))), _where(pole, _c(1, x), s))
    at_pole = _where(bind(P.Equal, x, _c(0, x)), _c(-np.inf, x), _c(np.nan, x))     # as MindSpore
    return _where(pole, at_pole, _where(left, _sub(right, _mul(cot, _c(math.pi, x))), right))


def digamma(input):
    """``d/dx log Gamma(x)``: recurrence to x + 10, asymptotic series; reflection below 1/2; -inf
    at 0 and NaN at the negative integers; evaluated in float64."""
    return _in_float64(_digamma, floating_operand("Digamma", input))


_ERFINV_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                   -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _horner(w, coefficients):
    acc = _c(coefficients[0], w)
    for c in coefficients[1:]:
        acc = _add(_mul(acc, w), _c(c, w))
    return acc


def erfinv(input):
    """Inverse of erf on (-1, 1) (+-inf at +-1, NaN outside)."""
    y = floating_operand("Erfinv", input)
    w = bind(P.Neg, bind(P.Log, _mul(_sub(_c(1, y), y), _add(_c(1, y), y))))
    central = bind(P.Less, w, _c(5, w))
    wc = _sub(_where(central, w, _c(2.5, w)), _c(2.5, w))
    wt = _sub(bind(P.Sqrt, _where(central, _c(9, w), w)), _c(3, w))
    x = _mul(_where(central, _horner(wc, _ERFINV_CENTRAL), _horner(wt, _ERFINV_TAIL)), y)
    finite = bind(P.Less, bind(P.Abs, x), _c(np.inf, x))
    for _ in range(2):                                 # Newton on erf(x) = y
        xs = _where(finite, x, _c(0, x))
        slope = _mul(_c(2 / math.sqrt(math.pi), x), bind(P.Exp, bind(P.Neg, _mul(xs, xs))))
        x = _where(finite, _sub(x, _div(_sub(bind(P.Erf, xs), y), slope)), x)
    return x


TENSOR_METHODS = {n: globals()[n] for n in (
    "clamp", "clip", "lerp", "addcmul", "addcdiv", "logical_xor", "isnan", "isinf", "isfinite", "isclose",
    "nan_to_num", "float_power", "fmax", "fmin", "logit", "signbit", "sgn", "sinc", "isposinf", "isneginf",
    "xdivy", "logaddexp2", "copysign", "heaviside", "bitwise_and", "bitwise_or", "bitwise_xor", "lgamma",
    "digamma", "erfinv")}

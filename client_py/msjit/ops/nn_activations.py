"""Activation functions with MindSpore's names and signatures, composed from primitives.

Piecewise activations are ``where``/``maximum``/``minimum`` over the input; the smooth ones use
the overflow-safe form (softplus as ``max(x, 0) + log(1 + exp(-|x|))``).
"""
from .functional import (abs, add, div, exp, greater, less, log, maximum, minimum, mul, neg, relu, reshape,
                         sigmoid, sub, tanh, where)
from .operands import floating_operand, operand

__all__ = ["relu6", "leaky_relu", "elu", "celu", "selu", "softplus", "hardswish", "hardsigmoid", "mish",
           "prelu", "softsign", "logsigmoid", "hardtanh", "softmin", "softshrink", "hardshrink", "tanhshrink",
           "threshold", "glu"]

_SELU_ALPHA = 1.6732632423543772
_SELU_SCALE = 1.0507009873554805


def _clip(x, lo, hi):
    return minimum(maximum(x, lo), hi)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """``clip(x, min_val, max_val)``."""
    if min_val > max_val:
        raise ValueError(f"Hardtanh: min_val {min_val} must not exceed max_val {max_val}")
    return _clip(operand("Hardtanh", input), min_val, max_val)


def relu6(x):
    """``min(max(x, 0), 6)``."""
    return minimum(relu(operand("ReLU6", x)), 6)


def leaky_relu(input, alpha=0.2):
    """``x`` where positive, ``alpha * x`` elsewhere."""
    x = floating_operand("LeakyReLU", input)
    return where(greater(x, 0), x, mul(x, alpha))


def _expm1_negative(x, alpha):
    """``alpha * (exp(min(x, 0)) - 1)``: the negative branch of ELU-like functions (no overflow)."""
    return mul(sub(exp(minimum(x, 0)), 1), alpha)


def elu(input_x, alpha=1.0):
    """``x`` where positive, ``exp(x) - 1`` elsewhere (MindSpore's Elu only takes alpha=1.0)."""
    if alpha != 1.0:
        raise ValueError(f"Elu: alpha must be 1.0, got {alpha}")
    return _elu(floating_operand("Elu", input_x), 1.0)


def _elu(x, alpha):
    return where(greater(x, 0), x, _expm1_negative(x, alpha))


def celu(x, alpha=1.0):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    if alpha == 0:
        raise ValueError("CeLU: alpha must not be 0")
    x = floating_operand("CeLU", x)
    return where(greater(x, 0), x, _expm1_negative(div(x, alpha), alpha))


def selu(input_x):
    """``scale * elu(x, alpha)`` with SELU's fixed constants."""
    return mul(_elu(floating_operand("SeLU", input_x), _SELU_ALPHA), _SELU_SCALE)


def softplus(input, beta=1, threshold=20):
    """``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold``."""
    x = floating_operand("Softplus", input)
    bx = mul(x, beta) if beta != 1 else x
    smooth = add(relu(bx), log(add(exp(neg(abs(bx))), 1)))
    smooth = div(smooth, beta) if beta != 1 else smooth
    return where(greater(bx, threshold), x, smooth)


def logsigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``."""
    return neg(softplus(neg(floating_operand("LogSigmoid", x))))


def hardsigmoid(input):
    """``clip(x / 6 + 1 / 2, 0, 1)``."""
    return _clip(add(div(floating_operand("HSigmoid", input), 6), 0.5), 0, 1)


def hardswish(input):
    """``x * hardsigmoid(x)``."""
    x = floating_operand("HSwish", input)
    return mul(x, hardsigmoid(x))


def mish(x):
    """``x * tanh(softplus(x))``."""
    x = floating_operand("Mish", x)
    return mul(x, tanh(softplus(x)))


def softsign(x):
    """``x / (1 + |x|)``."""
    x = floating_operand("Softsign", x)
    return div(x, add(abs(x), 1))


def prelu(input, weight):
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` (1 or C values) broadcasts
    along the channel axis 1."""
    x, w = floating_operand("PReLU", input), operand("PReLU", weight)
    if w.ndim > 1 or (w.size != 1 and (x.ndim < 2 or w.size != x.shape[1])):
        raise ValueError(f"PReLU: weight of shape {w.shape} must have 1 element or one per channel "
                         f"(axis 1) of the input of shape {x.shape}")
    if w.size != 1:
        w = reshape(w, (1, -1) + (1,) * (x.ndim - 2))
    return where(greater(x, 0), x, mul(x, w))



def softmin(x, axis=-1, *, dtype=None):
    """``softmax(-x)`` over ``axis``."""
    from .nn_ops import softmax
    return softmax(neg(floating_operand("Softmin", x)), axis, dtype=dtype)


def softshrink(input, lambd=0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between."""
    x = floating_operand("SoftShrink", input)
    return where(greater(x, lambd), sub(x, lambd), where(less(x, -lambd), add(x, lambd), 0.0))


def hardshrink(input, lambd=0.5):
    """``x`` where ``|x| > lambd``, 0 elsewhere."""
    x = floating_operand("HShrink", input)
    return where(greater(abs(x), lambd), x, 0.0)


def tanhshrink(input):
    """``x - tanh(x)``."""
    x = floating_operand("Tanhshrink", input)
    return sub(x, tanh(x))


def threshold(input, thr, value):
    """``x`` where ``x > thr``, ``value`` elsewhere."""
    x = operand("Threshold", input)
    return where(greater(x, thr), x, value)


def glu(x, axis=-1):
    """``a * sigmoid(b)`` with ``a``, ``b`` the two halves of ``x`` along ``axis``."""
    from .array_ops import split
    x = floating_operand("GLU", x)
    if x.shape[axis] % 2:
        raise ValueError(f"GLU: axis {axis} of the input of shape {x.shape} must have an even size")
    a, b = split(x, x.shape[axis] // 2, axis)
    return mul(a, sigmoid(b))

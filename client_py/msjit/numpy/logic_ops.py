"""Comparisons and logic of ``mindspore.numpy`` over the ``msjit.ops`` functions."""
from .. import ops
from .math_ops import _elementwise

__all__ = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "isclose", "isnan",
           "isinf", "isfinite", "logical_and", "logical_or", "logical_not", "logical_xor"]

equal = _elementwise("equal", ops.equal)
not_equal = _elementwise("not_equal", ops.not_equal)
less = _elementwise("less", ops.less)
less_equal = _elementwise("less_equal", ops.less_equal)
greater = _elementwise("greater", ops.greater)
greater_equal = _elementwise("greater_equal", ops.greater_equal)
isnan = _elementwise("isnan", ops.isnan)
isinf = _elementwise("isinf", ops.isinf)
isfinite = _elementwise("isfinite", ops.isfinite)
logical_and = _elementwise("logical_and", ops.logical_and)
logical_or = _elementwise("logical_or", ops.logical_or)
logical_not = _elementwise("logical_not", ops.logical_not)
logical_xor = _elementwise("logical_xor", ops.logical_xor)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|a - b| <= atol + rtol * |b|`` elementwise."""
    return ops.isclose(a, b, rtol, atol, equal_nan)

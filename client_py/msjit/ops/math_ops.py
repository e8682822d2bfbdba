"""MindSpore's math functions, gathered from their modules (each a decomposition over the core
primitives): ``math_elementwise`` (rounding, division, exponentials, inverse trigonometry),
``math_special`` (clamp, classification, NaN-aware extrema, bool bitwise ops, lgamma, digamma,
erfinv), ``math_reduce`` (prod, max/min with indices, argmax, all/any, moments, norms),
``math_scan`` (cumulative ops, sort, topk) and ``math_linalg`` (contractions, einsum).

Also the Tensor methods whose MindSpore signatures differ from the functional op (the
``axis``/``keepdims`` and ``dim``/``keepdim`` spellings, ``alpha``, a flattened cumsum); the
``sum``/``mean``/``max``/``min`` here replace the older ones of ``methods._Methods`` (the
tables are installed after it).
"""
from . import functional as F
from . import math_elementwise, math_linalg, math_reduce, math_scan, math_special
from .math_elementwise import *  # noqa: F401,F403
from .math_linalg import *  # noqa: F401,F403
from .math_reduce import *  # noqa: F401,F403
from .math_scan import *  # noqa: F401,F403
from .math_special import *  # noqa: F401,F403

_MODULES = (math_elementwise, math_special, math_reduce, math_scan, math_linalg)
__all__ = [n for m in _MODULES for n in m.__all__]


def _either(axis, dim, keepdims, keepdim):
    """MindSpore's Tensor methods accept both ``axis``/``keepdims`` and ``dim``/``keepdim``."""
    return (axis if dim is None else dim), bool(keepdims if keepdim is None else keepdim)


def _argmax_method(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
    return math_reduce.argmax(self, *_either(axis, dim, keepdims, keepdim))


def _argmin_method(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
    return math_reduce.argmin(self, *_either(axis, dim, keepdims, keepdim))


def tensor_extremum(which, self, args, kwargs):
    """``Tensor.max``/``Tensor.min``: an axis given positionally or as ``dim`` returns
    ``(values, indices)`` (MindSpore's ``max(dim, keepdim=False)`` overload); otherwise the
    values only, ``(axis=None, keepdims=False, *, initial=None, where=None)``."""
    if "dim" in kwargs or (args and args[0] is not None):
        dim = kwargs.pop("dim", args[0] if args else None)
        keepdim = kwargs.pop("keepdim", args[1] if len(args) > 1 else False)
        fn = math_reduce.max if which == "max" else math_reduce.min
        return fn(self, dim, keepdim, **kwargs)
    axis = kwargs.pop("axis", None)
    keepdims = kwargs.pop("keepdims", args[1] if len(args) > 1 else False)
    initial = kwargs.pop("initial", None)
    if kwargs.pop("where", None) is not None or kwargs.pop("return_indices", False) or kwargs:
        raise TypeError(f"Tensor.{which}: unsupported arguments {sorted(kwargs) or ['where/return_indices']}")
    values = (F.amax if which == "max" else F.amin)(self, axis, keepdims)
    if initial is not None:
        values = (F.maximum if which == "max" else F.minimum)(values, initial)
    return values


def tensor_sum(self, axis=None, dtype=None, keepdims=False, initial=None, *, dim=None, keepdim=None):
    """``Tensor.sum``: MindSpore's ``(axis=None, dtype=None, keepdims=False, initial=None)``."""
    axis, keepdims = _either(axis, dim, keepdims, keepdim)
    total = F.sum(self, axis, keepdims, dtype=dtype)
    return total if initial is None else F.add(total, initial)


def tensor_mean(self, axis=None, keep_dims=False, *, dim=None, keepdim=None):
    """``Tensor.mean``: MindSpore's ``(axis=None, keep_dims=False)``."""
    return F.mean(self, *_either(axis, dim, keep_dims, keepdim))


def _cumsum_method(self, axis=None, dtype=None, *, dim=None):
    axis = axis if dim is None else dim
    return math_scan.cumsum(self if axis is not None else F.reshape(self, (-1,)), 0 if axis is None else axis,
                            dtype)


def _add_method(self, other, *, alpha=1):
    return F.add(self, other if alpha == 1 else F.mul(other, alpha))


def _trace_method(self, offset=0, axis1=0, axis2=1, dtype=None):
    if (offset, axis1, axis2) != (0, 0, 1):
        raise ValueError("Tensor.trace: only offset=0, axis1=0, axis2=1 are supported")
    t = math_linalg.trace(self)
    return t if dtype is None else F.cast(t, dtype)


TENSOR_METHODS = {k: v for m in _MODULES for k, v in m.TENSOR_METHODS.items()}
TENSOR_METHODS.update(argmax=_argmax_method, argmin=_argmin_method, cumsum=_cumsum_method, add=_add_method,
                      sub=math_elementwise.subtract, trace=_trace_method, sum=tensor_sum, mean=tensor_mean,
                      max=lambda self, *args, **kwargs: tensor_extremum("max", self, args, kwargs),
                      min=lambda self, *args, **kwargs: tensor_extremum("min", self, args, kwargs))

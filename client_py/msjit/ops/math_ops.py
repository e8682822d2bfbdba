"""MindSpore's math functions, gathered from their modules (each a decomposition over the core
primitives): ``math_elementwise`` (rounding, division, exponentials, inverse trigonometry),
``math_special`` (clamp, classification, NaN-aware extrema, bool bitwise ops, lgamma, digamma,
erfinv), ``math_reduce`` (prod, max/min with indices, argmax, all/any, moments, norms),
``math_scan`` (cumulative ops, sort, topk) and ``math_linalg`` (contractions, einsum).

Also the Tensor methods whose MindSpore signatures differ from the functional op: reductions
take both the ``axis``/``keepdims`` and the ``dim``/``keepdim`` spellings (MindSpore overloads
them), ``max``/``min`` return indices for a positional axis, ``add``/``sub`` take ``alpha``,
``cumsum`` flattens without an axis. The ``sum``/``mean``/``max``/``min`` here replace the older
ones of ``methods._Methods`` (the tables are installed after it).
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


def _method(fn, axis_name, keep_name=None):
    """``fn`` as a Tensor method that also takes MindSpore's other spellings of its axis
    (``axis``/``dim``) and keep flag (``keepdims``/``keep_dims``/``keepdim``) keywords."""
    aliases = {"axis": axis_name, "dim": axis_name}
    if keep_name:
        aliases.update(keepdims=keep_name, keep_dims=keep_name, keepdim=keep_name)

    def method(self, *args, **kwargs):
        if kwargs:
            kwargs = {aliases.get(k, k): v for k, v in kwargs.items()}
        return fn(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


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


def tensor_sum(self, axis=None, dtype=None, keepdims=False, initial=None):
    """``Tensor.sum``: MindSpore's ``(axis=None, dtype=None, keepdims=False, initial=None)``."""
    total = F.sum(self, axis, keepdims, dtype=dtype)
    return total if initial is None else F.add(total, initial)


def tensor_cumsum(self, axis=None, dtype=None):
    """``Tensor.cumsum``: ``axis`` None sums the flattened tensor."""
    return math_scan.cumsum(self if axis is not None else F.reshape(self, (-1,)), 0 if axis is None else axis,
                            dtype)


def _add_method(self, other, *, alpha=1):
    return F.add(self, other if alpha == 1 else F.mul(other, alpha))


def _trace_method(self, offset=0, axis1=0, axis2=1, dtype=None):
    if (offset, axis1, axis2) != (0, 0, 1):
        raise ValueError("Tensor.trace: only offset=0, axis1=0, axis2=1 are supported")
    t = math_linalg.trace(self)
    return t if dtype is None else F.cast(t, dtype)


def _with_value(fn):
    def method(self, axis=0, keep_dims=False):
        return fn(self, axis, keep_dims)
    method.__name__ = method.__qualname__ = f"arg{fn.__name__}_with_value"
    method.__doc__ = f"``(values, indices)`` of the {fn.__name__}imum along ``axis``."
    return method


def _msort(self):
    return math_scan.sort(self, 0)[0]


def _ptp(self, axis=None, keepdims=False):
    return F.sub(F.amax(self, axis, keepdims), F.amin(self, axis, keepdims))


def _cov(self, *, correction=1, fweights=None, aweights=None):
    return math_reduce.cov(self, correction=correction, fweights=fweights, aweights=aweights)


# Reductions as methods: {name: (function, its axis parameter, its keep-dims parameter)}.
_REDUCTION_METHODS = {
    "sum": (tensor_sum, "axis", "keepdims"), "mean": (F.mean, "axis", "keep_dims"),
    "prod": (math_reduce.prod, "axis", "keep_dims"), "all": (math_reduce.all, "axis", "keep_dims"),
    "any": (math_reduce.any, "axis", "keep_dims"), "std": (math_reduce.std, "axis", "keepdims"),
    "var": (math_reduce.var, "axis", "keepdims"), "logsumexp": (math_reduce.logsumexp, "dim", "keepdim"),
    "norm": (math_reduce.norm, "dim", "keepdim"), "nansum": (math_reduce.nansum, "axis", "keepdims"),
    "nanmean": (math_reduce.nanmean, "axis", "keepdims"), "median": (math_scan.median, "axis", "keepdims"),
    "count_nonzero": (math_reduce.count_nonzero, "axis", "keep_dims"),
    "argmax": (math_reduce.argmax, "dim", "keepdim"), "argmin": (math_reduce.argmin, "axis", "keepdims"),
    "amax": (F.amax, "axis", "keepdims"), "amin": (F.amin, "axis", "keepdims"),
    "cumsum": (tensor_cumsum, "axis"), "cumprod": (math_scan.cumprod, "dim"), "cummax": (math_scan.cummax, "axis"),
    "cummin": (math_scan.cummin, "axis"), "logcumsumexp": (math_scan.logcumsumexp, "axis"),
    "sort": (math_scan.sort, "axis"), "argsort": (math_scan.argsort, "axis"), "topk": (math_scan.topk, "dim"),
    "diff": (math_reduce.diff, "axis"),
}

TENSOR_METHODS = {k: v for m in _MODULES for k, v in getattr(m, "TENSOR_METHODS", {}).items()}
TENSOR_METHODS.update({name: _method(*spec) for name, spec in _REDUCTION_METHODS.items()})
TENSOR_METHODS.update(argmax_with_value=_with_value(math_reduce.max), argmin_with_value=_with_value(math_reduce.min),
                      msort=_msort, ptp=_ptp, cov=_cov, allclose=math_special.allclose, invert=math_special.invert,
                      bitwise_not=math_special.invert, aminmax=math_reduce.aminmax)
TENSOR_METHODS.update(add=_add_method, sub=math_elementwise.subtract, trace=_trace_method,
                      max=lambda self, *args, **kwargs: tensor_extremum("max", self, args, kwargs),
                      min=lambda self, *args, **kwargs: tensor_extremum("min", self, args, kwargs))

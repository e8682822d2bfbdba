"""What capture may do with a callable it meets: record it, run it now, or refuse it.

Shared by the ast and bytecode capture modes, so both classify a call the same way.
"""
import inspect

import numpy as np

from .. import ops
from ..mixin import TensorMixin
from ..ops.classes import PrimitiveOp
from ..tensor import Tensor

OP_FUNCTIONS = ops.OP_FUNCTIONS
# Builtins that only look at Python structure, never at a tensor's value: fine with tracers inside
# (abs calls the tensor's __abs__, an op).
STRUCTURAL = frozenset({len, tuple, list, dict, zip, enumerate, isinstance, abs})
ITERATING = frozenset({enumerate, zip, list, tuple, iter})   # iterate their tensor arguments
PURE_BUILTINS = STRUCTURAL | {range, float, int, bool, str, min, max, abs, round, sum, any, all}
CONSTANT_MODULES = frozenset({"numpy", "math", "msjit"})   # called when no argument is a tensor
_CONSTANT_METHOD_OWNERS = (list, tuple, dict, str, int, float, bool)
# Methods of containers that store or hand back their elements without looking at them: fine with
# tracers as elements (index, count, remove and 'in' compare values, so they are not).
_STRUCTURAL_METHODS = frozenset({"append", "extend", "insert", "pop", "get", "keys", "values", "items",
                                 "update", "setdefault", "copy", "clear", "reverse", "popitem"})
MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "update", "setdefault", "clear",
                              "reverse", "popitem", "remove", "sort", "add", "discard"})


def in_collection(value, collection):
    try:
        return value in collection
    except TypeError:  # unhashable
        return False


def records_nodes(func):
    """Op functions, primitives, tensor methods and gradient functions record graph nodes
    themselves: capture calls them directly on tracers."""
    return (in_collection(func, OP_FUNCTIONS) or isinstance(func, (ops.Primitive, PrimitiveOp))
            or inspect.ismethod(func) and isinstance(func.__self__, TensorMixin)
            or getattr(func, "_msjit_records", False))


def is_constant_callable(func):
    """Callables that are safe to run at capture time on constant arguments."""
    if in_collection(func, PURE_BUILTINS) or func is Tensor or isinstance(func, np.ufunc):
        return True
    if is_library(func):
        return True
    return inspect.ismethod(func) and isinstance(func.__self__, Tensor) or (
        inspect.isbuiltin(func) and type(getattr(func, "__self__", None)) in _CONSTANT_METHOD_OWNERS)


def is_library(func):
    """numpy, math and msjit itself: run as Python, never interpreted."""
    target = func.__func__ if inspect.ismethod(func) else func
    return (getattr(target, "__module__", None) or "").split(".")[0] in CONSTANT_MODULES


def rows(tracer):
    """Iterating a tensor: its rows, sliced as they are reached (a loop that breaks early records
    no slices it never uses); shapes are static, so the count is known."""
    if not tracer.shape:
        raise TypeError("iteration over a 0-d tensor")
    return (tracer[i] for i in range(tracer.shape[0]))


def structural_method(func):
    return (inspect.isbuiltin(func) and type(getattr(func, "__self__", None)) in (list, dict)
            and func.__name__ in _STRUCTURAL_METHODS)


def callable_name(func):
    module = getattr(func, "__module__", None)
    name = getattr(func, "__qualname__", None) or type(func).__name__
    return name if module in (None, "builtins") else f"{module}.{name}"

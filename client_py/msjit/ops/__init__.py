"""Operators: MindSpore's public op surface, written as decompositions over ``prims``.

``prims``: the core primitive set (the only ops msjitd compiles), declared once; ``core.bind``
applies one eagerly or into a graph; ``functional``, ``array_ops``, ``nn_ops``: MindSpore-named
functions; ``classes``: MindSpore's primitive classes (``ops.Mul()``); ``methods``: the Tensor
operators and methods, attached to Tensor and Tracer at import.
"""
from ..core import bind
from . import array_ops, classes, functional, math_ops, methods, nn_ops
from .array_ops import *  # noqa: F401,F403
from .classes import *  # noqa: F401,F403
from .functional import *  # noqa: F401,F403
from .math_ops import *  # noqa: F401,F403
from .nn_ops import *  # noqa: F401,F403
from .prims import PRIMITIVES, Primitive

_FUNCTION_MODULES = (functional, math_ops, array_ops, nn_ops)
# The functions capture calls directly (they record nodes themselves) instead of inlining them.
OP_FUNCTIONS = frozenset(getattr(m, n) for m in _FUNCTION_MODULES for n in m.__all__)
methods.install(getattr(m, "TENSOR_METHODS", {}) for m in _FUNCTION_MODULES)

__all__ = (functional.__all__ + math_ops.__all__ + array_ops.__all__ + nn_ops.__all__ + classes.__all__
           + ["Primitive", "PRIMITIVES", "bind", "OP_FUNCTIONS"])

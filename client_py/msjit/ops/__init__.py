"""Operators: the single Python source of truth for what each op is and does.

``prims``: the primitive table (MindIR op_type, eager kernel, abstract rule); ``core.bind``:
applies a primitive eagerly or into a graph; ``functional``, ``array_ops``, ``nn_ops``:
MindSpore-named functions; ``classes``: MindSpore's primitive classes (``ops.Mul()``).
"""
from . import array_ops, classes, functional, nn_ops
from .array_ops import *  # noqa: F401,F403
from .classes import *  # noqa: F401,F403
from .core import bind
from .functional import *  # noqa: F401,F403
from .nn_ops import *  # noqa: F401,F403
from .prims import PRIMITIVES, Primitive

# The functions capture calls directly (they record nodes themselves) instead of inlining them.
OP_FUNCTIONS = frozenset(getattr(m, n) for m in (functional, array_ops, nn_ops) for n in m.__all__)

__all__ = (functional.__all__ + array_ops.__all__ + nn_ops.__all__ + classes.__all__
           + ["Primitive", "PRIMITIVES", "bind", "OP_FUNCTIONS"])

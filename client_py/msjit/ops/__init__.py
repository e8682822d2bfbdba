"""Operators: the single Python source of truth for what each op is and does.

``prims``: the primitive table (MindIR op_type, eager kernel, abstract rule); ``core.bind``:
applies a primitive eagerly or into a graph; ``functional``: MindSpore-named functions.
"""
from .core import bind
from .functional import *  # noqa: F401,F403
from .functional import __all__ as _functional_all
from .prims import PRIMITIVES, Primitive

__all__ = list(_functional_all) + ["Primitive", "PRIMITIVES", "bind"]

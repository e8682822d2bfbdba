"""``mindspore.ops.primitive``: ``Primitive`` (msjit's core primitives and the base of the
primitive classes) and ``constexpr`` (a function of constants: under capture it runs in Python,
as every call with only constant arguments does)."""
import functools

from msjit.ops import Primitive
from msjit.ops.classes import PrimitiveOp

__all__ = ["Primitive", "PrimitiveOp", "constexpr", "prim_attr_register"]


def constexpr(fn=None, *, get_instance=True, name=None, reuse_result=True, check=True):
    """``@constexpr``: ``fn`` unchanged (its arguments must be constants under jit)."""
    if fn is None:
        return lambda f: f
    return fn


def prim_attr_register(fn):
    """``@prim_attr_register`` on a Primitive subclass's ``__init__``: records the arguments."""
    @functools.wraps(fn)
    def init(self, *args, **kwargs):
        fn(self, *args, **kwargs)
    return init

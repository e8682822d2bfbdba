"""``mindspore.common.api``: ``jit`` and ``jit_class`` (MindSpore 2.x has no ``ms_function``)."""
from msjit import jit, jit_class

__all__ = ["jit", "jit_class"]

"""``mindspore.ops``: msjit.ops's functional ops, primitive classes and composite functions.

Every name of ``msjit.ops`` (including those attached after import, such as ``GradOperation``
and ``depend``) is this module's; the submodules are MindSpore's paths: ``functional``,
``composite``, ``operations`` and ``primitive``.
"""
import msjit.ops as _impl

from .._reexport import reexport

__all__ = reexport(globals(), _impl, _impl.composite, extra=_impl.classes.FUNCTIONAL_ALIASES)

from . import composite, functional, operations, primitive  # noqa: E402
from .primitive import constexpr, prim_attr_register  # noqa: E402

__all__ += ["constexpr", "prim_attr_register"]

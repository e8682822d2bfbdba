"""``mindspore.common.initializer``: ``initializer`` and the Initializer classes (msjit.initializer)."""
import msjit.initializer as _impl

from .._reexport import reexport

__all__ = reexport(globals(), _impl)

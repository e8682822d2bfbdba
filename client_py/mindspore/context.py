"""``mindspore.context``: ``set_context``, ``get_context``, the mode and syntax-level constants."""
import msjit.context as _impl

from ._reexport import reexport

__all__ = reexport(globals(), _impl)

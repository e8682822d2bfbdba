"""``mindspore.train.callback``: msjit.train.callback."""
import msjit.train.callback as _impl

from .._reexport import reexport

__all__ = reexport(globals(), _impl)

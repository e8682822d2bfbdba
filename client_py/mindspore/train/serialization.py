"""``mindspore.train.serialization``: msjit.train.serialization."""
import msjit.train.serialization as _impl

from .._reexport import reexport

__all__ = reexport(globals(), _impl)

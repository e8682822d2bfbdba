"""``mindspore.train.metrics``: msjit.train.metrics."""
import msjit.train.metrics as _impl

from .._reexport import reexport

__all__ = reexport(globals(), _impl)

"""``mindspore.train``: ``Model``, callbacks, metrics and checkpoints (msjit.train)."""
import msjit.train as _impl

from .._reexport import reexport

__all__ = reexport(globals(), _impl)

from . import callback, metrics, serialization  # noqa: E402

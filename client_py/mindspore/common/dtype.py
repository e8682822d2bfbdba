"""``mindspore.common.dtype`` (``from mindspore.common import dtype as mstype``; also
``mindspore.dtype``): the dtype objects (``mstype.float32``, ``mstype.int8``, ...) and their
conversions (``dtype_to_nptype``, ``pytype_to_dtype``, ...)."""
import msjit.dtype as _impl

from .._reexport import reexport

__all__ = reexport(globals(), _impl)

"""``mindspore.ops.functional`` (``import mindspore.ops.functional as F``): as in MindSpore,
the functional names of ``mindspore.ops`` (``F.assign``, ``F.depend``, ``F.grad``, ``F.shape``,
``F.tensor_add``, ...)."""
import msjit.ops as _impl

from .._reexport import reexport

__all__ = reexport(globals(), _impl, _impl.composite, extra=_impl.classes.FUNCTIONAL_ALIASES)

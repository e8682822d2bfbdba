"""``mindspore.ops.composite`` (``import mindspore.ops.composite as C``): ``GradOperation``,
``HyperMap``, ``Map``, ``MultitypeFuncGraph``, ``zeros_like``, ``ones_like``, ..."""
import msjit.ops.composite as _impl

from .._reexport import reexport

__all__ = reexport(globals(), _impl)

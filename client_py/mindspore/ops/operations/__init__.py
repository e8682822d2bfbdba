"""``mindspore.ops.operations`` (``from mindspore.ops import operations as P``): the primitive
classes (``P.Add``, ``P.Assign``, ``P.ReduceSum``, ...)."""
import msjit.ops.classes as _impl
from msjit.ops import Primitive

from ..._reexport import reexport

__all__ = reexport(globals(), _impl) + ["Primitive"]

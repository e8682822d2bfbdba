"""``mindspore.common``: Tensor, Parameter, dtypes, ``jit`` and initializers, at MindSpore's
module paths (``mindspore.common.dtype``, ``.tensor``, ``.parameter``, ``.api``,
``.initializer``, ``.mutable``)."""
from msjit import JitConfig, get_seed, set_seed

from . import api, dtype, initializer, parameter, tensor
from .._reexport import reexport
from .api import jit, jit_class
from .mutable import mutable
from .parameter import Parameter, ParameterTuple
from .tensor import Tensor, is_tensor
from .tensor import tensor as _tensor

__all__ = ["Tensor", "Parameter", "ParameterTuple", "JitConfig", "jit", "jit_class", "mutable", "set_seed",
           "get_seed", "is_tensor", "tensor"] + reexport(globals(), dtype)
tensor = _tensor   # the function shadows the submodule, as in MindSpore

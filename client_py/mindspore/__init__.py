"""``import mindspore`` as an alias of msjit's implementation of the spec'd surface.

Submodules are registered in sys.modules so that ``import mindspore.ops as ops`` and
``from mindspore import ops`` give the very same module objects as ``msjit.ops``.
"""
import sys
import types

import msjit
from msjit import (COMPATIBLE, GRAPH_MODE, LAX, PYNATIVE_MODE, STRICT, JitConfig, Parameter, Tensor,
                   bool_, context, dtype, float16, float32, float64, get_context, grad, initializer, int32,
                   int64, jit, nn, ops, set_context, set_seed, value_and_grad)

common = types.ModuleType(__name__ + ".common", "mindspore.common: initializer")
common.initializer = initializer
for _name, _module in (("ops", ops), ("dtype", dtype), ("nn", nn), ("context", context),
                       ("common", common), ("common.initializer", initializer)):
    sys.modules[f"{__name__}.{_name}"] = _module

__version__ = msjit.__version__
__all__ = ["Tensor", "Parameter", "jit", "JitConfig", "grad", "value_and_grad", "ops", "nn", "dtype", "context", "set_context",
           "get_context", "GRAPH_MODE", "PYNATIVE_MODE", "STRICT", "COMPATIBLE", "LAX", "set_seed",
           "float16", "float32", "float64", "int32", "int64", "bool_"]

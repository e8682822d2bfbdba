"""``import mindspore`` as an alias of msjit's implementation of the spec'd surface.

Submodules are registered in sys.modules so that ``import mindspore.ops as ops`` and
``from mindspore import ops`` give the very same module objects as ``msjit.ops``.
"""
import sys

import msjit
from msjit import (JitConfig, Tensor, bool_, dtype, float16, float32, float64, int32, int64, jit,
                   ops)

sys.modules[__name__ + ".ops"] = ops
sys.modules[__name__ + ".dtype"] = dtype

__version__ = msjit.__version__
__all__ = ["Tensor", "jit", "JitConfig", "ops", "dtype", "float16", "float32", "float64", "int32",
           "int64", "bool_"]

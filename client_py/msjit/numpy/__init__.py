"""``mindspore.numpy``: numpy-style functions over msjit tensors.

Each function is a thin call of the ``msjit.ops`` function that implements it (the numpy
spelling of arguments, an optional result ``dtype``); creation functions return concrete
Tensors (constants under capture) with MindSpore's numpy defaults (int32 for Python ints).
"""
import math as _math

from ..dtype import bool_, float16, float32, float64, int32, int64
from . import array_creations, array_ops, extra_ops, logic_ops, math_ops
from .array_creations import *  # noqa: F401,F403
from .array_ops import *  # noqa: F401,F403
from .extra_ops import *  # noqa: F401,F403
from .logic_ops import *  # noqa: F401,F403
from .math_ops import *  # noqa: F401,F403

float_ = float32
int_ = int32
pi = _math.pi
e = _math.e
inf = PINF = _math.inf
NINF = -_math.inf
nan = _math.nan
newaxis = None

__all__ = (array_creations.__all__ + array_ops.__all__ + logic_ops.__all__ + math_ops.__all__ + extra_ops.__all__
           + ["bool_", "float16", "float32", "float64", "int32", "int64", "float_", "int_", "pi", "e", "inf",
              "PINF", "NINF", "nan", "newaxis"])

# Capture calls these directly on tracers (they record their ops' nodes), as it does ops functions.
for _name in __all__:
    _fn = globals()[_name]
    if callable(_fn) and not isinstance(_fn, type) and getattr(_fn, "__module__", "").startswith(__name__):
        _fn._msjit_records = True

"""msjit: the ``mindspore.jit`` programming model, compiled out of process by msjitd.

Eager (PyNative) execution runs on numpy; ``jit`` captures a function into a MindIR graph,
compiles it in the daemon and runs the native artifact in this process.
"""
__version__ = "0.1.0"

import os as _os

# The vendor kernels (OpenBLAS, oneDNN) share libgomp's thread pool, whose idle
# workers busy-wait by default and starve the single-threaded generated code
# between kernel calls (measured: LlamaAttention jit 4.4 ms -> 0.8 ms on 2 cores).
# libgomp reads this once when it loads, so it only takes effect when msjit is
# imported before numpy; set it in the environment to be sure.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from . import context, dtype, initializer, nn, ops  # noqa: E402
from .config import JitConfig  # noqa: E402
from .context import (COMPATIBLE, GRAPH_MODE, LAX, PYNATIVE_MODE, STRICT, get_context,  # noqa: E402
                      set_context)
from .dtype import bool_, float16, float32, float64, int32, int64  # noqa: E402
from .errors import (CompileError, DaemonError, DaemonUnavailableError, JitFallbackWarning,  # noqa: E402
                     MsjitError, UnsupportedSyntaxError)
from .initializer import set_seed  # noqa: E402
from .explain import explain  # noqa: E402
from .jit import jit  # noqa: E402
from .autodiff import GradOperation, grad, value_and_grad  # noqa: E402
from .parameter import Parameter  # noqa: E402
from .tensor import Tensor  # noqa: E402

# MindSpore also exposes these under ops (ops cannot import autodiff: it is built on ops).
ops.GradOperation, ops.grad, ops.value_and_grad = GradOperation, grad, value_and_grad

__all__ = ["Tensor", "Parameter", "jit", "JitConfig", "grad", "value_and_grad", "ops", "nn", "dtype", "context", "set_context",
           "get_context", "GRAPH_MODE", "PYNATIVE_MODE", "STRICT", "COMPATIBLE", "LAX", "set_seed",
           "float16", "float32", "float64", "int32", "int64", "bool_", "MsjitError",
           "UnsupportedSyntaxError", "CompileError", "DaemonError", "DaemonUnavailableError",
           "JitFallbackWarning"]

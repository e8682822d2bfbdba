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
from .config import JitConfig, jit_class, mutable  # noqa: E402
from .context import (COMPATIBLE, GRAPH_MODE, LAX, PYNATIVE_MODE, STRICT, get_context, get_seed,  # noqa: E402
                      set_context, set_device, set_seed)
from .dtype import (bool_, dtype_to_nptype, dtype_to_pytype, float16, float32, float64, float_,  # noqa: E402
                    int8, int16, int32, int64, pytype_to_dtype, uint8, uint16, uint32, uint64)
from .errors import (CompileError, DaemonError, DaemonUnavailableError, JitFallbackWarning,  # noqa: E402
                     MsjitError, UnsupportedSyntaxError)
from .explain import explain  # noqa: E402
from .jit import jit  # noqa: E402
from .autodiff import GradOperation, ParameterTuple, grad, value_and_grad  # noqa: E402
from .parameter import Parameter  # noqa: E402
from .tensor import Tensor  # noqa: E402
from .ops import composite  # noqa: E402

# MindSpore also exposes these under ops (ops cannot import autodiff: it is built on ops).
ops.GradOperation, ops.grad, ops.value_and_grad = GradOperation, grad, value_and_grad
# ops.functional's other names (``ops.depend``, ``ops.tensor_add``, ...) unless an op has the name.
_FUNCTIONAL = {**{n: getattr(composite, n) for n in composite.__all__}, **ops.classes.FUNCTIONAL_ALIASES}
for _name, _value in _FUNCTIONAL.items():
    if not hasattr(ops, _name):
        setattr(ops, _name, _value)


def tensor(data, dtype=None):
    """``mindspore.tensor(data, dtype=None)``: ``Tensor(data, dtype)``."""
    return Tensor(data, dtype)


def is_tensor(obj):
    """``mindspore.is_tensor``: True for Tensors (and Parameters)."""
    return isinstance(obj, Tensor)


from . import train  # noqa: E402  (after nn: Model builds nn's training cells)
from .train import Model, load_checkpoint, load_param_into_net, save_checkpoint  # noqa: E402

# MindSpore's nn also has the metrics (``nn.Accuracy()``), unless msjit.nn defines its own.
for _name in ("Metric", "Accuracy", "Loss", "MAE", "MSE", "get_metric_fn"):
    if not hasattr(nn, _name):
        setattr(nn, _name, getattr(train, _name))

__all__ = ["Tensor", "Parameter", "ParameterTuple", "tensor", "is_tensor", "jit", "jit_class", "mutable",
           "JitConfig", "grad", "value_and_grad", "GradOperation", "ops", "nn", "dtype", "context", "train",
           "Model", "save_checkpoint", "load_checkpoint", "load_param_into_net",
           "set_context", "get_context", "set_device", "GRAPH_MODE", "PYNATIVE_MODE", "STRICT", "COMPATIBLE",
           "LAX", "set_seed", "get_seed", "float16", "float32", "float64", "float_", "int8", "int16", "int32",
           "int64", "uint8", "uint16", "uint32", "uint64", "bool_", "dtype_to_nptype", "dtype_to_pytype",
           "pytype_to_dtype", "MsjitError", "UnsupportedSyntaxError", "CompileError", "DaemonError",
           "DaemonUnavailableError", "JitFallbackWarning"]

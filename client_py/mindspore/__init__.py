"""``import mindspore``: MindSpore's module layout over msjit's implementation.

Real modules mirror msjit's (``mindspore.ops``, ``.ops.functional``, ``.ops.composite``,
``.ops.operations``, ``.common`` and its submodules, ``.context``, ``.train``, ``.dataset``),
sharing its objects; ``mindspore.nn`` and ``mindspore.numpy`` are msjit.nn and msjit.numpy
themselves, submodules included (see _alias).
"""
import importlib.util as _util

import msjit as _impl

from ._alias import alias as _alias
from ._reexport import reexport as _reexport

_alias("mindspore.nn", "msjit.nn")
_alias("mindspore.numpy", "msjit.numpy")

__all__ = _reexport(globals(), _impl)
from . import common, context, dataset, nn, ops, train  # noqa: E402
from .common import dtype  # noqa: E402  (mindspore.dtype is mindspore.common.dtype)
from .common.dtype import *  # noqa: E402,F401,F403

if _util.find_spec("msjit.numpy") is not None:
    from . import numpy  # noqa: F401

from .ops import get_grad  # noqa: E402  (MindSpore has it at the top level too)
from .train.callback import Callback, CheckpointConfig, LossMonitor, ModelCheckpoint, TimeMonitor  # noqa: E402

__all__ += [n for n in common.dtype.__all__ if n not in __all__] + ["common", "dataset", "Callback",
                                                                  "LossMonitor", "TimeMonitor", "ModelCheckpoint",
                                                                  "CheckpointConfig", "numpy", "run_check", "get_grad"]
__version__ = _impl.__version__


def run_check():
    """``mindspore.run_check()``: multiply two tensors and report, as MindSpore's does (stdout)."""
    import sys

    import numpy as np
    x = Tensor(np.ones((2, 2), np.float32))
    ok = np.array_equal((x * x).asnumpy(), np.ones((2, 2)))
    sys.stdout.write(f"MindSpore version:  {__version__} (msjit)\n")
    sys.stdout.write("The result of multiplication calculation is correct, MindSpore has been installed on "
                     "platform [CPU] successfully!\n" if ok else "The result of multiplication calculation is "
                     "not correct, MindSpore (msjit) is not working.\n")

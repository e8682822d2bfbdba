"""``set_context`` / ``get_context`` / ``set_device`` / ``set_seed``: the process-wide settings.

GRAPH_MODE compiles every top-level Cell call through msjitd (its ``construct`` as with ``jit``);
PYNATIVE_MODE (the default, as in MindSpore 2.x) runs Cells eagerly, where a ``@jit``
``construct`` still compiles that Cell alone.

Keys that change behavior: ``mode``, ``device_target`` (only "CPU"), ``jit_syntax_level``
(STRICT = fullgraph; COMPATIBLE behaves as LAX: unsupported syntax falls back to Python) and
``jit_config``. Every other key MindSpore programs commonly pass (``save_graphs``,
``max_call_depth``, ``pynative_synchronize``, ``runtime_num_threads``, ...) is accepted and
recorded for ``get_context`` but has no effect: msjit has no graph dumps, runs synchronously
and does not limit recursion.
"""
import logging
import numbers
GRAPH_MODE = 0
PYNATIVE_MODE = 1
STRICT, COMPATIBLE, LAX = 0, 1, 2          # jit_syntax_level
SYNTAX_LEVEL_NAMES = {STRICT: "STRICT", COMPATIBLE: "COMPATIBLE", LAX: "LAX"}
DEVICE_TARGETS = ("CPU",)

logger = logging.getLogger(__name__)

_settings = {"mode": PYNATIVE_MODE, "device_target": "CPU", "device_id": 0, "jit_syntax_level": LAX,
             "jit_config": None}
# Accepted and recorded, no effect in msjit (see the module docstring): key -> default.
NO_OP_KEYS = {"save_graphs": False, "save_graphs_path": ".", "max_call_depth": 1000, "jit_level": "O0",
              "pynative_synchronize": False, "memory_optimize_level": "O0", "max_device_memory": "1024GB",
              "runtime_num_threads": 30, "inter_op_parallel_num": 0, "enable_graph_kernel": False,
              "graph_kernel_flags": "", "enable_compile_cache": False, "compile_cache_path": ".",
              "enable_reduce_precision": True, "enable_auto_mixed_precision": False, "check_bprop": False,
              "grad_for_scalar": False, "enable_sparse": False, "deterministic": "OFF", "precompile_only": False,
              "reserve_class_name_in_scope": True, "print_file_path": "", "env_config_path": "",
              "mempool_block_size": "1GB", "op_timeout": 1900, "variable_memory_max_size": "0",
              "debug_level": 0, "support_binary": False, "disable_format_transform": False,
              "exec_order": "bfs", "ascend_config": None, "gpu_config": None, "aoe_tune_mode": "",
              "aoe_config": None, "memory_offload": "OFF", "device_memory_optimize_level": "O0"}
_settings.update(NO_OP_KEYS)
_seed = None


def _check_mode(v):
    if v not in (GRAPH_MODE, PYNATIVE_MODE) or isinstance(v, bool):
        raise ValueError(f"set_context: mode must be GRAPH_MODE (0) or PYNATIVE_MODE (1); got {v!r}")
    return v


class DeviceUnavailableError(RuntimeError, ValueError):
    """A device target other than CPU: a RuntimeError as in MindSpore (a ValueError too, as the
    other invalid context values)."""


def _check_device(v, what="set_context"):
    if v not in DEVICE_TARGETS:
        raise DeviceUnavailableError(f"{what}: unsupported device target {v!r}: not available in msjit, which "
                                     f"runs on {', '.join(map(repr, DEVICE_TARGETS))}")
    return v


def _check_syntax_level(v):
    if v not in SYNTAX_LEVEL_NAMES or isinstance(v, bool):
        raise ValueError("set_context: jit_syntax_level must be mindspore.STRICT, COMPATIBLE or LAX; "
                         f"got {v!r}")
    if v == COMPATIBLE:
        logger.debug("jit_syntax_level=COMPATIBLE: unsupported syntax falls back to Python, as with LAX")
    return v


def _check_jit_config(v):
    from .config import JitConfig
    if v is None or isinstance(v, JitConfig):
        return v
    if isinstance(v, dict):
        return JitConfig(**v)
    raise ValueError(f"set_context: jit_config must be a dict of JitConfig arguments; got {v!r}")


_CHECKS = {"mode": _check_mode, "device_target": _check_device, "jit_syntax_level": _check_syntax_level,
           "jit_config": _check_jit_config}


def set_context(**kwargs):
    """Set context keys (validated all at once: an invalid call changes nothing)."""
    new = {}
    for key, value in kwargs.items():
        if key not in _settings:
            raise ValueError(f"set_context: unknown key {key!r}; valid keys are "
                             f"{', '.join(map(repr, _settings))}")
        new[key] = _CHECKS.get(key, lambda v: v)(value)
    _settings.update(new)


def get_context(attr_key):
    if attr_key not in _settings:
        raise ValueError(f"get_context: unknown key {attr_key!r}; valid keys are "
                         f"{', '.join(map(repr, _settings))}")
    return _settings[attr_key]


def set_device(device_target, device_id=None):
    """``mindspore.set_device``: "CPU" is the only target (RuntimeError for any other, as
    MindSpore raises on a machine without that device)."""
    _check_device(device_target, "set_device")
    if device_id is not None and (not isinstance(device_id, int) or isinstance(device_id, bool) or device_id < 0):
        raise ValueError(f"set_device: device_id must be an int >= 0, got {device_id!r}")
    _settings.update(device_target=device_target, device_id=device_id or 0)


def set_seed(seed):
    """``mindspore.set_seed``: the global seed of initializers and eager random ops."""
    if not isinstance(seed, numbers.Integral):
        raise TypeError(f"set_seed: the argument 'seed' must be type of int, but got {type(seed)}")
    if isinstance(seed, bool) or seed < 0:
        raise ValueError(f"set_seed: 'seed' must be an int >= 0, got {seed!r}")
    global _seed
    from . import initializer
    initializer.set_seed(int(seed))
    _seed = int(seed)


def get_seed():
    """The seed given to ``set_seed`` (None before any call), as in MindSpore."""
    return _seed


def is_graph_mode():
    return _settings["mode"] == GRAPH_MODE

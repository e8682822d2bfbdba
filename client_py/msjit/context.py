"""``set_context`` / ``get_context``: the execution mode and the settings graph compiles use.

GRAPH_MODE compiles every top-level Cell call through msjitd (its ``construct`` as with ``jit``);
PYNATIVE_MODE (the default, as in MindSpore 2.x) runs Cells eagerly, where a ``@jit``
``construct`` still compiles that Cell alone.
"""
GRAPH_MODE = 0
PYNATIVE_MODE = 1
STRICT, COMPATIBLE, LAX = 0, 1, 2          # jit_syntax_level
SYNTAX_LEVEL_NAMES = {STRICT: "STRICT", COMPATIBLE: "COMPATIBLE", LAX: "LAX"}
DEVICE_TARGETS = ("CPU",)

_settings = {"mode": PYNATIVE_MODE, "device_target": "CPU", "device_id": 0, "jit_syntax_level": LAX,
             "jit_config": None, "save_graphs": False, "save_graphs_path": ".", "max_call_depth": 1000,
             "pynative_synchronize": False, "memory_optimize_level": "O0", "max_device_memory": None}


def _check_mode(v):
    if v not in (GRAPH_MODE, PYNATIVE_MODE) or isinstance(v, bool):
        raise ValueError(f"set_context: mode must be GRAPH_MODE (0) or PYNATIVE_MODE (1); got {v!r}")
    return v


def _check_device(v):
    if v not in DEVICE_TARGETS:
        raise ValueError(f"set_context: device_target {v!r} is not available; msjit runs on "
                         f"{', '.join(map(repr, DEVICE_TARGETS))}")
    return v


def _check_syntax_level(v):
    if v not in SYNTAX_LEVEL_NAMES or isinstance(v, bool):
        raise ValueError("set_context: jit_syntax_level must be mindspore.STRICT, COMPATIBLE or LAX; "
                         f"got {v!r}")
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


def is_graph_mode():
    return _settings["mode"] == GRAPH_MODE

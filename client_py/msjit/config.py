"""Validated compile settings: what ``jit(...)`` and ``JitConfig(...)`` accept, checked in one place.

Every invalid value raises ValueError naming the parameter and the valid values.
"""
import logging
from dataclasses import dataclass, field

from .proto import msjit_pb2

CAPTURE_MODES = ("ast", "bytecode", "trace")
JIT_LEVELS = ("O0", "O1")
CONFIG_JIT_LEVELS = ("O0", "O1", "O2")     # JitConfig also accepts the experimental O2
BACKENDS = ("", "ms_backend", "GE")
EXC_MODES = ("auto", "sink", "no_sink")
SYNTAX_LEVELS = ("", "STRICT", "COMPATIBLE", "LAX")
OPTIONS = {                                # option -> valid values (None: checked by a function)
    "disable_format_transform": (True, False),
    "exec_order": ("bfs", "dfs"),
    "ge_options": None,
    "infer_boost": ("on", "off"),
}
GE_OPTION_GROUPS = ("global", "session")


logger = logging.getLogger("msjit")
# MindSpore's earlier jit(mode=...) spelling of the capture mode ("PSJit": parse the source;
# "PIJit": run the bytecode), still written by existing programs.
_LEGACY_MODES = {"PSJit": "ast", "PIJit": "bytecode"}


def check_choice(what, value, valid):
    if not any(value is v or (type(value) is type(v) and value == v) for v in valid):
        raise ValueError(f"{what} must be one of {', '.join(map(repr, valid))}; got {value!r}")
    return value


def check_options(options, what="jit"):
    """Validate backend options; returns them as a new dict."""
    for key, value in options.items():
        if key not in OPTIONS:
            valid = ", ".join(map(repr, OPTIONS))
            raise ValueError(f"{what}: unknown option {key!r}; valid options are {valid}")
        if key == "ge_options":
            _check_ge_options(value, what)
        else:
            check_choice(f"{what}: option {key!r}", value, OPTIONS[key])
    return dict(options)


def _check_ge_options(value, what):
    if not isinstance(value, dict):
        raise ValueError(f"{what}: option 'ge_options' must be a dict with keys 'global' and/or 'session'")
    for group, opts in value.items():
        check_choice(f"{what}: ge_options key", group, GE_OPTION_GROUPS)
        if not isinstance(opts, dict):
            raise ValueError(f"{what}: ge_options[{group!r}] must be a dict of option names to values")


@dataclass(frozen=True)
class CompileConfig:
    """Everything that decides how a function is captured and compiled (validated)."""
    capture_mode: str = "ast"
    jit_level: str = "O0"
    fullgraph: bool = False
    backend: str = ""
    dynamic: bool = False                  # reserved by the spec: accepted, no effect
    options: dict = field(default_factory=dict)

    @classmethod
    def for_jit(cls, capture_mode, jit_level, dynamic, fullgraph, backend, options):
        """Validate the arguments of ``jit(...)``. Options msjit does not know are ignored with a
        warning, as MindSpore 2.10 hands them to its backend; the legacy ``mode`` picks the capture
        mode when ``capture_mode`` is left at its default."""
        options = dict(options)
        legacy = options.pop("mode", None)
        if legacy is not None:
            check_choice("jit: mode", legacy, tuple(_LEGACY_MODES))
            if capture_mode == "ast":
                capture_mode = _LEGACY_MODES[legacy]
        unknown = sorted(k for k in options if k not in OPTIONS)
        if unknown:
            logger.warning("jit: ignoring option(s) %s (not options of msjit's backends; valid options are %s)",
                           ", ".join(map(repr, unknown)), ", ".join(map(repr, OPTIONS)))
            options = {k: v for k, v in options.items() if k in OPTIONS}
        check_choice("jit: capture_mode", capture_mode, CAPTURE_MODES)
        check_choice("jit: jit_level", jit_level, JIT_LEVELS)
        check_choice("jit: backend", backend, BACKENDS)
        check_choice("jit: dynamic", dynamic, (True, False))
        check_choice("jit: fullgraph", fullgraph, (True, False))
        return cls(capture_mode, jit_level, fullgraph, backend, dynamic, check_options(options))

    def to_proto(self):
        o = self.options
        return msjit_pb2.CompileOptions(
            jit_level=self.jit_level, backend=self.backend or "ms_backend",
            exec_order=o.get("exec_order", "bfs"),
            disable_format_transform=o.get("disable_format_transform", False),
            infer_boost=o.get("infer_boost", "off"))


class JitConfig:
    """``mindspore.JitConfig(jit_level="O1", exc_mode="auto", jit_syntax_level="", **kwargs)``.

    ``exc_mode`` picks the executor (sink = whole graph, as backend="GE"; no_sink = kernel by
    kernel, as "ms_backend"); ``jit_syntax_level`` STRICT means fullgraph=True; LAX, COMPATIBLE and ""
    fullgraph=False (unsupported syntax falls back to Python, so COMPATIBLE accepts every program
    LAX accepts); kwargs are the backend options of ``jit``.
    """

    def __init__(self, jit_level="O1", exc_mode="auto", jit_syntax_level="", **kwargs):
        check_choice("JitConfig: jit_level", jit_level, CONFIG_JIT_LEVELS)
        check_choice("JitConfig: exc_mode", exc_mode, EXC_MODES)
        check_choice("JitConfig: jit_syntax_level", jit_syntax_level, SYNTAX_LEVELS)
        check_options(kwargs, "JitConfig")
        self.jit_config_dict = dict(jit_level=jit_level, exc_mode=exc_mode,
                                    jit_syntax_level=jit_syntax_level, **kwargs)

    def __repr__(self):
        return f"JitConfig({', '.join(f'{k}={v!r}' for k, v in self.jit_config_dict.items())})"

    def to_config(self, capture_mode="ast"):
        """The CompileConfig this JitConfig stands for."""
        d = dict(self.jit_config_dict)
        backend = {"auto": "", "sink": "GE", "no_sink": "ms_backend"}[d.pop("exc_mode")]
        fullgraph = d.pop("jit_syntax_level") == "STRICT"
        return CompileConfig(capture_mode, d.pop("jit_level"), fullgraph, backend, False, d)


def jit_class(cls):
    """``mindspore.jit_class``: mark a class whose instances jit functions may use. Capture already
    reads any object's attributes as constants and interprets its methods as user code, so the
    mark (``__ms_class__``, as MindSpore sets) changes nothing; non-classes are a TypeError."""
    if not isinstance(cls, type):
        raise TypeError(f"Decorator jit_class can only be used for class type, but got {cls!r}")
    cls.__ms_class__ = True
    return cls


def mutable(input_data, dynamic_len=False):
    """``mindspore.mutable``: returns ``input_data`` unchanged. In MindSpore a mutable tuple or
    scalar is a graph input rather than a constant; msjit keeps it a constant of the compile
    guard (a new value recompiles), which gives the same results."""
    return input_data


mutable._msjit_records = True    # capture calls it on tracers (it records nothing)

"""``jit``: wrap a Python function so that it runs as a compiled graph.

Stages on a cache miss: capture (ast | bytecode | trace) -> Captured graph -> MindIR ModelProto
-> msjitd Compile -> artifact loaded in process. Compiled entries are cached per function under
a guard key: for each argument, a Tensor's (dtype, shape) or a constant's value. The compile
options are fixed per JitFunction, so its cache is implicitly keyed on them too.

capture_mode "bytecode" currently uses the ast interpreter (same guards, including Python-constant
globals). "trace" runs the function on tracers once per input signature: it guards the inputs'
dtypes and shapes only, so Python control flow, globals and side effects are frozen to that call.
"""
import inspect
import os
import logging
import re
import time
import warnings
from dataclasses import dataclass
from functools import cached_property, update_wrapper
from types import MethodType

import numpy as np

from . import rpc, runtime, serialize
from .capture.ast import capture_ast
from .capture.graph import ARG, OUT, current_builder, unflatten
from .capture.trace import capture_trace
from .config import CompileConfig
from .errors import CompileError, JitFallbackWarning, UnsupportedSyntaxError
from .tensor import Tensor

logger = logging.getLogger(__name__)

_CAPTURE = {"ast": capture_ast, "bytecode": capture_ast, "trace": capture_trace}


def jit(function=None, *, capture_mode="ast", jit_level="O0", dynamic=False, fullgraph=False,
        backend="", **options):
    """``mindspore.jit``: ``jit(f, ...)`` or ``@jit`` / ``@jit(...)``. See the spec for each knob."""
    config = CompileConfig.for_jit(capture_mode, jit_level, dynamic, fullgraph, backend, options)
    if function is None:
        return lambda fn: JitFunction(fn, config)
    if capture_mode == "trace":
        raise ValueError("jit: capture_mode='trace' is only supported in decorator form "
                         "(@jit(capture_mode='trace')), not as jit(function, capture_mode='trace')")
    return JitFunction(function, config)


@dataclass
class JitStats:
    captures: int = 0       # functions captured (cache misses)
    compiles: int = 0       # Compile requests sent to msjitd
    fallbacks: int = 0      # 1 once the function runs eagerly (JIT Fallback)


class _Entry:
    """One compiled specialization: its executable and how to rebuild the return value.

    A run passes the tensor arguments, then the Parameters (by reference: their current
    arrays), and writes the updated Parameters (extra outputs) back in place.
    """

    __slots__ = ("captured", "exe", "fast")

    def __init__(self, captured, exe, fast):
        self.captured, self.exe, self.fast = captured, exe, fast

    def __call__(self, args):
        c = self.captured
        outs = ()
        if self.exe is not None:
            outs = self.exe.run([args[i]._array for i in c.tensor_args] + [p._array for p in c.parameters])
            for p, i in c.updates:
                np.copyto(p._array, outs[i])
                p._version += 1
        leaves = (Tensor._wrap(outs[v]) if kind == OUT else args[v] if kind == ARG else v
                  for kind, v in c.leaves)
        return unflatten(c.tree, leaves)

    def stale(self):
        """What an assumption of this graph no longer matches (see Captured.guard_holds), or None."""
        return self.captured.guard_holds()


def _no_fast(args):
    return None


class JitFunction:
    """The callable ``jit`` returns. ``stats`` counts captures and compiles (cache behaviour)."""

    def __init__(self, fn, config):
        if not callable(fn):
            raise TypeError(f"jit: expected a function, got {type(fn).__name__}")
        update_wrapper(self, fn)
        self.fn = fn
        self.config = config
        self.stats = JitStats()
        self._cache = {}
        self._fast = _no_fast       # FastCall of the entry used last, when it has one
        self._last_key = None       # guard of the entry used last (recompile reasons)
        self._fallback = False

    @property
    def _msjit_source_fn(self):  # capture inlines a jitted function called from another one
        return self.fn

    def __call__(self, *args, **kwargs):
        if not kwargs:
            out = self._fast(args)
            if out is not None:
                return out
        return self._call_slow(args, kwargs)

    def _call_slow(self, args, kwargs):
        if self._fallback or current_builder() is not None:  # (called while tracing: inlined)
            return self.fn(*args, **kwargs)
        args, kwargs = self._normalize(args, kwargs)
        key = _guard_key(args, kwargs)
        entry = self._cache.get(key)
        if entry is None or entry.stale():
            if self._cache and _LOG_RECOMPILES:
                _log_recompile(self.__qualname__, self._last_key, key, entry and entry.stale())
            entry = self._compile(args, kwargs)
            if entry is None:
                return self.fn(*args, **kwargs)
            self._cache[key] = entry
        self._last_key = key
        self._fast = entry.fast or _no_fast
        return entry(args)

    def _normalize(self, args, kwargs):
        """Keyword arguments become positional where the signature allows (one guard key per call
        shape); keyword-only ones stay keywords and must be constants."""
        if not kwargs:
            return args, kwargs
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return bound.args, bound.kwargs

    @cached_property
    def _signature(self):
        return inspect.signature(self.fn)

    def __get__(self, obj, objtype=None):
        """A jitted method binds like a function; the instance is then a constant argument
        (part of the guard key, its attributes read at capture)."""
        return self if obj is None else MethodType(self, obj)

    def lower(self, *args, **kwargs):
        """Capture for these arguments without compiling: a Captured (``.graph.as_text()``)."""
        return self._capture(*self._normalize(args, kwargs))

    def _capture(self, args, kwargs):
        fold = self.config.options.get("infer_boost") == "on"
        return _CAPTURE[self.config.capture_mode](self.fn, args, kwargs, fold_parameters=fold)

    def _compile(self, args, kwargs):
        """Capture, compile and load one specialization; None means: run eagerly from now on."""
        t0 = time.perf_counter()
        try:
            captured = self._capture(args, kwargs)
        except UnsupportedSyntaxError as e:
            if self.config.fullgraph:
                raise
            warnings.warn(f"{e}; {self.__qualname__} runs eagerly (JIT Fallback). "
                          "Use fullgraph=True to make this an error.", JitFallbackWarning, stacklevel=4)
            self._fallback = True
            self.stats.fallbacks = 1
            return None
        self.stats.captures += 1
        graph, exe, fast = captured.graph, None, None
        if graph.outputs:
            client = rpc.client()
            try:
                reply = client.compile(serialize.to_model(graph), self.config.to_proto())
            except CompileError as e:
                raise _locate_compile_error(e, graph) from None
            self.stats.compiles += 1
            exe = runtime.load(reply, client)
            runtime.check_signature(exe, graph)
            logger.debug("%s: compiled %d nodes (key %s, cache tier %d) in %.1f ms", graph.name,
                         len(graph.nodes), reply.key[:12], reply.hit, (time.perf_counter() - t0) * 1e3)
            if _fast_eligible(captured, args, kwargs):
                fast = _with_guards(_with_parameters(runtime.fast_call(exe, captured.tree is None), captured),
                                    captured)
        return _Entry(captured, exe, fast)


_LOG_RECOMPILES = "recompiles" in os.environ.get("MSJIT_LOG", "").split(",")


def _log_recompile(name, previous, key, stale_reason):
    """Why a function compiles again: which guard entry changed since the last call."""
    if stale_reason:
        reason = stale_reason
    elif previous is None or len(previous) != len(key):
        reason = f"the call signature changed: {previous} -> {key}"
    else:
        changed = [f"argument {i}: {old} -> {new}" for i, (old, new) in enumerate(zip(previous, key)) if old != new]
        reason = "; ".join(changed) or "a keyword argument changed"
    logger.info("recompiling %s: %s", name, reason)


def _guard_key(args, kwargs):
    key = tuple((a._array.dtype, a.shape) if isinstance(a, Tensor) else _constant_key(a) for a in args)
    return key + tuple((k, _constant_key(v)) for k, v in kwargs.items()) if kwargs else key


def _constant_key(v):
    guard = getattr(v, "_msjit_guard", None)   # objects whose captured state can change (Cells)
    if guard is not None:
        return (type(v), v, guard())
    if isinstance(v, (Tensor, np.ndarray)):
        raise TypeError(f"jit: a {type(v).__name__} inside a container, as a keyword-only argument "
                        "or as a numpy array is not supported yet; pass Tensors as positional arguments")
    if isinstance(v, (tuple, list)):
        return (type(v), tuple(_constant_key(x) for x in v))
    if isinstance(v, dict):
        return (dict, tuple((k, _constant_key(x)) for k, x in v.items()))
    try:
        hash(v)
    except TypeError:
        raise TypeError(f"jit: argument of type {type(v).__name__} is neither a Tensor nor a hashable "
                        "constant") from None
    return (type(v), v)


def _fast_eligible(captured, args, kwargs):
    """FastCall handles calls whose arguments are all Tensors and whose results are exactly the
    graph outputs, in order: one tensor or a flat tuple of them. Graphs that write Parameters
    back or folded them take the general path."""
    leaves, tree = captured.leaves, captured.tree
    return (not kwargs and captured.tensor_args == tuple(range(len(args)))
            and not captured.updates and not captured.folded
            and all(kind == OUT for kind, _ in leaves)
            and [i for _, i in leaves] == list(range(len(leaves)))
            and (tree is None or (tree[0] is tuple and all(t is None for t in tree[1]))))


def _with_guards(fast, captured):
    """The FastCall of a graph that assumed global values: checked first, so a changed global
    falls to the slow path, which recompiles."""
    if not captured.globals_read:
        return fast
    holds = captured.guard_holds
    return lambda args: fast(args) if holds() is None else None


def _with_parameters(fast, captured):
    """The FastCall, given the Parameters after the arguments. Their arrays are never replaced
    (see Parameter), so plain Tensors over them, made once, stay valid."""
    if not captured.parameters:
        return fast
    refs = tuple(Tensor._wrap(p._array) for p in captured.parameters)
    return lambda args: fast(args + refs)


def _locate_compile_error(error, graph):
    """Make sure a daemon diagnostic starts with the user's file:line of the node it names."""
    message = str(error)
    for name in re.findall(r"\b[A-Za-z]+_\d+\b", message):
        node = graph.node(name)
        if node is not None and node.location:
            where = f"{node.location[0]}:{node.location[1]}"
            if where not in message:
                message = f"{where}: {message}"
            return CompileError(message, node=name, location=node.location)
    return error

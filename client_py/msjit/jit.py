"""``jit``: wrap a Python function so that it runs as a compiled graph.

Stages on a cache miss: capture (ast | bytecode | trace) -> Captured graph -> MindIR ModelProto
-> msjitd Compile -> artifact loaded in process. Compiled entries are cached per function under
a guard key: for each argument, a Tensor's (dtype, shape) or a constant's value. The compile
options are fixed per JitFunction, so its cache is implicitly keyed on them too.

capture_mode "bytecode" interprets the function's bytecode (capture/bytecode.py): a call with no
graph break and no side effect is cached as one graph under its guards (the signature plus every
global, closure variable and attribute read); for any other call, the guard runs generated code
from then on (capture/resume.py): the Python statements as normal bytecode, the graph pieces
between them as jitted functions, each compiled once under its own guards. At most ``cache_limit`` guards are kept per function (default 8,
MSJIT_CACHE_LIMIT); calls past it run eagerly. Under GRAPH_MODE a bytecode function runs as plain
Python, as the spec says. "trace" runs the function on tracers once per input signature: it guards
the inputs' dtypes and shapes only, so Python control flow, globals and side effects are frozen to
that call. Under LAX, an ast capture that meets an unsupported construct is split there: the call
is interpreted as in bytecode mode, Python running what the graph cannot hold (JIT Fallback).

When msjitd cannot be reached or started (DaemonUnavailableError), a fullgraph=False function under
a jit_syntax_level other than STRICT runs without it: the call runs eagerly (a graph piece of an
interpreted call runs on the primitives' numpy kernels), with one JitFallbackWarning per outage,
and compiling is tried again after DAEMON_RETRY_S seconds (env MSJIT_DAEMON_RETRY_S, default 30)
rather than on every call. Under STRICT or fullgraph=True the error is raised.
"""
import inspect
import linecache
import logging
import os
import re
import time
import warnings
from dataclasses import dataclass
from functools import cached_property, update_wrapper
from types import MethodType

import numpy as np

from . import context, rpc, runtime, serialize
from .capture.ast import capture_ast
from .capture.bytecode import Uninterpretable, _source_of, capture_bytecode
from .capture.control import evaluate
from .capture.graph import ARG, OUT, Captured, Graph, unflatten
from .capture.resume import Unsplittable, split
from .capture.segments import Session
from .capture.trace import capture_trace
from .config import CompileConfig
from .errors import CompileError, DaemonError, DaemonUnavailableError, JitFallbackWarning, UnsupportedSyntaxError
from .core import TAPES, current_builder
from .parameter import Parameter, is_value_tensor
from .tensor import Tensor

logger = logging.getLogger(__name__)

_CAPTURE = {"ast": capture_ast, "trace": capture_trace}
CACHE_LIMIT = int(os.environ.get("MSJIT_CACHE_LIMIT", "8"))
DAEMON_RETRY_S = float(os.environ.get("MSJIT_DAEMON_RETRY_S", "30"))
_NOTHING = object()


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
    fallbacks: int = 0      # 1 once the function meets what its graph cannot hold (JIT Fallback)
    graph_breaks: int = 0   # graph breaks met, over all interpreted calls
    interpreted: int = 0    # calls interpreted again (an ast function split under LAX; bytecode it cannot split)
    daemon_unavailable: int = 0  # calls (or graph pieces) run eagerly because msjitd was unavailable
    resumed: int = 0        # calls run as generated code (bytecode: graph breaks or side effects)


class _Entry:
    """One compiled specialization: its executable and how to rebuild the return value.

    A run passes the tensor arguments, then the Parameters (by reference: their current
    arrays), and writes the updated Parameters (extra outputs) back in place.
    """

    __slots__ = ("captured", "exe", "fast")

    def __init__(self, captured, exe, fast):
        self.captured, self.exe, self.fast = captured, exe, fast

    def __call__(self, args, kwargs=None):
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


class _Interpreted:
    """A guard whose calls are interpreted each time (graph breaks or side effects); the first
    call's result was computed while capturing."""

    fast = None

    def __init__(self, jitted, first_result=_NOTHING):
        self.jitted, self.pending = jitted, first_result

    def __call__(self, args, kwargs):
        result, self.pending = self.pending, _NOTHING
        if result is _NOTHING:
            self.jitted.stats.interpreted += 1
            result = self.jitted._interpret(args, kwargs, want_captured=False)
        return result

    def stale(self):
        return None


class _Resumed:
    """A guard whose calls run generated code (capture/resume.py): Python statements as normal
    bytecode, graph pieces as jitted functions (``pieces``); the first call's result was computed
    while capturing."""

    fast = None

    def __init__(self, stats, resume, pieces, first_result):
        self.stats, self.resume, self.pieces, self.pending = stats, resume, pieces, first_result

    def __call__(self, args, kwargs):
        result, self.pending = self.pending, _NOTHING
        if result is _NOTHING:
            self.stats.resumed += 1
            result = self.resume(*args, **kwargs)
        return result

    def stale(self):
        return None    # (each piece checks its own guards; Python statements read globals afresh)


class _Piece:
    """One graph piece of generated code: a jitted function of its own (its cache and guards,
    the whole function's stats and artifacts). Given a Python float (a value Python computed, as
    ``float(x.sum())``), or an int that changed since an earlier call (a loop counter), it runs
    eagerly instead: its guard holds such values, so it would compile again on almost every call
    (an eager run costs what the same Python costs unjitted)."""

    def __init__(self, owner, fn):
        self.fn = fn
        self.jitted = JitFunction(fn, owner.config)
        self.jitted.stats, self.jitted._owner = owner.stats, owner
        self.ints = {}          # argument position -> the int it had first, or None once it changed

    def __call__(self, *args):
        jitted = self.jitted
        if not TAPES:          # (JitFunction.__call__ inlined: a piece's call is on the hot path)
            out = jitted._fast(args)
            if out is not None:
                return out
        for i, a in enumerate(args):
            if type(a) is float:
                return self.fn(*args)
            if type(a) is int and self.ints.setdefault(i, a) != a:
                self.ints[i] = None
                return self.fn(*args)
        return jitted._call_slow(args, {})


def _no_fast(args):
    return None


class _EagerGraph:
    """A graph piece run node by node on the primitives' numpy kernels (as eager ops run): how an
    interpreted call goes on while msjitd is unavailable. Same ``run`` as an Executable."""

    def __init__(self, graph):
        other = next((n for n in graph.nodes if n.op_type == "Grad"), None)
        if other is not None:   # (a Grad node: its body needs the compiler)
            raise DaemonError(f"msjitd is unavailable and {graph.name} holds {other.name}, which only a "
                              "compiled graph runs")
        self.graph = graph

    def run(self, arrays):
        return evaluate(self.graph, arrays)   # (If/While included: see capture.control)


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
        self._segments = {}         # graph key -> executable: pieces of interpreted calls
        self.cache_limit = CACHE_LIMIT
        self._fast = _no_fast       # FastCall of the entry used last, when it has one
        self._last_key = None       # guard of the entry used last (recompile reasons)
        self._fallback = False
        self._flat = {}             # argument structure -> JitFunction taking its Tensors positionally
        self._daemon_retry_at = None  # time.monotonic() after which to try msjitd again, while it is gone

    _owner = None   # for a piece of generated code (_Piece), the function it is part of: whose artifacts
                    # (_segments) and msjitd outage state it shares

    @property
    def _msjit_source_fn(self):  # capture inlines a jitted function called from another one
        return self.fn

    def __call__(self, *args, **kwargs):
        if not kwargs and not TAPES:   # (an eager gradient records: run as Python, see _call_slow)
            out = self._fast(args)
            if out is not None:
                return out
        return self._call_slow(args, kwargs)

    def _call_slow(self, args, kwargs):
        if self._fallback or current_builder() is not None or TAPES:  # (tracing: inlined; taping: eager)
            return self.fn(*args, **kwargs)
        bytecode = self.config.capture_mode == "bytecode"
        if bytecode and context.is_graph_mode():   # the spec: the decoration is invalid there
            return self.fn(*args, **kwargs)
        args, kwargs = self._normalize(args, kwargs)
        if _tensors_nested(args, kwargs):   # (in containers or by keyword: graph inputs are positional)
            tensors = []
            structure = _structure((args, kwargs), tensors)
            return self._flattened(structure)(*tensors)
        key = _guard_key(args, kwargs)
        entry = self._cache.get(key)
        if entry is None or entry.stale():
            if bytecode and entry is None and len(self._cache) >= self.cache_limit:
                logger.warning("%s: cache_limit (%d) reached; a call with the new guard %s runs eagerly",
                               self.__qualname__, self.cache_limit, key)
                return self.fn(*args, **kwargs)
            if self._cache and _LOG_RECOMPILES:
                _log_recompile(self.__qualname__, self._last_key, key, entry and entry.stale())
            try:
                entry = None if self._daemon_waiting() else self._compile(args, kwargs)
            except DaemonUnavailableError as e:
                self._daemon_unavailable(e)
                entry = None
            if entry is None:   # (a JIT Fallback, or no daemon: eagerly)
                return self.fn(*args, **kwargs)
            self._cache[key] = entry
        self._last_key = key
        self._fast = entry.fast or _no_fast
        return entry(args, kwargs)

    def _flattened(self, structure):
        """The same function taking the Tensors of an argument ``structure`` (see ``_structure``)
        positionally, the rest of the structure fixed (part of its guard); it shares this
        function's statistics."""
        jitted = self._flat.get(structure)
        if jitted is None:
            fn = self.fn

            def call_with_structure(*tensors):
                args, kwargs = _rebuild(structure, tensors)
                return fn(*args, **kwargs)
            call_with_structure.__qualname__ = self.__qualname__
            jitted = self._flat[structure] = JitFunction(call_with_structure, self.config)
            jitted.stats = self.stats
        return jitted

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

    @property
    def _fold_parameters(self):
        return self.config.options.get("infer_boost") == "on"   # Parameters baked in as constants

    def lower(self, *args, **kwargs):
        """Capture for these arguments without compiling: a Captured (``.graph.as_text()``)."""
        return self._capture(*self._normalize(args, kwargs))

    @property
    def _bytecode(self):
        """Whether calls are captured by interpreting bytecode: not for an object that says how it
        is captured (a gradient, whose Grad node captures its function's source)."""
        return self.config.capture_mode == "bytecode" and not hasattr(self.fn, "_msjit_capture")

    def _capture(self, args, kwargs):
        if self._bytecode:   # (interprets the call: Python side effects run)
            out = self._interpret(args, kwargs, want_captured=True)
            if not isinstance(out, Captured):
                first = (self._last_session.breaks or self._last_session.side_effects)[0]
                raise UnsupportedSyntaxError(first.file, first.line, f"{first.reason} (the call is not one graph)")
            return out
        mode = getattr(self.fn, "_msjit_capture", self.config.capture_mode)   # (a gradient is traced)
        return _CAPTURE[mode](self.fn, args, kwargs, fold_parameters=self._fold_parameters)

    def _compile(self, args, kwargs):
        """Capture, compile and load one specialization; None means: run eagerly from now on."""
        if self._bytecode:
            return self._compile_bytecode(args, kwargs)
        try:
            captured = self._capture(args, kwargs)
        except UnsupportedSyntaxError as e:
            if self.config.fullgraph:
                raise
            self.stats.fallbacks = 1
            split = self.config.capture_mode == "ast"
            warnings.warn(f"{e}; {self.__qualname__} " + ("is split into graphs around it and Python runs the rest"
                          if split else "runs eagerly") + " (JIT Fallback). Use fullgraph=True to make this an "
                          "error.", JitFallbackWarning, stacklevel=4)
            if split:
                return _Interpreted(self)
            self._fallback = True
            return None
        self.stats.captures += 1
        return self._load(captured, args, kwargs)

    def _compile_bytecode(self, args, kwargs):
        """Interpret the first call: a pure one gives a graph cached under its guards, any other
        one its result and generated code for later calls (or, unsplittable, interpreting them)."""
        try:
            out = self._interpret(args, kwargs, want_captured=True)
        except Uninterpretable as e:
            what = f"the {e.opname} instruction (bytecode capture interprets no generators or 'match')"
            if self.config.fullgraph:
                raise UnsupportedSyntaxError(e.file, e.line, what, linecache.getline(e.file, e.line)) from None
            warnings.warn(f"{e.file}:{e.line}: {what}; {self.__qualname__} runs eagerly (JIT Fallback)",
                          JitFallbackWarning, stacklevel=5)
            self._fallback, self.stats.fallbacks = True, 1
            return None
        self.stats.captures += 1
        if isinstance(out, Captured):
            return self._load(out, args, kwargs)
        try:
            resume, pieces = split(_source_of(self.fn), self._last_session.lines, lambda fn: _Piece(self, fn))
        except Unsplittable as e:
            logger.info("%s is interpreted on every call: %s", self.__qualname__, e)
            return _Interpreted(self, out)
        return _Resumed(self.stats, resume, pieces, out)

    def _interpret(self, args, kwargs, want_captured):
        session = Session(self.__qualname__, self._run_segment, self.config.fullgraph, self._fold_parameters)
        try:
            return capture_bytecode(self.fn, args, kwargs, session, want_captured)
        except Uninterpretable:
            if want_captured:
                raise
            self._fallback, self.stats.fallbacks = True, 1   # (a split ast function: eager from now on)
            return self.fn(*args, **kwargs)
        finally:
            self.stats.graph_breaks += len(session.breaks)
            self._last_session = session

    def _run_segment(self, captured, sources):
        """Compile (once per distinct graph) and run one piece of an interpreted call."""
        graph = captured.graph
        key = _graph_key(graph)
        exe = self._segments.get(key)
        if exe is None and graph.outputs:
            try:
                exe = self._segments[key] = None if self._daemon_waiting() else self._load_graph(graph)
            except DaemonUnavailableError as e:
                self._daemon_unavailable(e)
            if exe is None:   # (not cached: compiled once the daemon is back)
                exe = _EagerGraph(graph)
        return _Entry(captured, exe, None)(sources)

    def _daemon_waiting(self):
        """True (counted) when msjitd was unavailable less than DAEMON_RETRY_S ago: do not ask it
        again yet, run eagerly."""
        if self._owner is not None:
            return self._owner._daemon_waiting()
        if self._daemon_retry_at is None or time.monotonic() >= self._daemon_retry_at:
            return False
        self.stats.daemon_unavailable += 1
        return True

    def _daemon_unavailable(self, error):
        """msjitd cannot be reached or started: raise under STRICT or fullgraph=True; else warn
        once per outage, count the eager run, and leave the daemon alone for DAEMON_RETRY_S."""
        if self._owner is not None:
            return self._owner._daemon_unavailable(error)
        if self.config.fullgraph or context.get_context("jit_syntax_level") == context.STRICT:
            raise error
        if self._daemon_retry_at is None:
            warnings.warn(f"{error}; {self.__qualname__} runs eagerly and tries msjitd again every "
                          f"{DAEMON_RETRY_S:.0f} s (MSJIT_DAEMON_RETRY_S). Use fullgraph=True to make this an "
                          "error.", JitFallbackWarning, stacklevel=4)
        else:
            logger.info("%s: msjitd still unavailable (%s); running eagerly", self.__qualname__, error)
        self._daemon_retry_at = time.monotonic() + DAEMON_RETRY_S
        self.stats.daemon_unavailable += 1

    def _load_graph(self, graph):
        t0 = time.perf_counter()
        client = rpc.client()
        model, options = serialize.to_model(graph), self.config.to_proto()

        def compile_graph():
            try:
                reply = client.compile(model, options)
            except CompileError as e:
                raise _locate_compile_error(e, graph) from None
            self.stats.compiles += 1
            return reply
        reply = compile_graph()
        state = self._owner or self
        if state._daemon_retry_at is not None:
            logger.info("%s: msjitd is available again; compiling", self.__qualname__)
            state._daemon_retry_at = None
        exe = runtime.load(reply, client, recompile=compile_graph)
        runtime.check_signature(exe, graph)
        logger.debug("%s: compiled %d nodes (key %s, cache tier %d) in %.1f ms", graph.name,
                     len(graph.nodes), reply.key[:12], reply.hit, (time.perf_counter() - t0) * 1e3)
        return exe

    def _load(self, captured, args, kwargs):
        """The cache entry of a captured graph: compiled and loaded, with a FastCall when eligible."""
        exe = fast = None
        if captured.graph.outputs:
            shared = None if self._owner is None else self._owner._segments   # (one artifact per graph)
            key = None if shared is None else _graph_key(captured.graph)
            exe = None if shared is None else shared.get(key)
            if exe is None:
                exe = self._load_graph(captured.graph)
                if shared is not None:
                    shared[key] = exe
            if _fast_eligible(captured, args, kwargs):
                fast = _with_guards(_with_parameters(runtime.fast_call(exe, captured.tree is None), captured),
                                    captured)
        return _Entry(captured, exe, fast)


def _graph_key(graph):
    """Exact identity of a graph piece (constants by their bytes; locations left out; inputs by
    position, as an artifact takes them: a segment after a break and the piece of generated
    code holding the same statements share one artifact)."""
    def attr(v):
        if isinstance(v, Graph):
            return _graph_key(v)
        return (v.dtype.str, v.shape, v.tobytes()) if isinstance(v, np.ndarray) else repr(v)
    position = {name: f"#{i}" for i, (name, _) in enumerate(graph.inputs)}
    return (tuple(a for _, a in graph.inputs), graph.parameters, tuple((position.get(n, n), a) for n, a in graph.outputs),
            tuple((n.op_type, tuple(position.get(i, i) for i in n.inputs), tuple((k, attr(v)) for k, v in
                                                                                  sorted(n.attrs.items())))
                  for n in graph.nodes))


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


def _tensors_nested(args, kwargs):
    """Whether a Tensor is passed other than as a plain positional argument."""
    return _holds_tensor(kwargs) or any(_holds_tensor(a) for a in args if not isinstance(a, Tensor))


def _holds_tensor(v):
    if isinstance(v, Tensor):
        return not isinstance(v, Parameter)   # (a Parameter is bound by reference: a constant of the guard)
    if isinstance(v, (tuple, list)):
        return any(_holds_tensor(x) for x in v)
    return isinstance(v, dict) and any(_holds_tensor(x) for x in v.values())


def _structure(v, tensors):
    """``v`` (arguments through tuples, lists and dicts) with each Tensor replaced by its position
    in ``tensors``: hashable, so it keys the flattened function (constants by value)."""
    if is_value_tensor(v):
        tensors.append(v)
        return ("tensor", len(tensors) - 1)
    if type(v) in (tuple, list):
        return (type(v).__name__, tuple(_structure(x, tensors) for x in v))
    if type(v) is dict:
        return ("dict", tuple((k, _structure(x, tensors)) for k, x in v.items()))
    return ("const", (v, _constant_key(v)))   # (keyed like a constant argument: a Cell by its guard too)


def _rebuild(structure, tensors):
    kind, body = structure
    if kind == "tensor":
        return tensors[body]
    if kind == "tuple":
        return tuple(_rebuild(x, tensors) for x in body)
    if kind == "list":
        return [_rebuild(x, tensors) for x in body]
    if kind == "dict":
        return {k: _rebuild(x, tensors) for k, x in body}
    return body[0]


_rebuild._msjit_records = True   # capture calls it directly: it only moves tensors into containers


def _guard_key(args, kwargs):
    key = tuple((a._array.dtype, a.shape) if is_value_tensor(a)
                else _constant_key(a) for a in args)
    return key + tuple((k, _constant_key(v)) for k, v in kwargs.items()) if kwargs else key


def _constant_key(v):
    guard = getattr(v, "_msjit_guard", None)   # objects whose captured state can change (Cells)
    if guard is not None:
        return (type(v), v, guard())
    if isinstance(v, Parameter):   # a graph parameter: by identity (the entry holds it), then its type
        return (Parameter, v, v._array.dtype, v.shape)
    if isinstance(v, np.ndarray):
        raise TypeError("jit: numpy arrays are not taken as arguments; pass a Tensor (mindspore.Tensor(array))")
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
    located = re.search(r"node '([^']+)' \(([^()]+):([1-9]\d*)\)", message)
    if located and located.group(2) != "-":   # (the daemon knew the line; the node may be in a Grad body)
        return CompileError(message, node=located.group(1), location=(located.group(2), int(located.group(3))))
    for name in re.findall(r"\b[A-Za-z]+_\d+\b", message):
        node = graph.node(name)
        if node is not None and node.location:
            where = f"{node.location[0]}:{node.location[1]}"
            if where not in message:
                message = f"{where}: {message}"
            return CompileError(message, node=name, location=node.location)
    return error

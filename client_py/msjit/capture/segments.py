"""Graph segments of one bytecode-interpreted call, and the graph breaks between them.

A Session owns the GraphBuilder of the segment being captured. At a graph break it closes that
segment over every tracer still reachable from the interpreter's frames, has it compiled and run
(``run_segment``), and puts the resulting tensors where the tracers were, so Python can go on
with real values. After the unsupported step the next segment starts: the tensors in the frames
become its inputs again. Python scalars met in later segments are inputs too (they often come
from a tensor, as ``float(x.sum())``), so a piece does not recompile for every new value.

A call is *pure* when it had no graph break and no side effect: its single graph, under the
guards recorded while capturing, then stands for the whole function (jit caches it per guard
key). Any other call is split into generated code along its ``Lines`` (capture/resume.py).
"""
import linecache
import logging
import os
import types

import numpy as np

from ..errors import UnsupportedSyntaxError
from ..tensor import Tensor
from ..core import ShapedArray, Tracer, activate, deactivate
from .graph import GraphBuilder

logger = logging.getLogger(__name__)
_LOG_BREAKS = "graph_breaks" in os.environ.get("MSJIT_LOG", "").split(",")


class SegmentBuilder(GraphBuilder):
    """A GraphBuilder whose inputs carry their values (``sources``): the call's arguments for the
    first segment, the tensors and scalars Python produced for later ones (once Python has run on
    real values, every plain Tensor and scalar it hands over is an input, not a constant)."""

    def __init__(self, name, index, fold_parameters, sources=()):
        super().__init__(name if index == 0 else f"{name}#{index}", fold_parameters)
        self.index = index
        self.dynamic = index > 0     # Python has run on real values: its tensors and scalars vary
        self.sources = list(sources)
        self._memo = {}      # id(value) -> its input Tracer

    def input(self, value):
        t = self._memo.get(id(value))
        if t is None:
            array = value._array if isinstance(value, Tensor) else value
            t = Tracer(self, f"in{len(self.sources)}", ShapedArray.of(array))
            self.inputs.append((t.name, t.aval, len(self.sources)))
            self.sources.append(value if isinstance(value, Tensor) else Tensor._wrap(array))
            self._memo[id(value)] = t
        return t

    def lift(self, x):
        if self.dynamic and (type(x) is Tensor or type(x) is np.ndarray and x.ndim == 0):
            return self.input(x)
        return super().lift(x)


class Break:
    """One graph break: where, why."""
    __slots__ = ("file", "line", "reason")

    def __init__(self, file, line, reason):
        self.file, self.line, self.reason = file, line, reason

    def __str__(self):
        return f"{self.file}:{self.line}: {self.reason}"


class Lines:
    """Source lines of the interpreted function itself (its outermost frame; a line calling a
    function counts for what that call did): which ``run``, which recorded graph nodes
    (``graph``), which broke the graph or had a side effect (``python``). capture/resume.py
    splits the function along them."""
    __slots__ = ("run", "graph", "python")

    def __init__(self):
        self.run, self.graph, self.python = set(), set(), set()


class Session:
    """The segments, breaks, side effects and guards of one interpreted call.

    ``run_segment(captured, sources)`` compiles (cached) and runs one closed segment.
    """

    def __init__(self, name, run_segment, fullgraph, fold_parameters):
        self.name, self.run_segment = name, run_segment
        self.fullgraph, self.fold_parameters = fullgraph, fold_parameters
        self.breaks, self.side_effects, self.graphs = [], [], []
        self.builder = None
        self.lines = Lines()
        self.frames = ()     # the interpreter's frame stack (set by capture_bytecode)

    @property
    def pure(self):
        return not self.breaks and not self.side_effects

    def start(self, args):
        """The first segment; Tensor arguments become its inputs. Returns the bound arguments."""
        self.builder = SegmentBuilder(self.name, 0, self.fold_parameters, args)
        activate(self.builder)
        return self.builder.bind_args(args)

    def _python_line(self):
        if self.frames:
            self.lines.python.add(self.frames[0].line)

    def side_effect(self, location, what):
        """A step with an effect outside the graph: fine, but the call cannot be cached as one graph."""
        if self.fullgraph:
            raise _error(location, f"{what} (a side effect)")
        self.side_effects.append(Break(*location, what))
        self._python_line()
        self.builder.dynamic = True

    def break_graph(self, need, frames):
        """Close the current segment at ``need`` (a ConcreteValueNeeded), run it and put real
        tensors in ``frames``. The builder is left inactive: the step that needed values runs
        eagerly; ``resume`` starts the next segment."""
        if self.fullgraph:
            raise need
        brk = Break(need.filename, need.lineno, need.construct)
        self.breaks.append(brk)
        self._python_line()
        if _LOG_BREAKS:
            logger.info("graph break in %s at %s", self.name, brk)
        live = {}
        walk_frames(frames, lambda v: live.setdefault(v.name, v) if type(v) is Tracer else v)
        values = self._close(tuple(live.values()))
        mapping = dict(zip(live, values))
        walk_frames(frames, lambda v: mapping.get(v.name, v) if type(v) is Tracer else v)

    def resume(self, frames):
        """Start the next segment: every tensor the frames hold becomes one of its inputs."""
        builder = SegmentBuilder(self.name, self.builder.index + 1, self.fold_parameters)
        self.builder = builder
        activate(builder)
        walk_frames(frames, lambda v: builder.input(v) if type(v) is Tensor else v)

    def finish(self, result, want_captured):
        """The end of the call: the Captured of a pure call when ``want_captured``, else the
        Python result (the last segment compiled and run)."""
        deactivate(self.builder)
        if self.pure and want_captured:
            captured = self.builder.finish(result)
            self.graphs.append(captured.graph)
            return captured
        return self._close(result, active=False)

    def abandon(self):
        if self.builder is not None:
            deactivate(self.builder)

    def _close(self, result, active=True):
        if active:
            deactivate(self.builder)
        captured = self.builder.finish(result)
        self.graphs.append(captured.graph)
        return self.run_segment(captured, self.builder.sources)


def _error(location, what):
    file, line = location
    return UnsupportedSyntaxError(file, line, what, linecache.getline(file, line) or None)


# -- walking the interpreter's state ------------------------------------------------------------

def walk_frames(frames, fn):
    """Replace every value ``v`` reachable from the frames' locals, stacks and cells (through
    lists, dicts and tuples, and the interpreter's iterators) by ``fn(v)``; lists and dicts are
    changed in place so that aliases stay aliases."""
    seen = {}
    for f in frames:
        f.walk(lambda v: _walk(v, fn, seen))


def _walk(v, fn, seen):
    t = type(v)
    if t is Tracer or t is Tensor:
        return fn(v)
    if t is types.MethodType and type(v.__self__) in (Tracer, Tensor):   # x.asnumpy loaded, not yet called
        owner = fn(v.__self__)
        return v if owner is v.__self__ else types.MethodType(v.__func__, owner)
    if t in (list, dict, tuple, SeqIter, types.CellType):
        if id(v) in seen:
            return seen[id(v)]
        seen[id(v)] = v
        if t is list:
            v[:] = [_walk(x, fn, seen) for x in v]
        elif t is dict:
            for k, x in v.items():
                v[k] = _walk(x, fn, seen)
        elif t is tuple:
            new = tuple(_walk(x, fn, seen) for x in v)
            v = seen[id(v)] = new if any(a is not b for a, b in zip(new, v)) else v
        elif t is SeqIter:
            v.seq = _walk(v.seq, fn, seen)
        elif t is types.CellType:
            try:
                v.cell_contents = _walk(v.cell_contents, fn, seen)
            except ValueError:
                pass
    return v


class SeqIter:
    """The interpreter's iterator over a sequence (or a tensor's rows), visible to ``walk_frames``
    so a graph break in a loop body also updates the items not reached yet."""
    __slots__ = ("seq", "pos")

    def __init__(self, seq):
        self.seq, self.pos = seq, 0

    def __iter__(self):
        return self

    def __next__(self):
        seq = self.seq
        n = seq.shape[0] if isinstance(seq, (Tracer, Tensor)) else len(seq)
        if self.pos >= n:
            raise StopIteration
        self.pos += 1
        return seq[self.pos - 1]

"""The graph Tracers build under capture (GraphBuilder -> Graph), and Captured.

A Tracer (see ``core``) carries only an abstract value and a name in the graph; nothing here executes.
Node names come from a counter and locations from the user's source, so capturing the same
function with the same argument signature gives the same Graph every time.
"""
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Optional

import numpy as np

from ..core import Constant, ShapedArray, Tracer, activate, deactivate
from ..parameter import Parameter, is_value_tensor
from ..tensor import Tensor
from .guards import AttributeView, CellView, Guards, compile_check, is_guardable, what_changed

OUT, ARG, CONST = "out", "arg", "const"  # kinds of returned leaves, see Captured


@dataclass(frozen=True)
class Node:
    name: str                   # unique; also the name of its single output
    op_type: str
    inputs: tuple
    attrs: dict
    location: Optional[tuple]   # (file, line) of the user's expression
    aval: ShapedArray           # (a tuple of them for a multi-output node)
    outputs: tuple = ()         # output names of a multi-output node (Grad); else just ``name``


@dataclass(frozen=True)
class Graph:
    name: str
    inputs: tuple               # ((name, ShapedArray), ...) in argument order
    nodes: tuple
    outputs: tuple              # ((name, ShapedArray), ...) in return order, no duplicates
    parameters: tuple = ()      # ((name, ShapedArray), ...): Parameters read by reference

    def node(self, name):
        return next((n for n in self.nodes if n.name == name), None)

    def as_text(self):
        """A readable listing, one node per line with its source location."""
        sig = ", ".join(f"{n}: {a}" for n, a in self.inputs + self.parameters)
        lines = [f"graph {self.name}({sig}) {{"]
        for n in self.nodes:
            regions = [(k, v) for k, v in sorted(n.attrs.items()) if isinstance(v, Graph)]
            attrs = ", ".join(f"{k}={_attr_text(v)}" for k, v in sorted(n.attrs.items()) if not isinstance(v, Graph))
            loc = f"  # {n.location[0]}:{n.location[1]}" if n.location else ""
            head = ", ".join(f"{o}: {a}" for o, a in zip(n.outputs, n.aval)) if n.outputs else f"{n.name}: {n.aval}"
            lines.append(f"  {head} = {n.op_type}({', '.join(n.inputs)})"
                         f"{' {' + attrs + '}' if attrs else ''}{loc}")
            for key, region in regions:   # (a Grad's body, a While's cond and body, an If's branches)
                text = region.as_text().splitlines()
                if key != "body" or n.op_type != "Grad":
                    text[0] = f"{key}: {text[0]}"
                lines.extend("    " + line for line in text)
        lines.append(f"  return {', '.join(n for n, _ in self.outputs)}")
        return "\n".join(lines + ["}"])


def _attr_text(v):
    return np.array2string(v, separator=",") if isinstance(v, np.ndarray) else repr(v)


@dataclass(frozen=True)
class Captured:
    """A captured function: its graph plus how to rebuild the Python return value.

    ``leaves`` are the flattened return values, each ``(OUT, i)`` (i-th graph output),
    ``(ARG, j)`` (the j-th call argument, returned unchanged) or ``(CONST, value)``.
    ``tree`` is their structure (see ``unflatten``); ``tensor_args`` are the positions of the
    call arguments that are graph inputs, in graph input order. ``parameters`` are the Parameter
    objects passed after the inputs (graph parameters, in order); ``updates`` are
    ``(Parameter, output index)`` pairs to write back after a run (e.g. BatchNorm statistics);
    ``folded`` are ``(Parameter, version)`` pairs baked in as constants (infer_boost="on").
    ``globals_read`` are the guards ``(view, key, value)`` of the Python state the capture read
    (globals, closure cells, attributes, container items; see capture.guards): the graph assumed
    those values (see ``guard_holds``).
    """
    graph: Graph
    tree: Any
    leaves: tuple
    tensor_args: tuple
    parameters: tuple = ()
    updates: tuple = ()
    folded: tuple = ()
    globals_read: tuple = ()

    def guard_holds(self):
        """None while every assumption still holds, else what changed: a folded Parameter was
        updated, or a global (closure variable, attribute, container item) this graph read has
        another value now. The common case (all hold) is one call of the compiled check."""
        for p, version in self.folded:
            if p._version != version:
                return f"Parameter {p.name!r} (folded into the graph) was updated"
        if self.globals_read and not self._guard_check():
            return what_changed(self.globals_read) or "a guard could not be checked"
        return None

    @cached_property
    def _guard_check(self):
        return compile_check(self.globals_read)


def contains_tracer(v):
    if type(v) is Tracer:
        return True
    if isinstance(v, (tuple, list)):
        return any(contains_tracer(x) for x in v)
    if isinstance(v, dict):
        return any(contains_tracer(x) for x in v.values())
    return False


def flatten(v, leaves):
    """Append the leaves of ``v`` (through tuples, lists and dicts) and return its structure."""
    if type(v) in (tuple, list):
        return (type(v), tuple(flatten(x, leaves) for x in v))
    if type(v) is dict:
        return (dict, tuple(v), tuple(flatten(x, leaves) for x in v.values()))
    leaves.append(v)
    return None


def unflatten(tree, leaves):
    """Inverse of ``flatten`` over an iterator of leaves."""
    if tree is None:
        return next(leaves)
    if tree[0] is dict:
        return dict(zip(tree[1], (unflatten(t, leaves) for t in tree[2])))
    return tree[0](unflatten(t, leaves) for t in tree[1])


class GraphBuilder:
    """Collects nodes while a function is captured. ``location`` is set by the capture mode.

    Parameters met during capture become graph parameters (or constants when
    ``fold_parameters``); ``assign`` records their new values, written back after each run.
    """

    def __init__(self, name, fold_parameters=False):
        self.name = name
        # Values that were Python numbers until a loop on a tensor carried them: MindSpore keeps
        # such a variable a scalar, so `a is 3` compares its value (see ast.visit_Compare).
        self.python_scalars = set()
        self.inputs = []            # (name, aval, argument position)
        self.nodes = []
        self.location = None
        self.fold_parameters = fold_parameters
        self.parameters = []        # (Tracer, Parameter) in first-use order
        self._param_values = {}     # id(Parameter) -> its current value under capture
        self._updates = {}          # id(Parameter) -> (Parameter, Tracer of its new value)
        self._folded = {}           # id(Parameter) -> (Parameter, version)
        self._globals_read = Guards()   # shared with the builders of regions and Grad bodies

    @property
    def guards(self):
        """Where capture records what it read (see capture.guards)."""
        return self._globals_read

    def read_global(self, namespace, name, value, any_value=False):
        """A global read during capture; Python constants are assumed, so they are guarded (with
        ``any_value``, other objects too, by identity). ``namespace`` is a dict, a CellView or an
        AttributeView."""
        if isinstance(namespace, CellView):
            self._globals_read.read_closure(namespace.target, name, value)
        elif isinstance(namespace, AttributeView):
            self._globals_read.read_attr(namespace.target, name, value)
        elif any_value or is_guardable(value):
            self._globals_read.read_global(namespace, name, value)

    def current_location(self):
        return self.location

    def call_cell(self, cell, args, kwargs):
        """A Cell called during this capture: inline its ``construct`` (ast capture interprets
        user Cells instead, see capture.ast)."""
        return cell._msjit_inline()(*args, **kwargs)

    def run(self, fn, *args, **kwargs):
        """``fn(*args, **kwargs)`` with this builder active, so that ops on Parameters record nodes."""
        activate(self)
        try:
            return fn(*args, **kwargs)
        finally:
            deactivate(self)

    def bind_args(self, args):
        """Tensor arguments become graph inputs (Tracers named argN); the rest stay constants.
        A Parameter argument stays itself: a graph parameter on first use, read and assigned by
        reference as MindSpore does (jit's guard holds it by identity)."""
        out = []
        for i, a in enumerate(args):
            if is_value_tensor(a):
                t = Tracer(self, f"arg{i}", ShapedArray.of(a._array))
                self.inputs.append((t.name, t.aval, i))
                a = t
            out.append(a)
        return out

    def add(self, prim, operands, attrs):
        """Record ``prim`` applied to ``operands``; constants become Constant nodes."""
        ins = [self.lift(x) for x in operands]
        aval = prim.abstract(*(t.aval for t in ins), **attrs)
        name = f"{prim.name}_{len(self.nodes)}"
        self.nodes.append(Node(name, prim.name, tuple(t.name for t in ins), attrs,
                               self.current_location(), aval))
        return Tracer(self, name, aval)

    def add_multi(self, op_type, operands, attrs, avals):
        """Record a node with several outputs (Grad); returns one Tracer per output."""
        ins = [self.lift(x) for x in operands]
        name = f"{op_type}_{len(self.nodes)}"
        outputs = tuple(f"{name}.{i}" for i in range(len(avals)))
        self.nodes.append(Node(name, op_type, tuple(t.name for t in ins), attrs,
                               self.current_location(), tuple(avals), outputs))
        return [Tracer(self, o, a) for o, a in zip(outputs, avals)]

    def lift(self, x):
        if type(x) is Tracer:
            if x.builder is not self:
                raise ValueError(f"{x!r} belongs to another capture (a tensor under capture "
                                 "escaped its function, e.g. through a global)")
            return x
        if isinstance(x, Parameter):
            return self.parameter(x)
        value = x._array if isinstance(x, Tensor) else x
        return self.add(Constant, (), {"value": np.asarray(value, order="C")})

    def parameter(self, p):
        """The value of Parameter ``p`` in this graph: a graph parameter on first use (or a
        constant when folding), its assigned value after an ``assign``."""
        t = self._param_values.get(id(p))
        if t is None:
            if self.fold_parameters:
                self._folded[id(p)] = (p, p._version)
                t = self.add(Constant, (), {"value": p._array.copy()})
            else:
                t = Tracer(self, f"param{len(self.parameters)}", ShapedArray.of(p._array))
                self.parameters.append((t, p))
            self._param_values[id(p)] = t
        return t

    def assign(self, p, value):
        """Record ``p = value``: later reads see ``value``; it becomes an extra graph output
        written back into ``p`` after each run."""
        t = self.lift(value)
        if (t.shape, t.dtype) != (p.shape, p.dtype):
            raise ValueError(f"Assign: cannot assign a value of {t.aval} to Parameter {p.name!r} "
                             f"of {ShapedArray.of(p._array)}")
        self._param_values[id(p)] = t
        self._updates[id(p)] = (p, t)
        return t

    def finish(self, result):
        """Close the graph over the function's return value."""
        leaves = []
        tree = flatten(result, leaves)
        arg_pos = {name: pos for name, _, pos in self.inputs}
        outputs, index, kinds = [], {}, []
        for v in leaves:
            if type(v) is not Tracer:
                if contains_tracer(v):
                    raise TypeError(f"jit: cannot return a {type(v).__name__} containing tensors")
                kinds.append((CONST, v))
            elif self.lift(v).name in arg_pos:  # lift: raises for a tracer of another capture
                kinds.append((ARG, arg_pos[v.name]))
            else:
                if v.name not in index:
                    index[v.name] = len(outputs)
                    outputs.append((v.name, v.aval))
                kinds.append((OUT, index[v.name]))
        updates = []
        for p, t in self._updates.values():
            if t.name not in index:   # (an unchanged input or parameter is still copied back)
                index[t.name] = len(outputs)
                outputs.append((t.name, t.aval))
            updates.append((p, index[t.name]))
        graph = Graph(self.name, tuple((n, a) for n, a, _ in self.inputs), tuple(self.nodes),
                      tuple(outputs), tuple((t.name, t.aval) for t, _ in self.parameters))
        return Captured(graph, tree, tuple(kinds), tuple(p for _, _, p in self.inputs),
                        tuple(p for _, p in self.parameters), tuple(updates), tuple(self._folded.values()),
                        tuple(self._globals_read.values()))


class RegionBuilder(GraphBuilder):
    """Builds one region (a While's ``cond`` or ``body``, an If's branch) inside ``outer``.

    A region graph is closed: it has no parameters and reads nothing of the enclosing graph by
    name. Its first inputs are the values the region op passes explicitly (``carried``); every
    other tensor it reads from an enclosing capture (an outer Tracer, a Parameter) becomes a
    *capture*: an extra input of the region op, shared by the sibling regions of the same op
    (``captures``) so that all of them take the same inputs in the same order.
    """

    def __init__(self, name, outer, captures):
        super().__init__(name)
        self.outer = outer
        self.captures = captures             # shared by the op's regions, see Captures
        self.location = outer.location
        self.call_cell = outer.call_cell
        self._globals_read = outer._globals_read   # the enclosing graph assumes them too
        self.carried = []
        self._lifted = {}                    # capture index -> this region's Tracer

    def current_location(self):
        return self.location or self.outer.current_location()

    def carry(self, aval):
        """The next explicit input of the region."""
        t = Tracer(self, f"v{len(self.carried)}", aval)
        self.carried.append(t)
        return t

    def _captured(self, outer_value):
        i = self.captures.index(outer_value)
        t = self._lifted.get(i)
        if t is None:
            t = self._lifted[i] = Tracer(self, f"k{i}", outer_value.aval)
        return t

    def lift(self, x):
        if type(x) is Tracer and x.builder is not self:
            return self._captured(self.outer.lift(x))   # (the outermost lift raises for a stray tracer)
        return super().lift(x)

    def parameter(self, p):
        t = self._param_values.get(id(p))
        return t if t is not None else self._captured(self.outer.parameter(p))

    def parameter_writes(self):
        """{id(Parameter): (Parameter, value)} of the Parameters this region assigned."""
        return dict(self._updates)

    def thread(self, p, aval):
        """Parameter ``p`` is carried into this region (a While's state): reads see the input."""
        self._param_values[id(p)] = t = self.carry(aval)
        return t

    def close(self, outputs):
        """The region's Graph: inputs are the carried values then every capture of the op (all
        of them, so sibling regions agree), outputs the given values (lifted into the region)."""
        outs = [self.lift(v) for v in outputs]
        inputs = [(t.name, t.aval) for t in self.carried]
        inputs += [(f"k{i}", v.aval) for i, v in enumerate(self.captures.values)]
        return Graph(self.name, tuple(inputs), tuple(self.nodes), tuple((t.name, t.aval) for t in outs))

    def passthrough(self, i):
        """Capture ``i`` as this region sees it (a While body returns its captures unchanged)."""
        return self._captured(self.captures.values[i])


class Captures:
    """The outer values a region op's regions read, in first-use order (operands after the carried ones)."""

    def __init__(self):
        self.values = []
        self._index = {}

    def index(self, outer_value):
        i = self._index.get(id(outer_value))
        if i is None:   # (the list keeps the Tracer alive, so its id stays unique)
            i = self._index[id(outer_value)] = len(self.values)
            self.values.append(outer_value)
        return i

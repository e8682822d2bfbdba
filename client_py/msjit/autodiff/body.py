"""A gradient under capture: one ``Grad`` node whose ``body`` is the differentiated function.

The client only marks what to differentiate; msjitd's ``msjit-autodiff`` pass builds the
backward (see proto/OPS.md, "Gradients"). The body is a closed subgraph: tensors it reads from
the enclosing capture (closure variables, Parameters, outer tracers) become extra body inputs,
passed by the Grad node, so nesting (grad of grad, grad inside jit) needs nothing special.
"""
import logging

import numpy as np

from ..capture.ast import interpret
from ..capture.graph import Graph, GraphBuilder, flatten, unflatten
from ..core import ShapedArray, Tracer
from ..capture.trace import _TraceBuilder
from ..errors import UnsupportedSyntaxError
from ..tensor import Tensor
from .outputs import differentiated, sensitivities

logger = logging.getLogger(__name__)


class BodyBuilder(GraphBuilder):
    """Builds a Grad body inside ``outer``; ``operands`` are the outer values of its inputs."""

    def __init__(self, name, outer):
        super().__init__(name)
        self.outer = outer
        self.operands = []
        self.traced = False                          # locations from the stack, not the interpreter
        self._lifted = {}                            # id(outer Tracer) -> body input
        self._globals_read = outer._globals_read     # the enclosing graph assumes them too

    def current_location(self):
        return _TraceBuilder.current_location(self) if self.traced else self.location

    def input(self, outer_value, aval):
        t = Tracer(self, f"in{len(self.inputs)}", aval)
        self.inputs.append((t.name, aval, None))
        self.operands.append(outer_value)
        return t

    def lift(self, x):
        if type(x) is Tracer and x.builder is not self:
            t = self._lifted.get(id(x))
            if t is None:   # (the outer lift raises for a tracer of no enclosing capture)
                t = self._lifted[id(x)] = self.input(self.outer.lift(x), x.aval)
            return t
        return super().lift(x)

    def parameter(self, p):
        t = self._param_values.get(id(p))
        if t is None:
            t = self._param_values[id(p)] = self.input(self.outer.parameter(p), ShapedArray.of(p._array))
        return t


def record_grad(outer, fn, args, kwargs, positions, weights, has_aux, sens):
    """Record the gradient of ``fn(*args, **kwargs)`` into ``outer`` as one Grad node.

    Differentiates the first tensor output (``has_aux``) or the sum of all tensor outputs,
    weighted by ``sens`` (one tensor per differentiated output, or None for ones), with
    respect to ``args[i]`` for i in ``positions`` and each Parameter in ``weights``.
    Returns ``(fn's result, [gradient per position, then per weight])``.
    """
    body = BodyBuilder(getattr(fn, "__qualname__", type(fn).__name__), outer)
    body_args, input_of = list(args), {}     # argument position -> body input index
    for i, a in enumerate(args):
        if isinstance(a, (Tensor, Tracer)):
            input_of[i] = len(body.inputs)
            body_args[i] = body.input(outer.lift(a), a.aval if type(a) is Tracer else ShapedArray.of(a._array))
    wrt = [input_of[i] for i in positions]   # (tensor arguments only: GradFunction leaves out the others)
    for p in weights:
        name = body.parameter(p).name
        wrt.append([n for n, _, _ in body.inputs].index(name))
    result = _capture(body, fn, body_args, kwargs or {})

    leaves = []
    tree = flatten(result, leaves)
    diff, others = differentiated(leaves, has_aux, body.name)
    order = diff + others
    # The Grad node differentiates at least one output: with no floating-point output, a float32
    # zero stands in (its gradients are zeros) and is dropped from the forward values.
    stand_in = [] if diff else [body.lift(np.zeros((), np.float32))]
    outputs = stand_in + [body.lift(leaves[i]) for i in order]
    num_diff = len(diff) or 1
    updates = list(body._updates.values())
    outputs += [t for _, t in updates]
    sens_operands = []
    if sens is not None:
        sens = [outer.lift(s) for s in sensitivities(sens, leaves, has_aux, diff)]
        if len(sens) != len(diff) or any(s.aval != o.aval for s, o in zip(sens, outputs)):
            raise ValueError(f"grad: sens_param expects one sensitivity per output with its shape and dtype "
                             f"({[str(o.aval) for o in outputs[:len(diff)]]}), got {[str(s.aval) for s in sens]}")
        sens_operands = sens or [outer.lift(np.ones((), np.float32))]

    graph = Graph(body.name, tuple((n, a) for n, a, _ in body.inputs), tuple(body.nodes),
                  tuple((t.name, t.aval) for t in outputs))
    avals = [t.aval for t in outputs] + [body.inputs[w][1] for w in wrt]
    attrs = {"body": graph, "wrt": tuple(wrt), "num_diff": num_diff, "sens_param": sens is not None}
    outs = outer.add_multi("Grad", body.operands + sens_operands, attrs, avals)
    forward, grads = outs[len(stand_in):len(outputs)], outs[len(outputs):]
    for (p, _), t in zip(updates, forward[len(order):]):
        outer.assign(p, t)
    values = dict(zip(order, forward))
    return unflatten(tree, iter([values.get(i, v) for i, v in enumerate(leaves)])), grads


def _capture(body, fn, args, kwargs):
    """``fn`` interpreted from its source like ``jit`` (so tensor control flow is captured); a
    function without source (a lambda, a builtin) or a ``trace``-mode jitted one is traced."""
    mode = getattr(getattr(fn, "config", None), "capture_mode", "ast")
    if mode != "trace":
        try:
            return interpret(body, fn, args, kwargs)
        except UnsupportedSyntaxError as e:
            if body.nodes:
                raise
            logger.debug("grad: tracing %s instead of interpreting it: %s", body.name, e)
    body.traced = True
    return body.run(getattr(fn, "_msjit_source_fn", fn), *args, **kwargs)   # (a jitted fn: its Python)

"""``grad``, ``value_and_grad`` and ``ops.GradOperation``: one GradFunction, three ways to run it.

- Under capture (inside ``jit``, a GRAPH_MODE Cell, or another gradient): one ``Grad`` node
  whose body is ``fn``; msjitd differentiates it (autodiff.body).
- Compiled on its own (GRAPH_MODE, or ``fn`` is a jitted function): a traced graph that holds
  that node, cached like any jitted function; forward and backward are one artifact.
- PyNative: the eager tape (autodiff.tape) over numpy kernels.

Which outputs are differentiated: the first (``has_aux``) or all floating-point tensor outputs,
summed, each weighted by its sensitivity (ones unless ``sens_param``); see outputs.py.

What the call returns follows MindSpore: an argument at ``grad_position`` that is not a Tensor
(a tuple of tensors, a number) has no gradient and is left out (its own gradient is ``()``);
one remaining gradient is returned alone, several as a tuple (``get_all``: always a tuple).
"""
from dataclasses import replace

from .. import context
from ..capture.graph import flatten
from ..core import Tracer, current_builder
from ..config import CompileConfig
from ..parameter import Parameter
from ..tensor import Tensor
from . import tape
from .body import record_grad
from .outputs import differentiated, sensitivities

_ALL = "all"   # GradOperation(get_all=True): every Tensor argument


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """``mindspore.grad``: a function returning the gradients of ``fn`` with respect to the
    arguments at ``grad_position`` (int, tuple of ints, or None) and/or ``weights`` (a
    Parameter, a list or a ParameterTuple, e.g. ``net.trainable_params()``). With ``has_aux``,
    only the first output is differentiated and the call returns ``(gradients, other outputs)``;
    with ``return_ids``, each gradient is paired with its position or Parameter name."""
    return GradFunction(fn, grad_position, weights, has_aux, return_ids=return_ids)


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """``mindspore.value_and_grad``: like ``grad``, returning ``(fn's outputs, gradients)``."""
    return GradFunction(fn, grad_position, weights, has_aux, with_value=True, return_ids=return_ids)


class GradOperation:
    """``ops.GradOperation(get_all, get_by_list, sens_param)``: ``GradOperation()(net)`` is the
    gradient of ``net`` with respect to its first input; ``get_all``: all Tensor inputs (a
    tuple); ``get_by_list``: the Parameters given as ``GradOperation(...)(net, weights)``;
    ``sens_param``: the call's last argument is the sensitivity of the outputs."""

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        self.get_all, self.get_by_list, self.sens_param = bool(get_all), bool(get_by_list), bool(sens_param)

    def __call__(self, fn, weights=None):
        if self.get_by_list and weights is None:
            raise ValueError("GradOperation(get_by_list=True) needs the Parameters: grad_op(net, weights)")
        weights = _as_tuple(weights) if self.get_by_list else None
        position = _ALL if self.get_all else (None if self.get_by_list else 0)
        return GradFunction(fn, position, weights, False, sens_param=self.sens_param)


class GradFunction:
    """The callable the APIs above return."""

    _msjit_records = True   # capture calls it on tracers: it records its own Grad node
    _msjit_capture = "trace"   # jit(grad(f)) traces this object: it only records a Grad node

    def __init__(self, fn, grad_position, weights, has_aux, with_value=False, sens_param=False, return_ids=False):
        if not callable(fn):
            raise TypeError(f"grad: expected a function or Cell, got {type(fn).__name__}")
        if grad_position is None and weights is None:
            raise ValueError("grad: grad_position and weights cannot both be None")
        if isinstance(grad_position, bool) or not (grad_position in (None, _ALL) or isinstance(grad_position, int)
                                                  or _is_int_tuple(grad_position)):
            raise TypeError(f"grad: grad_position must be an int, a tuple of ints or None, got {grad_position!r}")
        self.fn, self.position, self.has_aux = fn, grad_position, has_aux
        self.weights = () if weights is None else (weights,) if isinstance(weights, Parameter) else tuple(weights)
        if not all(isinstance(w, Parameter) for w in self.weights):
            raise TypeError("grad: weights must be Parameters (e.g. net.trainable_params())")
        self.single_weight = isinstance(weights, Parameter)
        self.has_weights = weights is not None
        self.with_value, self.sens_param, self.return_ids = with_value, sens_param, bool(return_ids)
        self._fn_name = getattr(fn, "__qualname__", type(fn).__name__)
        self.__qualname__ = f"grad({self._fn_name})"
        self._compiled = None       # (guard, JitFunction) of the compiled path

    def __call__(self, *args, **kwargs):
        sens = None
        if self.sens_param:
            if not args:
                raise TypeError("grad: sens_param=True needs the sensitivity as the last argument")
            args, sens = args[:-1], _leaves(args[-1])
        return self._call(args, kwargs, sens)

    def _call(self, args, kwargs, sens, may_compile=True):
        positions = tuple(p for p in self._positions(args) if isinstance(args[p], (Tensor, Tracer)))
        builder = current_builder() or next((a.builder for a in args if type(a) is Tracer), None)
        if builder is not None:
            value, grads = record_grad(builder, self.fn, args, kwargs, positions, self.weights, self.has_aux, sens)
        elif may_compile and self._compiles(args, kwargs):   # (sensitivities as trailing arguments: jit takes no tensor tuples)
            return self._compiled_function(0 if sens is None else len(sens))(*args, *(sens or ()), **kwargs)
        else:
            value, grads = self._eager(args, kwargs, positions, sens)
        return self._present(value, grads, positions)

    def _positions(self, args):
        if self.position is None:
            return ()
        if self.position == _ALL:
            return tuple(i for i, a in enumerate(args) if isinstance(a, (Tensor, Tracer)))
        positions = (self.position,) if isinstance(self.position, int) else self.position
        for p in positions:
            if not -len(args) <= p < len(args):
                raise IndexError(f"grad: grad_position {p} is out of range for {len(args)} arguments")
        return tuple(p % len(args) for p in positions)

    def _eager(self, args, kwargs, positions, sens):
        args = list(args)
        for i in positions:
            if type(args[i]) is Tensor:   # its own identity: a tensor passed twice gets two gradients
                args[i] = tape.alias(args[i])
        out, backward = tape.vjp(self.fn, args, kwargs, [args[i] for i in positions] + list(self.weights))
        leaves = _leaves(out)
        diff = differentiated(leaves, self.has_aux, self._fn_name)[0]
        sens = [None] * len(diff) if sens is None else sensitivities(sens, leaves, self.has_aux, diff)
        return out, list(backward([(leaves[i], s) for i, s in zip(diff, sens)]))

    def _compiles(self, args, kwargs):
        """GRAPH_MODE or a jitted ``fn``, unless a Tensor is inside a tuple/list/dict argument or
        passed by keyword (jit takes Tensors as positional arguments only): that call runs on the
        eager tape, which gives the same values."""
        if not (context.is_graph_mode() or hasattr(self.fn, "_msjit_source_fn")):
            return False
        return not any(_has_tensor(a) for a in args if not isinstance(a, Tensor)) and not _has_tensor(kwargs)

    def _compiled_function(self, nsens):
        """A traced JitFunction whose graph is this gradient's Grad node (rebuilt when ``fn``, a
        Cell, changes: its guard is part of the key, as for a Cell's own graph)."""
        from ..jit import JitFunction
        key = (getattr(self.fn, "_msjit_guard", lambda: None)(), nsens)
        if self._compiled is None or self._compiled[0] != key:
            if hasattr(self.fn, "compile_config"):
                config = self.fn.compile_config()
            else:
                config = getattr(self.fn, "config", None) or CompileConfig()

            def entry(*args, **kwargs):
                # Traced: records the Grad node. Called as Python (the jitted gradient fell back,
                # e.g. fn needs a tensor's value): the eager tape, never this function again.
                split = len(args) - nsens
                return self._call(args[:split], kwargs, list(args[split:]) if nsens else None, may_compile=False)
            entry.__qualname__ = self.__qualname__
            self._compiled = (key, JitFunction(entry, replace(config, capture_mode="trace")))
        return self._compiled[1]

    def _present(self, value, grads, positions):
        """MindSpore's return structure: input gradients (one alone, else a tuple), Parameter
        gradients (one alone for a single Parameter, else a tuple), or both as a pair; then the
        value or the auxiliary outputs."""
        pos, ws = grads[:len(positions)], grads[len(positions):]
        if self.return_ids:
            pos = [(i, g) for i, g in zip(positions, pos)]
            ws = [(w.name, g) for w, g in zip(self.weights, ws)]
        pos = pos[0] if len(pos) == 1 and self.position != _ALL else tuple(pos)
        ws = ws[0] if self.single_weight else tuple(ws)
        if self.position is None:
            result = ws
        else:
            result = (pos, ws) if self.has_weights else pos
        if self.with_value:
            return value, result
        if self.has_aux:
            return result, tuple(value[1:]) if isinstance(value, (tuple, list)) else ()
        return result


def _has_tensor(v):
    if isinstance(v, Tensor):
        return True
    items = v.values() if isinstance(v, dict) else v if isinstance(v, (tuple, list)) else ()
    return any(_has_tensor(x) for x in items)


def _is_int_tuple(v):
    return isinstance(v, tuple) and v and all(isinstance(i, int) and not isinstance(i, bool) for i in v)


def _as_tuple(weights):
    return (weights,) if isinstance(weights, Parameter) else tuple(weights)


def _leaves(v):
    leaves = []
    flatten(v, leaves)
    return leaves

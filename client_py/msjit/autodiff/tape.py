"""PyNative (eager) reverse-mode autodiff: a tape of the ops that ``core.bind`` runs.

``vjp(fn, args, kwargs, wrt)`` runs ``fn`` eagerly with a ``Tape`` pushed on ``core.TAPES``.
``bind`` offers every eager op to each active tape; a tape keeps those with a float output and
an operand that depends on one of its watched tensors (tracked by identity; the tape holds
strong references, so identities stay unique while it lives). ``StopGradient`` is never kept,
so nothing flows through it. ``backward`` walks the kept ops in reverse, evaluates
``rules.RULES`` only for ops on a path from a watched tensor to a requested output, and sums
the cotangents each tensor receives.

The rules run eagerly through ``bind`` too, so a tape that is still active while an inner
tape runs its backward records the rules' ops: nested ``vjp`` calls give higher-order
gradients (as long as every rule on the way is itself made of differentiable primitives).
"""
import threading

import numpy as np

from .. import dtype as D
from ..ops import prims as P
from ..core import TAPES, bind
from ..parameter import Parameter
from ..tensor import Tensor
from .rules import RULES


def is_recording():
    """True while a tape of this thread is recording eager ops."""
    me = threading.get_ident()
    return any(t.thread == me for t in TAPES)


class Tape:
    """The ops that depend on ``wrt``, in execution order.

    An entry is ``(prim, operands, attrs, out, versions)``; ``versions`` pairs each Parameter
    operand with its ``_version`` when recorded, so a backward that would read a Parameter
    updated in place since then raises instead of returning a wrong gradient.
    """

    __slots__ = ("wrt", "live", "entries", "thread")

    def __init__(self, wrt):
        self.wrt = list(wrt)
        self.live = {id(t): t for t in self.wrt if _is_float(t)}   # id -> tensor depending on wrt
        self.entries = []
        self.thread = threading.get_ident()

    def record(self, prim, operands, attrs, out):
        """Called by ``bind`` for every eager op while this tape is active."""
        live = self.live
        if prim is P.StopGradient or self.thread != threading.get_ident():
            return
        if not any(id(x) in live for x in operands) or not out.dtype.is_floating:
            return
        versions = tuple((x, x._version) for x in operands if isinstance(x, Parameter))
        self.entries.append((prim, operands, attrs, out, versions))
        live[id(out)] = out

    def backward(self, pairs):
        """Gradients of ``sum_i sum(ct_i * out_i)`` for ``pairs = [(out_i, ct_i or None), ...]``
        (None: ones), one per ``wrt`` entry, each of that entry's shape and dtype."""
        live = self.live
        grads = {}
        for t, ct in pairs:
            if not isinstance(t, Tensor):
                raise TypeError(f"backward: outputs must be Tensors, got {type(t).__name__}")
            if id(t) not in live:
                continue   # does not depend on wrt (or is not float): contributes nothing
            ct = _cotangent(t, ct)
            _accumulate(grads, t, ct)
        needed = set(grads)
        todo = []
        for entry in reversed(self.entries):   # dead-gradient pruning
            if id(entry[3]) in needed:
                todo.append(entry)
                needed.update(id(x) for x in entry[1] if id(x) in live)
        for prim, operands, attrs, out, versions in todo:
            dout = grads.pop(id(out), None)
            if dout is None:
                continue
            for p, v in versions:
                if p._version != v:
                    raise RuntimeError(f"backward: Parameter {p.name!r} was updated in place after "
                                       f"{prim.name} read it; its gradient would use the new value")
            rule = RULES.get(prim.name)
            if rule is None:
                raise NotImplementedError(f"backward: no gradient rule for {prim.name}")
            values = [x if isinstance(x, Tensor) else Tensor._wrap(np.asarray(x)) for x in operands]
            operand_grads = rule(dout, out, *values, **attrs)
            for x, g in zip(operands, operand_grads):
                if g is not None and id(x) in live:
                    _accumulate(grads, x, g)
        return tuple(_result(grads.get(id(w)), w) for w in self.wrt)


def _is_float(t):
    return isinstance(t, Tensor) and t.dtype.is_floating


def _cotangent(t, ct):
    if ct is None:
        return Tensor._wrap(_ones(t))
    ct = ct if isinstance(ct, Tensor) else Tensor(ct, t.dtype)
    if ct.shape != t.shape:
        raise ValueError(f"backward: cotangent of shape {ct.shape} for an output of shape {t.shape}")
    return ct if ct.dtype is t.dtype else bind(P.Cast, ct, to=t.dtype)


def _ones(t):
    return np.ones(t.shape, t.dtype.np)


def _accumulate(grads, x, g):
    if g.shape != x.shape or g.dtype is not x.dtype:
        raise AssertionError(f"gradient of shape {g.shape} {g.dtype} for a value of shape {x.shape} {x.dtype}")
    prev = grads.get(id(x))
    grads[id(x)] = g if prev is None else bind(P.Add, prev, g)


def _result(g, w):
    if g is not None:
        return g
    return Tensor._wrap(np.zeros(w.shape, w.dtype.np))


def alias(x):
    """A new Tensor (a new identity for ``wrt``) with ``x``'s value, which the active tapes
    see as depending on ``x`` (an identity Reshape): re-wrapping with ``Tensor._wrap`` instead
    would cut ``x`` off from outer tapes and lose higher-order gradients."""
    return bind(P.Reshape, x, shape=x.shape)


def vjp(fn, args=(), kwargs=None, wrt=()):
    """Run ``fn(*args, **kwargs)`` eagerly, recording the ops that depend on ``wrt`` (Tensors or
    Parameters, by identity). Returns ``(out, backward)``; ``backward(pairs)`` takes
    ``[(output_tensor, cotangent_or_None), ...]`` with tensors found in ``out`` and returns one
    gradient per ``wrt`` entry (zeros where nothing depends on it). ``backward`` may be called
    more than once."""
    for w in wrt:
        if not isinstance(w, Tensor):
            raise TypeError(f"vjp: wrt must be Tensors or Parameters, got {type(w).__name__}")
    tape = Tape(wrt)
    TAPES.append(tape)
    try:
        out = fn(*args, **(kwargs or {}))
    finally:
        TAPES.remove(tape)
    return out, tape.backward

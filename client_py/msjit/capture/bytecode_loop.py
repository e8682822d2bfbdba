"""Loops on tensor values under capture_mode="bytecode" with fullgraph=True: one While node, as
ast capture builds it (control.graph_while: the carried values are the locals the body assigns,
the condition and the body are interpreted once each, into their regions). fullgraph=False
breaks the graph at the condition instead and runs the loop in Python.

CPython 3.11 compiles ``while cond: body`` as a test before the loop (a forward jump to the exit)
and a copy of it at the end of the body (a backward jump to the body's first instruction): the
While's ``cond`` region runs that copy (the instructions of the ``while`` line before the backward
jump), its ``body`` region the instructions from the body's start to the copy. The hook is either
jump on a tensor: the test before the loop, or the copy once Python iterations made the condition
a tensor (the While then runs the remaining iterations). ``for target in range(...)`` with a tensor
bound iterates a TensorRange: at its FOR_ITER the body (up to the jump back to FOR_ITER) is the
While's body over a hidden counter.

``continue`` and ``break`` end an iteration (Loop.end: a jump back to the loop's head, or to its
exit). Under a tensor condition (bytecode_if) the path that does not end the iteration runs on to
its end inside its If region, so what follows needs no guard, and ``break`` sets a carried flag
that stops the loop (the condition becomes ``cond and not broke``), as ast capture does. A
``return`` in the body ends the iteration too: a carried 'returned' flag and return value, and
after the loop an If returns that value or runs the rest of the function (not for a loop in the
body of another loop on tensor values). A ``break`` out of a loop with an ``else``, and any
Python side effect in the body are refused at the user's line.
"""
import linecache
from types import SimpleNamespace

import numpy as np

from .. import ops
from ..core import Tracer
from ..errors import UnsupportedSyntaxError
from ..tensor import Tensor
from .bytecode_if import JOINED, JumpedBack, _Host
from .control import GraphLoop, IfNode, graph_while, merge_values, predicate, unset_like

_STORES = ("STORE_FAST", "DELETE_FAST")


class _Ended:
    """How a path ended a loop's iteration (what the interpreter's ``_run`` returns then)."""

    __slots__ = ("broke",)

    def __init__(self, broke):
        self.broke = broke


NEXT, BROKE = _Ended(False), _Ended(True)


class Loop:
    """The While whose body is being captured, as its frame sees it (``_Frame.loop``): where an
    iteration ends, and the hidden 'broke' flag (None when the body has no 'break')."""

    __slots__ = ("first", "end_at", "exit", "next_offset", "flag", "ret")

    def __init__(self, f, first, end_at, exit_, last):
        self.first, self.end_at, self.exit = first, end_at, exit_
        self.next_offset = f.instructions[end_at].offset
        target = f.instructions[exit_].offset
        body = f.instructions[first:last + 1]
        breaks = any("JUMP" in ins.opname and ins.argval == target for ins in body)
        self.flag = f".broke@{self.next_offset}" if breaks else None
        returns = any(ins.opname == "RETURN_VALUE" for ins in body)
        self.ret = (f".returned@{self.next_offset}", f".retval@{self.next_offset}") if returns else None

    def flags(self):
        return [n for n in (self.flag, self.ret and self.ret[0]) if n]

    def returned(self, local_vars, value):
        """A path returned ``value`` from inside the body: the iteration ends, flag and value set."""
        local_vars[self.ret[0]], local_vars[self.ret[1]] = True, value

    def end(self, i):
        """NEXT or BROKE when reaching instruction ``i`` ends an iteration, else None."""
        if i == self.exit:
            return BROKE
        return NEXT if i == self.end_at or i < self.first else None

    def ended(self, outcomes, stack, fail):
        """Whether both paths of a tensor 'if' ended the iteration; if so their outcomes become
        those of paths that reached a join (the flag set where one broke, the stack as at the 'if')."""
        if all(out is JOINED for out, _, _ in outcomes):
            return False
        for outcome in outcomes:
            if type(outcome[0]) is not _Ended:
                self.returned(outcome[1], outcome[0])
            elif outcome[0].broke:
                outcome[1][self.flag] = True
            outcome[2] = list(stack)
        if self.ret:   # (a path that did not return: the value unset, never read where the flag is not)
            values = [o[1][self.ret[1]] for o in outcomes if self.ret[1] in o[1]]
            for o in outcomes:
                if values and self.ret[1] not in o[1]:
                    o[1][self.ret[1]] = unset_like(values[0])
        return True



class TensorRange:
    """``range(...)`` with a tensor argument under fullgraph=True: only a ``for`` iterates it, as
    one While node (see tensor_for)."""

    __slots__ = ("start", "stop", "step")

    def __init__(self, *args):
        if not 1 <= len(args) <= 3:
            raise TypeError(f"range expected 1 to 3 arguments, got {len(args)}")
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        if type(step) is Tracer:
            raise TypeError("range() with a tensor step cannot be a loop in the graph (its sign decides the "
                            "loop's condition)")
        for a in (start, stop):
            if type(a) is Tracer and (a.shape != () or a.dtype.np.kind not in "iu"):
                raise TypeError(f"range() takes integer scalars, got a {a.aval} tensor")
        if step == 0:
            raise ValueError("range() arg 3 must not be zero")
        self.start, self.stop, self.step = start, stop, step

    def __iter__(self):
        return self

    def __next__(self):
        raise TypeError("a range with a tensor bound is iterated only by a 'for' loop under capture (one loop "
                        "in the graph)")


def _fail(f, line, message):
    return UnsupportedSyntaxError(f.file, line, f"a loop on a tensor value where {message}",
                                  linecache.getline(f.file, line) or None)


def _assigned(f, first, last):
    """The locals instructions ``first``..``last`` assign; a closure variable assigned is refused."""
    names = []
    for ins in f.instructions[first:last + 1]:
        if ins.opname in _STORES and ins.argval not in names:
            names.append(ins.argval)
        elif ins.opname == "STORE_DEREF":
            raise _fail(f, f.instructions[first].positions.lineno or f.line,
                        f"closure variable {ins.argval!r} changes in the loop")
    return names


def _run_to(interp, f, start, stop, floor, ceiling, line, what):
    """Run ``f`` from instruction ``start`` until it reaches ``stop`` or ends the iteration,
    within [floor, ceiling]."""
    saved, f.ceiling = f.ceiling, ceiling
    try:
        result = interp._run(f, start, stop, floor=floor)
    except JumpedBack:
        raise _fail(f, line, f"the {what} leaves it other than by its end, 'continue' or 'break' (a 'break' "
                    "out of a loop with an 'else')") from None
    finally:
        f.ceiling = saved
    if result is BROKE:
        f.locals[f.loop.flag] = True
    elif result is not JOINED and result is not NEXT:
        f.loop.returned(f.locals, result)


def _graph_loop(interp, f, line, loop, names, test, body):
    """control.graph_while over this interpreter: each region runs from the stack at the loop and
    sees no container from before the loop as its own (changing one is a side effect)."""
    host = getattr(interp, "region_host", None) or _Host(interp)
    interp.region_host = host
    saved_frame, saved_loop, stack, created = getattr(host, "frame", None), f.loop, f.stack, interp.created
    host.frame, f.loop = f, loop

    def isolated(fn):
        def run():
            f.stack, interp.created = list(stack), {}
            return fn()
        return run

    def cond():
        value = test()
        stop = GraphLoop.any_set([f.locals.get(n, False) for n in loop.flags()])
        if stop is False:
            return value
        if isinstance(value, Tracer):
            return ops.logical_and(predicate(value), ops.logical_not(stop))
        return ops.logical_not(stop) if value else False
    if loop.ret and saved_loop is not None:
        raise _fail(f, line, "a 'return' is inside it and it is inside another loop on a tensor value")
    for n in loop.flags():
        f.locals[n] = False
    names = names + loop.flags() + ([loop.ret[1]] if loop.ret else [])
    try:
        graph_while(host, SimpleNamespace(lineno=line), names, isolated(cond), isolated(body),
                    lambda message: _fail(f, line, message))
    finally:
        host.frame, f.loop, f.stack, interp.created = saved_frame, saved_loop, stack, created
        f.locals.pop(loop.flag, None)
    return host


def _after(interp, f, host, loop, line):
    """(True, None) to go on after the loop; (False, value) when the loop may have returned: an
    If returns the loop's return value, or runs the rest of the function."""
    if not loop.ret:
        return True, None
    returned, value = (f.locals.pop(n, None) for n in loop.ret)
    if value is None:    # (no path returned)
        return True, None
    cond = predicate(returned)
    region = IfNode(host, cond)
    locals_, stack, created = f.locals, f.stack, interp.created
    f.locals, f.stack, interp.created = dict(locals_), list(stack), {}
    try:
        with region.branch(0):
            pass
        with region.branch(1):
            rest = interp._run(f, loop.exit, None)
    finally:
        f.locals, f.stack, interp.created = locals_, stack, created
    return False, region.finish(merge_values(cond, value, rest, "the return value",
                                             lambda message: _fail(f, line, message), region.select))


def _while_shape(f, at):
    """(body start, bottom test start, bottom jump) of the ``while`` whose test jumps at
    instruction ``at``, or None when the jump is not a while's test."""
    ins = f.instructions[at]
    if "BACKWARD" in ins.opname:
        bottom = at
    else:
        bottom = f.index[ins.argval] - 1
        if bottom <= at:
            return None
    jump = f.instructions[bottom]
    if not jump.opname.startswith(("POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_FALSE")):
        return None
    body = f.index[jump.argval]
    if "BACKWARD" not in ins.opname and body != at + 1:
        return None
    line = jump.positions.lineno
    test = bottom
    while test > body and f.instructions[test - 1].positions.lineno == line:
        test -= 1
    if test <= body:     # (the body on the 'while' line: its end cannot be told from the test)
        return None
    return body, test, bottom


def tensor_while(interp, f, ins):
    """A conditional jump on a tensor that is a ``while``'s test: the loop as one While node, then
    (True, the offset to go on at) or (False, the function's return value); None when the jump is
    no while's test."""
    shape = _while_shape(f, f.index[ins.offset])
    if shape is None:
        return None
    body, test, bottom = shape
    jump = f.instructions[bottom]
    line = jump.positions.lineno or f.line
    holds = jump.opname.endswith("TRUE")     # (the loop goes on while the condition's truth is this)

    def cond():
        _run_to(interp, f, test, bottom, test, bottom, line, "condition")
        value = f.stack.pop()
        if holds:
            return value
        return ops.logical_not(predicate(value)) if isinstance(value, Tracer) else not value

    def iteration():
        _run_to(interp, f, body, test, body, test - 1, line, "body")
    loop = Loop(f, body, test, bottom + 1, test - 1)
    host = _graph_loop(interp, f, line, loop, _assigned(f, body, bottom), cond, iteration)
    go_on, value = _after(interp, f, host, loop, line)
    return (True, f.instructions[bottom + 1].offset) if go_on else (False, value)


def tensor_for(interp, f, ins, bounds):
    """``FOR_ITER`` over a TensorRange: the loop as one While node over a hidden counter, then
    (True, the offset to go on at: the loop's exit, the range popped) or (False, the return value)."""
    at = f.index[ins.offset]
    exit_ = f.index[ins.argval]
    back = exit_ - 1
    line = ins.positions.lineno or f.line
    if not (f.instructions[back].opname.startswith("JUMP_BACKWARD") and f.instructions[back].argval == ins.offset):
        raise _fail(f, line, "the loop's bytecode has an unexpected shape")
    start, stop, step = bounds.start, bounds.stop, bounds.step
    dtype = next(a.dtype for a in (start, stop) if type(a) is Tracer)
    counter = f".range@{ins.offset}"
    f.locals[counter] = start if type(start) is Tracer else Tensor(np.asarray(start, dtype.np))
    names = _assigned(f, at + 1, back)
    target = f.instructions[at + 1]
    if target.opname == "STORE_FAST":   # (bound after the loop even when the graph cannot tell if it ran)
        f.locals.setdefault(target.argval, f.locals[counter])

    def cond():
        i = f.locals[counter]
        return i < stop if step > 0 else i > stop

    def iteration():
        i = f.locals[counter]
        f.stack.append(i)
        f.locals[counter] = i + step     # (before the body: a 'break' or 'continue' skips its end)
        _run_to(interp, f, at + 1, at, at + 1, back, line, "body")
    loop = Loop(f, at + 1, at, exit_, back)
    try:
        host = _graph_loop(interp, f, line, loop, [counter] + names, cond, iteration)
    finally:
        f.locals.pop(counter, None)
    f.stack.pop()     # (the range, as FOR_ITER pops an exhausted iterator)
    go_on, value = _after(interp, f, host, loop, line)
    return (True, ins.argval) if go_on else (False, value)

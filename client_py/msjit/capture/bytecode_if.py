"""A tensor ``if`` under capture_mode="bytecode" with fullgraph=True: one If node (fullgraph=False
breaks the graph there instead and runs the branch taken). MindSpore 2.10's PIJit accepts a plain
tensor if/else under fullgraph=True and refuses an early return or an 'if' in a loop ("Data-
dependent conditional control flow is not supported"); this captures those too.

At a forward conditional jump on a tensor, both paths run from the same locals and stack, each
into its own If region (control.IfNode), to the join: the target of the 'then' path's closing
``JUMP_FORWARD`` (if/else, ternaries) or ``JUMP_BACKWARD`` (an 'if' ending a loop's body), else
the jump target (an 'if' without 'else'). A path
that returns instead makes the other one run on to its own return, and the If's output is the
return value. What differs between the paths (locals, stack entries) is merged as ast capture
merges branches. Containers from before the 'if' are outside the branch: changing them there is
a side effect, refused under fullgraph=True (only the branch taken may change Python state).
Jumps back out of a branch ('continue', an enclosing loop's next iteration) are refused.
"""
import linecache

from ..errors import ConcreteValueNeeded, UnsupportedSyntaxError
from .control import Branches, IfNode, OneBranch, merge_values, predicate

JOINED = object()     # a path reached the join (see bytecode._Interpreter._run)


class JumpedBack(Exception):
    """A path jumped back before its 'if' (a 'continue', a 'break' then the loop's next iteration)."""


class _Host:
    """What IfNode and Branches use of an interpreter, over a bytecode interpreter's session."""

    def __init__(self, interp):
        self.interp = interp
        self.branches = Branches(self)

    @property
    def builder(self):
        return self.interp.session.builder

    @builder.setter
    def builder(self, value):
        self.interp.session.builder = value

    def unsupported_here(self, what):
        file, line = self.interp._where()
        return UnsupportedSyntaxError(file, line, what, linecache.getline(file, line) or None)


def _join(f, ins):
    jump = f.index[ins.argval]
    closing = f.instructions[jump - 1]
    if closing.opname == "JUMP_FORWARD" and closing.argval > ins.argval:
        return f.index[closing.argval]
    if closing.opname.startswith("JUMP_BACKWARD"):   # (an 'if' ending a loop's body: both paths go back to its head)
        return f.index[closing.argval]
    return jump


def tensor_if(interp, f, ins, value, when):
    """(True, the offset to go on at) or (False, the function's return value)."""
    at = f.index[ins.offset]
    join = _join(f, ins)
    starts = (f.index[ins.argval], at + 1) if when else (at + 1, f.index[ins.argval])
    cond = predicate(value)
    host = getattr(interp, "region_host", None) or _Host(interp)
    interp.region_host = host
    region = IfNode(host, cond)
    locals_, stack, created = f.locals, f.stack, interp.created
    file, line = f.file, ins.positions.lineno or f.line
    text = linecache.getline(file, line) or None
    outcomes = []
    try:
        for k, start in enumerate(starts):
            f.locals, f.stack, interp.created = dict(locals_), list(stack), {}
            with region.branch(k):
                result = interp._run(f, start, join, floor=at + 1)
            outcomes.append([result, f.locals, f.stack])
        if (outcomes[0][0] is JOINED) != (outcomes[1][0] is JOINED):
            k = 0 if outcomes[0][0] is JOINED else 1
            f.locals, f.stack, interp.created = outcomes[k][1], outcomes[k][2], {}
            with region.branch(k):
                outcomes[k][0] = interp._run(f, join, None, floor=at + 1)
    except JumpedBack:
        raise ConcreteValueNeeded(file, line, "the truth value of a tensor whose branch leaves a loop or jumps "
                                  "back into it ('break', 'continue', or a 'return' that ends the iterations)",
                                  text) from None
    finally:
        f.locals, f.stack, interp.created = locals_, stack, created

    def fail(message):
        return UnsupportedSyntaxError(file, line, f"a condition on a tensor value where {message}", text)
    # (both paths ended an iteration of a While being captured: merged as at a join, see bytecode_loop)
    ended = f.loop is not None and f.loop.ended(outcomes, stack, fail)
    (then_out, then_locals, then_stack), (else_out, else_locals, else_stack) = outcomes
    if then_out is not JOINED and not ended:
        return False, region.finish(merge_values(cond, then_out, else_out, "the return value", fail, region.select))
    if len(then_stack) != len(else_stack):
        raise fail(f"the stack holds {len(then_stack)} values after one branch and {len(else_stack)} after the other")
    one_branch = {n: OneBranch(n, file, line, text) for n in set(then_locals) ^ set(else_locals)}
    merged = region.finish({
        "locals": {**one_branch, **{n: merge_values(cond, v, else_locals[n], f"variable {n!r}", fail, region.select)
                                    for n, v in then_locals.items() if n in else_locals}},
        "stack": [merge_values(cond, a, b, "a value", fail, region.select) for a, b in zip(then_stack, else_stack)]})
    f.locals, f.stack = merged["locals"], merged["stack"]
    return True, f.loop.next_offset if ended else f.instructions[join].offset

"""Control flow for the ast interpreter (capture.ast): loop signals, merging the two branches of a
condition on a tensor, loops on tensors as While nodes, and running such graphs without msjitd.

Loops over Python values run at capture (unrolled), so they need nothing beyond the ``BREAK``/
``CONTINUE`` signals a block returns. A condition on a one-element tensor cannot pick a branch at
capture: both branches are interpreted, each from the same starting variables, and every variable
whose value differs afterwards becomes an output of one If node whose regions are the branches
(IfNode; only the branch taken runs), or for expressions is merged with ``ops.where``. Python
cannot see which branch runs, so while a branch (or a loop region) is captured ``Branches`` refuses
side effects: Parameter writes (``builder.assign``), and in-place changes of Python containers that
existed before it.
"""
import ast
import linecache
import math
from contextlib import contextmanager

import numpy as np

from .. import dtype as D
from .. import ops
from ..core import ShapedArray, activate, deactivate
from ..errors import UnsupportedSyntaxError
from ..mixin import TensorMixin
from ..ops.prims import PRIMITIVES
from ..tensor import Tensor
from .graph import Captures, RegionBuilder

MAX_UNROLL = 10_000     # iterations of one loop at capture, beyond which capture gives up


class _Signal:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


BREAK, CONTINUE = _Signal("break"), _Signal("continue")

# Methods that change a Python container in place.
MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
                      "setdefault", "popitem", "add", "discard", "difference_update",
                      "intersection_update", "symmetric_difference_update", "__setitem__", "__delitem__",
                      "__iadd__", "__imul__", "__ior__"})


class OneBranch:
    """The value of a variable assigned in only one branch of a condition on a tensor (or only
    inside a loop on a tensor): an error when read (which branch ran, or whether the loop ran,
    is only known when the graph runs)."""

    __slots__ = ("name", "file", "line", "text", "loop")

    def __init__(self, name, file, line, text, loop=False):
        self.name, self.file, self.line, self.text, self.loop = name, file, line, text, loop

    def error(self, used_line):
        if self.loop:
            what = (f"a loop on a tensor value that assigns variable {self.name!r} only inside the loop (it is "
                    f"used after the loop, at line {used_line}; assign it before the loop)")
        else:
            what = (f"a condition on a tensor value that assigns variable {self.name!r} in only one branch (it "
                    f"is used after the 'if', at line {used_line}; assign it in both branches)")
        return UnsupportedSyntaxError(self.file, self.line, what, self.text)


def predicate(value):
    """A one-element tensor as the 0-d bool predicate of a condition (Python truthiness:
    non-zero is true). ValueError, as eagerly, for any other element count."""
    size = math.prod(value.shape)
    if size != 1:
        raise ValueError(f"the truth value of a tensor with {size} elements is ambiguous (a condition on "
                         "a tensor needs exactly one element)")
    if value.dtype is not D.bool_:
        value = ops.not_equal(value, 0)
    return ops.reshape(value, ()) if value.shape != () else value


def _is_number(v):
    return isinstance(v, (bool, int, float)) and not isinstance(v, type)


def _kind(v):
    if isinstance(v, TensorMixin):
        return f"{v.dtype.name}[{','.join(map(str, v.shape))}] tensor"
    return type(v).__name__


def merge_values(cond, then_value, else_value, what, fail, select=None):
    """``then_value if cond else else_value`` for a 0-d bool tensor ``cond``: tensors and numbers
    through ``select(cond, tv, ev)`` (ops.where, or an If node's outputs, see IfNode), tuples/lists/
    dicts element by element, equal constants as they are. ``fail(message)`` makes the exception
    for values that cannot be merged."""
    tv, ev = then_value, else_value
    select = select or ops.where
    if tv is ev:
        return tv
    if type(tv) in (tuple, list) and type(tv) is type(ev):
        if len(tv) != len(ev):
            raise fail(f"{what} has {len(tv)} elements in one branch and {len(ev)} in the other")
        return type(tv)(merge_values(cond, a, b, f"{what}[{i}]", fail, select) for i, (a, b) in enumerate(zip(tv, ev)))
    if type(tv) is dict and type(ev) is dict:
        if list(tv) != list(ev):
            raise fail(f"{what} has keys {list(tv)} in one branch and {list(ev)} in the other")
        return {k: merge_values(cond, tv[k], ev[k], f"{what}[{k!r}]", fail, select) for k in tv}
    t_tensor, e_tensor = isinstance(tv, TensorMixin), isinstance(ev, TensorMixin)
    if (t_tensor or _is_number(tv)) and (e_tensor or _is_number(ev)):
        if not (t_tensor or e_tensor) and type(tv) is type(ev) and tv == ev:
            return tv
        if t_tensor and e_tensor and (tuple(tv.shape), tv.dtype) != (tuple(ev.shape), ev.dtype):
            raise fail(f"{what} is a {_kind(tv)} in one branch and a {_kind(ev)} in the other")
        return select(cond, tv, ev)
    try:
        same = type(tv) is type(ev) and bool(tv == ev)
    except Exception:   # noqa: BLE001  (objects whose == is not a plain bool)
        same = False
    if same:
        return tv
    raise fail(f"{what} is a {_kind(tv)} in one branch and a {_kind(ev)} in the other")


class Branches:
    """Context of a branch of a condition on a tensor, or of a loop region (nested ones stack):
    in-place changes of containers not created inside it (``fresh``) raise, and so do Parameter
    writes, except into a region (an If branch, a While body), which threads them out as extra
    outputs (see IfNode.finish and graph_while)."""

    def __init__(self, interpreter):
        self.interpreter = interpreter
        self.depth = 0
        self.fresh = []         # containers created inside a branch (kept alive: compared by id)
        self._fresh_ids = set()
        self._shadowed = []     # per level: the builder whose assign it forbids, or None

    def __enter__(self):
        self.depth += 1
        builder = self.interpreter.builder
        forbid = not isinstance(builder, RegionBuilder) and "assign" not in vars(builder)
        if forbid:
            builder.assign = self._forbidden_assign   # instance attribute shadows the method
        self._shadowed.append(builder if forbid else None)
        return self

    def __exit__(self, *exc):
        builder = self._shadowed.pop()
        if builder is not None:
            del builder.assign
        self.depth -= 1
        if self.depth == 0:
            self.fresh.clear()
            self._fresh_ids.clear()
        return False

    def _forbidden_assign(self, p, value):
        raise self.interpreter.unsupported_here(
            f"assigning Parameter {p.name!r} inside a branch of a condition on a tensor value (a side "
            "effect: jit captures both branches)")

    def created(self, value):
        """Note a container made inside a branch: changing it there is no side effect."""
        if self.depth and isinstance(value, (list, dict, set)):
            self.fresh.append(value)
            self._fresh_ids.add(id(value))
        return value

    def mutates(self, func):
        """Whether calling ``func`` now changes a container from outside the branch."""
        if not self.depth:
            return False
        owner = getattr(func, "__self__", None)
        return (isinstance(owner, (list, dict, set)) and getattr(func, "__name__", None) in MUTATORS
                and id(owner) not in self._fresh_ids)

    def mutates_inplace(self, value):
        return self.depth > 0 and isinstance(value, (list, dict, set)) and id(value) not in self._fresh_ids


# ---- loops on a tensor value: one While node ------------------------------------------------------
#
# A ``while`` whose condition is a tensor (or a ``for`` over ``range`` with a tensor bound) cannot
# be unrolled: it becomes one While node whose ``cond`` and ``body`` are regions (RegionBuilder).
# The loop-carried values are the variables the body assigns that exist before the loop (tensors,
# or Python numbers, which become tensors); everything else the regions read is passed through
# unchanged as captures. ``break`` and ``continue`` under a tensor condition become carried boolean
# flags, as autograph does: ``break`` sets ``.broke`` (the condition becomes ``cond and not
# broke``), either flag guards the rest of the body (``if not (broke or continued): rest``).

# Whether loops on a tensor value become While nodes (else they are refused, as before msjitd had
# the op): on once the compiler in this tree lowers mindir.While.
GRAPH_LOOPS = True
# Whether a tensor ``if`` becomes an If node (exactly one branch runs) rather than both branches
# merged with Select: on once msjitd differentiates mindir.If.
GRAPH_IFS = True

ESCAPED = _Signal("escaped")    # a block set a loop's flag under a tensor condition: guard what follows
_MAX_WIDEN = 3                  # re-captures of a loop whose Python-number variables become tensors


class GraphLoop:
    """The hidden flag variables of one loop, captured as a While node or unrolled in Python (names
    no user can write)."""

    __slots__ = ("broke", "cont")

    def __init__(self, key, has_break):
        self.broke = f".broke@{key}" if has_break else None
        self.cont = f".continue@{key}"

    def flags(self, local_vars):
        return [local_vars.get(f, False) for f in (self.broke, self.cont) if f]

    @staticmethod
    def any_set(flags):
        """``flag or flag ...``: False, or a 0-d bool tensor."""
        out = False
        for f in flags:
            if f is not False:
                out = f if out is False else ops.logical_or(out, f)
        return out


# A 'return' under a tensor condition in a function (not in a loop on a tensor value): the
# function's hidden 'returned' flag and return value (see ast._Interpreter.call).
RETURNED, RETVAL = ".returned", ".retval"


def unset_like(v):
    """The value a flag-guarded variable has where its flag is not set (never read there): zeros
    shaped like ``v``, so that it can be an If branch's output too."""
    if isinstance(v, TensorMixin):
        return Tensor(_number_array(0, _aval(v)))
    if type(v) in (tuple, list):
        return type(v)(unset_like(x) for x in v)
    if type(v) is dict:
        return {k: unset_like(x) for k, x in v.items()}
    return v


def always_returns(stmts):
    """Whether ``stmts`` cannot complete without a 'return' (or 'raise'): the function never
    falls off its end."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return always_returns(last.body) and always_returns(last.orelse)
    if isinstance(last, ast.While):   # ``while True:`` without 'break' ends only by returning
        return isinstance(last.test, ast.Constant) and bool(last.test.value) and not contains_break(last.body)
    return False


def assigned_names(stmts):
    """The variables ``stmts`` assign, in order of first appearance."""
    return list(dict.fromkeys(n.id for s in stmts for n in ast.walk(s)
                              if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)))


def contains_break(stmts):
    """Whether ``stmts`` break out of the loop they are the body of (not of a loop inside it)."""
    for s in stmts:
        if isinstance(s, ast.Break):
            return True
        if isinstance(s, (ast.For, ast.While)):
            if contains_break(s.orelse):
                return True
            continue
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if contains_break([c for c in ast.iter_child_nodes(s) if isinstance(c, ast.stmt)]):
            return True
    return False


def contains_return(stmts):
    """Whether ``stmts`` hold a 'return' (of the function they are in, not of a nested one)."""
    def walk(node):
        if isinstance(node, ast.Return):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return False
        return any(walk(c) for c in ast.iter_child_nodes(node))
    return any(walk(s) for s in stmts)


def _carriable(v):
    return isinstance(v, TensorMixin) or _is_number(v)


def _aval(v):
    if isinstance(v, TensorMixin):
        return ShapedArray(tuple(v.shape), v.dtype)
    return ShapedArray.of(_number_array(v, None))


def _number_array(v, aval):
    """A Python number as a tensor: of ``aval`` when given, else as MindSpore types a scalar
    (int64, float32, bool)."""
    if aval is not None:
        return np.full(aval.shape, v, aval.dtype.np)
    return np.asarray(v, np.float32 if isinstance(v, float) else None)


@contextmanager
def building(interp, region):
    """The interpreter builds ``region`` inside the block (ops on its tracers record there)."""
    saved = interp.builder
    interp.builder = region
    activate(region)
    try:
        with interp.branches:   # (a region runs a data-dependent number of times: no Python side effects)
            yield region
    finally:
        deactivate(region)
        interp.builder = saved


def _in_region(interp, region, names, avals, fn, params=()):
    """Run ``fn()`` with the interpreter building ``region``, ``names`` then the Parameters
    ``params`` bound to its carried inputs. Returns (fn's result, the variables afterwards)."""
    frame = interp.frame
    saved_locals = frame.locals
    frame.locals = dict(saved_locals)
    frame.locals.update((n, region.carry(a)) for n, a in zip(names, avals))
    for p in params:
        region.thread(p, ShapedArray.of(p._array))
    try:
        with building(interp, region):
            out = fn()
        return out, frame.locals
    finally:
        frame.locals = saved_locals


class IfNode:
    """A tensor ``if`` captured as one If node: each branch is interpreted into its own region
    (``branch(i)``), then every value that differs between them is ``select``-ed (a placeholder,
    see merge_values) and ``finish`` makes the node whose outputs replace the placeholders."""

    def __init__(self, interp, cond):
        self.interp, self.cond, self.outer = interp, cond, interp.builder
        self.captures = Captures()
        self.regions = [RegionBuilder(f"{self.outer.name}_{k}", self.outer, self.captures) for k in ("then", "else")]
        self.pairs = []
        self.scalars = set()   # outputs merged from two Python numbers (scalars to MindSpore)

    def branch(self, i):
        return building(self.interp, self.regions[i])

    def select(self, cond, tv, ev):
        if _is_number(tv) and _is_number(ev):
            self.scalars.add(len(self.pairs))
        if not isinstance(tv, TensorMixin) or not isinstance(ev, TensorMixin):   # (a number: the other's dtype)
            like = tv if isinstance(tv, TensorMixin) else ev if isinstance(ev, TensorMixin) else None
            aval = _aval(like if like is not None else max(tv, ev, key=lambda v: (type(v) is float, type(v) is int)))
            tv, ev = (v if isinstance(v, TensorMixin) else _number_array(v, aval) for v in (tv, ev))
        self.pairs.append((tv, ev))
        return _Pending(len(self.pairs) - 1)

    def finish(self, values):
        """Make the If node; ``values`` with every placeholder replaced by its output. A Parameter
        either branch assigned is one more output (its value at the 'if' where not assigned),
        assigned in the enclosing graph."""
        written = {}
        for r in self.regions:
            written.update((key, p) for key, (p, _) in r.parameter_writes().items())
        params = [(p, self.select(None, *(r.parameter(p) for r in self.regions))) for p in written.values()]
        if not self.pairs:
            return values
        outs = [[r.lift(p[i]) for p in self.pairs] for i, r in enumerate(self.regions)]   # (captures first)
        branches = [r.close(o) for r, o in zip(self.regions, outs)]
        outs = self.outer.add_multi("If", [self.cond] + self.captures.values,
                                    {"then_branch": branches[0], "else_branch": branches[1]},
                                    [a for _, a in branches[0].outputs])
        for p, pending in params:
            self.outer.assign(p, outs[pending.index])
        self.outer.python_scalars.update(outs[i].name for i in self.scalars)
        return _resolve(values, outs)


class _Pending:
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


def _resolve(v, outs):
    if type(v) is _Pending:
        return outs[v.index]
    if type(v) in (tuple, list):
        return type(v)(_resolve(x, outs) for x in v)
    if type(v) is dict:
        return {k: _resolve(x, outs) for k, x in v.items()}
    return v


def graph_while(interp, node, names, test, body, fail):
    """Capture a loop as one While node and bind its results in the interpreter's frame.

    ``names``: the variables the loop may assign (carried when they hold a tensor or a number
    before it); ``test()`` evaluates the condition, ``body()`` one iteration (both run once,
    inside their region); ``fail(message)`` makes the exception for a loop that cannot be one
    While. Variables the body assigns that do not exist before the loop are unbound after it.
    """
    frame, outer = interp.frame, interp.builder
    start = dict(frame.locals)
    carried = [n for n in names if _carriable(start.get(n))]
    init = {n: start[n] for n in carried}
    params = []     # Parameters the body assigns: carried after the variables (the loop's state)
    for attempt in range(_MAX_WIDEN + 1):
        captures, avals = Captures(), [_aval(init[n]) for n in carried]
        cond = RegionBuilder(f"{outer.name}_cond", outer, captures)
        pred, _ = _in_region(interp, cond, carried, avals, lambda: _loop_predicate(test()), params)
        region = RegionBuilder(f"{outer.name}_body", outer, captures)
        _, after = _in_region(interp, region, carried, avals, body, params)
        written = [p for p, _ in region.parameter_writes().values() if all(p is not q for q in params)]
        if written and attempt == _MAX_WIDEN:
            raise fail("the loop assigns Parameters only found after several captures")
        params += written
        widened = bool(written)
        for n in names:   # a hidden value first set in the body (a 'return' value): carried from now on
            if n.startswith(".") and n not in carried and n in after:
                if not _carriable(after[n]):
                    raise fail(f"the return value is a {_kind(after[n])} (a 'return' inside the loop returns one "
                               "tensor or number)")
                carried.append(n)
                init[n], widened = unset_like(after[n]), True
        for n, a in zip(carried, avals):
            v = after[n]
            if type(v) is OneBranch:
                raise v.error(node.lineno)
            if _is_number(v):
                continue
            if not isinstance(v, TensorMixin):
                raise fail(f"variable {n!r} becomes a {_kind(v)} in the loop (a {_kind(init[n])} before it)")
            if _aval(v) != a:
                if not _is_number(start[n]) or attempt == _MAX_WIDEN:
                    raise fail(f"variable {n!r} is a {_kind(init[n])} before an iteration and a {_kind(v)} "
                               "after it (loop-carried values keep their shape and dtype)")
                init[n], widened = _number_array(start[n], _aval(v)), True   # (0 then x-shaped: as Python's 0 + x)
        if not widened:
            break
    for n in names:
        if n not in carried and n in start and not _same_python_value(after.get(n), start[n]):
            raise fail(f"variable {n!r} (a {_kind(start[n])}) changes in the loop (only tensors and numbers "
                       "can change in a loop on a tensor value)")
    # (lift every output before closing any region: lifting an outer value adds a capture)
    pred = cond.lift(pred)
    body_outs = [region.lift(after[n] if not _is_number(after[n]) else _number_array(after[n], a))
                 for n, a in zip(carried, avals)]
    body_outs += [region.parameter(p) for p in params]
    body_outs += [region.passthrough(i) for i in range(len(captures.values))]
    attrs = {"cond": cond.close([pred]), "body": region.close(body_outs)}
    operands = [v if isinstance(v, TensorMixin) else _number_array(v, a) for v, a in zip(init.values(), avals)]
    operands += [outer.parameter(p) for p in params]
    outs = outer.add_multi("While", operands + captures.values, attrs,
                           avals + [ShapedArray.of(p._array) for p in params] + [v.aval for v in captures.values])
    for k, p in enumerate(params):
        outer.assign(p, outs[len(carried) + k])
    text = linecache.getline(frame.file, node.lineno)
    for n in names:
        if n in carried:
            frame.locals[n] = outs[carried.index(n)]
            if _is_number(start.get(n)) and frame.locals[n].shape == ():
                outer.python_scalars.add(frame.locals[n].name)
        elif n not in start and not n.startswith("."):
            frame.locals[n] = OneBranch(n, frame.file, node.lineno, text, loop=True)


def _loop_predicate(value):
    if isinstance(value, TensorMixin):
        return predicate(value)
    return np.asarray(bool(value))


def _same_python_value(now, before):
    if now is before:
        return True
    try:
        return type(now) is type(before) and bool(now == before)
    except Exception:   # noqa: BLE001  (objects whose == is not a plain bool)
        return False


# ---- running a graph without the compiler ---------------------------------------------------------

def evaluate(graph, arrays):
    """Run ``graph`` node by node on the primitives' numpy kernels (as eager ops run), region ops
    included: a While runs its ``body`` while its ``cond`` holds, an If only the branch taken.
    ``arrays`` are the inputs then the parameters; returns the outputs (fresh arrays)."""
    values = dict(zip([name for name, _ in graph.inputs + graph.parameters], arrays))
    for n in graph.nodes:
        operands = [values[i] for i in n.inputs]
        if n.op_type == "While":
            outs = _run_while(n, operands)
        elif n.op_type == "If":
            outs = evaluate(n.attrs["then_branch" if operands[0] else "else_branch"], operands[1:])
        else:
            outs = None
        if outs is not None:
            values.update(zip(n.outputs, outs))
            continue
        prim = PRIMITIVES.get(n.op_type)
        if prim is None or n.outputs:   # (a Grad node: its body needs the compiler's autodiff)
            raise NotImplementedError(f"{graph.name} holds {n.name}, which only a compiled graph runs")
        values[n.name] = np.asarray(prim.impl(*operands, **n.attrs), n.aval.dtype.np)
    return tuple(np.array(values[name]) for name, _ in graph.outputs)   # (copies: never views of inputs)


def _run_while(node, carried):
    cond, body = node.attrs["cond"], node.attrs["body"]
    count = 0
    while evaluate(cond, carried)[0]:
        count += 1
        if count > MAX_EAGER_ITERATIONS:
            raise RuntimeError(f"{node.name}: more than {MAX_EAGER_ITERATIONS} iterations")
        carried = evaluate(body, carried)
    return carried


MAX_EAGER_ITERATIONS = 10_000_000   # a While run by ``evaluate`` (a runaway loop fails instead of hanging)

"""capture_mode="ast": capture a function by interpreting its syntax tree over abstract values.

Python values are compile-time constants, so every Python-level operation on them is simply
performed (``2.0 * 3`` is 6.0 before any graph exists, a constant ``if`` picks its branch);
only operations on tensors become graph nodes, through the same ops the eager path uses.
User helper functions (and other jitted functions) are inlined by interpreting their own
source. Whatever cannot be captured raises UnsupportedSyntaxError at its exact file:line;
jit decides whether that is fatal (fullgraph=True) or means running eagerly (JIT Fallback).

Control flow (see control.py for the rules):
- ``for`` and ``while`` loops over Python values run at capture, so they are unrolled: the loop
  variable is a Python constant or a tensor each iteration (a ``for`` over a tensor walks its first
  axis); ``break``, ``continue`` and ``else`` behave as in Python. At most ``MAX_UNROLL`` iterations.
  A ``break``/``continue`` under a tensor condition there is a flag guarding the rest of the body
  and the later iterations; a ``while`` whose Python condition has not ended it when a tensor
  ``break`` or ``return`` may have (``while True:``) becomes a While node from that iteration on.
- Chained comparisons with tensors (``a < x.sum() < b``) are the 'and' of their comparisons.
- Calls are inlined: a recursion that only a tensor value ends is refused at its call.
- A ``while`` whose condition is a tensor, or a ``for`` over ``range`` with a tensor bound, is one
  While node (control.graph_while); ``break``/``continue`` under tensor conditions inside it are
  carried flags that guard the rest of the body.
- ``if``/``elif`` on a one-element tensor interprets both branches into the regions of one If node
  (only the branch taken runs); ternaries/``and``/``or``/``not`` merge with ``ops.where``
  (Select). A ``return`` in one branch (or in a While) sets the function's hidden 'returned' flag
  and value; what follows runs under its negation.
- Side effects in If branches and While bodies: Parameter writes (``ops.assign``, ``set_data``,
  ``self.p = ...`` / ``self.p += ...`` on a Parameter attribute of a Cell or any object) are the
  graph's state: a region threads them out as extra outputs (a While carries them), the enclosing
  graph assigns them in program order, and the compiled function writes them back after each
  call (as BatchNorm's statistics). Python-level side effects there (changing a list or dict from
  outside, a plain attribute, print) are refused: Python cannot know which branch or how many
  iterations ran.

Globals and closure variables are read once, at capture, and guarded (see guards.py): constants by
value, other objects by identity, and what the capture read from containers reached through them
(items, lengths, keys, membership) and from objects' attributes. When one has changed, the next
call recaptures and recompiles (as torch.compile does; MindSpore's ast mode would keep the old value). capture_mode="bytecode" also uses this interpreter for
now; bytecode symbolic execution (graph breaks, guards on assumptions) is future work.
"""
import ast
import builtins
import functools
import inspect
import linecache
import operator
import textwrap

import numpy as np

from .. import ops
from ..errors import UnsupportedSyntaxError
from ..mixin import TensorMixin
from ..tensor import Tensor
from .callables import (ITERATING, STRUCTURAL, callable_name, in_collection as _in, is_constant_callable,
                        is_library, records_nodes, rows, structural_method)
from . import control
from .control import (BREAK, CONTINUE, ESCAPED, MAX_UNROLL, RETURNED, RETVAL, Branches, GraphLoop, IfNode,
                      OneBranch, always_returns, assigned_names, contains_break, contains_return, graph_while,
                      merge_values, predicate, unset_like)
from ..core import Tracer
from ..ops.index_update import updated
from ..parameter import Parameter
from .graph import GraphBuilder, contains_tracer

_BINOPS = {ast.Add: ("+", operator.add), ast.Sub: ("-", operator.sub), ast.Mult: ("*", operator.mul),
           ast.Div: ("/", operator.truediv), ast.MatMult: ("@", operator.matmul),
           ast.FloorDiv: ("//", operator.floordiv), ast.Mod: ("%", operator.mod),
           ast.Pow: ("**", operator.pow), ast.LShift: ("<<", operator.lshift),
           ast.RShift: (">>", operator.rshift), ast.BitOr: ("|", operator.or_),
           ast.BitXor: ("^", operator.xor), ast.BitAnd: ("&", operator.and_)}
_TENSOR_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.MatMult, ast.Pow,  # those tensors define
                  ast.FloorDiv, ast.Mod, ast.BitAnd, ast.BitOr, ast.BitXor)
_UNARYOPS = {ast.USub: ("-", operator.neg), ast.UAdd: ("+", operator.pos),
             ast.Not: ("not", operator.not_), ast.Invert: ("~", operator.invert)}
_TENSOR_CMPOPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_CMPOPS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
           ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
           ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}

_DESCRIPTIONS = {
    ast.For: "'for' loop", ast.AsyncFor: "'async for' loop", ast.While: "'while' loop",
    ast.Break: "'break'", ast.Continue: "'continue'",
    ast.Try: "'try' statement", ast.With: "'with' statement", ast.AsyncWith: "'async with' statement",
    ast.FunctionDef: "nested function definition", ast.AsyncFunctionDef: "nested function definition",
    ast.ClassDef: "class definition", ast.Raise: "'raise' statement", ast.Assert: "'assert' statement",
    ast.Delete: "'del' statement", ast.Global: "'global' statement", ast.Nonlocal: "'nonlocal' statement",
    ast.Import: "'import' statement", ast.ImportFrom: "'import' statement", ast.Lambda: "lambda",
    ast.ListComp: "list comprehension", ast.SetComp: "set comprehension",
    ast.DictComp: "dict comprehension", ast.GeneratorExp: "generator expression",
    ast.Yield: "'yield'", ast.YieldFrom: "'yield from'", ast.Await: "'await'",
    ast.NamedExpr: "assignment expression (:=)", ast.JoinedStr: "f-string",
    ast.Match: "'match' statement", ast.Attribute: "assignment to an attribute",
}


def capture_ast(fn, args, kwargs=None, fold_parameters=False):
    """Capture ``fn(*args, **kwargs)``: Tensor arguments become graph inputs, Parameters graph
    parameters (constants when ``fold_parameters``). Returns Captured."""
    builder = GraphBuilder(getattr(fn, "__qualname__", type(fn).__name__), fold_parameters)
    return builder.finish(interpret(builder, fn, builder.bind_args(args), kwargs or {}))


def interpret(builder, fn, args, kwargs):
    """Interpret ``fn(*args, **kwargs)`` into ``builder``'s graph (arguments already bound);
    ``fn`` may be a function, a Cell or a Cell's bound ``construct``. Returns its result."""
    interpreter = _Interpreter(builder)
    fn = getattr(fn, "_msjit_source_fn", fn)   # a jitted function or bound method (grad(jit(f))): its Python
    if getattr(fn, "_msjit_inline", None) is not None:          # a Cell
        return builder.run(interpreter.call_cell, fn, args, kwargs)
    cell = getattr(fn, "__self__", None)
    if getattr(cell, "_msjit_inline", None) is not None and getattr(fn, "__name__", None) == "construct":
        return builder.run(interpreter.call_cell, cell, args, kwargs)
    return builder.run(interpreter.call, fn, args, kwargs)


_MISSING = object()   # a variable not bound in a branch


class _Return:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class _Frame:
    __slots__ = ("fn", "file", "locals", "local_names", "returned_at")

    def __init__(self, fn, file, local_vars, local_names):
        self.fn, self.file, self.locals, self.local_names = fn, file, local_vars, local_names
        self.returned_at = None     # the first tensor 'if' with a 'return' in one branch (for errors)


@functools.lru_cache(maxsize=512)
def _parse(code):
    """(FunctionDef with absolute line numbers, file, names assigned in its body) for a code object."""
    file = code.co_filename
    if code.co_name == "<lambda>":
        line = code.co_firstlineno
        raise UnsupportedSyntaxError(file, line, "lambda", linecache.getline(file, line))
    try:
        lines, start = inspect.getsourcelines(code)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        raise UnsupportedSyntaxError(file, code.co_firstlineno, "a function whose source is not available "
                                     "(jit needs the .py file)") from None
    ast.increment_lineno(tree, start - 1)
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):
        raise UnsupportedSyntaxError(file, fdef.lineno, _describe(fdef), lines[0])
    names = frozenset(n.id for stmt in fdef.body for n in ast.walk(stmt)
                      if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    return fdef, file, names


def _describe(node):
    kind = "statement" if isinstance(node, ast.stmt) else "expression"
    return _DESCRIPTIONS.get(type(node)) or f"'{type(node).__name__}' {kind}"


def _locate(exc, file, line):
    """Prefix an error raised while capturing with the user's file:line (once, innermost wins)."""
    exc._msjit_located = True
    plain = type(exc) in (ValueError, TypeError, NameError, UnboundLocalError)
    if plain and exc.args and isinstance(exc.args[0], str):
        exc.args = (f"{file}:{line}: {exc.args[0]}",) + exc.args[1:]
    else:
        exc.add_note(f"(raised while capturing {file}:{line})")


class _Interpreter:
    def __init__(self, builder):
        self.builder = builder
        self.frame = None
        self.branches = Branches(self)   # capturing a branch of a condition on a tensor
        self.loops = []                  # enclosing loops' flags (GraphLoop): a While node's, or an unrolled loop's
        self.calls = []                  # where each user call being inlined was made, outermost first
        builder.call_cell = self.call_cell   # Cells called from library code come back here

    def call_cell(self, cell, args, kwargs):
        """Inline a Cell call: user Cells by interpreting ``construct``; msjit's own Cells
        (nn.Conv2d, nn.SequentialCell, ...) run their construct as Python on tracers."""
        construct = type(cell).construct
        construct = getattr(construct, "_msjit_source_fn", construct)
        if (getattr(construct, "__module__", None) or "").startswith("msjit."):
            return cell._msjit_inline()(*args, **kwargs)
        return self.call(cell._msjit_inline(), args, kwargs)

    # -- functions ------------------------------------------------------------------------
    def call(self, fn, args, kwargs):
        """Interpret ``fn(*args, **kwargs)`` (inlining it into the graph being built)."""
        fn = getattr(fn, "_msjit_source_fn", fn)   # (a jitted function: its Python, maybe a bound method)
        if inspect.ismethod(fn):
            fn, args = fn.__func__, [fn.__self__, *args]
        fn = getattr(fn, "_msjit_source_fn", fn)
        if not inspect.isfunction(fn):
            raise UnsupportedSyntaxError("<unknown>", 0, f"capturing a {type(fn).__name__} object "
                                         "(jit captures Python functions)")
        fdef, file, local_names = _parse(fn.__code__)
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{fn.__qualname__}(): {e}") from None
        bound.apply_defaults()
        saved, self.frame = self.frame, _Frame(fn, file, dict(bound.arguments), local_names)
        saved_loops, self.loops = self.loops, []    # (a loop's break belongs to its own function)
        self.calls.append(self.builder.location)
        try:
            return self._inline(fdef)
        except RecursionError:
            if len(self.calls) > 1:   # (reported by the outermost call, where the stack has room again)
                self.overflow_at = self.overflow_at or self.calls[-1]
                raise
            file, line = self.overflow_at or (file, fdef.lineno)
            raise UnsupportedSyntaxError(file, line, "a recursion deeper than Python's limit (calls are inlined "
                                         "into the graph: a recursion that only a tensor value ends has no "
                                         "bound)", linecache.getline(file, line)) from None
        finally:
            self.calls.pop()
            self.frame, self.loops = saved, saved_loops

    overflow_at = None   # (file, line) of the deepest call when the recursion limit was met

    def _inline(self, fdef):
        """The interpreted body of the function in ``self.frame``: its return value."""
        returned = self._block(fdef.body)
        value = returned.value if isinstance(returned, _Return) else None
        flag = self.frame.locals.get(RETURNED, False)
        if flag is not False:   # a 'return' under a tensor condition: its value where the flag is set
            retval = self.frame.locals[RETVAL]
            if not isinstance(returned, _Return) and always_returns(fdef.body):
                return retval   # (the rest of the function returned under the flag's negation)
            return merge_values(flag, retval, value, "the return value",
                                self._branch_error(self.frame.returned_at))
        return value

    def _block(self, stmts):
        for i, stmt in enumerate(stmts):
            returned = self._visit(stmt)
            if returned is ESCAPED:    # a flag of the enclosing While was set: the rest runs only if not
                saved, self.builder.location = self.builder.location, (self.frame.file, stmt.lineno)
                try:   # (the guard's ops are located at the statement that set the flag)
                    return self._guarded(stmts[i + 1:])
                finally:
                    self.builder.location = saved
            if returned is not None:
                return returned
        return None

    def _guarded(self, stmts):
        """``if not (broke or continued): stmts`` in the innermost graph loop; returns ESCAPED."""
        if not stmts:
            return ESCAPED
        loop = self.loops[-1] if self.loops else None
        escaped = GraphLoop.any_set([self.frame.locals.get(RETURNED, False)]
                                    + (loop.flags(self.frame.locals) if loop else []))
        if escaped is False:
            return self._block(stmts)
        first = stmts[0]
        guard = ast.If(test=ast.Constant(True), body=stmts, orelse=[], lineno=first.lineno,
                       col_offset=first.col_offset)
        self._tensor_if(guard, ops.logical_not(escaped))
        return ESCAPED

    def _visit(self, node):
        """Evaluate ``node`` with the builder's location set to its line (for nodes and errors)."""
        handler = getattr(self, "visit_" + type(node).__name__, None)
        if handler is None:
            raise self._unsupported(node)
        builder, saved = self.builder, self.builder.location
        builder.location = (self.frame.file, node.lineno)
        try:
            return handler(node)
        except UnsupportedSyntaxError:
            raise
        except Exception as e:
            if not getattr(e, "_msjit_located", False):
                _locate(e, self.frame.file, node.lineno)
            raise
        finally:
            builder.location = saved

    def _unsupported(self, node, what=None):
        file = self.frame.file
        text = linecache.getline(file, node.lineno)
        return UnsupportedSyntaxError(file, node.lineno, what or _describe(node), text)

    def unsupported_here(self, what):
        """UnsupportedSyntaxError at the node being interpreted (for errors from library code)."""
        file, line = self.builder.location or (self.frame.file, 0)
        return UnsupportedSyntaxError(file, line, what, linecache.getline(file, line))

    # -- control flow ---------------------------------------------------------------------
    def _loop_body(self, node, count, escaped=False):
        """One unrolled iteration; ``escaped``: an earlier one set the 'returned' flag, so this one
        runs under its negation."""
        if count > MAX_UNROLL:
            raise self._unsupported(node, f"{_describe(node)} running more than {MAX_UNROLL} iterations "
                                    "(loops are unrolled at capture)")
        return self._guarded(node.body) if escaped else self._block(node.body)

    def visit_For(self, node):
        bounds = self._tensor_range(node.iter) if control.GRAPH_LOOPS else None
        if bounds is not None:
            return self._range_loop(node, *bounds)
        iterable = self.builder.guards.read_iter(self._visit(node.iter))
        items = iter(rows(iterable) if type(iterable) is Tracer else iterable)
        count, escaped, done = 0, False, False
        loop = self._unrolled_loop(node)
        try:
            for item in items:
                count += 1
                self._assign(node.target, item)
                done, result, escaped = self._unrolled_iteration(node, count, escaped)
                if done:
                    break
        finally:
            self.loops.pop()
            broke = self._pop_flags(loop)
        return result if done else self._unrolled_else(node, broke, escaped)

    def _unrolled_loop(self, node):
        """The flags of a loop unrolled in Python: a 'break' or 'continue' under a tensor condition
        sets one, and the rest of the body and the later iterations run under its negation."""
        loop = GraphLoop(f"{node.lineno}:{node.col_offset}", contains_break(node.body))
        if loop.broke:
            self.frame.locals[loop.broke] = False
        self.loops.append(loop)
        return loop

    def _pop_flags(self, loop):
        self.frame.locals.pop(loop.cont, None)
        return self.frame.locals.pop(loop.broke, False) if loop.broke else False

    def _unrolled_else(self, node, broke, escaped):
        """A loop's 'else', when no Python 'break' ended it: only where no tensor 'break' did."""
        if broke is False:
            return self._guarded(node.orelse) if escaped else self._block(node.orelse)
        returned = self.frame.locals.get(RETURNED, False)
        if node.orelse:
            guard = ast.If(test=ast.Constant(True), body=node.orelse, orelse=[], lineno=node.orelse[0].lineno,
                           col_offset=node.orelse[0].col_offset)
            self._tensor_if(guard, ops.logical_not(GraphLoop.any_set([broke, returned])))
        return None if returned is False else ESCAPED

    def _unrolled_iteration(self, node, count, escaped):
        """One iteration of a loop unrolled in Python: (whether the loop statement is done, what it
        then returns, whether a break/continue/return under a tensor condition has escaped)."""
        self.frame.locals[self.loops[-1].cont] = False
        signal = self._loop_body(node, count, escaped)
        if signal is BREAK:
            return True, (ESCAPED if escaped else None), escaped
        if signal is ESCAPED:
            return False, None, True
        if signal is not None and signal is not CONTINUE:
            return True, signal, escaped   # a return
        return False, None, escaped

    def visit_While(self, node):
        count, escaped, done, ended = 0, False, False, False
        loop = self._unrolled_loop(node)
        try:
            while True:
                test = self.builder.guards.read_truth(self._visit(node.test))
                if type(test) is Tracer:
                    if not control.GRAPH_LOOPS:
                        raise self._unsupported(node, "'while' loop whose condition is a tensor value (it would "
                                                "need a loop in the graph; loop over a constant range instead)")
                    break
                if not test:
                    ended = True
                    break
                if escaped and control.GRAPH_LOOPS and (loop.broke or contains_return(node.body)):
                    break   # a tensor 'break' or 'return' may end it: the remaining iterations are one While
                count += 1
                done, result, escaped = self._unrolled_iteration(node, count, escaped)
                if done:
                    break
        finally:
            self.loops.pop()
            broke = self._pop_flags(loop)
        if done:
            return result
        if ended:
            return self._unrolled_else(node, broke, escaped)
        if loop.broke:
            self.frame.locals[loop.broke] = broke   # (the While carries the same flag: see _graph_loop)
        # The condition is a tensor (from the first iteration, or once Python values made it one),
        # or a tensor 'break' (carried in the same flag) or 'return' may end the loop.
        return self._graph_loop(node, assigned_names(node.body), lambda: self._visit(node.test), lambda: None)

    def _tensor_range(self, iter_node):
        """The (start, stop, step) of ``range(...)`` with a tensor argument, else None."""
        if not (isinstance(iter_node, ast.Call) and not iter_node.keywords
                and all(not isinstance(a, ast.Starred) for a in iter_node.args)):
            return None
        if self._visit(iter_node.func) is not range or not 1 <= len(iter_node.args) <= 3:
            return None
        args = [self._visit(a) for a in iter_node.args]
        if not any(type(a) is Tracer for a in args):
            return None
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        if type(step) is Tracer:
            raise self._unsupported(iter_node, "'range' with a tensor step (its sign decides the loop's condition)")
        for a in (start, stop):
            if type(a) is Tracer and (a.shape != () or a.dtype.np.kind not in "iu"):
                raise TypeError(f"range() takes integer scalars, got a {a.aval} tensor")
        if step == 0:
            raise ValueError("range() arg 3 must not be zero")
        return start, stop, step

    def _range_loop(self, node, start, stop, step):
        """``for target in range(...)`` with a tensor bound: a While over a hidden counter."""
        frame = self.frame
        dtype = next(a.dtype for a in (start, stop) if type(a) is Tracer)
        counter = f".range@{node.lineno}:{node.col_offset}"
        frame.locals[counter] = start if type(start) is Tracer else Tensor(np.asarray(start, dtype.np))
        names = assigned_names([node.target]) + assigned_names(node.body)
        for n in assigned_names([node.target]):
            frame.locals.setdefault(n, frame.locals[counter])   # (unbound in Python if it never runs)

        def test():
            i = frame.locals[counter]
            return i < stop if step > 0 else i > stop

        def advance():
            i = frame.locals[counter]
            self._assign(node.target, i)
            frame.locals[counter] = i + step
        try:
            return self._graph_loop(node, [counter] + names, test, advance)
        finally:
            frame.locals.pop(counter, None)

    def _graph_loop(self, node, names, test, start_iteration):
        """A loop on a tensor value as one While node (see control.graph_while), then its 'else'."""
        frame = self.frame
        loop = GraphLoop(f"{node.lineno}:{node.col_offset}", contains_break(node.body))
        if loop.broke:
            frame.locals.setdefault(loop.broke, False)   # (set already by unrolled iterations before it)
            names = names + [loop.broke]
        returns = contains_return(node.body)
        if returns:   # the function's 'returned' flag and value are carried (the value once its type is known)
            frame.locals.setdefault(RETURNED, False)
            names = names + [RETURNED, RETVAL]

        def cond():
            value = test()
            stop = GraphLoop.any_set([frame.locals.get(f, False) for f in (loop.broke, RETURNED) if f])
            if stop is not False and (type(value) is Tracer or value):
                value = ops.logical_and(self._condition(value, node), ops.logical_not(stop))
            return value

        def body():
            frame.locals[loop.cont] = False
            start_iteration()
            signal = self._block(node.body)
            if signal is BREAK:
                frame.locals[loop.broke] = True
            elif isinstance(signal, _Return):   # (every path of this iteration returned)
                frame.locals[RETURNED], frame.locals[RETVAL] = True, signal.value
                frame.returned_at = frame.returned_at or node
        self.loops.append(loop)
        try:
            graph_while(self, node, names, cond, body,
                        lambda message: self._unsupported(node, f"a {_describe(node)} on a tensor value where "
                                                          f"{message}"))
        finally:
            self.loops.pop()
        broke = frame.locals.pop(loop.broke) if loop.broke else False
        if node.orelse and broke is not False:
            stop = GraphLoop.any_set([broke, frame.locals.get(RETURNED, False)])
            guard = ast.If(test=ast.Constant(True), body=node.orelse, orelse=[], lineno=node.orelse[0].lineno,
                           col_offset=node.orelse[0].col_offset)
            self._tensor_if(guard, ops.logical_not(stop))
            return ESCAPED if returns else None
        if returns:   # what follows the loop runs only if it did not return
            return self._guarded(node.orelse) if node.orelse else ESCAPED
        return self._block(node.orelse)

    def visit_Break(self, node):
        return BREAK

    def visit_Continue(self, node):
        return CONTINUE

    def _branch_error(self, node):
        return lambda message: self._unsupported(node, f"a condition on a tensor value where {message}")

    def _tensor_if(self, node, cond):
        """``if cond:`` for a tensor ``cond``: both branches interpreted from the same variables,
        then every variable they leave different merged: with ops.where (Select), or as the
        outputs of an If node (control.GRAPH_IFS: only the branch taken runs). A ``break``,
        ``continue`` or (in a function) ``return`` in one branch sets a flag instead (ESCAPED)."""
        frame = self.frame
        before = frame.locals
        region = IfNode(self, cond) if control.GRAPH_IFS else None
        outcomes, escaped = [], False
        try:
            for i, body in enumerate((node.body, node.orelse)):
                frame.locals = dict(before)
                with region.branch(i) if region else self.branches:
                    signal = self._block(body)
                if signal is BREAK or signal is CONTINUE:
                    loop = self.loops[-1] if self.loops else None
                    if loop is None:
                        raise self._unsupported(node, f"a condition on a tensor value with '{signal}' in a branch "
                                                "(jit captures both branches)")
                    frame.locals[loop.broke if signal is BREAK else loop.cont] = True
                    signal = ESCAPED
                if signal is ESCAPED:
                    escaped, signal = True, None
                outcomes.append([signal, frame.locals])
        finally:
            frame.locals = before
        (then_ret, then_vars), (else_ret, else_vars) = outcomes
        fail = self._branch_error(node)
        if (then_ret is None) != (else_ret is None):
            if not control.GRAPH_LOOPS:
                raise self._unsupported(node, "a condition on a tensor value with 'return' in only one branch "
                                        "(jit captures both branches: both must return, or neither)")
            frame.returned_at = frame.returned_at or node
            for outcome in outcomes:   # the returning branch sets the function's 'returned' flag and value
                if outcome[0] is not None:
                    outcome[1][RETURNED], outcome[1][RETVAL] = True, outcome[0].value
            then_ret = else_ret = None
            escaped = True
        select = region.select if region else None
        if then_ret is not None:
            value = merge_values(cond, then_ret.value, else_ret.value, "the return value", fail, select)
            return type(then_ret)(region.finish(value) if region else value)
        text = linecache.getline(frame.file, node.lineno)
        merged = {}
        for name in dict.fromkeys([*then_vars, *else_vars]):
            tv, ev = then_vars.get(name, _MISSING), else_vars.get(name, _MISSING)
            if name.startswith(".") and _MISSING in (tv, ev):   # a flag unset (False), the value of no return
                tv, ev = [(v if v is not _MISSING else (unset_like(other) if name == RETVAL else False))
                          for v, other in ((tv, ev), (ev, tv))]
            if tv is ev:
                value = tv
            elif _MISSING in (tv, ev) or isinstance(tv, OneBranch) or isinstance(ev, OneBranch):
                value = OneBranch(name, frame.file, node.lineno, text)
            else:
                if name == RETVAL:   # (named at the first 'if' that returned: the guard's line says little)
                    value = merge_values(cond, tv, ev, "the return value", self._branch_error(frame.returned_at),
                                         select)
                else:
                    value = merge_values(cond, tv, ev, f"variable {name!r}", fail, select)
            merged[name] = value
        before.update(region.finish(merged) if region else merged)
        return ESCAPED if escaped else None

    def _condition(self, value, node):
        """A Python truth value, or the 0-d bool predicate tensor of a tensor condition."""
        return predicate(value) if type(value) is Tracer else bool(self.builder.guards.read_truth(value))

    # -- statements: return None, or _Return from a 'return' ------------------------------
    def visit_Expr(self, node):
        self._visit(node.value)

    def visit_Pass(self, node):
        pass

    def visit_Return(self, node):
        return _Return(None if node.value is None else self._visit(node.value))

    def visit_If(self, node):
        cond = self._condition(self._visit(node.test), node.test)
        if type(cond) is Tracer:
            return self._tensor_if(node, cond)
        return self._block(node.body if cond else node.orelse)

    def visit_Assign(self, node):
        value = self._visit(node.value)
        for target in node.targets:
            self._assign(target, value)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self._assign(node.target, self._visit(node.value))

    def visit_AugAssign(self, node):
        if isinstance(node.target, ast.Subscript):   # x[i] += v: read, combine, write back
            container, index = self._visit(node.target.value), self._visit(node.target.slice)
            self._check_index(node.target, container, index)
            value = self._binop(node.op, container[index], self._visit(node.value), node)
            return self._store_item(node.target, container, index, value)
        if isinstance(node.target, ast.Attribute):   # self.step += 1 on a Parameter attribute
            owner = self._visit(node.target.value)
            current = self._parameter_attribute(node.target, owner)
            return self._assign_parameter(current, self._binop(node.op, current, self._visit(node.value), node))
        if not isinstance(node.target, ast.Name):
            raise self._unsupported(node.target, _describe(node.target))
        current = self._load(node.target.id)
        self._refuse_branch_mutation(node, current, f"{type(current).__name__} {node.target.id!r}")
        self._assign(node.target, self._binop(node.op, current, self._visit(node.value), node, inplace=True))

    def _assign(self, target, value):
        if isinstance(target, ast.Name):
            self.frame.locals[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if type(value) is Tracer:
                raise self._unsupported(target, "unpacking a tensor")
            values, elts = list(self.builder.guards.read_iter(value)), target.elts
            star = next((i for i, t in enumerate(elts) if isinstance(t, ast.Starred)), None)
            if star is None and len(values) != len(elts):
                raise ValueError(f"{'too many' if len(values) > len(elts) else 'not enough'} values to "
                                 f"unpack (expected {len(elts)}, got {len(values)})")
            if star is not None:
                after = len(elts) - star - 1
                if len(values) < len(elts) - 1:
                    raise ValueError(f"not enough values to unpack (expected at least {len(elts) - 1}, "
                                     f"got {len(values)})")
                values = values[:star] + [values[star:len(values) - after]] + values[len(values) - after:]
                elts = elts[:star] + [elts[star].value] + elts[star + 1:]
            for t, v in zip(elts, values):
                self._assign(t, v)
        elif isinstance(target, ast.Subscript):
            self._store_item(target, self._visit(target.value), self._visit(target.slice), value)
        elif isinstance(target, ast.Attribute):
            self._assign_parameter(self._parameter_attribute(target, self._visit(target.value)), value)
        else:
            raise self._unsupported(target, _describe(target))

    def _parameter_attribute(self, target, owner):
        """The Parameter ``owner.attr`` an attribute assignment writes. Only Parameters are graph
        state (an Assign, written back after each call, ordered like any other Parameter write);
        any other attribute is a Python value the compiled function cannot change."""
        current = getattr(owner, target.attr, None)
        if not isinstance(current, Parameter):
            raise self._unsupported(target, f"{_describe(target)} ('{target.attr}' is not a Parameter: only "
                                    "Parameter attributes can change in a compiled function)")
        return current

    def _assign_parameter(self, p, value):
        ops.assign(p, value)

    def _store_item(self, target, container, index, value):
        """``container[index] = value``. A tensor named by a local is updated functionally and the
        name rebound where an in-place update would be wrong: inside a branch of a tensor condition
        (both branches are captured) or for a constant tensor (it becomes a graph value). Otherwise
        the update is in place (a Tracer is rebound, a Parameter assigned), so aliases see it."""
        if isinstance(container, TensorMixin):
            functional = isinstance(target.value, ast.Name) and not isinstance(container, Parameter) and (
                type(container) is not Tracer or self.branches.depth > 0)
            if functional:
                self.frame.locals[target.value.id] = updated(container, index, value)
            else:
                container[index] = value
            return
        self._check_index(target, container, index)
        self._refuse_branch_mutation(target, container, f"{type(container).__name__} items")
        container[index] = value

    def _refuse_branch_mutation(self, node, value, what):
        """A list, dict or set from before a tensor condition cannot change inside its branches."""
        if self.branches.mutates_inplace(value):
            raise self._unsupported(node, f"changing {what} in place inside a branch of a condition on a tensor "
                                    "value (a side effect: jit captures both branches)")

    def _check_index(self, node, container, index):
        if contains_tracer(index) and not isinstance(container, TensorMixin):
            raise self._unsupported(node, "indexing a Python container with a tensor")

    # -- expressions ----------------------------------------------------------------------
    def visit_Constant(self, node):
        return node.value

    def visit_Name(self, node):
        return self._load(node.id)

    def _load(self, name):
        """Python's lookup order: locals, closure, globals, builtins."""
        frame = self.frame
        if name in frame.locals:
            value = frame.locals[name]
            if type(value) is OneBranch:
                raise value.error(self.builder.location[1] if self.builder.location else "?")
            return value
        if name in frame.local_names:
            raise UnboundLocalError(f"local variable {name!r} referenced before assignment")
        code = frame.fn.__code__
        if name in code.co_freevars:
            cell = frame.fn.__closure__[code.co_freevars.index(name)]
            try:
                value = cell.cell_contents
            except ValueError:
                raise NameError(f"free variable {name!r} referenced before assignment") from None
            self.builder.guards.read_closure(cell, name, value)
            return value
        if name in frame.fn.__globals__:
            value = frame.fn.__globals__[name]
            self.builder.guards.read_global(frame.fn.__globals__, name, value)
            return value
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise NameError(f"name {name!r} is not defined")

    def visit_Attribute(self, node):
        value = self._visit(node.value)
        if type(value) is Tracer and (node.attr.startswith("_") or not hasattr(Tensor, node.attr)
                                      or not hasattr(Tracer, node.attr)):
            raise self._unsupported(node, f"attribute '{node.attr}' of a tensor under capture")
        attr = getattr(value, node.attr)
        self.builder.guards.read_attr(value, node.attr, attr)
        return attr

    def visit_Subscript(self, node):
        value, index = self._visit(node.value), self._visit(node.slice)
        self._check_index(node, value, index)
        item = value[index]   # tensors index through ops.getitem
        self.builder.guards.read_item(value, index, item)
        return item

    def visit_Slice(self, node):
        return slice(*(None if x is None else self._visit(x) for x in (node.lower, node.upper, node.step)))

    def visit_Tuple(self, node):
        return tuple(self._elements(node.elts))

    def visit_List(self, node):
        return self.branches.created(self._elements(node.elts))

    def visit_Set(self, node):
        return self.branches.created(set(self._elements(node.elts)))

    def visit_Dict(self, node):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                out.update(self.builder.guards.read_whole(self._visit(v)))
            else:
                out[self._visit(k)] = self._visit(v)
        return self.branches.created(out)

    def _elements(self, elts):
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                value = self._visit(e.value)
                if type(value) is Tracer:
                    raise self._unsupported(e, "unpacking a tensor")
                out.extend(self.builder.guards.read_iter(value))
            else:
                out.append(self._visit(e))
        return out

    def visit_BinOp(self, node):
        return self._binop(node.op, self._visit(node.left), self._visit(node.right), node)

    def _binop(self, op, left, right, node, inplace=False):
        symbol, fn = _BINOPS[type(op)]
        if (type(left) is Tracer or type(right) is Tracer) and not isinstance(op, _TENSOR_BINOPS):
            raise self._unsupported(node, f"operator '{symbol}' on a tensor")
        if inplace:  # x += y mutates a Python list in place, as Python does
            fn = getattr(operator, "i" + fn.__name__.rstrip("_"))
        return fn(left, right)

    def visit_UnaryOp(self, node):
        symbol, fn = _UNARYOPS[type(node.op)]
        value = self.builder.guards.read_truth(self._visit(node.operand))
        if type(value) is Tracer and isinstance(node.op, ast.Not):
            return ops.logical_not(predicate(value))
        if type(value) is Tracer and not isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert)):
            raise self._unsupported(node, f"operator '{symbol}' on a tensor")
        return fn(value)

    def visit_Compare(self, node):
        """``a < b < c`` is ``(a < b) and (b < c)``, ``b`` evaluated once; a chain with tensor
        comparisons is the logical 'and' of their predicates (as MindSpore's graph mode)."""
        left, result = self._visit(node.left), True
        for op, comparator in zip(node.ops, node.comparators):
            right = self._visit(comparator)
            if type(left) is Tracer or type(right) is Tracer:
                if not isinstance(op, _TENSOR_CMPOPS + (ast.Is, ast.IsNot)):
                    raise self._unsupported(node, "operator 'in' on a tensor")
                if isinstance(op, (ast.Is, ast.IsNot)) and _python_scalar_and_number(left, right):
                    value = (left == right) if isinstance(op, ast.Is) else (left != right)
                else:
                    value = _CMPOPS[type(op)](left, right)   # elementwise: a bool tensor
            else:
                value = self.builder.guards.read_compare(type(op).__name__, left, right,
                                                         _CMPOPS[type(op)](left, right))
                if not value:
                    return value
            if result is True or type(value) is not Tracer and type(result) is not Tracer:
                result = value
            elif type(value) is Tracer:
                result = ops.logical_and(self._condition(result, node), predicate(value))
            left = right
        return result

    def visit_BoolOp(self, node):
        return self._boolop(node, node.values)

    def _boolop(self, node, operands):
        """``a and b`` is ``b if a else a``, ``a or b`` is ``a if a else b``; for a tensor ``a``
        both are captured and merged."""
        value = self._visit(operands[0])
        if len(operands) == 1:
            return value
        is_and = isinstance(node.op, ast.And)
        cond = self._condition(value, operands[0])
        if type(cond) is Tracer:
            with self.branches:
                rest = self._boolop(node, operands[1:])
            then_value, else_value = (rest, value) if is_and else (value, rest)
            what = f"the value of '{'and' if is_and else 'or'}'"
            return merge_values(cond, then_value, else_value, what, self._branch_error(node))
        return value if cond != is_and else self._boolop(node, operands[1:])

    def visit_IfExp(self, node):
        cond = self._condition(self._visit(node.test), node.test)
        if type(cond) is not Tracer:
            return self._visit(node.body if cond else node.orelse)
        with self.branches:
            then_value = self._visit(node.body)
        with self.branches:
            else_value = self._visit(node.orelse)
        return merge_values(cond, then_value, else_value, "the value of the conditional expression",
                            self._branch_error(node))

    def visit_Call(self, node):
        func = self._visit(node.func)
        args = self._elements(node.args)
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                kwargs.update(self.builder.guards.read_whole(self._visit(kw.value)))
            else:
                kwargs[kw.arg] = self._visit(kw.value)
        return self._call(func, args, kwargs, node)

    def _call(self, func, args, kwargs, node):
        """Op functions, primitives and tensor methods record nodes; pure Python runs now;
        user functions are inlined; anything else is unsupported."""
        if not callable(func):
            raise TypeError(f"'{type(func).__name__}' object is not callable")
        self.builder.guards.read_call(func, args, kwargs)
        if hasattr(func, "_msjit_source_fn"):  # another @jit function: inline its source
            return self.call(func, args, kwargs)
        if records_nodes(func):
            return func(*args, **kwargs)
        if getattr(func, "_msjit_inline", None) is not None:   # an nn.Cell: inline its construct
            return self.call_cell(func, args, kwargs)
        if func is isinstance and len(args) == 2 and type(args[0]) is Tracer:
            return issubclass(Tensor, args[1])  # a tensor under capture is a Tensor to user code
        if _in(func, ITERATING) and any(type(a) is Tracer for a in args):
            args = [rows(a) if type(a) is Tracer else a for a in args]
        if func is len and len(args) == 1 and not kwargs and type(args[0]) is Tracer:
            if not args[0].shape:
                raise TypeError("len() of a 0-d tensor")
            return args[0].shape[0]     # shapes are static
        if self.branches.mutates(func):
            raise self._unsupported(node, f"call to {type(func.__self__).__name__}.{func.__name__} on a "
                                    "container from outside a branch of a condition on a tensor value (a side "
                                    "effect: jit captures both branches)")
        has_tracer = contains_tracer(args) or contains_tracer(kwargs)
        if is_constant_callable(func) and (not has_tracer or _in(func, STRUCTURAL) or structural_method(func)):
            return self.branches.created(func(*args, **kwargs))
        target = func.__func__ if inspect.ismethod(func) else func
        if inspect.isfunction(target) and not is_library(func):
            return self.call(func, args, kwargs)
        suffix = " with a tensor argument (only msjit ops can be captured)" if has_tracer else ""
        raise self._unsupported(node, f"call to {callable_name(func)}{suffix}")


def _python_scalar_and_number(left, right):
    """A loop-carried Python number (a scalar to MindSpore) against a Python number: `is` is `==`."""
    def scalar(v):
        return type(v) is Tracer and v.name in v.builder.python_scalars
    def number(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return (scalar(left) and number(right)) or (scalar(right) and number(left))

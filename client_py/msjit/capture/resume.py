"""Generated code for a bytecode-captured function with graph breaks: torch.compile's resume
functions, at the granularity of statements.

The first call is interpreted (capture/bytecode.py), which tells for each source line of the
function (see segments.Lines) whether it ran, recorded graph nodes, broke the graph or had a side
effect. From the function's AST, ``split`` then generates once a function with the same signature
whose statements are
- the original statement, compiled as normal bytecode, where the first call broke the graph, had
  a side effect or recorded no node (it runs natively, exactly once, in order);
- the original compound statement (if / for / while / with / try) with its Python header, split
  likewise inside, where its header or body broke the graph, or where it returns or leaves a loop;
- a call of a *piece* for every run of other statements: a generated function taking the locals
  the run reads and returning those it assigns (or the function's result), jitted on its own, so
  it is one compiled graph under its own guards. A piece that breaks in its turn is split the same
  way; statements the first call did not reach are pieces captured when first reached.
Generated code keeps the original line numbers, so tracebacks and graph locations name the
user's lines. A local a piece assigns only conditionally comes back as ``UNBOUND`` when it was not
assigned (where eager Python would raise UnboundLocalError on a later read).
"""
import ast
import copy
import inspect
import logging
import textwrap
import types

from .callables import MUTATING_METHODS

logger = logging.getLogger(__name__)


class Unsplittable(Exception):
    """A function the generator does not handle: it stays interpreted on every call."""


class _Unbound:
    def __repr__(self):
        return "<unbound local>"


UNBOUND = _Unbound()
_SENTINEL = "__msjit_unbound"
_COMPOUND = (ast.If, ast.For, ast.While, ast.With, ast.Try)
_ALWAYS_PYTHON = (ast.Pass, ast.Break, ast.Continue, ast.Raise, ast.Import, ast.ImportFrom, ast.FunctionDef,
                  ast.ClassDef, ast.Delete, ast.Global, ast.Nonlocal)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def split(fn, lines, wrap):
    """The generated function for ``fn`` (a Python function or bound method) given the first
    call's ``lines``; ``wrap(piece_function)`` makes each piece's callable (a jitted function).
    Returns (function, [wrapped pieces]); Unsplittable when the function is not handled."""
    if inspect.ismethod(fn):
        resume, pieces = split(fn.__func__, lines, wrap)
        return types.MethodType(resume, fn.__self__), pieces
    if not inspect.isfunction(fn):
        raise Unsplittable(f"a {type(fn).__name__} is not a Python function")
    code = fn.__code__
    if code.co_freevars:
        raise Unsplittable("a closure (its free variables would be copies in generated code)")
    fdef = _source_ast(fn)
    for node in ast.walk(fdef):
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await, ast.AsyncFor,
                             ast.AsyncWith, ast.Match)):
            raise Unsplittable(f"a {type(node).__name__} statement or expression")
    gen = _Generator(tuple(dict.fromkeys(code.co_varnames + code.co_cellvars)), lines)
    body = gen.block(fdef.body)
    if not gen.python or not gen.pieces:
        raise Unsplittable("no Python statement to split at")

    args = copy.deepcopy(fdef.args)      # defaults are the original objects, set below
    args.defaults, args.kw_defaults = [], [None] * len(args.kwonlyargs)
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            a.annotation = None
    resume_def = ast.FunctionDef("__msjit_resume", args, body, [], None, type_comment=None)
    make = ast.FunctionDef("__msjit_make", _arguments([name for name, _ in gen.pieces]),
                           [resume_def, ast.Return(ast.Name("__msjit_resume", ast.Load()))], [], None)
    module = ast.Module([make] + [d for _, d in gen.pieces], [])
    for node in (make, resume_def):
        ast.copy_location(node, fdef)
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("generated code for %s:\n%s", fn.__qualname__, ast.unparse(module))
    compiled = compile(ast.fix_missing_locations(module), code.co_filename, "exec")
    codes = {c.co_name: c for c in compiled.co_consts if isinstance(c, types.CodeType)}
    pieces = []
    for name, d in gen.pieces:
        piece = types.FunctionType(codes[name], fn.__globals__, name)
        piece.__kwdefaults__ = {_SENTINEL: UNBOUND}
        piece.__qualname__ = f"{fn.__qualname__}<{name[8:]}>"
        piece._msjit_ast = d         # (a piece that breaks is split from this, see _source_ast)
        pieces.append(wrap(piece))
    resume = types.FunctionType(codes["__msjit_make"], fn.__globals__)(*pieces)
    resume.__defaults__, resume.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
    resume.__name__, resume.__qualname__ = fn.__name__, fn.__qualname__
    return resume, pieces


def _source_ast(fn):
    node = getattr(fn, "_msjit_ast", None)
    if node is not None:
        return node
    try:
        source, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        raise Unsplittable("no source code") from None
    tree = ast.parse(textwrap.dedent("".join(source)))
    ast.increment_lineno(tree, first - 1)
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef) or tree.body[0].name != fn.__name__:
        raise Unsplittable("not a def statement (a lambda?)")
    fdef = tree.body[0]
    for node in ast.walk(fdef):    # private names: mangled in a class body, not in generated code
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
        if name.startswith("__") and not name.endswith("__"):
            raise Unsplittable(f"the private name {name!r}")
    undecorated = copy.copy(fdef)
    undecorated.decorator_list = []
    module = compile(ast.Module([undecorated], []), fn.__code__.co_filename, "exec")
    fresh, code = next(c for c in module.co_consts if isinstance(c, types.CodeType)), fn.__code__
    if (set(fresh.co_names), fresh.co_varnames, fresh.co_consts) != (set(code.co_names), code.co_varnames,
                                                                      code.co_consts):
        raise Unsplittable("its source file no longer holds the code that runs")
    return fdef


def _arguments(names, kwonly=()):
    """Positional parameters ``names`` and keyword-only ``kwonly`` (defaults set on the function)."""
    return ast.arguments([], [ast.arg(n) for n in names], None, [ast.arg(n) for n in kwonly],
                         [None] * len(kwonly), None, [])


class _Generator:
    def __init__(self, local_names, lines):
        self.locals, self.lines = local_names, lines
        self.pieces = []        # (name, FunctionDef)
        self.python = 0         # statements kept as Python

    def block(self, stmts):
        out, run = [], []
        for s in stmts:
            kind = self.classify(s)
            if kind == "piece":
                run.append(s)
                if isinstance(s, ast.Return):
                    out.append(self.piece(run))
                    run = []
                continue
            if run:
                out.append(self.piece(run))
                run = []
            self.python += 1
            out.append(s if kind == "python" else self.structured(s))
        if run:
            out.append(self.piece(run))
        return out or [ast.copy_location(ast.Pass(), stmts[0])]

    def classify(self, s):
        """'python', 'piece' or 'structured' (a compound statement split inside)."""
        if isinstance(s, _ALWAYS_PYTHON) or isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant):
            return "python"
        if _mutates_local(s, self.locals):
            return "structured" if isinstance(s, _COMPOUND) else "python"
        span = set(range(s.lineno, s.end_lineno + 1))
        ran, graph, broke = span & self.lines.run, span & self.lines.graph, span & self.lines.python
        if isinstance(s, _COMPOUND):
            escapes = _escapes(s, isinstance(s, (ast.For, ast.While)))
            if not ran:
                return "structured" if escapes else "piece"
            if broke or escapes and graph:
                return "structured"
            return "piece" if graph else "python"
        if broke or ran and not graph:
            return "python"
        return "piece"

    def structured(self, s):
        s = copy.copy(s)
        for field in ("body", "orelse", "finalbody"):
            if getattr(s, field, None):
                setattr(s, field, self.block(getattr(s, field)))
        if isinstance(s, ast.Try):
            s.handlers = [copy.copy(h) for h in s.handlers]
            for h in s.handlers:
                h.body = self.block(h.body)
        return s

    def piece(self, run):
        """The call of a new piece holding the statements ``run``."""
        name = f"__msjit_piece{len(self.pieces)}"
        flow = _Flow()
        for s in run:
            flow.visit(s)
        # (in the function's order of variables, as a segment after a break takes them: see jit._graph_key)
        inputs = [n for n in self.locals if flow.first.get(n) == "load"]
        returns = isinstance(run[-1], ast.Return)
        outputs = [] if returns else [n for n in flow.stored if n in self.locals]
        maybe_unbound = [n for n in outputs if n not in inputs and n not in flow.surely]
        body = [ast.copy_location(ast.Assign([ast.Name(n, ast.Store())], ast.Name(_SENTINEL, ast.Load())), run[0])
                for n in maybe_unbound] + run
        if not returns:
            body.append(ast.copy_location(ast.Return(ast.Tuple([ast.Name(n, ast.Load()) for n in outputs],
                                                               ast.Load())), run[-1]))
        self.pieces.append((name, ast.FunctionDef(name, _arguments(inputs, [_SENTINEL]), body, [], None)))
        call = ast.Call(ast.Name(name, ast.Load()), [ast.Name(n, ast.Load()) for n in inputs], [])
        if returns:
            stmt = ast.Return(call)
        elif outputs:
            stmt = ast.Assign([ast.Tuple([ast.Name(n, ast.Store()) for n in outputs], ast.Store())], call)
        else:
            stmt = ast.Expr(call)
        return ast.copy_location(stmt, run[0])


def _mutates_local(node, local_names):
    """Whether ``node`` changes a container or object held in a local variable (``out.append(y)``,
    ``d[k] = v``, ``obj.n = 1``): not a side effect for the first call (the function made it), but
    a piece would change a copy (a jitted function's arguments are rebuilt), so Python does it."""
    for n in ast.walk(node):
        target = None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in MUTATING_METHODS:
            target = n.func.value
        elif isinstance(n, (ast.Subscript, ast.Attribute)) and not isinstance(n.ctx, ast.Load):
            target = n.value
        while isinstance(target, (ast.Subscript, ast.Attribute)):
            target = target.value
        if isinstance(target, ast.Name) and target.id in local_names:
            return True
    return False


def _escapes(node, in_loop):
    """Whether ``node`` returns, or breaks / continues a loop outside it."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _SCOPES):
            continue
        if isinstance(child, ast.Return) or isinstance(child, (ast.Break, ast.Continue)) and not in_loop:
            return True
        if _escapes(child, in_loop or isinstance(child, (ast.For, ast.While))):
            return True
    return False


class _Flow(ast.NodeVisitor):
    """Names in the order Python evaluates them: ``first`` maps each to 'load' or 'store' (its
    first use: a load first is an input of the piece), ``stored`` are the names assigned,
    ``surely`` those assigned by the run's own top-level statements (never left unbound)."""

    def __init__(self):
        self.first, self.stored, self.surely, self.depth = {}, [], set(), 0

    def _use(self, name, store):
        self.first.setdefault(name, "store" if store else "load")
        if store and name not in self.stored:
            self.stored.append(name)
            if self.depth == 0:
                self.surely.add(name)

    def visit_Name(self, n):
        self._use(n.id, not isinstance(n.ctx, ast.Load))

    def visit_Assign(self, n):
        self.visit(n.value)
        for t in n.targets:
            self.visit(t)

    def visit_AugAssign(self, n):
        self.visit(n.value)
        if isinstance(n.target, ast.Name):
            self._use(n.target.id, False)
        self.visit(n.target)

    def visit_AnnAssign(self, n):
        if n.value is not None:
            self.visit(n.value)
        self.visit(n.target)

    def visit_NamedExpr(self, n):
        self.visit(n.value)
        self.visit(n.target)

    def _nested(self, n):
        self.depth += 1
        self.generic_visit(n)
        self.depth -= 1

    visit_If = visit_While = visit_With = visit_Try = _nested

    def visit_For(self, n):
        self.visit(n.iter)
        self.depth += 1
        for child in [n.target] + n.body + n.orelse:
            self.visit(child)
        self.depth -= 1

    def visit_ExceptHandler(self, n):
        if n.type is not None:
            self.visit(n.type)
        if n.name:
            self._use(n.name, True)
        for child in n.body:
            self.visit(child)

    def _scope(self, n):
        """A comprehension or lambda: its own variables are not the function's; what else it
        reads is read from the function (a closure)."""
        inner = _Flow()
        inner.generic_visit(n)
        own = set(inner.stored) | {a.arg for a in ast.walk(n) if isinstance(a, ast.arg)}
        for name, kind in inner.first.items():
            if name not in own:
                self._use(name, False)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_Lambda = _scope

"""capture_mode="bytecode" (PIJit): a Python interpreter of CPython 3.11 code objects that turns
tensor operations into graph segments and runs everything else for real.

Values on the interpreter's stack are real Python values, or Tracers of the segment being
captured. Tensor ops on tracers record nodes; user functions, lambdas, comprehensions and user
Cells are interpreted in turn (inlined); msjit's own ops and layers run on the tracers directly.
Where Python needs a tensor's value (``if x.sum() > 0``, ``float(x)``, numpy or print on a tensor)
the graph breaks: the segment so far is compiled and run (see segments.Session), the
instruction runs on real tensors, and capture goes on after it (under fullgraph=True a tensor
``if`` is one If node instead, see bytecode_if.py, and a loop on tensor values one While
node, see bytecode_loop.py). Calls of anything else are side
effects: they run as they would in eager mode. A call with breaks or side effects is interpreted
once: the lines it records (segments.Lines) split the function into generated code that later
calls run instead (capture/resume.py; ``entries`` counts the interpreter's calls).

Guards: the call's signature (as for ast), and every global, closure variable and attribute of a
plain object the capture read (constants by value, other objects by identity), and what it read
from the containers it reached through them: items, lengths, keys, membership (see guards.py).
"""
import builtins
import dis
import functools
import inspect
import linecache
import operator
import types

from .. import ops
from ..errors import ConcreteValueNeeded, UnsupportedSyntaxError
from ..mixin import TensorMixin
from ..tensor import Tensor
from .callables import (ITERATING, MUTATING_METHODS, callable_name, in_collection, is_constant_callable,
                        is_library, records_nodes)
from ..core import Tracer
from ..parameter import Parameter
from . import control
from .bytecode_if import JOINED, JumpedBack, tensor_if
from .bytecode_loop import TensorRange, tensor_for, tensor_while
from .graph import contains_tracer
from .segments import SeqIter

NULL = object()          # CPython's NULL stack entry (PUSH_NULL, LOAD_GLOBAL with the low bit)
_EMPTY = object()        # an unbound local


def _binary(symbol):
    inplace = symbol.endswith("=") and symbol not in ("==", "!=", "<=", ">=")
    name = {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod",
            "**": "pow", "@": "matmul", "<<": "lshift", ">>": "rshift", "&": "and_", "|": "or_",
            "^": "xor"}[symbol.rstrip("=") if inplace else symbol]
    return getattr(operator, ("i" + name.rstrip("_")) if inplace else name)


_BINARY = [_binary(symbol) for _, symbol in dis._nb_ops]
_COMPARE = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
            ">": operator.gt, ">=": operator.ge}


# Builtins without side effects beyond those of PURE_BUILTINS: run directly, tracers included.
_PURE_EXTRA = frozenset({getattr, hasattr, callable, type, sorted, reversed, map, filter, next, iter,
                         slice, set, frozenset, divmod, pow, repr, hash, issubclass, ord, chr, super})
_VALUE_MODULES = ("numpy", "math")     # their functions read a tensor's value


def _module_root(func):
    target = func.__func__ if inspect.ismethod(func) else func
    return (getattr(target, "__module__", None) or "").split(".")[0]


def _source_of(func):
    """The Python function behind a @jit function (a jitted method stays bound)."""
    if inspect.ismethod(func) and hasattr(func.__func__, "_msjit_source_fn"):
        return types.MethodType(func.__func__._msjit_source_fn, func.__self__)
    return getattr(func, "_msjit_source_fn", func)


class Uninterpretable(Exception):
    """A code object using an instruction this interpreter does not implement."""

    def __init__(self, code, instruction):
        super().__init__(f"{instruction.opname} at {code.co_filename}:{instruction.positions.lineno}")
        self.file, self.line, self.opname = code.co_filename, instruction.positions.lineno, instruction.opname


@functools.lru_cache(maxsize=1024)
def decode(code):
    """(instructions, their handlers, offset -> index, exception table) of a code object;
    Uninterpretable when an instruction is not implemented (generators, coroutines, match)."""
    instructions = list(dis.get_instructions(code))
    handlers = []
    for ins in instructions:
        handler = getattr(_Interpreter, "op_" + ins.opname, None)
        if handler is None:
            raise Uninterpretable(code, ins)
        handlers.append(handler)
    index = {ins.offset: i for i, ins in enumerate(instructions)}
    return instructions, handlers, index, dis._parse_exception_table(code)


@functools.lru_cache(maxsize=1024)
def _signature(fn):
    return inspect.signature(fn)


def interpretable(fn):
    try:
        decode(fn.__code__)
        return True
    except Uninterpretable:
        return False


class _Frame:
    __slots__ = ("fn", "code", "file", "locals", "cells", "stack", "kw_names", "line",
                 "instructions", "handlers", "index", "table", "ceiling", "loop")

    def __init__(self, fn, arguments):
        self.fn, self.code = fn, fn.__code__
        self.file = self.code.co_filename
        self.instructions, self.handlers, self.index, self.table = decode(self.code)
        self.locals, self.cells, self.stack = dict(arguments), {}, []
        self.kw_names, self.line = (), self.code.co_firstlineno
        self.ceiling = len(self.instructions)   # (a loop region's last instruction: see bytecode_loop)
        self.loop = None                        # (the While whose body is being captured: bytecode_loop.Loop)

    def walk(self, fn):
        self.locals.update((k, fn(v)) for k, v in self.locals.items())
        self.stack[:] = [fn(v) for v in self.stack]
        for cell in self.cells.values():
            fn(cell)

    def pop(self, n):
        if n == 0:
            return []
        values = self.stack[-n:]
        del self.stack[-n:]
        return values


class _Return(Exception):
    def __init__(self, value):
        self.value = value


entries = 0    # calls of capture_bytecode: generated code (capture/resume.py) runs without it


def capture_bytecode(fn, args, kwargs, session, want_captured=True):
    """Interpret ``fn(*args, **kwargs)`` in ``session``: the Captured of a pure call (when
    ``want_captured``), else the call's result. Uninterpretable when ``fn`` cannot be."""
    fn, receiver = _source_of(fn), ()
    if inspect.ismethod(fn):
        fn, receiver = fn.__func__, (fn.__self__,)
    if not inspect.isfunction(fn):
        raise TypeError(f"jit: capture_mode='bytecode' needs a Python function, got {type(fn).__name__}")
    decode(fn.__code__)
    global entries
    entries += 1
    interpreter = _Interpreter(session)
    session.frames = interpreter.frames
    bound = session.start(list(args))     # (argument positions are those of the jitted call)
    try:
        result = interpreter.call_function(fn, [*receiver, *bound], kwargs or {})
        return session.finish(result, want_captured)
    finally:
        session.abandon()


class _Interpreter:
    def __init__(self, session):
        self.session = session
        self.frames = []
        self.created = {}           # id -> container built during this call (mutating it is no side effect)
        self.exc_info = []          # exceptions being handled (PUSH_EXC_INFO / POP_EXCEPT)

    # -- running frames ---------------------------------------------------------------------
    def call_function(self, fn, args, kwargs):
        try:
            bound = _signature(fn).bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{fn.__qualname__}(): {e}") from None
        bound.apply_defaults()
        arguments = bound.arguments
        if "implicit0" in arguments and ".0" in fn.__code__.co_varnames:   # a comprehension's iterator
            arguments[".0"] = arguments.pop("implicit0")
        frame = _Frame(fn, arguments)
        self.frames.append(frame)
        try:
            return self._run(frame)
        finally:
            self.frames.pop()

    def _run(self, frame, start=0, stop=None, floor=0):
        """Run ``frame`` from instruction ``start``: its return value, or JOINED on reaching
        instruction ``stop`` (a path of a tensor 'if', see bytecode_if; it may not jump back
        before instruction ``floor``)."""
        instructions, handlers, index = frame.instructions, frame.handlers, frame.index
        lines, outer = self.session.lines, self.frames[0]
        i = start
        while True:
            if i == stop:
                return JOINED
            if i < floor or i > frame.ceiling:
                end = frame.loop and frame.loop.end(i)   # (the iteration ended: 'break', 'continue', its end)
                if end:
                    return end
                raise JumpedBack()
            ins = instructions[i]
            if ins.positions.lineno is not None:
                frame.line = ins.positions.lineno
            if frame is outer:
                lines.run.add(frame.line)
            builder = self.session.builder
            builder.location, nodes = (frame.file, frame.line), len(builder.nodes)
            handler = handlers[i].__get__(self)
            saved = frame.stack[:]
            try:
                try:
                    target = handler(frame, ins)
                except ConcreteValueNeeded as need:
                    frame.stack = saved
                    target = self._break_and_retry(need, handler, frame, ins)
            except _Return as r:
                return r.value
            except Exception as e:
                target = self._unwind(frame, ins, e)
            if self.session.builder is not builder or len(builder.nodes) != nodes:
                lines.graph.add(outer.line)
            i = i + 1 if target is None else index[target]

    def _break_and_retry(self, need, handler, frame, ins):
        """A graph break at ``ins``: run the segment so far, run ``ins`` on real values, resume."""
        self.session.break_graph(need, self.frames)
        try:
            return handler(frame, ins)
        finally:
            self.session.resume(self.frames)

    def _unwind(self, frame, ins, exc):
        """Python's exception table: jump to the handler covering ``ins``, or re-raise."""
        if isinstance(exc, UnsupportedSyntaxError):
            raise exc
        for entry in frame.table:
            if entry.start <= ins.offset < entry.end:
                del frame.stack[entry.depth:]
                if entry.lasti:
                    frame.stack.append(ins.offset)
                frame.stack.append(exc)
                return entry.target
        if not getattr(exc, "_msjit_located", False):
            exc._msjit_located = True
            exc.add_note(f"(raised while capturing {frame.file}:{frame.line})")
        raise exc

    def _where(self):
        frame = self.frames[-1]
        return frame.file, frame.line

    def _need(self, what):
        file, line = self._where()
        return ConcreteValueNeeded(file, line, what, linecache.getline(file, line) or None)

    # -- calls ------------------------------------------------------------------------------
    def call(self, func, args, kwargs):
        """Record ops, interpret user code, run pure Python now; anything else is a side effect
        (run for real, after a graph break when it is given tensors under capture)."""
        func = _source_of(func)
        self.session.builder.guards.read_call(func, args, kwargs)
        if func is range and self.session.fullgraph and control.GRAPH_LOOPS and contains_tracer(args):
            return TensorRange(*args)    # (a 'for' over it is one While node: see bytecode_loop)
        if records_nodes(func):
            return func(*args, **kwargs)
        if getattr(func, "_msjit_inline", None) is not None:     # an nn.Cell
            construct = type(func).construct
            if is_library(getattr(construct, "_msjit_source_fn", construct)):
                return func._msjit_inline()(*args, **kwargs)
            return self.call(func._msjit_inline(), args, kwargs)
        tracer_args = contains_tracer(args) or contains_tracer(kwargs)
        if tracer_args:
            special = self._tensor_builtin(func, args, kwargs)
            if special is not NotImplemented:
                return special
        if func is super and not args:
            frame = self.frames[-1]
            args = (frame.cells["__class__"].cell_contents, frame.locals[frame.code.co_varnames[0]])
        target = func.__func__ if inspect.ismethod(func) else func
        if inspect.isfunction(target) and not is_library(func) and interpretable(target):
            if inspect.ismethod(func):
                args = (func.__self__, *args)
            return self.call_function(target, args, kwargs)
        if self._container_method(func):
            if func.__name__ in MUTATING_METHODS and id(func.__self__) not in self.created:
                self.session.side_effect(self._where(), f"call to {callable_name(func)} on a container "
                                         "from outside the function")
            return func(*args, **kwargs)
        needs_values = tracer_args and _module_root(func) in _VALUE_MODULES
        if not needs_values and (is_constant_callable(func) or in_collection(func, _PURE_EXTRA)):
            return self._created(func(*args, **kwargs))   # (a tracer's value, if needed, breaks)
        if inspect.isfunction(target) and target.__code__.co_name == "<genexpr>":
            return func(*args, **kwargs)       # creating it runs nothing
        if tracer_args:
            raise self._need(f"call to {callable_name(func)} with a tensor argument")
        self.session.side_effect(self._where(), f"call to {callable_name(func)}")
        return func(*args, **kwargs)

    def _tensor_builtin(self, func, args, kwargs):
        """Builtins that only need a tensor's shape or type, or iterate its rows."""
        if func is len and len(args) == 1 and type(args[0]) is Tracer:
            if not args[0].shape:
                raise TypeError("len() of a 0-d tensor")
            return args[0].shape[0]
        if func is isinstance and len(args) == 2 and type(args[0]) is Tracer:
            return issubclass(Tensor, args[1])
        if func in (str, repr, print, format):
            raise self._need(f"call to {func.__name__} with a tensor argument")
        if in_collection(func, ITERATING):
            return self._created(func(*(list(SeqIter(a)) if type(a) is Tracer else a for a in args), **kwargs))
        return NotImplemented

    def _container_method(self, func):
        return inspect.isbuiltin(func) and type(getattr(func, "__self__", None)) in (list, dict, set)

    def _created(self, value):
        if type(value) in (list, dict, set):
            self.created[id(value)] = value
        elif type(value) in (zip, enumerate, map, filter):  # iterators over tracers stay visible to breaks
            value = self._created(list(value))
        return value

    # -- instructions: each returns None (next) or the offset to jump to ------------------------
    def op_NOP(self, f, ins):
        pass

    op_RESUME = op_PRECALL = op_EXTENDED_ARG = op_NOP   # (dis folds EXTENDED_ARG into the next arg)

    def op_CACHE(self, f, ins):
        pass

    def op_PUSH_NULL(self, f, ins):
        f.stack.append(NULL)

    def op_POP_TOP(self, f, ins):
        f.stack.pop()

    def op_COPY(self, f, ins):
        f.stack.append(f.stack[-ins.arg])

    def op_SWAP(self, f, ins):
        f.stack[-1], f.stack[-ins.arg] = f.stack[-ins.arg], f.stack[-1]

    def op_LOAD_CONST(self, f, ins):
        f.stack.append(ins.argval)

    def op_LOAD_FAST(self, f, ins):
        value = f.locals.get(ins.argval, _EMPTY)
        if value is _EMPTY:
            raise UnboundLocalError(f"local variable {ins.argval!r} referenced before assignment")
        if type(value) is control.OneBranch:   # (assigned in one branch of a tensor 'if' only)
            raise value.error(f.line)
        f.stack.append(value)

    def op_STORE_FAST(self, f, ins):
        f.locals[ins.argval] = f.stack.pop()

    def op_DELETE_FAST(self, f, ins):
        del f.locals[ins.argval]

    def op_MAKE_CELL(self, f, ins):
        value = f.locals.pop(ins.argval, _EMPTY)
        cell = f.cells[ins.argval] = types.CellType() if value is _EMPTY else types.CellType(value)
        self.created[id(cell)] = cell

    def op_COPY_FREE_VARS(self, f, ins):
        for name, cell in zip(f.code.co_freevars, f.fn.__closure__):
            f.cells[name] = cell

    def op_LOAD_CLOSURE(self, f, ins):
        f.stack.append(f.cells[ins.argval])

    def op_LOAD_DEREF(self, f, ins):
        cell = f.cells[ins.argval]
        try:
            value = cell.cell_contents
        except ValueError:
            raise NameError(f"free variable {ins.argval!r} referenced before assignment") from None
        if id(cell) not in self.created:       # a cell of an enclosing function outside this call
            self.session.builder.guards.read_closure(cell, ins.argval, value)
        f.stack.append(value)

    def op_STORE_DEREF(self, f, ins):
        f.cells[ins.argval].cell_contents = f.stack.pop()

    def op_LOAD_GLOBAL(self, f, ins):
        if ins.arg & 1:
            f.stack.append(NULL)
        name, namespace = ins.argval, f.fn.__globals__
        if name in namespace:
            value = namespace[name]
            self.session.builder.guards.read_global(namespace, name, value)
        elif hasattr(builtins, name):
            value = getattr(builtins, name)
        else:
            raise NameError(f"name {name!r} is not defined")
        f.stack.append(value)

    def op_STORE_GLOBAL(self, f, ins):
        value = f.stack[-1]
        if contains_tracer(value):
            raise self._need(f"storing a tensor under capture in global {ins.argval!r}")
        self.session.side_effect(self._where(), f"assignment to global {ins.argval!r}")
        f.fn.__globals__[ins.argval] = f.stack.pop()

    def op_LOAD_ATTR(self, f, ins):
        obj = f.stack.pop()
        f.stack.append(self._getattr(obj, ins.argval))

    def _getattr(self, obj, name):
        if type(obj) is Tracer and not hasattr(Tracer, name):
            if hasattr(Tensor, name):
                raise self._need(f"attribute {name!r} of a tensor")
        value = getattr(obj, name)
        if id(obj) not in self.created:
            self.session.builder.guards.read_attr(obj, name, value)
        return value

    def op_LOAD_METHOD(self, f, ins):
        obj = f.stack.pop()
        f.stack.extend((NULL, self._getattr(obj, ins.argval)))

    def op_STORE_ATTR(self, f, ins):
        obj, value = f.stack[-1], f.stack[-2]
        current = getattr(obj, ins.argval, None) if type(value) is Tracer else None
        if isinstance(current, Parameter):   # (``self.count += 1``: a Parameter write, as under ast)
            self._getattr(obj, ins.argval)   # (guarded: the graph assumes the attribute is this Parameter)
            ops.assign(current, value)
            del f.stack[-2:]
            return
        if contains_tracer(value):
            raise self._need(f"storing a tensor under capture in attribute {ins.argval!r}")
        self.session.side_effect(self._where(), f"assignment to attribute {ins.argval!r}")
        f.stack.pop()
        setattr(obj, ins.argval, f.stack.pop())

    def op_KW_NAMES(self, f, ins):
        f.kw_names = f.code.co_consts[ins.arg]

    def op_CALL(self, f, ins):
        argc = ins.arg
        args = f.pop(argc)
        first, second = f.stack.pop(), f.stack.pop()   # callable or self; NULL or method
        func, args = (first, args) if second is NULL else (second, [first, *args])
        names, f.kw_names = f.kw_names, ()
        kwargs = dict(zip(names, args[len(args) - len(names):])) if names else {}
        if names:
            args = args[:len(args) - len(names)]
        f.stack.append(self.call(func, args, kwargs))

    def op_CALL_FUNCTION_EX(self, f, ins):
        kwargs = f.stack.pop() if ins.arg & 1 else {}
        args, func = self.session.builder.guards.read_iter(f.stack.pop()), f.stack.pop()
        self.session.builder.guards.read_whole(kwargs)
        if f.stack and f.stack[-1] is NULL:
            f.stack.pop()
        f.stack.append(self.call(func, list(args), dict(kwargs)))

    def op_MAKE_FUNCTION(self, f, ins):
        code = f.stack.pop()
        closure = f.stack.pop() if ins.arg & 8 else None
        annotations = f.stack.pop() if ins.arg & 4 else None
        kwdefaults = f.stack.pop() if ins.arg & 2 else None
        defaults = f.stack.pop() if ins.arg & 1 else None
        fn = types.FunctionType(code, f.fn.__globals__, code.co_name, defaults, closure)
        fn.__qualname__, fn.__kwdefaults__ = code.co_qualname, kwdefaults
        if annotations:
            fn.__annotations__ = dict(zip(annotations[::2], annotations[1::2]))
        f.stack.append(fn)

    def op_RETURN_VALUE(self, f, ins):
        raise _Return(f.stack.pop())

    # -- operators --------------------------------------------------------------------------
    def op_BINARY_OP(self, f, ins):
        right, left = f.stack.pop(), f.stack.pop()
        f.stack.append(_BINARY[ins.arg](left, right))

    def op_COMPARE_OP(self, f, ins):
        right, left = f.stack.pop(), f.stack.pop()
        f.stack.append(self.session.builder.guards.read_compare("Cmp", left, right, _COMPARE[ins.argval](left, right)))

    def op_IS_OP(self, f, ins):
        right, left = f.stack.pop(), f.stack.pop()
        f.stack.append((left is right) != bool(ins.arg))

    def op_CONTAINS_OP(self, f, ins):
        right, left = f.stack.pop(), f.stack.pop()
        if type(left) is Tracer or type(right) is Tracer:
            raise self._need("operator 'in' on a tensor")
        f.stack.append(self.session.builder.guards.read_compare("NotIn" if ins.arg else "In", left, right,
                                                               (left in right) != bool(ins.arg)))

    def op_UNARY_NEGATIVE(self, f, ins):
        f.stack.append(-f.stack.pop())

    def op_UNARY_POSITIVE(self, f, ins):
        f.stack.append(+f.stack.pop())

    def op_UNARY_INVERT(self, f, ins):
        f.stack.append(~f.stack.pop())

    def op_UNARY_NOT(self, f, ins):
        f.stack.append(not self.session.builder.guards.read_truth(f.stack.pop()))

    def op_BINARY_SUBSCR(self, f, ins):
        index, value = f.stack.pop(), f.stack.pop()
        if contains_tracer(index) and not isinstance(value, TensorMixin):
            raise self._need("indexing a Python container with a tensor")
        item = value[index]
        self.session.builder.guards.read_item(value, index, item)
        f.stack.append(item)

    def op_STORE_SUBSCR(self, f, ins):
        index, container, value = f.stack[-1], f.stack[-2], f.stack[-3]
        # A tensor under capture is rebound to its updated value and a Parameter assigned: both are
        # graph updates, not side effects (a constant tensor from outside stays one).
        if id(container) not in self.created and not (type(container) is Tracer or isinstance(container, Parameter)):
            if contains_tracer(value):
                raise self._need("storing a tensor under capture in a container from outside the function")
            self.session.side_effect(self._where(), "assignment to a subscript of a container from outside "
                                     "the function")
        del f.stack[-3:]
        container[index] = value

    def op_DELETE_SUBSCR(self, f, ins):
        index, container = f.stack.pop(), f.stack.pop()
        if id(container) not in self.created:
            self.session.side_effect(self._where(), "deleting from a container from outside the function")
        del container[index]

    def op_BUILD_SLICE(self, f, ins):
        f.stack.append(slice(*f.pop(ins.arg)))

    def op_FORMAT_VALUE(self, f, ins):
        spec = f.stack.pop() if ins.arg & 4 else ""
        value = f.stack.pop()
        if type(value) is Tracer:
            raise self._need("formatting a tensor as a string")
        value = (value, str(value), repr(value), ascii(value))[ins.arg & 3]
        f.stack.append(format(value, spec))

    def op_BUILD_STRING(self, f, ins):
        f.stack.append("".join(f.pop(ins.arg)))

    # -- containers -------------------------------------------------------------------------
    def op_BUILD_TUPLE(self, f, ins):
        f.stack.append(tuple(f.pop(ins.arg)))

    def op_BUILD_LIST(self, f, ins):
        f.stack.append(self._created(f.pop(ins.arg)))

    def op_BUILD_SET(self, f, ins):
        f.stack.append(self._created(set(f.pop(ins.arg))))

    def op_BUILD_MAP(self, f, ins):
        items = f.pop(2 * ins.arg)
        f.stack.append(self._created(dict(zip(items[::2], items[1::2]))))

    def op_BUILD_CONST_KEY_MAP(self, f, ins):
        keys = f.stack.pop()
        f.stack.append(self._created(dict(zip(keys, f.pop(ins.arg)))))

    def op_LIST_APPEND(self, f, ins):
        value = f.stack.pop()
        f.stack[-ins.arg].append(value)

    def op_SET_ADD(self, f, ins):
        value = f.stack.pop()
        f.stack[-ins.arg].add(value)

    def op_MAP_ADD(self, f, ins):
        value, key = f.stack.pop(), f.stack.pop()
        f.stack[-ins.arg][key] = value

    def op_LIST_EXTEND(self, f, ins):
        value = f.stack.pop()
        f.stack[-ins.arg].extend(list(SeqIter(value)) if type(value) is Tracer else
                                 self.session.builder.guards.read_iter(value))

    def op_SET_UPDATE(self, f, ins):
        value = f.stack.pop()
        f.stack[-ins.arg].update(value)

    def op_DICT_UPDATE(self, f, ins):
        value = self.session.builder.guards.read_whole(f.stack.pop())
        f.stack[-ins.arg].update(value)

    op_DICT_MERGE = op_DICT_UPDATE

    def op_LIST_TO_TUPLE(self, f, ins):
        f.stack.append(tuple(f.stack.pop()))

    def op_UNPACK_SEQUENCE(self, f, ins):
        value = self.session.builder.guards.read_iter(f.stack.pop())
        items = list(SeqIter(value)) if type(value) is Tracer else list(value)
        if len(items) != ins.arg:
            raise ValueError(f"{'too many' if len(items) > ins.arg else 'not enough'} values to unpack "
                             f"(expected {ins.arg}, got {len(items)})")
        f.stack.extend(reversed(items))

    def op_UNPACK_EX(self, f, ins):
        before, after = ins.arg & 0xFF, ins.arg >> 8
        value = self.session.builder.guards.read_iter(f.stack.pop())
        items = list(SeqIter(value)) if type(value) is Tracer else list(value)
        if len(items) < before + after:
            raise ValueError(f"not enough values to unpack (expected at least {before + after}, got {len(items)})")
        middle = self._created(items[before:len(items) - after])
        f.stack.extend(reversed(items[:before] + [middle] + items[len(items) - after:]))

    # -- control flow -----------------------------------------------------------------------
    def _jump_if(self, f, ins, when):
        value = f.stack.pop()
        if type(value) is Tracer and self.session.fullgraph and control.GRAPH_LOOPS:
            loop = tensor_while(self, f, ins)    # (a while's test: one While node, see bytecode_loop)
            if loop is not None:
                return self._after_loop(*loop)
        if type(value) is Tracer and self.session.fullgraph and control.GRAPH_IFS and "FORWARD" in ins.opname:
            joined, result = tensor_if(self, f, ins, value, when)   # (one If node: see bytecode_if)
            if not joined:
                raise _Return(result)
            return result
        return ins.argval if bool(self.session.builder.guards.read_truth(value)) is when else None

    @staticmethod
    def _after_loop(go_on, result):
        """A While captured (bytecode_loop): the offset to go on at, or the function returns."""
        if not go_on:
            raise _Return(result)
        return result

    def op_POP_JUMP_FORWARD_IF_TRUE(self, f, ins):
        return self._jump_if(f, ins, True)

    def op_POP_JUMP_FORWARD_IF_FALSE(self, f, ins):
        return self._jump_if(f, ins, False)

    op_POP_JUMP_BACKWARD_IF_TRUE = op_POP_JUMP_FORWARD_IF_TRUE
    op_POP_JUMP_BACKWARD_IF_FALSE = op_POP_JUMP_FORWARD_IF_FALSE

    def op_POP_JUMP_FORWARD_IF_NONE(self, f, ins):
        return ins.argval if f.stack.pop() is None else None

    def op_POP_JUMP_FORWARD_IF_NOT_NONE(self, f, ins):
        return ins.argval if f.stack.pop() is not None else None

    op_POP_JUMP_BACKWARD_IF_NONE = op_POP_JUMP_FORWARD_IF_NONE
    op_POP_JUMP_BACKWARD_IF_NOT_NONE = op_POP_JUMP_FORWARD_IF_NOT_NONE

    def op_JUMP_IF_TRUE_OR_POP(self, f, ins):
        if bool(self.session.builder.guards.read_truth(f.stack[-1])):
            return ins.argval
        f.stack.pop()

    def op_JUMP_IF_FALSE_OR_POP(self, f, ins):
        if not bool(self.session.builder.guards.read_truth(f.stack[-1])):
            return ins.argval
        f.stack.pop()

    def op_JUMP_FORWARD(self, f, ins):
        return ins.argval

    op_JUMP_BACKWARD = op_JUMP_BACKWARD_NO_INTERRUPT = op_JUMP_FORWARD

    def op_GET_ITER(self, f, ins):
        value = self.session.builder.guards.read_iter(f.stack.pop())
        if type(value) is TensorRange:
            pass
        elif type(value) is Tracer or type(value) in (list, tuple):
            if type(value) is Tracer and not value.shape:
                raise TypeError("iteration over a 0-d tensor")
            value = SeqIter(value)
        elif isinstance(value, (type({}.items()), type({}.values()))):
            value = SeqIter(list(value))
        else:
            value = iter(value)
        f.stack.append(value)

    def op_FOR_ITER(self, f, ins):
        if type(f.stack[-1]) is TensorRange:
            return self._after_loop(*tensor_for(self, f, ins, f.stack[-1]))
        try:
            f.stack.append(next(f.stack[-1]))
        except StopIteration:
            f.stack.pop()
            return ins.argval

    # -- exceptions and with ----------------------------------------------------------------
    def op_PUSH_EXC_INFO(self, f, ins):
        exc = f.stack.pop()
        f.stack.append(self.exc_info[-1] if self.exc_info else None)
        self.exc_info.append(exc)
        f.stack.append(exc)

    def op_POP_EXCEPT(self, f, ins):
        f.stack.pop()
        if self.exc_info:
            self.exc_info.pop()

    def op_CHECK_EXC_MATCH(self, f, ins):
        kind = f.stack.pop()
        f.stack.append(isinstance(f.stack[-1], kind))

    def op_RERAISE(self, f, ins):
        raise f.stack.pop()

    def op_LOAD_ASSERTION_ERROR(self, f, ins):
        f.stack.append(AssertionError)

    def op_RAISE_VARARGS(self, f, ins):
        if ins.arg == 0:
            raise self.exc_info[-1]
        cause = f.stack.pop() if ins.arg == 2 else None
        exc = f.stack.pop()
        exc = exc() if isinstance(exc, type) else exc
        raise exc from cause if ins.arg == 2 else exc

    def op_BEFORE_WITH(self, f, ins):
        manager = f.stack.pop()
        self.session.side_effect(self._where(), f"'with' on a {type(manager).__name__}")
        f.stack.append(type(manager).__exit__.__get__(manager))
        f.stack.append(type(manager).__enter__(manager))

    def op_WITH_EXCEPT_START(self, f, ins):
        exc = f.stack[-1]
        f.stack.append(f.stack[-4](type(exc), exc, exc.__traceback__))

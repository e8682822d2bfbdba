"""The core every other layer builds on: abstract values, primitives, tracers and ``bind``.

Both ``ops`` (the public surface, decompositions over primitives) and ``capture`` (ast, bytecode,
trace) import this module and never each other's internals, as in JAX's ``core.py``. Nothing
here knows an op by name except ``Constant``, the literal every capture needs.
"""
import linecache
import threading
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

import numpy as np

from .dtype import ALL, DType, from_numpy
from .errors import ConcreteValueNeeded
from .mixin import TensorMixin
from .parameter import Parameter
from .tensor import Tensor


class ShapedArray(NamedTuple):
    """What capture and the shape/dtype rules know about a tensor."""
    shape: tuple
    dtype: DType

    @property
    def ndim(self):
        return len(self.shape)

    @staticmethod
    def of(array):
        """The abstract value of a concrete numpy array."""
        return ShapedArray(array.shape, from_numpy(array.dtype))

    def __str__(self):  # f32[2,3]
        return f"{self.dtype.name}[{','.join(map(str, self.shape))}]"


# Python types of each attribute kind (the kinds are AttributeProto's: ints, i, b, dtype, t).
_ATTR_TYPES = {"ints": (tuple, list), "int": (int, np.integer), "bool": (bool, np.bool_),
               "dtype": (DType,), "tensor": (np.ndarray,)}


@dataclass(frozen=True, eq=False)
class Primitive:
    """A core primitive: the only kind of operation msjitd compiles (declared in ``ops.prims``).

    The declaration is the op's contract, checked against the daemon's ODS definitions by
    tests/py/test_primitive_contract.py and rendered into proto/OPS.md by tools/gen_ops_md.py.
    """
    name: str                 # MindIR op_type
    impl: Callable            # eager kernel: numpy arrays, attrs -> numpy array
    abstract: Callable        # rule: ShapedArrays, attrs -> ShapedArray (raises on bad input)
    attrs: tuple = ()         # ((name, kind), ...): kind ints | int | bool | dtype | tensor, "?" = optional
    dtypes: frozenset = field(default=frozenset())  # what every operand accepts, unless `operands` says
    operands: tuple = ("x",)  # names; ("cond", dtypes) fixes one operand's dtypes; "*xs" = 1 or more
    out: str = ""             # the result's shape and dtype, for proto/OPS.md
    doc: str = ""             # one line for proto/OPS.md
    why: str = ""             # why a primitive and not a decomposition, where that is not obvious
    example: tuple = ((), {})  # a valid call: (operand shapes, attrs)
    section: str = ""         # its section of proto/OPS.md

    def __call__(self, *operands, **attrs):
        """Apply with no implicit conversion: operands must already agree."""
        return bind(self, *operands, **attrs)

    def __repr__(self):
        return f"Primitive({self.name})"

    def operand_dtypes(self, i):
        """The dtypes operand ``i`` accepts."""
        spec = self.operands[min(i, len(self.operands) - 1)]
        return spec[1] if isinstance(spec, tuple) else self.dtypes

    def check(self, *avals, **attrs):
        """The whole contract on abstract values: the declared attributes (names and kinds), the
        operand count, then the rule. ``bind`` runs only the rule: its callers, the decompositions,
        pass declared attributes by construction, and eager ops are on the hot path."""
        kinds = dict(self.attrs)
        for key, value in attrs.items():
            if key not in kinds:
                raise TypeError(f"{self.name}: unknown attribute {key!r}")
            kind = kinds[key].rstrip("?")
            ok = isinstance(value, _ATTR_TYPES[kind]) and (kind == "bool") == isinstance(value, (bool, np.bool_))
            if kind == "ints":
                ok = ok and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)
            if not ok:
                raise TypeError(f"{self.name}: attribute {key!r} must be {kind}, got {value!r}")
        missing = [k for k, kind in self.attrs if not kind.endswith("?") and k not in attrs]
        if missing:
            raise TypeError(f"{self.name}: missing attribute(s) {', '.join(missing)}")
        variadic = any(isinstance(o, str) and o.startswith("*") for o in self.operands)
        if len(avals) != len(self.operands) and not (variadic and len(avals) >= len(self.operands)):
            raise TypeError(f"{self.name}: expected {'at least ' if variadic else ''}{len(self.operands)} "
                            f"operands, got {len(avals)}")
        return self.abstract(*avals, **attrs)


Constant = Primitive("Constant", lambda *, value: value, lambda *, value: ShapedArray.of(value),
                     (("value", "tensor"),), frozenset(ALL), operands=(), out="`value`'s shape and dtype",
                     doc="a literal tensor", example=((), {"value": np.zeros((2, 3), np.float32)}),
                     section="Literals")


class Tracer(TensorMixin):
    """A tensor value under capture: an abstract value plus its name in the builder's graph."""

    __slots__ = ("builder", "name", "aval")

    def __init__(self, builder, name, aval):
        self.builder, self.name, self.aval = builder, name, aval

    @property
    def shape(self):
        return self.aval.shape

    @property
    def dtype(self):
        return self.aval.dtype

    def __repr__(self):
        return f"Tracer({self.name}: {self.aval})"

    def _concrete(self, what):
        file, line = self.builder.current_location() or ("<unknown>", 0)
        raise ConcreteValueNeeded(file, line, f"{what} of a tensor under capture "
                                     "(its value is only known when the compiled function runs)",
                                     linecache.getline(file, line) or None)

    def __bool__(self):
        self._concrete("the truth value")

    def __float__(self):
        self._concrete("float()")

    def __int__(self):
        self._concrete("int()")

    def __index__(self):
        self._concrete("use as an index")

    # Shapes are static under capture, so len() and iteration over rows are known (as in
    # MindSpore's graph mode); a 0-d tensor has neither, as in eager.
    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    def __array__(self, dtype=None):
        self._concrete("conversion to a numpy array")

    def __format__(self, spec):
        self._concrete("formatting")


# ---- the capture running in this thread ----------------------------------------------------------

_active = threading.local()


def current_builder():
    """The graph builder of the capture running in this thread, if any."""
    stack = getattr(_active, "stack", None)
    return stack[-1] if stack else None


def activate(builder):
    """Make ``builder`` the current one in this thread (see GraphBuilder.run)."""
    stack = getattr(_active, "stack", None)
    if stack is None:
        stack = _active.stack = []
    stack.append(builder)


def deactivate(builder):
    stack = getattr(_active, "stack", None)
    if stack and builder in stack:
        stack.remove(builder)


# Active eager autodiff tapes, innermost last (pushed and popped by ``autodiff.tape``): every
# eager op is offered to each, which keeps those that depend on its watched tensors.
TAPES = []


def bind(prim, *operands, **attrs):
    """Apply ``prim``: record a node when any operand is a Tracer (or a Parameter while a capture
    is running: Parameters are read by reference), else run the numpy kernel.

    Operands are Tensors, Tracers or numpy arrays (constants); attrs are normalized.
    """
    for x in operands:
        if type(x) is Tracer:
            # The innermost capture records: a gradient body lifts its outer tensors as inputs.
            builder = current_builder()
            return (x.builder if builder is None else builder).add(prim, operands, attrs)
    params = any(isinstance(x, Parameter) for x in operands)
    if params and current_builder() is not None:
        return current_builder().add(prim, operands, attrs)
    arrays = [x._array if isinstance(x, Tensor) else x for x in operands]
    aval = prim.abstract(*map(ShapedArray.of, arrays), **attrs)
    out = prim.impl(*arrays, **attrs)
    if type(out) is not np.ndarray or out.dtype != aval.dtype.np:
        out = np.asarray(out, aval.dtype.np)  # numpy returns scalars for full reductions
    elif params and out.base is not None:
        out = out.copy()  # a view of a Parameter would see its later in-place updates
    out = Tensor._wrap(out)
    if TAPES:
        for tape in TAPES:
            tape.record(prim, operands, attrs, out)
    return out

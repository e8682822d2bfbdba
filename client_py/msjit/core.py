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

from .dtype import DType, from_numpy
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


@dataclass(frozen=True, eq=False)
class Primitive:
    """A core primitive: the only kind of operation msjitd compiles (declared in ``ops.prims``).

    ``attrs`` names the attributes with their kinds and ``dtypes`` the operand dtypes the rule
    accepts; both are part of the contract checked against the daemon's ODS definitions.
    """
    name: str                 # MindIR op_type
    impl: Callable            # eager kernel: numpy arrays, attrs -> numpy array
    abstract: Callable        # rule: ShapedArrays, attrs -> ShapedArray (raises on bad input)
    attrs: tuple = ()         # ((attribute name, kind), ...), kinds as in proto/OPS.md
    dtypes: frozenset = field(default=frozenset())  # accepted dtypes of the first operand
    doc: str = ""             # one line for proto/OPS.md

    def __call__(self, *operands, **attrs):
        """Apply with no implicit conversion: operands must already agree."""
        return bind(self, *operands, **attrs)

    def __repr__(self):
        return f"Primitive({self.name})"


Constant = Primitive("Constant", lambda *, value: value, lambda *, value: ShapedArray.of(value),
                     (("value", "tensor"),), doc="a literal tensor (`value`)")


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

    def __len__(self):
        self._concrete("len()")

    def __iter__(self):
        self._concrete("iteration")

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

"""``bind``: the single point where an op is applied, eagerly or into a graph under capture.

The operand helpers beside it resolve Python scalars, numpy arrays and dtype promotion into
explicit operands before ``bind`` is called, so eager and graph see exactly the same program:
an implicit cast is a Cast op in both, a scalar becomes a 0-d constant of the promoted dtype.
"""
import numpy as np

from .. import dtype as D
from ..capture.abstract import ShapedArray
from ..capture.graph import Tracer, current_builder
from ..parameter import Parameter
from ..tensor import Tensor
from . import prims as P

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


def assign(variable, value):
    """``variable = value`` for a Parameter: in place eagerly; under capture an extra graph
    output written back after each run. Returns ``variable``."""
    if not isinstance(variable, Parameter):
        raise TypeError(f"Assign: the variable must be a Parameter, got {type(variable).__name__}")
    builder = value.builder if type(value) is Tracer else current_builder()
    if builder is not None:
        builder.assign(variable, convert(operand("Assign", value), variable.dtype))
    else:
        variable.set_data(operand("Assign", value))
    return variable


def is_tensor(x):
    return isinstance(x, (Tensor, Tracer))


def is_tracer(x):
    return type(x) is Tracer


def operand(name, x):
    """A tensor operand: Tensors and Tracers as they are, numpy arrays and scalars as Tensors."""
    if is_tensor(x):
        return x
    if isinstance(x, np.ndarray):
        return Tensor(x)
    kind = D.scalar_kind(x)
    if kind is None:
        raise TypeError(f"{name}: unsupported operand of type {type(x).__name__}")
    return Tensor(x, D.DEFAULT_FOR_KIND[kind])


def convert(x, dt):
    """``x`` as dtype ``dt``: a Cast op for tensors (none if already ``dt``), a constant for scalars."""
    if is_tensor(x):
        return x if x.dtype is dt else bind(P.Cast, x, to=dt)
    return np.asarray(x, dt.np)


def binary_operands(name, x, y, floating=False):
    """Promote ``x ⊕ y`` to one dtype (see dtype.promote_types / scalar_result_type).

    ``floating=True`` (true division) then lifts integer results to float32.
    """
    if isinstance(x, np.ndarray):
        x = Tensor(x)
    if isinstance(y, np.ndarray):
        y = Tensor(y)
    if not is_tensor(x) and not is_tensor(y):
        x = operand(name, x)
    if is_tensor(x) and is_tensor(y):
        dt = D.promote_types(x.dtype, y.dtype)
    else:
        t, s = (x, y) if is_tensor(x) else (y, x)
        kind = D.scalar_kind(s)
        if kind is None:
            raise TypeError(f"{name}: unsupported operand of type {type(s).__name__}")
        dt = D.scalar_result_type(t.dtype, kind)
    if floating and not dt.is_floating:
        dt = D.float32
    return convert(x, dt), convert(y, dt)


def floating_operand(name, x):
    """Ops defined on floats only take integer and bool tensors as float32 (an explicit Cast)."""
    x = operand(name, x)
    return x if x.dtype.is_floating else bind(P.Cast, x, to=D.float32)


def normalize_axes(name, axes, ndim, permutation=False):
    """Axes as sorted non-negative ints (a permutation keeps its order); ValueError when invalid."""
    if axes is None:
        return ()
    axes = (axes,) if isinstance(axes, (int, np.integer)) else tuple(axes)
    out = []
    for a in axes:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise TypeError(f"{name}: axes must be integers, got {axes!r}")
        if not -ndim <= a < ndim:
            raise ValueError(f"{name}: axis {a} is out of range for a tensor of rank {ndim}")
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{name}: repeated axis in {axes!r}")
    if permutation:
        if len(out) != ndim:
            raise ValueError(f"{name}: permutation {axes!r} does not match a tensor of rank {ndim}")
        return tuple(out)
    return tuple(sorted(out))

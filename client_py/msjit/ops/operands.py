"""Operand helpers: they resolve Python scalars, numpy arrays and dtype promotion into
explicit operands before ``bind`` is called, so eager and graph see exactly the same program:
an implicit cast is a Cast op in both, a scalar becomes a 0-d constant of the promoted dtype.
"""
import numpy as np

from .. import dtype as D
from ..core import Tracer, bind, current_builder
from ..parameter import Parameter
from ..tensor import Tensor
from . import prims as P

def assign(variable, value):
    """``variable = value`` for a Parameter: in place eagerly; under capture an extra graph
    output written back after each run. Returns ``variable``."""
    if not isinstance(variable, Parameter):
        raise TypeError(f"Assign: the variable must be a Parameter, got {type(variable).__name__}")
    # The innermost capture records (as in bind): inside an If/While region or a Grad body, the
    # value may be a Tracer of an enclosing graph.
    builder = current_builder() or (value.builder if type(value) is Tracer else None)
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

"""Functional math ops with MindSpore's names and signatures, built on ``core.bind``.

Each function turns user-level arguments (scalars, negative axes, -1 in shapes, mixed dtypes,
1-D matmul operands) into primitive applications; the same code runs eagerly and under capture.
Data movement and indexing live in ``array_ops``, neural-network ops in ``nn_ops``.
"""
import math

from .. import dtype as D
from . import prims as P
from ..core import bind
from .operands import binary_operands, floating_operand, is_tracer, normalize_axes, operand

__all__ = ["add", "sub", "mul", "div", "neg", "exp", "log", "sqrt", "relu", "sigmoid", "tanh",
           "maximum", "minimum", "matmul", "bmm", "sum", "mean", "amax", "amin", "reshape",
           "transpose", "cast", "pow", "sin", "cos", "rsqrt", "abs", "square", "erf", "equal",
           "not_equal", "ne", "less", "lt", "less_equal", "le", "greater", "gt", "greater_equal", "ge",
           "logical_and", "logical_or", "logical_not", "where", "stop_gradient"]


def _named(fn, name, doc):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def _binary(name, prim, floating=False):
    def op(input, other):
        return bind(prim, *binary_operands(prim.name, input, other, floating))
    return _named(op, name, f"{prim.name} of two tensors (or a tensor and a scalar), broadcast.")


def _unary(name, prim, floating):
    def op(input):
        return bind(prim, floating_operand(prim.name, input) if floating else operand(prim.name, input))
    return _named(op, name, f"Elementwise {prim.name}" + (" (integers as float32)." if floating else "."))


def _logical(name, prim):
    def op(input, other):
        return bind(prim, *(cast(operand(prim.name, v), D.bool_) for v in (input, other)))
    return _named(op, name, f"Elementwise {prim.name} (operands as bool).")


add = _binary("add", P.Add)
sub = _binary("sub", P.Sub)
mul = _binary("mul", P.Mul)
pow = _binary("pow", P.Pow, floating=True)     # noqa: A001  (MindSpore's name)
maximum = _binary("maximum", P.Maximum)
minimum = _binary("minimum", P.Minimum)
equal = _binary("equal", P.Equal)
not_equal = ne = _binary("not_equal", P.NotEqual)
less = lt = _binary("less", P.Less)
less_equal = le = _binary("less_equal", P.LessEqual)
greater = gt = _binary("greater", P.Greater)
greater_equal = ge = _binary("greater_equal", P.GreaterEqual)
logical_and = _logical("logical_and", P.LogicalAnd)
logical_or = _logical("logical_or", P.LogicalOr)
neg = _unary("neg", P.Neg, floating=False)
relu = _unary("relu", P.ReLU, floating=False)
abs = _unary("abs", P.Abs, floating=False)     # noqa: A001
exp = _unary("exp", P.Exp, floating=True)
log = _unary("log", P.Log, floating=True)
sqrt = _unary("sqrt", P.Sqrt, floating=True)
rsqrt = _unary("rsqrt", P.Rsqrt, floating=True)
sigmoid = _unary("sigmoid", P.Sigmoid, floating=True)
tanh = _unary("tanh", P.Tanh, floating=True)
sin = _unary("sin", P.Sin, floating=True)
cos = _unary("cos", P.Cos, floating=True)
erf = _unary("erf", P.Erf, floating=True)


def div(input, other, *, rounding_mode=None):
    """True division (integers as float32); ``rounding_mode`` "floor" or "trunc" rounds the
    quotient and keeps integer inputs integral (see math_elementwise)."""
    if rounding_mode is None:
        return bind(P.Div, *binary_operands("Div", input, other, True))
    from .math_elementwise import rounded_quotient
    return rounded_quotient(input, other, rounding_mode)


def logical_not(input):
    """Elementwise LogicalNot (operand as bool)."""
    return bind(P.LogicalNot, cast(operand("LogicalNot", input), D.bool_))


def stop_gradient(value):
    """``value`` unchanged; reverse-mode autodiff sends no gradient through it (StopGradient)."""
    return bind(P.StopGradient, operand("StopGradient", value))


def square(input):
    """``input * input`` (keeps the dtype)."""
    x = operand("Square", input)
    return bind(P.Mul, x, x)


def where(condition, x, y):
    """Elementwise ``x if condition else y`` (Select), all three broadcast; x and y promoted."""
    cond = operand("Select", condition)
    x, y = binary_operands("Select", x, y)
    return bind(P.Select, cond, x, y)


def matmul(input, other):
    """numpy matmul semantics on top of the strict MatMul primitive (same rank, equal batch).

    1-D operands become a row / column whose extra axis is dropped afterwards; an (..., m, k)
    operand times a 2-D one folds its batch into the rows of a single 2-D MatMul; other batch
    dimensions are broadcast (BroadcastTo).
    """
    if D.scalar_kind(input) or D.scalar_kind(other):
        raise TypeError("MatMul: scalar operands are not supported, use mul")
    x, y = binary_operands("MatMul", input, other)
    xs, ys = x.shape, y.shape
    if not xs or not ys:
        raise ValueError(f"MatMul: operands must have rank >= 1, got shapes {xs} and {ys}")
    k = ys[0] if len(ys) == 1 else ys[-2]
    if xs[-1] != k:
        raise ValueError(f"MatMul: inner dimensions of shapes {xs} and {ys} do not match")
    z = batch_matmul(reshape(x, (1, k)) if len(xs) == 1 else x, reshape(y, (k, 1)) if len(ys) == 1 else y)
    out_shape = z.shape[:-2] + ((z.shape[-2],) if len(xs) > 1 else ()) + ((z.shape[-1],) if len(ys) > 1 else ())
    return z if z.shape == out_shape else reshape(z, out_shape)


def batch_matmul(x, y, transpose_a=False, transpose_b=False, name="MatMul"):
    """MatMul of operands of rank >= 2 with optional transposes of their last two dims; batch
    dimensions broadcast. A batched ``x`` times a 2-D ``y`` becomes one 2-D MatMul."""
    x, y = binary_operands(name, x, y)
    if x.ndim < 2 or y.ndim < 2:
        raise ValueError(f"{name}: operands must have rank >= 2, got shapes {x.shape} and {y.shape}")
    flags = {k: True for k, v in (("transpose_a", transpose_a), ("transpose_b", transpose_b)) if v}
    kx = x.shape[-2] if transpose_a else x.shape[-1]
    ky = y.shape[-1] if transpose_b else y.shape[-2]
    if kx != ky:
        raise ValueError(f"{name}: inner dimensions of shapes {x.shape} and {y.shape} do not match "
                         f"(transpose_a={bool(transpose_a)}, transpose_b={bool(transpose_b)})")
    if x.ndim > 2 and y.ndim == 2 and not transpose_a:    # fold the batch into the rows
        z = bind(P.MatMul, reshape(x, (-1, kx)), y, **flags)
        return reshape(z, x.shape[:-1] + z.shape[-1:])
    bx, by = x.shape[:-2], y.shape[:-2]
    if bx != by:
        from .array_ops import broadcast_to
        try:
            batch = P.broadcast_shapes(name, bx, by)
        except ValueError:
            raise ValueError(f"{name}: batch dimensions of shapes {x.shape} and {y.shape} are not "
                             "broadcastable") from None
        x, y = broadcast_to(x, batch + x.shape[-2:]), broadcast_to(y, batch + y.shape[-2:])
    return bind(P.MatMul, x, y, **flags)


def bmm(input_x, mat2):
    """Batched matrix product of operands of rank >= 3 (batch dimensions broadcast)."""
    x, y = operand("BatchMatMul", input_x), operand("BatchMatMul", mat2)
    if x.ndim < 3 or y.ndim < 2:
        raise ValueError(f"BatchMatMul: expected a batched input of rank >= 3, got shapes {x.shape} and {y.shape}")
    return batch_matmul(x, y, name="BatchMatMul")


def _reduction(name, prim, floating=False):
    def op(input, axis=None, keepdims=False):
        x = floating_operand(prim.name, input) if floating else operand(prim.name, input)
        return bind(prim, x, axes=normalize_axes(prim.name, axis, x.ndim), keep_dims=bool(keepdims))
    return _named(op, name, f"{prim.name} over ``axis`` (int, tuple or None = all axes).")


amax = _reduction("amax", P.ReduceMax)
amin = _reduction("amin", P.ReduceMin)


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    """Sum over ``dim`` (int, tuple or None = all); integer and bool inputs sum as int64 (as
    MindSpore), other inputs keep their dtype, unless ``dtype`` is given."""
    x = operand("ReduceSum", input)
    if dtype is not None:
        x = cast(x, dtype)
    elif not x.dtype.is_floating and x.dtype is not D.int64:
        x = bind(P.Cast, x, to=D.int64)
    return bind(P.ReduceSum, x, axes=normalize_axes("ReduceSum", dim, x.ndim), keep_dims=bool(keepdim))


def mean(x, axis=None, keep_dims=False):
    """Mean over ``axis``; an integer input's mean is taken in float64 and truncated back to its
    dtype (as MindSpore: the mean of an int32 tensor is int32)."""
    t = operand("ReduceMean", x)
    if t.dtype.is_floating:
        return bind(P.ReduceMean, t, axes=normalize_axes("ReduceMean", axis, t.ndim), keep_dims=bool(keep_dims))
    if t.dtype is D.bool_:
        raise TypeError("ReduceMean: unsupported reduce operation for bool")
    m = bind(P.ReduceMean, bind(P.Cast, t, to=D.float64), axes=normalize_axes("ReduceMean", axis, t.ndim),
             keep_dims=bool(keep_dims))
    return bind(P.Cast, m, to=t.dtype)


def reshape(x, shape):
    """Reshape to ``shape``; one -1 is inferred from the element count."""
    x = operand("Reshape", x)
    shape = (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)
    if shape.count(-1) > 1 or any(d < -1 for d in shape):
        raise ValueError(f"Reshape: invalid target shape {shape} for a tensor of shape {x.shape}")
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        if known == 0 or x.size % known:
            raise ValueError(f"Reshape: cannot reshape a tensor of shape {x.shape} into shape {shape}")
        shape = tuple(x.size // known if d == -1 else d for d in shape)
    return bind(P.Reshape, x, shape=shape)


def reshape_if_needed(x, shape):
    """``reshape`` that adds no node under capture when the shape is already ``shape``."""
    return x if is_tracer(x) and tuple(shape) == x.shape else reshape(x, shape)


def transpose(x, input_perm):
    """Permute axes: output axis i is input axis ``input_perm[i]`` (negative axes allowed)."""
    x = operand("Transpose", x)
    return bind(P.Transpose, x, perm=normalize_axes("Transpose", input_perm, x.ndim, permutation=True))


def cast(x, dtype):
    """``x`` as ``dtype`` (a msjit/mindspore dtype, a numpy dtype or a name); no op if equal."""
    x = operand("Cast", x)
    dt = D.as_dtype(dtype)
    return x if x.dtype is dt else bind(P.Cast, x, to=dt)


# Tensor methods that are these functions with the tensor first.
TENSOR_METHODS = {n: globals()[n] for n in (
    "mul", "div", "matmul", "maximum", "minimum", "equal", "not_equal", "ne", "less", "lt", "less_equal",
    "le", "greater", "gt", "greater_equal", "ge", "logical_and", "logical_or", "logical_not", "neg", "erf",
    "sin", "cos", "amax", "amin", "bmm")}

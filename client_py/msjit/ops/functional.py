"""Functional ops with MindSpore's names and signatures, built on ``core.bind``.

Each function turns user-level arguments (scalars, negative axes, -1 in shapes, mixed dtypes,
1-D matmul operands) into primitive applications; the same code runs eagerly and under capture.
"""
import math

from .. import dtype as D
from . import prims as P
from .core import bind, binary_operands, floating_operand, normalize_axes, operand

__all__ = ["add", "sub", "mul", "div", "neg", "exp", "log", "sqrt", "relu", "sigmoid", "tanh",
           "maximum", "minimum", "matmul", "sum", "mean", "reshape", "transpose", "cast"]


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


add = _binary("add", P.Add)
sub = _binary("sub", P.Sub)
mul = _binary("mul", P.Mul)
div = _binary("div", P.Div, floating=True)     # true division: int / int is float32
maximum = _binary("maximum", P.Maximum)
minimum = _binary("minimum", P.Minimum)
neg = _unary("neg", P.Neg, floating=False)
relu = _unary("relu", P.ReLU, floating=False)
exp = _unary("exp", P.Exp, floating=True)
log = _unary("log", P.Log, floating=True)
sqrt = _unary("sqrt", P.Sqrt, floating=True)
sigmoid = _unary("sigmoid", P.Sigmoid, floating=True)
tanh = _unary("tanh", P.Tanh, floating=True)


def matmul(input, other):
    """numpy matmul semantics on top of the strict MatMul primitive (same rank, equal batch).

    1-D operands become a row / column whose extra axis is dropped afterwards; an (..., m, k)
    operand times a 2-D one folds its batch into the rows of a single 2-D MatMul. Batch
    dimensions that would need broadcasting raise ValueError (not supported yet).
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
    if len(xs) == 1:
        x = reshape(x, (1, k))
    if len(ys) == 1:
        y = reshape(y, (k, 1))
    batch, m, n = x.shape[:-2], x.shape[-2], y.shape[-1]
    if batch and y.ndim == 2:
        x = reshape(x, (math.prod(batch) * m, k))
    elif batch != y.shape[:-2]:
        raise ValueError(f"MatMul: batch dimensions of shapes {xs} and {ys} need broadcasting, "
                         "which is not supported yet")
    z = bind(P.MatMul, x, y)
    out_shape = batch + ((m,) if len(xs) > 1 else ()) + ((n,) if len(ys) > 1 else ())
    return z if z.shape == out_shape else reshape(z, out_shape)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (int, tuple or None = all); keeps the input dtype unless ``dtype`` is given."""
    x = operand("ReduceSum", input)
    if dtype is not None:
        x = cast(x, dtype)
    return bind(P.ReduceSum, x, axes=normalize_axes("ReduceSum", dim, x.ndim), keep_dims=bool(keepdim))


def mean(x, axis=None, keep_dims=False):
    """Mean over ``axis``; integer inputs are averaged as float32."""
    x = floating_operand("ReduceMean", x)
    return bind(P.ReduceMean, x, axes=normalize_axes("ReduceMean", axis, x.ndim), keep_dims=bool(keep_dims))


def reshape(x, shape):
    """Reshape to ``shape``; one -1 is inferred from the element count."""
    x = operand("Reshape", x)
    shape = (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)
    if shape.count(-1) > 1 or any(d < -1 for d in shape):
        raise ValueError(f"Reshape: invalid target shape {shape}")
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        if known == 0 or x.size % known:
            raise ValueError(f"Reshape: cannot reshape a tensor of shape {x.shape} into shape {shape}")
        shape = tuple(x.size // known if d == -1 else d for d in shape)
    return bind(P.Reshape, x, shape=shape)


def transpose(x, input_perm):
    """Permute axes: output axis i is input axis ``input_perm[i]`` (negative axes allowed)."""
    x = operand("Transpose", x)
    return bind(P.Transpose, x, perm=normalize_axes("Transpose", input_perm, x.ndim, permutation=True))


def cast(x, dtype):
    """``x`` as ``dtype`` (a msjit/mindspore dtype, a numpy dtype or a name); no op if equal."""
    x = operand("Cast", x)
    dt = D.as_dtype(dtype)
    return x if x.dtype is dt else bind(P.Cast, x, to=dt)

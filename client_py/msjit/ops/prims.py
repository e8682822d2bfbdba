"""The primitive table: for each MindIR op, its eager numpy kernel and its abstract rule.

This is the graph contract msjitd accepts (see ir/MindirOps.td). Rules take abstract values
(ShapedArray) and *normalized* attributes, check operand dtypes and shapes, and return the
output's abstract value. Eager execution runs the same rule before the kernel, so eager and
graph capture raise the same errors. Normalizing user input (negative axes, -1 in shapes,
implicit casts, Python scalars) is the job of ``ops.functional``, not of these rules.
"""
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import dtype as D
from ..capture.abstract import ShapedArray


@dataclass(frozen=True, eq=False)
class Primitive:
    name: str                 # MindIR op_type
    impl: Callable            # eager kernel: numpy arrays, attrs -> numpy array
    abstract: Callable        # rule: ShapedArrays, attrs -> ShapedArray (raises on bad input)

    def __call__(self, *operands, **attrs):
        """Apply with no implicit conversion: operands must already agree (see ops.core.bind)."""
        from .core import bind
        return bind(self, *operands, **attrs)

    def __repr__(self):
        return f"Primitive({self.name})"


def check_dtype(name, dt, allowed, what):
    if dt not in allowed:
        raise TypeError(f"{name}: expected {what} operands, got {dt}")


def broadcast_shapes(name, a, b):
    """numpy broadcasting of two shapes; ValueError naming the op and both shapes."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and x != 1 and y != 1:
            raise ValueError(f"{name}: operands of shapes {a} and {b} are not broadcastable")
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


def _binary(name, impl, allowed, what):
    def rule(x, y):
        if x.dtype is not y.dtype:
            raise TypeError(f"{name}: operands must have the same dtype, got {x.dtype} and {y.dtype}")
        check_dtype(name, x.dtype, allowed, what)
        return ShapedArray(broadcast_shapes(name, x.shape, y.shape), x.dtype)
    return Primitive(name, impl, rule)


def _unary(name, impl, allowed, what):
    def rule(x):
        check_dtype(name, x.dtype, allowed, what)
        return x
    return Primitive(name, impl, rule)


def _matmul_rule(x, y):
    if x.dtype is not y.dtype:
        raise TypeError(f"MatMul: operands must have the same dtype, got {x.dtype} and {y.dtype}")
    check_dtype("MatMul", x.dtype, D.NUMERIC, "numeric")
    if x.ndim < 2 or x.ndim != y.ndim:
        raise ValueError(f"MatMul: operands must have the same rank >= 2, got shapes {x.shape} and {y.shape}")
    if x.shape[:-2] != y.shape[:-2]:
        raise ValueError(f"MatMul: batch dimensions of shapes {x.shape} and {y.shape} differ")
    if x.shape[-1] != y.shape[-2]:
        raise ValueError(f"MatMul: inner dimensions of shapes {x.shape} and {y.shape} do not match")
    return ShapedArray(x.shape[:-1] + y.shape[-1:], x.dtype)


def reduced_shape(shape, axes, keep_dims):
    """Shape after reducing ``axes`` (empty = all axes)."""
    axes = set(axes) if axes else set(range(len(shape)))
    return tuple(1 if i in axes else d for i, d in enumerate(shape) if keep_dims or i not in axes)


def _reduce(name, impl, allowed, what):
    def rule(x, *, axes, keep_dims):
        check_dtype(name, x.dtype, allowed, what)
        return ShapedArray(reduced_shape(x.shape, axes, keep_dims), x.dtype)
    def kernel(x, *, axes, keep_dims):
        return impl(x, axis=tuple(axes) or None, keepdims=keep_dims)
    return Primitive(name, kernel, rule)


def _reshape_rule(x, *, shape):
    if math.prod(shape) != math.prod(x.shape):
        raise ValueError(f"Reshape: cannot reshape a tensor of shape {x.shape} into shape {shape}")
    return ShapedArray(tuple(shape), x.dtype)


def _transpose_rule(x, *, perm):
    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)


def _sigmoid(x):  # 1/(1+e^-x) written so that it cannot overflow
    half = x.dtype.type(0.5)
    return half * (np.tanh(half * x) + 1)


NUM, FLOAT = "numeric", "floating-point"

Add = _binary("Add", np.add, D.NUMERIC, NUM)
Sub = _binary("Sub", np.subtract, D.NUMERIC, NUM)
Mul = _binary("Mul", np.multiply, D.NUMERIC, NUM)
Div = _binary("Div", np.true_divide, D.FLOATING, FLOAT)
Maximum = _binary("Maximum", np.maximum, D.NUMERIC, NUM)
Minimum = _binary("Minimum", np.minimum, D.NUMERIC, NUM)
Neg = _unary("Neg", np.negative, D.NUMERIC, NUM)
ReLU = _unary("ReLU", lambda x: np.maximum(x, x.dtype.type(0)), D.NUMERIC, NUM)
Exp = _unary("Exp", np.exp, D.FLOATING, FLOAT)
Log = _unary("Log", np.log, D.FLOATING, FLOAT)
Sqrt = _unary("Sqrt", np.sqrt, D.FLOATING, FLOAT)
Sigmoid = _unary("Sigmoid", _sigmoid, D.FLOATING, FLOAT)
Tanh = _unary("Tanh", np.tanh, D.FLOATING, FLOAT)
MatMul = Primitive("MatMul", np.matmul, _matmul_rule)
# ReduceSum keeps the dtype (numpy would widen int32 to int64); ReduceMean lets numpy use its
# float32 accumulator for float16 and the result is cast back to the rule's dtype by bind.
ReduceSum = _reduce("ReduceSum", lambda x, **kw: np.sum(x, dtype=x.dtype, **kw), D.NUMERIC, NUM)
ReduceMean = _reduce("ReduceMean", np.mean, D.FLOATING, FLOAT)
Reshape = Primitive("Reshape", lambda x, *, shape: np.reshape(x, shape), _reshape_rule)
Transpose = Primitive("Transpose", lambda x, *, perm: np.transpose(x, perm), _transpose_rule)
Cast = Primitive("Cast", lambda x, *, to: x.astype(to.np), lambda x, *, to: ShapedArray(x.shape, to))
Constant = Primitive("Constant", lambda *, value: value, lambda *, value: ShapedArray.of(value))

PRIMITIVES = {p.name: p for p in (Add, Sub, Mul, Div, Maximum, Minimum, Neg, ReLU, Exp, Log, Sqrt,
                                  Sigmoid, Tanh, MatMul, ReduceSum, ReduceMean, Reshape, Transpose,
                                  Cast, Constant)}

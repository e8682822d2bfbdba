"""The primitive table: for each MindIR op, its eager numpy kernel and its abstract rule.

This is the graph contract msjitd accepts (see ir/MindirOps.td). Rules take abstract values
(ShapedArray) and *normalized* attributes, check operand dtypes and shapes, and return the
output's abstract value. Eager execution runs the same rule before the kernel, so eager and
graph capture raise the same errors. Normalizing user input (negative axes, -1 in shapes,
implicit casts, Python scalars) is the job of ``ops.functional``, not of these rules.
"""
import math
import numpy as np

from .. import dtype as D
from ..core import Constant, Primitive, ShapedArray  # noqa: F401  (Constant: part of the table)
from . import kernels


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



def _binary(name, impl, allowed, what, result=None):
    """x ⊕ y with equal dtypes, broadcast; ``result`` fixes the output dtype (comparisons: bool)."""
    def rule(x, y):
        if x.dtype is not y.dtype:
            raise TypeError(f"{name}: operands must have the same dtype, got {x.dtype} and {y.dtype}")
        check_dtype(name, x.dtype, allowed, what)
        return ShapedArray(broadcast_shapes(name, x.shape, y.shape), result or x.dtype)
    return Primitive(name, impl, rule)


def _unary(name, impl, allowed, what):
    def rule(x):
        check_dtype(name, x.dtype, allowed, what)
        return x
    return Primitive(name, impl, rule)


def _select_rule(cond, x, y):
    check_dtype("Select", cond.dtype, {D.bool_}, "a bool condition and value")
    if x.dtype is not y.dtype:
        raise TypeError(f"Select: value operands must have the same dtype, got {x.dtype} and {y.dtype}")
    shape = broadcast_shapes("Select", broadcast_shapes("Select", cond.shape, x.shape), y.shape)
    return ShapedArray(shape, x.dtype)


def _matmul_rule(x, y, *, transpose_a=False, transpose_b=False):
    if x.dtype is not y.dtype:
        raise TypeError(f"MatMul: operands must have the same dtype, got {x.dtype} and {y.dtype}")
    check_dtype("MatMul", x.dtype, D.NUMERIC, "numeric")
    if x.ndim < 2 or x.ndim != y.ndim:
        raise ValueError(f"MatMul: operands must have the same rank >= 2, got shapes {x.shape} and {y.shape}")
    if x.shape[:-2] != y.shape[:-2]:
        raise ValueError(f"MatMul: batch dimensions of shapes {x.shape} and {y.shape} differ")
    (m, k), (k2, n) = _last2(x.shape, transpose_a), _last2(y.shape, transpose_b)
    if k != k2:
        raise ValueError(f"MatMul: inner dimensions of shapes {x.shape} and {y.shape} do not match"
                         f" (transpose_a={transpose_a}, transpose_b={transpose_b})")
    return ShapedArray(x.shape[:-2] + (m, n), x.dtype)


def _last2(shape, transposed):
    return (shape[-1], shape[-2]) if transposed else shape[-2:]


def _matmul(x, y, *, transpose_a=False, transpose_b=False):
    return np.matmul(np.swapaxes(x, -1, -2) if transpose_a else x,
                     np.swapaxes(y, -1, -2) if transpose_b else y)


def reduced_shape(shape, axes, keep_dims):
    """Shape after reducing ``axes`` (empty = all axes)."""
    axes = set(axes) if axes else set(range(len(shape)))
    return tuple(1 if i in axes else d for i, d in enumerate(shape) if keep_dims or i not in axes)


def _reduce(name, impl, allowed, what, needs_elements=False):
    def rule(x, *, axes, keep_dims):
        check_dtype(name, x.dtype, allowed, what)
        if needs_elements and any(x.shape[a] == 0 for a in (axes or range(x.ndim))):
            raise ValueError(f"{name}: cannot reduce an empty axis of shape {x.shape}")
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


_erf = np.frompyfunc(math.erf, 1, 1)


# ---- NN windows -----------------------------------------------------------------------------------

def _check_window_input(name, x, extra=""):
    check_dtype(name, x.dtype, {D.float32}, "float32")
    if x.ndim != 4:
        raise ValueError(f"{name}: expected a 4-D input (N, C, H, W){extra}, got shape {x.shape}")


def _check_pairs(name, shape, **pairs):
    for key, (values, lo) in pairs.items():
        if any(v < lo for v in values):
            raise ValueError(f"{name}: {key} must be >= {lo}, got {tuple(values)} (input shape {shape})")


def _window_out(name, shape, kernel, stride, dilation, pad, what):
    oh = kernels.window_size(shape[2], kernel[0], stride[0], dilation[0], pad[0], pad[1])
    ow = kernels.window_size(shape[3], kernel[1], stride[1], dilation[1], pad[2], pad[3])
    if oh <= 0 or ow <= 0:
        raise ValueError(f"{name}: {what} {tuple(kernel)} (dilation {tuple(dilation)}) does not fit the "
                         f"input of shape {shape} padded by {tuple(pad)}")
    return oh, ow


def _conv2d_out(name, x, w, stride, dilation, pad, group):
    """Conv2D's result for input x and weight w; errors name ``name`` (Conv2D or a gradient)."""
    _check_window_input(name, x, f" and a 4-D weight (O, C/group, KH, KW), weight shape {w.shape}")
    check_dtype(name, w.dtype, {D.float32}, "float32")
    if w.ndim != 4:
        raise ValueError(f"{name}: expected a 4-D weight (O, C/group, KH, KW), got shape {w.shape} "
                         f"for input shape {x.shape}")
    _check_pairs(name, x.shape, stride=(stride, 1), dilation=(dilation, 1), pad=(pad, 0))
    c, o = x.shape[1], w.shape[0]
    if group < 1 or c % group or o % group or w.shape[1] * group != c:
        raise ValueError(f"{name}: input of shape {x.shape} and weight of shape {w.shape} do not match "
                         f"for group={group} (need C == weight.shape[1] * group and O % group == 0)")
    oh, ow = _window_out(name, x.shape, w.shape[2:], stride, dilation, pad, "kernel")
    return ShapedArray((x.shape[0], o, oh, ow), x.dtype)


def _conv2d_rule(x, w, *, stride, dilation, pad, group):
    return _conv2d_out("Conv2D", x, w, stride, dilation, pad, group)


def _pool_out(name, x, kernel, stride, pad):
    """MaxPool's / AvgPool's result for input x; errors name ``name`` (the pool or its gradient)."""
    _check_window_input(name, x)
    _check_pairs(name, x.shape, kernel=(kernel, 1), stride=(stride, 1), pad=(pad, 0))
    if max(pad[:2]) >= kernel[0] or max(pad[2:]) >= kernel[1]:
        raise ValueError(f"{name}: padding {tuple(pad)} must be smaller than the kernel {tuple(kernel)} "
                         f"(input shape {x.shape})")
    oh, ow = _window_out(name, x.shape, kernel, stride, (1, 1), pad, "kernel")
    return ShapedArray(x.shape[:2] + (oh, ow), x.dtype)


def _pool_rule(name):
    def rule(x, *, kernel, stride, pad, count_include_pad=None):
        return _pool_out(name, x, kernel, stride, pad)
    return rule


# ---- gradients of the NN windows: dy has the forward result's shape ------------------------------

def _shape_attr(name, key, shape, dims):
    """The float32 tensor an ints attribute describes (the forward operand a gradient is for)."""
    shape = tuple(shape)
    if len(shape) != 4 or not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0
                                  for d in shape):
        raise ValueError(f"{name}: {key} must be 4 non-negative ints {dims}, got {shape}")
    return ShapedArray(tuple(int(d) for d in shape), D.float32)


def _check_dy(name, dy, forward, what):
    check_dtype(name, dy.dtype, {D.float32}, "float32")
    if dy.shape != forward.shape:
        raise ValueError(f"{name}: dy of shape {dy.shape} does not match the result shape {forward.shape} "
                         f"of {what}")


def _check_conv2d_dy(name, dy, x, w, stride, dilation, pad, group):
    forward = _conv2d_out(name, x, w, stride, dilation, pad, group)
    _check_dy(name, dy, forward, f"Conv2D of input shape {x.shape} and weight shape {w.shape}")


def _check_pool_dy(name, dy, x, kernel, stride, pad):
    forward = _pool_out(name, x, kernel, stride, pad)
    _check_dy(name, dy, forward, f"{name.removesuffix('Grad')} of input shape {x.shape}")


def _conv2d_backprop_input_rule(dy, w, *, stride, dilation, pad, group, input_shape):
    x = _shape_attr("Conv2DBackpropInput", "input_shape", input_shape, "(N, C, H, W)")
    _check_conv2d_dy("Conv2DBackpropInput", dy, x, w, stride, dilation, pad, group)
    return x


def _conv2d_backprop_filter_rule(dy, x, *, stride, dilation, pad, group, filter_shape):
    w = _shape_attr("Conv2DBackpropFilter", "filter_shape", filter_shape, "(O, C/group, KH, KW)")
    _check_conv2d_dy("Conv2DBackpropFilter", dy, x, w, stride, dilation, pad, group)
    return w


def _max_pool_grad_rule(x, dy, *, kernel, stride, pad):
    _check_pool_dy("MaxPoolGrad", dy, x, kernel, stride, pad)
    return x


def _avg_pool_grad_rule(dy, *, kernel, stride, pad, count_include_pad, input_shape):
    x = _shape_attr("AvgPoolGrad", "input_shape", input_shape, "(N, C, H, W)")
    _check_pool_dy("AvgPoolGrad", dy, x, kernel, stride, pad)
    return x


# ---- data movement --------------------------------------------------------------------------------

def _broadcast_to_rule(x, *, shape):
    shape = tuple(shape)
    lead = len(shape) - x.ndim
    if lead < 0 or any(d != s and d != 1 for d, s in zip(x.shape, shape[lead:])) or min(shape, default=0) < 0:
        raise ValueError(f"BroadcastTo: cannot broadcast a tensor of shape {x.shape} to shape {shape}")
    return ShapedArray(shape, x.dtype)


def _tile_rule(x, *, multiples):
    if len(multiples) != x.ndim or any(m < 0 for m in multiples):
        raise ValueError(f"Tile: multiples {tuple(multiples)} must be one non-negative int per dim "
                         f"of shape {x.shape}")
    return ShapedArray(tuple(d * m for d, m in zip(x.shape, multiples)), x.dtype)


def _strided_slice_rule(x, *, begin, end, strides):
    if not len(begin) == len(end) == len(strides) == x.ndim:
        raise ValueError(f"StridedSlice: begin {tuple(begin)}, end {tuple(end)} and strides {tuple(strides)} "
                         f"need one entry per dim of shape {x.shape}")
    out = []
    for d, b, e, s in zip(x.shape, begin, end, strides):
        ok = s > 0 and 0 <= b <= e <= d or s < 0 and -1 <= e <= b <= d - 1
        if not ok:
            raise ValueError(f"StridedSlice: begin {tuple(begin)}, end {tuple(end)}, strides {tuple(strides)} "
                             f"are not normalized for shape {x.shape}")
        out.append(max(0, -(-(e - b) // s)))
    return ShapedArray(tuple(out), x.dtype)


def _strided_slice(x, *, begin, end, strides):
    index = tuple(slice(b, None if e < 0 else e, s) if b != e else slice(0, 0)
                  for b, e, s in zip(begin, end, strides))
    return x[index].copy()  # a copy: a view would see later in-place updates of x


def _concat_rule(*xs, axis):
    if not xs:
        raise ValueError("Concat: needs at least one input")
    first = xs[0]
    shapes = [t.shape for t in xs]
    if any(t.dtype is not first.dtype for t in xs):
        raise TypeError(f"Concat: inputs must have the same dtype, got {[str(t.dtype) for t in xs]}")
    if not 0 <= axis < first.ndim:
        raise ValueError(f"Concat: axis {axis} is out of range for inputs of shapes {shapes}")
    if any(t.ndim != first.ndim or t.shape[:axis] + t.shape[axis + 1:] != first.shape[:axis] + first.shape[axis + 1:]
           for t in xs):
        raise ValueError(f"Concat: inputs of shapes {shapes} differ outside axis {axis}")
    size = sum(t.shape[axis] for t in xs)
    return ShapedArray(first.shape[:axis] + (size,) + first.shape[axis + 1:], first.dtype)


def _gather_rule(params, indices, *, axis):
    check_dtype("Gather", indices.dtype, {D.int32, D.int64}, "int32 or int64 index")
    if not 0 <= axis < params.ndim:
        raise ValueError(f"Gather: axis {axis} is out of range for params of shape {params.shape}")
    return ShapedArray(params.shape[:axis] + indices.shape + params.shape[axis + 1:], params.dtype)


def _gather(params, indices, *, axis):
    size = params.shape[axis]
    if indices.size and (indices.min() < -size or indices.max() >= size):
        bad = indices[(indices < -size) | (indices >= size)].flat[0]
        raise IndexError(f"Gather: index {bad} is out of range for axis {axis} of size {size} "
                         f"(params shape {params.shape})")
    return np.take(params, indices, axis=axis)


def _triangle_rule(name):
    def rule(x, *, diagonal):
        if x.ndim < 2:
            raise ValueError(f"{name}: expected a tensor of rank >= 2, got shape {x.shape}")
        return x
    return rule


NUM, FLOAT, ANY, BOOL = "numeric", "floating-point", "", "bool"
_ALL = frozenset(D.ALL)

Add = _binary("Add", np.add, D.NUMERIC, NUM)
Sub = _binary("Sub", np.subtract, D.NUMERIC, NUM)
Mul = _binary("Mul", np.multiply, D.NUMERIC, NUM)
Div = _binary("Div", np.true_divide, D.FLOATING, FLOAT)
Pow = _binary("Pow", np.power, D.FLOATING, FLOAT)
Maximum = _binary("Maximum", np.maximum, D.NUMERIC, NUM)
Minimum = _binary("Minimum", np.minimum, D.NUMERIC, NUM)
Equal = _binary("Equal", np.equal, _ALL, ANY, D.bool_)
NotEqual = _binary("NotEqual", np.not_equal, _ALL, ANY, D.bool_)
Less = _binary("Less", np.less, D.NUMERIC, NUM, D.bool_)
LessEqual = _binary("LessEqual", np.less_equal, D.NUMERIC, NUM, D.bool_)
Greater = _binary("Greater", np.greater, D.NUMERIC, NUM, D.bool_)
GreaterEqual = _binary("GreaterEqual", np.greater_equal, D.NUMERIC, NUM, D.bool_)
LogicalAnd = _binary("LogicalAnd", np.logical_and, {D.bool_}, BOOL)
LogicalOr = _binary("LogicalOr", np.logical_or, {D.bool_}, BOOL)
Select = Primitive("Select", np.where, _select_rule)
Neg = _unary("Neg", np.negative, D.NUMERIC, NUM)
ReLU = _unary("ReLU", lambda x: np.maximum(x, x.dtype.type(0)), D.NUMERIC, NUM)
Abs = _unary("Abs", np.abs, D.NUMERIC, NUM)
Exp = _unary("Exp", np.exp, D.FLOATING, FLOAT)
Log = _unary("Log", np.log, D.FLOATING, FLOAT)
Sqrt = _unary("Sqrt", np.sqrt, D.FLOATING, FLOAT)
Rsqrt = _unary("Rsqrt", lambda x: np.reciprocal(np.sqrt(x)), D.FLOATING, FLOAT)
Sigmoid = _unary("Sigmoid", _sigmoid, D.FLOATING, FLOAT)
Tanh = _unary("Tanh", np.tanh, D.FLOATING, FLOAT)
Sin = _unary("Sin", np.sin, D.FLOATING, FLOAT)
Cos = _unary("Cos", np.cos, D.FLOATING, FLOAT)
Erf = _unary("Erf", lambda x: _erf(x).astype(x.dtype), D.FLOATING, FLOAT)
LogicalNot = _unary("LogicalNot", np.logical_not, {D.bool_}, BOOL)
Cast = Primitive("Cast", lambda x, *, to: x.astype(to.np), lambda x, *, to: ShapedArray(x.shape, to))
# ReduceSum keeps the dtype (numpy would widen int32 to int64); ReduceMean lets numpy use its
# float32 accumulator for float16 and the result is cast back to the rule's dtype by bind.
ReduceSum = _reduce("ReduceSum", lambda x, **kw: np.sum(x, dtype=x.dtype, **kw), D.NUMERIC, NUM)
ReduceMean = _reduce("ReduceMean", np.mean, D.FLOATING, FLOAT)
ReduceMax = _reduce("ReduceMax", np.max, D.NUMERIC, NUM, needs_elements=True)
ReduceMin = _reduce("ReduceMin", np.min, D.NUMERIC, NUM, needs_elements=True)
MatMul = Primitive("MatMul", _matmul, _matmul_rule)
Conv2D = Primitive("Conv2D", kernels.conv2d, _conv2d_rule)
MaxPool = Primitive("MaxPool", kernels.max_pool, _pool_rule("MaxPool"))
AvgPool = Primitive("AvgPool", kernels.avg_pool, _pool_rule("AvgPool"))
Conv2DBackpropInput = Primitive("Conv2DBackpropInput", kernels.conv2d_backprop_input, _conv2d_backprop_input_rule)
Conv2DBackpropFilter = Primitive("Conv2DBackpropFilter", kernels.conv2d_backprop_filter, _conv2d_backprop_filter_rule)
MaxPoolGrad = Primitive("MaxPoolGrad", kernels.max_pool_grad, _max_pool_grad_rule)
AvgPoolGrad = Primitive("AvgPoolGrad", kernels.avg_pool_grad, _avg_pool_grad_rule)
Reshape = Primitive("Reshape", lambda x, *, shape: np.reshape(x, shape), _reshape_rule)
Transpose = Primitive("Transpose", lambda x, *, perm: np.transpose(x, perm), _transpose_rule)
BroadcastTo = Primitive("BroadcastTo", lambda x, *, shape: np.array(np.broadcast_to(x, shape)), _broadcast_to_rule)
Tile = Primitive("Tile", lambda x, *, multiples: np.tile(x, multiples), _tile_rule)
StridedSlice = Primitive("StridedSlice", _strided_slice, _strided_slice_rule)
Concat = Primitive("Concat", lambda *xs, axis: np.concatenate(xs, axis), _concat_rule)
Gather = Primitive("Gather", _gather, _gather_rule)
Triu = Primitive("Triu", lambda x, *, diagonal: np.triu(x, diagonal), _triangle_rule("Triu"))
Tril = Primitive("Tril", lambda x, *, diagonal: np.tril(x, diagonal), _triangle_rule("Tril"))
StopGradient = Primitive("StopGradient", np.copy, lambda x: x)  # identity; blocks autodiff


PRIMITIVES = {p.name: p for p in globals().values() if isinstance(p, Primitive)}

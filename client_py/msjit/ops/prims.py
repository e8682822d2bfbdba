"""The core primitives, declared once: for each MindIR op its eager numpy kernel, its abstract
rule and its contract (operands, attributes with kinds, accepted dtypes, result, doc).

These are the only ops msjitd compiles. tests/py/test_primitive_contract.py checks every
declaration against the daemon's ODS definitions (ir/MindirOps.td) and on a shared case list
against the daemon itself; tools/gen_ops_md.py renders proto/OPS.md from them (``make gen``).
A new primitive is worth it only when its decomposition would be much slower: say why in `why`.

Rules take abstract values (ShapedArray) and *normalized* attributes, check operand dtypes and
shapes, and return the output's abstract value. Eager execution runs the same rule before the
kernel, so eager and graph capture raise the same errors. Normalizing user input (negative axes,
-1 in shapes, implicit casts, Python scalars) is the job of ``ops.functional``, not of these rules.
"""
import math
import numpy as np

from .. import dtype as D
from ..core import Constant, Primitive, ShapedArray  # noqa: F401  (Constant: part of the table)
from . import kernels
from . import prim_rules as R
from .prim_rules import ANY, BOOL, F32, FLOAT, INDEX, NUMERIC, check_dtype

SECTIONS = ("Elementwise", "Reductions", "Linear algebra and NN", "Gradient kernels", "Data movement",
            "Gradients", "Literals")


def ex(*shapes, **attrs):
    """A valid call (operand shapes, attrs): the declaration's ``example``."""
    return shapes, attrs


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


def _same_dtype(name, x, y, what="operands"):
    if x.dtype is not y.dtype:
        raise TypeError(f"{name}: {what} must have the same dtype, got {x.dtype} and {y.dtype}")


def _binary(name, impl, dtypes, doc, result=None, why=""):
    """x ⊕ y with equal dtypes, broadcast; ``result`` fixes the output dtype (comparisons: bool)."""
    def rule(x, y):
        _same_dtype(name, x, y)
        check_dtype(name, x.dtype, dtypes)
        return ShapedArray(broadcast_shapes(name, x.shape, y.shape), result or x.dtype)
    return Primitive(name, impl, rule, dtypes=dtypes, operands=("x", "y"), doc=f"elementwise {doc}", why=why,
                     out=f"broadcast(x, y), {'bool' if result else 'x.dtype'}", example=ex((2, 3), (3,)),
                     section="Elementwise")


def _unary(name, impl, dtypes, doc, why=""):
    def rule(x):
        check_dtype(name, x.dtype, dtypes)
        return x
    return Primitive(name, impl, rule, dtypes=dtypes, doc=doc, why=why, out="x", example=ex((2, 3)),
                     section="Elementwise")


def _select_rule(cond, x, y):
    check_dtype("Select", cond.dtype, BOOL)
    _same_dtype("Select", x, y, "value operands")
    shape = broadcast_shapes("Select", broadcast_shapes("Select", cond.shape, x.shape), y.shape)
    return ShapedArray(shape, x.dtype)


def _matmul_rule(x, y, *, transpose_a=False, transpose_b=False):
    _same_dtype("MatMul", x, y)
    check_dtype("MatMul", x.dtype, NUMERIC)
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


def _reduce(name, impl, dtypes, doc, needs_elements=False, why=""):
    def rule(x, *, axes, keep_dims):
        check_dtype(name, x.dtype, dtypes)
        if list(axes) != sorted(set(axes)) or any(not 0 <= a < x.ndim for a in axes):
            raise ValueError(f"{name}: axes {tuple(axes)} must be sorted, unique and in [0, {x.ndim})")
        if needs_elements and any(x.shape[a] == 0 for a in (axes or range(x.ndim))):
            raise ValueError(f"{name}: cannot reduce an empty axis of shape {x.shape}")
        return ShapedArray(reduced_shape(x.shape, axes, keep_dims), x.dtype)

    def kernel(x, *, axes, keep_dims):
        return impl(x, axis=tuple(axes) or None, keepdims=keep_dims)
    empty = "; an empty axis is an error" if needs_elements else ""
    return Primitive(name, kernel, rule, (("axes", "ints"), ("keep_dims", "bool")), dtypes, doc=doc + empty,
                     why=why, out="x.shape without `axes` (kept as 1 with `keep_dims`), x.dtype",
                     example=ex((2, 3, 4), axes=(0, 2), keep_dims=False), section="Reductions")


def _reshape_rule(x, *, shape):
    if min(shape, default=0) < 0 or math.prod(shape) != math.prod(x.shape):
        raise ValueError(f"Reshape: cannot reshape a tensor of shape {x.shape} into shape {tuple(shape)}")
    return ShapedArray(tuple(shape), x.dtype)


def _transpose_rule(x, *, perm):
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"Transpose: perm {tuple(perm)} is not a permutation of the dims of shape {x.shape}")
    return ShapedArray(tuple(x.shape[p] for p in perm), x.dtype)


def _sigmoid(x):  # 1/(1+e^-x) written so that it cannot overflow
    half = x.dtype.type(0.5)
    return half * (np.tanh(half * x) + 1)


_erf = np.frompyfunc(math.erf, 1, 1)


def _avg_pool(x, *, kernel, stride, pad, count_include_pad=False):  # optional, false as in msjitd
    return kernels.avg_pool(x, kernel=kernel, stride=stride, pad=pad, count_include_pad=count_include_pad)


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
    check_dtype("Gather", indices.dtype, INDEX)
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


def _triangle(name, impl, keep):
    def rule(x, *, diagonal):
        if x.ndim < 2:
            raise ValueError(f"{name}: expected a tensor of rank >= 2, got shape {x.shape}")
        return x
    return Primitive(name, lambda x, *, diagonal: impl(x, diagonal), rule, (("diagonal", "int"),), ANY,
                     doc=f"keep the elements with col - row {keep} `diagonal` of the last two dims, zero "
                         "elsewhere; rank >= 2", why="a mask from index comparisons needs iota constants "
                                                   "of the matrix shape", out="x", example=ex((3, 4), diagonal=1),
                     section="Data movement")


def _movement(name, impl, rule, attrs, doc, out, example, why=""):
    """A data-movement primitive: any dtype, one operand."""
    return Primitive(name, impl, rule, attrs, ANY, doc=doc, why=why, out=out, example=example,
                     section="Data movement")


# ---- the table ------------------------------------------------------------------------------------

_CONV = (("stride", "ints"), ("dilation", "ints"), ("pad", "ints"), ("group", "int"))
_POOL = (("kernel", "ints"), ("stride", "ints"), ("pad", "ints"))
_CONV_EX = dict(stride=(1, 1), dilation=(1, 1), pad=(1, 1, 1, 1), group=2)
_POOL_EX = dict(kernel=(2, 2), stride=(2, 2), pad=(0, 1, 0, 1))
_VENDOR = "the vendor kernel (oneDNN), far faster than any decomposition"

Add = _binary("Add", np.add, NUMERIC, "x + y")
Sub = _binary("Sub", np.subtract, NUMERIC, "x - y")
Mul = _binary("Mul", np.multiply, NUMERIC, "x * y")
Div = _binary("Div", np.true_divide, FLOAT, "true division x / y")
Pow = _binary("Pow", np.power, FLOAT, "x ** y")
_EXTREMUM = "one op where Select of a comparison is two plus a bool tensor, and its gradient splits ties"
_COMPARE = "one compare where a strict compare, Equal and LogicalOr are three"
Maximum = _binary("Maximum", np.maximum, NUMERIC, "max(x, y)", why=_EXTREMUM)
Minimum = _binary("Minimum", np.minimum, NUMERIC, "min(x, y)", why=_EXTREMUM)
Equal = _binary("Equal", np.equal, ANY, "x == y", D.bool_)
NotEqual = _binary("NotEqual", np.not_equal, ANY, "x != y", D.bool_, why="one compare, not Equal + LogicalNot")
Less = _binary("Less", np.less, NUMERIC, "x < y", D.bool_)
LessEqual = _binary("LessEqual", np.less_equal, NUMERIC, "x <= y", D.bool_, why=_COMPARE)
Greater = _binary("Greater", np.greater, NUMERIC, "x > y", D.bool_)
GreaterEqual = _binary("GreaterEqual", np.greater_equal, NUMERIC, "x >= y", D.bool_, why=_COMPARE)
LogicalAnd = _binary("LogicalAnd", np.logical_and, BOOL, "x and y")
LogicalOr = _binary("LogicalOr", np.logical_or, BOOL, "x or y")
Select = Primitive("Select", np.where, _select_rule, dtypes=ANY, operands=(("cond", BOOL), "x", "y"),
                   doc="elementwise cond ? x : y", out="broadcast(cond, x, y), x.dtype",
                   example=ex((2, 3), (2, 1), (3,)), section="Elementwise")
Neg = _unary("Neg", np.negative, NUMERIC, "elementwise -x")
ReLU = _unary("ReLU", lambda x: np.maximum(x, x.dtype.type(0)), NUMERIC, "elementwise max(x, 0)",
              why="Maximum(x, 0) needs a broadcast zero; the hottest activation, and its gradient is a mask")
Abs = _unary("Abs", np.abs, NUMERIC, "elementwise |x|", why="one op where Select(Less(x, 0), Neg(x), x) is three")
Exp = _unary("Exp", np.exp, FLOAT, "elementwise e^x")
Log = _unary("Log", np.log, FLOAT, "elementwise natural logarithm")
Sqrt = _unary("Sqrt", np.sqrt, FLOAT, "elementwise square root")
Rsqrt = _unary("Rsqrt", lambda x: np.reciprocal(np.sqrt(x)), FLOAT, "elementwise 1 / sqrt(x)",
               why="one instruction sequence in normalization layers where Div(1, Sqrt) is two ops")
Sigmoid = _unary("Sigmoid", _sigmoid, FLOAT, "elementwise 1 / (1 + e^-x)",
                 why="one stable kernel where Exp/Add/Div are three ops that overflow for large -x")
Tanh = _unary("Tanh", np.tanh, FLOAT, "elementwise hyperbolic tangent")
Sin = _unary("Sin", np.sin, FLOAT, "elementwise sine")
Cos = _unary("Cos", np.cos, FLOAT, "elementwise cosine")
Erf = _unary("Erf", lambda x: _erf(x).astype(x.dtype), FLOAT, "elementwise error function",
             why="GELU needs it and no short exact decomposition over the other primitives exists")
LogicalNot = _unary("LogicalNot", np.logical_not, BOOL, "elementwise not x")
Cast = Primitive("Cast", lambda x, *, to: x.astype(to.np), lambda x, *, to: ShapedArray(x.shape, to),
                 (("to", "dtype"),), ANY, doc="convert to dtype `to` (numpy astype semantics)",
                 out="x.shape, `to`", example=ex((2, 3), to=D.float16), section="Elementwise")

# ReduceSum keeps the dtype (numpy would widen int32 to int64); ReduceMean lets numpy use its
# float32 accumulator for float16 and the result is cast back to the rule's dtype by bind.
ReduceSum = _reduce("ReduceSum", lambda x, **kw: np.sum(x, dtype=x.dtype, **kw), NUMERIC, "sum over `axes` "
                    "(empty = all axes), keeping the dtype")
ReduceMean = _reduce("ReduceMean", np.mean, FLOAT, "mean over `axes` (empty = all axes)",
                     why="one pass where ReduceSum and a Mul by 1/count are two")
ReduceMax = _reduce("ReduceMax", np.max, NUMERIC, "max over `axes` (empty = all axes)", needs_elements=True)
ReduceMin = _reduce("ReduceMin", np.min, NUMERIC, "min over `axes` (empty = all axes)", needs_elements=True)

MatMul = Primitive("MatMul", _matmul, _matmul_rule, (("transpose_a", "bool?"), ("transpose_b", "bool?")),
                   NUMERIC, operands=("x", "y"), out="batch + (m, n), x.dtype",
                   doc="matrix product over the last two dims of operands of equal rank >= 2 and equal batch "
                       "dims; `transpose_a`/`transpose_b` swap the last two dims of that operand first",
                   why="BLAS kernel; Mul + ReduceSum would materialize an m*k*n tensor",
                   example=ex((2, 3), (3, 4)), section="Linear algebra and NN")
Conv2D = Primitive("Conv2D", kernels.conv2d, R.conv2d_rule, _CONV, F32, operands=("x", "w"),
                   doc="2-D convolution of x (N, C, H, W) with w (O, C/group, KH, KW); `pad` is [top, bottom, "
                       "left, right] (pad_mode is resolved by the client); `group` >= 1 divides C and O",
                   out="(N, O, OH, OW), OH = (H + top + bottom - dh*(KH-1) - 1) // sh + 1", why=_VENDOR,
                   example=ex((1, 4, 5, 5), (6, 2, 3, 3), **_CONV_EX), section="Linear algebra and NN")
MaxPool = Primitive("MaxPool", kernels.max_pool, R.max_pool_rule, _POOL, F32,
                    doc="2-D max pooling of x (N, C, H, W); every pad is smaller than the kernel, so padding "
                        "never wins a max", out="(N, C, OH, OW) as Conv2D with dilation 1", why=_VENDOR,
                    example=ex((1, 2, 5, 5), **_POOL_EX), section="Linear algebra and NN")
AvgPool = Primitive("AvgPool", _avg_pool, R.avg_pool_rule, _POOL + (("count_include_pad", "bool?"),), F32,
                    doc="2-D average pooling as MaxPool; `count_include_pad` (default false) counts padding "
                        "in the divisor", out="as MaxPool", why=_VENDOR,
                    example=ex((1, 2, 5, 5), count_include_pad=False, **_POOL_EX), section="Linear algebra and NN")

Conv2DBackpropInput = Primitive(
    "Conv2DBackpropInput", kernels.conv2d_backprop_input, R.conv2d_backprop_input_rule,
    _CONV + (("input_shape", "ints"),), F32, operands=("dy", "w"), section="Gradient kernels",
    doc="the gradient of Conv2D with respect to its input; dy has Conv2D's result shape", out="`input_shape`",
    why=_VENDOR, example=ex((1, 6, 5, 5), (6, 2, 3, 3), input_shape=(1, 4, 5, 5), **_CONV_EX))
Conv2DBackpropFilter = Primitive(
    "Conv2DBackpropFilter", kernels.conv2d_backprop_filter, R.conv2d_backprop_filter_rule,
    _CONV + (("filter_shape", "ints"),), F32, operands=("dy", "x"), section="Gradient kernels",
    doc="the gradient of Conv2D with respect to its weight; dy has Conv2D's result shape",
    out="`filter_shape`", why=_VENDOR, example=ex((1, 6, 5, 5), (1, 4, 5, 5), filter_shape=(6, 2, 3, 3), **_CONV_EX))
MaxPoolGrad = Primitive(
    "MaxPoolGrad", kernels.max_pool_grad, R.max_pool_grad_rule, _POOL, F32, operands=("x", "dy"),
    doc="each dy element goes to the first maximum of its window (row-major), summed where windows overlap",
    out="x", why=_VENDOR, example=ex((1, 2, 5, 5), (1, 2, 3, 3), **_POOL_EX), section="Gradient kernels")
AvgPoolGrad = Primitive(
    "AvgPoolGrad", kernels.avg_pool_grad, R.avg_pool_grad_rule,
    _POOL + (("count_include_pad", "bool"), ("input_shape", "ints")), F32, operands=("dy",),
    doc="each dy element spread evenly over its window's divisor", out="`input_shape`", why=_VENDOR,
    example=ex((1, 2, 3, 3), count_include_pad=True, input_shape=(1, 2, 5, 5), **_POOL_EX), section="Gradient kernels")

Reshape = _movement("Reshape", lambda x, *, shape: np.reshape(x, shape), _reshape_rule, (("shape", "ints"),),
                    "same elements, new shape (resolved: no -1)", "`shape`, x.dtype", ex((2, 3), shape=(3, 2)))
Transpose = _movement("Transpose", lambda x, *, perm: np.transpose(x, perm), _transpose_rule, (("perm", "ints"),),
                      "permute dims: result dim i is x's dim perm[i]", "permuted x.shape",
                      ex((2, 3, 4), perm=(2, 0, 1)))
BroadcastTo = _movement("BroadcastTo", lambda x, *, shape: np.array(np.broadcast_to(x, shape)), _broadcast_to_rule,
                        (("shape", "ints"),), "numpy broadcast of x to `shape`", "`shape`, x.dtype",
                        ex((3, 1), shape=(2, 3, 4)), why="free inside a fused loop, where Tile would copy")
Tile = _movement("Tile", lambda x, *, multiples: np.tile(x, multiples), _tile_rule, (("multiples", "ints"),),
                 "repeat x `multiples[i]` >= 0 times along dim i", "x.shape * multiples", ex((2, 3), multiples=(2, 1)))
StridedSlice = _movement(
    "StridedSlice", _strided_slice, _strided_slice_rule, (("begin", "ints"), ("end", "ints"), ("strides", "ints")),
    "x[begin:end:strides] per dim, normalized: stride != 0; stride > 0: 0 <= begin <= end <= dim; "
    "stride < 0: -1 <= end <= begin <= dim - 1 (end -1 = through index 0)",
    "max(0, ceil((end - begin) / stride)) per dim", ex((4, 5), begin=(1, 4), end=(4, -1), strides=(2, -2)))
Concat = Primitive("Concat", lambda *xs, axis: np.concatenate(xs, axis), _concat_rule, (("axis", "int"),), ANY,
                   operands=("*xs",), doc="join 1+ tensors of equal dtype and rank along `axis` (non-negative)",
                   out="the inputs' shape with the `axis` dims summed", example=ex((2, 3), (2, 1), axis=1),
                   section="Data movement")
Gather = Primitive("Gather", _gather, _gather_rule, (("axis", "int"),), ANY, operands=("params", ("indices", INDEX)),
                   doc="slices of params along `axis` (non-negative) at indices; negative indices count from the "
                       "end, out-of-range ones are clamped (the client checks ranges eagerly)",
                   out="params.shape[:axis] + indices.shape + params.shape[axis+1:]",
                   example=ex((4, 3), (2, 5), axis=0), section="Data movement")
Triu = _triangle("Triu", np.triu, ">=")
Tril = _triangle("Tril", np.tril, "<=")

StopGradient = Primitive("StopGradient", np.copy, lambda x: x, dtypes=ANY, out="x", example=ex((2, 3)),
                         doc="identity whose result carries no gradient back to x",
                         why="marks where reverse-mode autodiff stops", section="Gradients")


PRIMITIVES = {p.name: p for p in globals().values() if isinstance(p, Primitive)}

"""MindSpore's primitive classes (``ops.Mul()``, ``ops.MatMul(transpose_b=True)``, ...).

An instance holds the class's construction attributes and, when called, applies the functional
op with them, eagerly or under capture alike (capture treats instances as op calls). The classes
are generated from one table below instead of being written out one by one. Entries name their
functional op as a string, looked up in ``msjit.ops`` when called, so a class whose op another
module adds later works as soon as that op exists (until then, calling it is a
NotImplementedError naming the op).
"""
import functools
import logging
import math
import sys

import numpy as np

from .. import dtype as D
from .. import ops as _ops   # (partially initialized here; only read when a class is called)
from ..core import Tracer, current_builder

logger = logging.getLogger(__name__)


class PrimitiveOp:
    """Base of the generated primitive classes. ``attrs``: the construction attributes."""

    __slots__ = ("attrs",)
    _defaults = {}

    def __init__(self, *args, **kwargs):
        names = list(self._defaults)
        if len(args) > len(names) or set(kwargs) - set(names):
            raise TypeError(f"{type(self).__name__}() takes attributes {names or 'none'}, got "
                            f"{len(args)} positional and {sorted(kwargs)}")
        self.attrs = {**self._defaults, **dict(zip(names, args)), **kwargs}

    def __call__(self, *args, **kwargs):
        return self._apply(*args, **kwargs, **self.attrs)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.attrs.items())})"


def _o(name):
    """The functional op ``msjit.ops.<name>``, looked up when a class is called."""
    fn = getattr(_ops, name, None)
    if fn is None:
        raise NotImplementedError(f"ops.{name} is not implemented in msjit yet")
    return fn


def _same(name):
    """Call the op with the call's arguments and the attributes as keywords."""
    return lambda *args, **attrs: _o(name)(*args, **attrs)


def _reduce(name):
    return lambda x, axis=(), *, keep_dims, **_: _o(name)(x, None if axis == () else axis, keep_dims)


def _cumulative(name):
    def apply(x, axis, *, exclusive, reverse):
        if reverse:
            x = _o("flip")(x, (axis,))
        out = _o(name)(x, axis)
        if exclusive:   # shift by one along axis: identity element first
            n = x.shape[axis]
            pad = _o("ones_like" if name == "cumprod" else "zeros_like")(_o("narrow")(x, axis, 0, 1))
            out = _o("concat")((pad, _o("narrow")(out, axis, 0, n - 1)), axis)
        return _o("flip")(out, (axis,)) if reverse else out
    return apply


def _print(*args):
    """Print's values (MindSpore prints eagerly; a compiled graph cannot print)."""
    if current_builder() is not None or any(type(a) is Tracer for a in args):
        logger.warning("ops.Print under jit: msjit does not print from compiled graphs; the values "
                       "are not printed (call it outside jit, or return the values)")
        return None
    sys.stdout.write(" ".join(str(a) for a in args) + "\n")
    return None


def _with_value(arg, reduce):
    """(int64 index, value) of the extreme along ``axis``, as ArgMaxWithValue returns."""
    return lambda x, *, axis, keep_dims: (_o("cast")(_o(arg)(x, axis, keep_dims), D.int64),
                                          _o(reduce)(x, axis, keep_dims))


def _apply_momentum(var, accum, lr, grad, momentum, *, use_locking, use_nesterov, gradient_scale):
    """accum = accum * momentum + grad; var -= lr * (grad + accum * momentum if nesterov else accum)."""
    if gradient_scale != 1.0:
        grad = _o("mul")(grad, gradient_scale)
    accum = _o("assign")(accum, _o("add")(_o("mul")(accum, momentum), grad))
    step = _o("add")(grad, _o("mul")(accum, momentum)) if use_nesterov else accum
    return _o("assign")(var, _o("sub")(var, _o("mul")(step, lr)))


def _summary(name, value):
    """The summary ops record for MindSpore's SummaryCollector; msjit has none: a no-op."""
    return None


def _bias_add(x, bias, *, data_format):
    axis = x.ndim - 1 if data_format == "NHWC" else 1
    return _o("add")(x, _o("reshape")(bias, (-1,) + (1,) * (x.ndim - 1 - axis)))


def _l2_normalize(x, *, axis, epsilon):
    norm2 = _o("sum")(_o("square")(x), axis, True)
    return _o("div")(x, _o("sqrt")(_o("maximum")(norm2, epsilon)))


def _softmax_ce(logits, labels):
    """(per-sample loss, gradient of the loss w.r.t. the logits), as the primitive returns."""
    loss = _o("neg")(_o("sum")(_o("mul")(labels, _o("log_softmax")(logits, -1)), -1))
    return loss, _o("sub")(_o("softmax")(logits, -1), labels)


def _sparse_softmax_ce(logits, labels, *, is_grad):
    dense = _o("one_hot")(labels, logits.shape[-1], 1.0, 0.0)
    loss, grad = _softmax_ce(logits, _o("cast")(dense, logits.dtype))
    return _o("div")(grad, logits.shape[0]) if is_grad else _o("mean")(loss)


def _conv2d(x, w, *, out_channel, kernel_size, mode, pad_mode, pad, stride, dilation, group, data_format):
    return _o("conv2d")(x, w, None, _hw(stride), pad_mode.lower(), pad, _hw(dilation), group)


def _hw(v):
    """A primitive's (1, 1, h, w) / (h, w) / int stride or dilation as (h, w)."""
    return v if isinstance(v, int) else tuple(v)[-2:]


def _pool(name):
    def apply(x, *, kernel_size, strides, pad_mode, data_format):
        if pad_mode.lower() != "valid":
            raise ValueError(f"{name}: pad_mode {pad_mode!r} is not supported by msjit; use 'valid'")
        return _o(name)(x, _hw(kernel_size), _hw(strides))
    return apply


def _tensor(value, dtype=None):
    from ..tensor import Tensor   # (a constant: its value is known under capture too)
    return Tensor(value, dtype)


def _param_scatter(op, rows):
    """A Parameter-updating scatter: ``assign(var, op(var, indices, updates))``; ``rows``: the
    indices are first-axis rows (ScatterUpdate), else index tuples along their last axis (ScatterNd*)."""
    def apply(var, indices, updates, **_):
        fn = _o(op) if isinstance(op, str) else op
        return _o("assign")(var, fn(var, _o("expand_dims")(indices, -1) if rows else indices, updates))
    return apply


def _rows(indices):
    """InplaceUpdate/Add/Sub's ``indices`` attribute (an int or a tuple) as an int32 tensor."""
    return _tensor((indices,) if isinstance(indices, int) else tuple(indices), D.int32)


def _tensor_scatter_sub(x, indices, updates):
    return _o("tensor_scatter_add")(x, indices, _o("neg")(updates))


def _no_nan(name, x, y):
    """``x / y`` or ``x * y``, 0 where ``y`` is 0 (the division by a safe 1 there keeps the
    unselected branch, and its gradient, finite)."""
    zero = _o("equal")(y, 0)
    safe = _o("where")(zero, _o("ones_like")(y), y) if name == "div" else y
    return _o("where")(zero, _o("zeros_like")(_o(name)(x, safe)), _o(name)(x, safe))


def _nll_loss(logits, labels, weight, *, reduction, ignore_index):
    """(loss, total weight of the counted samples), as MindSpore's NLLLoss primitive returns."""
    loss = _o("nll_loss")(logits, labels, weight, ignore_index, reduction)
    counted = _o("cast")(_o("not_equal")(labels, ignore_index), weight.dtype)
    return loss, _o("sum")(_o("mul")(_o("gather")(weight, _o("mul")(labels, _o("cast")(counted, labels.dtype)), 0),
                                     counted))


def _embedding_lookup(params, indices, offset):
    """Rows ``indices - offset`` of ``params``; zeros for indices outside them."""
    rows = _o("sub")(indices, offset)
    inside = _o("logical_and")(_o("greater_equal")(rows, 0), _o("less")(rows, params.shape[0]))
    picked = _o("gather")(params, _o("where")(inside, rows, _o("zeros_like")(rows)), 0)
    keep = _o("reshape")(_o("cast")(inside, params.dtype), tuple(inside.shape) + (1,) * (params.ndim - 1))
    return _o("mul")(picked, keep)


def _layer_norm(x, gamma, beta, *, begin_norm_axis, begin_params_axis, epsilon):
    """(y, mean, variance) normalizing the axes from ``begin_norm_axis`` on (the statistics keep them)."""
    axes = tuple(range(begin_norm_axis % x.ndim, x.ndim))
    mean = _o("mean")(x, axes, True)
    centered = _o("sub")(x, mean)
    var = _o("mean")(_o("square")(centered), axes, True)
    y = _o("add")(_o("mul")(_o("mul")(centered, _o("rsqrt")(_o("add")(var, epsilon))), gamma), beta)
    return y, mean, var


_NO = {}
_KD = {"keep_dims": False}
_TRANSPOSE = {"transpose_a": False, "transpose_b": False}
_TABLE = {  # class name -> (call: op name or adapter taking the attrs as keywords, attrs with defaults)
    # elementwise, the functional op as it is
    **{cls: (_same(fn), _NO) for cls, fn in {
        "Add": "add", "Sub": "sub", "Mul": "mul", "Div": "div", "RealDiv": "div", "Pow": "pow",
        "Maximum": "maximum", "Minimum": "minimum", "Equal": "equal", "NotEqual": "not_equal", "Less": "less",
        "LessEqual": "less_equal", "Greater": "greater", "GreaterEqual": "greater_equal",
        "LogicalAnd": "logical_and", "LogicalOr": "logical_or", "LogicalNot": "logical_not", "Neg": "neg",
        "ReLU": "relu", "Abs": "abs", "Exp": "exp", "Log": "log", "Sqrt": "sqrt", "Rsqrt": "rsqrt",
        "Square": "square", "Sigmoid": "sigmoid", "Tanh": "tanh", "Sin": "sin", "Cos": "cos", "Erf": "erf",
        "Erfc": "erfc", "Floor": "floor", "Ceil": "ceil", "FloorDiv": "floor_divide", "FloorMod": "remainder",
        "Mod": "fmod", "Sign": "sign", "Reciprocal": "reciprocal", "Sinh": "sinh", "Cosh": "cosh", "Tan": "tan",
        "Atan": "atan", "Asin": "asin", "Acos": "acos", "Atan2": "atan2", "Log1p": "log1p", "Expm1": "expm1",
        "Xlogy": "xlogy", "Lerp": "lerp", "IsNan": "isnan", "IsInf": "isinf", "IsFinite": "isfinite",
        "ReLU6": "relu6", "HSwish": "hardswish", "HSigmoid": "hardsigmoid",
        "Softplus": "softplus", "Softsign": "softsign", "Mish": "mish", "SiLU": "silu",
        "Select": "where", "Cast": "cast", "Reshape": "reshape", "Transpose": "transpose", "Tile": "tile",
        "ExpandDims": "expand_dims", "OnesLike": "ones_like", "ZerosLike": "zeros_like", "Slice": "slice",
        "GatherNd": "gather_nd", "ScatterNd": "scatter_nd", "MaskedFill": "masked_fill", "Diag": "diag",
        "Trace": "trace", "Zeros": "zeros", "Ones": "ones", "Eye": "eye", "Assign": "assign",
        "Dense": "dense", "Acosh": "acosh", "Asinh": "asinh", "Atanh": "atanh", "BitwiseAnd": "bitwise_and",
        "BitwiseOr": "bitwise_or", "BitwiseXor": "bitwise_xor", "Digamma": "digamma", "Erfinv": "erfinv",
        "Fmax": "fmax", "Fmin": "fmin", "Ger": "ger", "Heaviside": "heaviside", "Hypot": "hypot", "Inv": "inv",
        "Invert": "invert", "Lgamma": "lgamma", "LogicalXor": "logical_xor", "MaskedSelect": "masked_select",
        "Sinc": "sinc", "StopGradient": "stop_gradient", "TensorAdd": "add", "Trunc": "trunc",
        "TensorScatterAdd": "tensor_scatter_add", "TensorScatterUpdate": "tensor_scatter_update",
        "TruncateDiv": "truncate_div", "TruncateMod": "truncate_mod", "Unique": "unique", "Xdivy": "xdivy",
        "ACos": "acos", "SeLU": "selu", "PReLU": "prelu", "NonZero": "nonzero", "LinSpace": "linspace",
        "IndexFill": "index_fill", "ScatterAdd": "scatter_add", "Rint": "round",
            }.items()},
    "TensorScatterSub": (lambda x, i, u: _tensor_scatter_sub(x, i, u), _NO),
    "Pack": (lambda xs, *, axis: _o("stack")(xs, axis), {"axis": 0}),   # (Stack's old name)
    "KLDivLoss": (lambda x, y, *, reduction: _o("kl_div")(x, y, reduction), {"reduction": "mean"}),
    "BCEWithLogitsLoss": (lambda x, y, w, pw, *, reduction:
                          _o("binary_cross_entropy_with_logits")(x, y, w, pw, reduction),
                          {"reduction": "mean"}),
    "SigmoidCrossEntropyWithLogits": (lambda x, y: _o("binary_cross_entropy_with_logits")(x, y, reduction="none"), _NO),
    "NLLLoss": (_nll_loss, {"reduction": "mean", "ignore_index": -100}),
    "LayerNorm": (_layer_norm, {"begin_norm_axis": 1, "begin_params_axis": 1, "epsilon": 1e-7}),
    "InplaceUpdate": (lambda x, v, *, indices: _o("inplace_update")(x, v, _rows(indices)), {"indices": None}),
    "InplaceAdd": (lambda x, v, *, indices: _o("index_add")(x, _rows(indices), v, 0), {"indices": None}),
    "InplaceSub": (lambda x, v, *, indices: _o("index_add")(x, _rows(indices), _o("neg")(v), 0), {"indices": None}),
    **{cls: (_param_scatter(op, rows), {"use_locking": lock}) for cls, (op, rows, lock) in {
        "ScatterNdUpdate": ("tensor_scatter_update", False, True),
        "ScatterUpdate": ("tensor_scatter_update", True, True),
        "ScatterNdAdd": ("tensor_scatter_add", False, False), "ScatterNdSub": (_tensor_scatter_sub, False, False),
        "ScatterSub": (_tensor_scatter_sub, True, False)}.items()},
    "DivNoNan": (lambda x, y: _no_nan("div", x, y), _NO),
    "MulNoNan": (lambda x, y: _no_nan("mul", x, y), _NO),
    "L2Loss": (lambda x: _o("div")(_o("sum")(_o("square")(x)), 2), _NO),
    "DiagPart": (lambda x: _o("diagonal")(x), _NO),
    "EqualCount": (lambda x, y: _o("reshape")(_o("sum")(_o("cast")(_o("equal")(x, y), x.dtype), dtype=x.dtype), (1,)),
                   _NO),
    "TensorShape": (lambda x: _tensor(tuple(x.shape), D.int64), _NO),
    "ScalarToTensor": (lambda x, dtype=D.float32: _tensor(x, dtype), _NO),
    "TupleToArray": (lambda xs: _tensor(xs), _NO),
    "SquareSumAll": (lambda x, y: (_o("sum")(_o("square")(x)), _o("sum")(_o("square")(y))), _NO),
    "ApproximateEqual": (lambda x, y, *, tolerance: _o("less")(_o("abs")(_o("sub")(x, y)), tolerance),
                         {"tolerance": 1e-5}),
    "EmbeddingLookup": (lambda params, indices, offset: _embedding_lookup(params, indices, offset), _NO),
    "InvertPermutation": (lambda perm: tuple(sorted(range(len(perm)), key=lambda i: perm[i])), _NO),
    "IdentityN": (lambda xs: tuple(_o("reshape")(x, x.shape) for x in xs), _NO),
    "Eps": (lambda x: _o("mul")(_o("ones_like")(x), float(np.finfo(x.dtype.np).eps)), _NO),
    # MindSpore's GeLU primitive (and its old name Gelu) is the tanh approximation
    **dict.fromkeys(("GeLU", "Gelu"), (lambda x: _o("gelu")(x, approximate="tanh"), _NO)),
    # x * sigmoid(1.702 x), written as MindSpore's kernel does so that it does not overflow
    **dict.fromkeys(("FastGeLU", "FastGelu"), (lambda x: _o("mul")(
        _o("div")(x, _o("add")(_o("exp")(_o("mul")(_o("abs")(x), -1.702)), 1)),
        _o("exp")(_o("mul")(_o("sub")(x, _o("abs")(x)), 0.851))), _NO)),
    "CeLU": (lambda x, *, alpha: _o("celu")(x, alpha), {"alpha": 1.0}),
    "GLU": (lambda x, *, axis: _o("glu")(x, axis), {"axis": -1}),
    "HShrink": (lambda x, *, lambd: _o("hardshrink")(x, lambd), {"lambd": 0.5}),
    "SoftShrink": (lambda x, *, lambd: _o("softshrink")(x, lambd), {"lambd": 0.5}),
    "IsClose": (lambda x, y, **tol: _o("isclose")(x, y, **tol), {"rtol": 1e-5, "atol": 1e-8, "equal_nan": False}),
    "Range": (lambda start, limit, delta, *, maxlen: _o("range")(start, limit, delta, maxlen), {"maxlen": 1000000}),
    "ReduceStd": (lambda x, *, axis, unbiased, keep_dims: _std_mean(x, axis, unbiased, keep_dims),
                  {"axis": (), "unbiased": True, "keep_dims": False}),
    "TopK": (lambda x, k, *, sorted: _o("topk")(x, k, sorted=sorted), {"sorted": True}),
    "AdaptiveAvgPool2D": (lambda x, *, output_size: _o("adaptive_avg_pool2d")(x, output_size), {"output_size": None}),
    # paddings: ((before, after), ...) from the first dimension; ops.pad counts from the last
    "Pad": (lambda x, *, paddings: _o("pad")(x, tuple(n for pair in reversed(paddings) for n in pair)),
            {"paddings": None}),
    "FillV2": (lambda shape, value: _o("broadcast_to")(value, tuple(shape)), _NO),
    "InplaceUpdateV2": (lambda x, indices, v: _o("inplace_update")(x, v, indices), _NO),
    "Round": (lambda x, decimals=0: _o("round")(x, decimals=decimals), _NO),
    "Cross": (lambda x, y, *, dim: _o("cross")(x, y, None if dim == -65530 else dim), {"dim": -65530}),
    "Cdist": (lambda x, y, *, p: _o("cdist")(x, y, p), {"p": 2.0}),
    "Cummax": (lambda x, *, axis: _o("cummax")(x, axis), {"axis": None}),
    "Cummin": (lambda x, *, axis: _o("cummin")(x, axis), {"axis": None}),
    "Logit": (lambda x, *, eps: _o("logit")(x, None if eps == -1.0 else eps), {"eps": -1.0}),
    "MatrixPower": (lambda x, *, n: _o("matrix_power")(x, n), {"n": None}),
    "Meshgrid": (lambda xs, *, indexing: _o("meshgrid")(*xs, indexing=indexing), {"indexing": "xy"}),
    "NanToNum": (lambda x, **kw: _o("nan_to_num")(x, **kw), {"nan": None, "posinf": None, "neginf": None}),
    "Sort": (lambda x, *, axis, descending: _o("sort")(x, axis, descending), {"axis": -1, "descending": False}),
    "SmoothL1Loss": (lambda x, y, *, beta, reduction: _o("smooth_l1_loss")(x, y, beta, reduction),
                     {"beta": 1.0, "reduction": "none"}),
    "BinaryCrossEntropy": (lambda x, y, weight=None, *, reduction: _o("binary_cross_entropy")(x, y, weight, reduction),
                           {"reduction": "mean"}),
    "IndexAdd": (lambda x, i, y, *, axis, use_lock, check_index_bound: _o("index_add")(x, i, y, axis),
                 {"axis": None, "use_lock": True, "check_index_bound": True}),
    "Stack": (lambda xs, *, axis: _o("stack")(xs, axis), {"axis": 0}),
    "Concat": (lambda xs, *, axis: _o("concat")(xs, axis), {"axis": 0}),
    **dict.fromkeys(("Unstack", "Unpack"), (lambda x, *, axis, num=None: tuple(
        _o("squeeze")(part, axis) for part in _o("split")(x, 1, axis)), {"axis": 0, "num": None})),
    "Einsum": (lambda *xs, equation: _o("einsum")(equation, *xs), {"equation": None}),
    "MatMul": (lambda x, y, **t: _ops.functional.batch_matmul(x, y, **t), _TRANSPOSE),
    "BatchMatMul": (lambda x, y, **t: _ops.functional.batch_matmul(x, y, name="BatchMatMul", **t), _TRANSPOSE),
    # The primitive keeps an integer input's dtype (ops.sum widens it to int64), as MindSpore's.
    "ReduceSum": (lambda x, axis=(), *, keep_dims, **_: _o("sum")(x, None if axis == () else axis, keep_dims,
                                                               dtype=x.dtype),
                  {"keep_dims": False, "skip_mode": False}),
    "ReduceMean": (_reduce("mean"), _KD), "ReduceMax": (_reduce("amax"), _KD),
    "ReduceMin": (_reduce("amin"), _KD), "ReduceProd": (_reduce("prod"), _KD),
    "ReduceAll": (_reduce("all"), _KD), "ReduceAny": (_reduce("any"), _KD),
    "Squeeze": (lambda x, *, axis: _o("squeeze")(x, axis or None), {"axis": ()}),
    "BroadcastTo": (lambda x, *, shape: _o("broadcast_to")(x, shape), {"shape": None}),
    "Gather": (lambda x, i, axis, *, batch_dims: _o("gather")(x, i, axis, batch_dims), {"batch_dims": 0}),
    "GatherD": (lambda x, dim, index: _o("gather_elements")(x, dim, index), _NO),
    "Softmax": (lambda x, *, axis: _o("softmax")(x, axis), {"axis": -1}),
    "LogSoftmax": (lambda x, *, axis: _o("log_softmax")(x, axis), {"axis": -1}),
    "Elu": (lambda x, *, alpha: _o("elu")(x, alpha), {"alpha": 1.0}),
    "Shape": (lambda x: tuple(x.shape), _NO),
    "Rank": (lambda x: len(x.shape), _NO),
    "Size": (lambda x: math.prod(x.shape), _NO),
    "DType": (lambda x: x.dtype, _NO),
    "ScalarCast": (lambda x, t: D.dtype_to_pytype(t)(x), _NO),
    "Identity": (lambda x: _o("reshape")(x, x.shape), _NO),
    "Depend": (lambda value, expr: value, _NO),
    "AssignAdd": (lambda p, v: _o("assign")(p, _o("add")(p, v)), _NO),
    "AssignSub": (lambda p, v: _o("assign")(p, _o("sub")(p, v)), _NO),
    "Print": (_print, _NO),
    "Partial": (lambda fn, *args: functools.partial(fn, *args), _NO),
    **{name: (_summary, _NO) for name in ("ScalarSummary", "TensorSummary", "HistogramSummary", "ImageSummary")},
    "ApplyMomentum": (_apply_momentum, {"use_locking": False, "use_nesterov": False, "gradient_scale": 1.0}),
    "Split": (lambda x, *, axis, output_num: _o("split")(x, x.shape[axis] // output_num, axis),
              {"axis": 0, "output_num": 1}),
    "OneHot": (lambda i, depth, on, off, *, axis: _o("one_hot")(i, depth, on, off, axis), {"axis": -1}),
    "ArgMaxWithValue": (_with_value("argmax", "amax"), _KD | {"axis": 0}),
    "ArgMinWithValue": (_with_value("argmin", "amin"), _KD | {"axis": 0}),
    "Argmax": (lambda x, *, axis, output_type: _o("cast")(_o("argmax")(x, axis), output_type),
               {"axis": -1, "output_type": D.int32}),
    "Argmin": (lambda x, *, axis, output_type: _o("cast")(_o("argmin")(x, axis), output_type),
               {"axis": -1, "output_type": D.int32}),
    "Fill": (lambda dtype, dims, x: _o("full")(dims, x, dtype=dtype), _NO),
    "SquaredDifference": (lambda x, y: _o("square")(_o("sub")(x, y)), _NO),
    "StridedSlice": (lambda x, b, e, s, **masks: _o("strided_slice")(x, b, e, s, **masks),
                     dict.fromkeys(("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                    "shrink_axis_mask"), 0)),
    "Triu": (lambda x, *, diagonal: _o("triu")(x, diagonal), {"diagonal": 0}),
    "Tril": (lambda x, *, diagonal: _o("tril")(x, diagonal), {"diagonal": 0}),
    "CumSum": (_cumulative("cumsum"), {"exclusive": False, "reverse": False}),
    "CumProd": (_cumulative("cumprod"), {"exclusive": False, "reverse": False}),
    "ReverseV2": (lambda x, *, axis: _o("flip")(x, axis), {"axis": None}),
    "Roll": (lambda x, *, shifts, dims: _o("roll")(x, shifts, dims), {"shifts": None, "dims": None}),
    "Flatten": (lambda x: _o("reshape")(x, (x.shape[0], -1)), _NO),
    "AddN": (lambda xs: _addn(xs), _NO),
    "Addcmul": (lambda x, t1, t2, v: _o("add")(x, _o("mul")(v, _o("mul")(t1, t2))), _NO),
    "Addcdiv": (lambda x, t1, t2, v: _o("add")(x, _o("mul")(v, _o("div")(t1, t2))), _NO),
    "BiasAdd": (_bias_add, {"data_format": "NCHW"}),
    "L2Normalize": (_l2_normalize, {"axis": 0, "epsilon": 1e-4}),
    "SoftmaxCrossEntropyWithLogits": (_softmax_ce, _NO),
    "SparseSoftmaxCrossEntropyWithLogits": (_sparse_softmax_ce, {"is_grad": False}),
    "Conv2D": (_conv2d, {"out_channel": None, "kernel_size": None, "mode": 1, "pad_mode": "valid", "pad": 0,
                         "stride": 1, "dilation": 1, "group": 1, "data_format": "NCHW"}),
    "MaxPool": (_pool("max_pool2d"), {"kernel_size": 1, "strides": 1, "pad_mode": "valid",
                                      "data_format": "NCHW"}),
    "AvgPool": (_pool("avg_pool2d"), {"kernel_size": 1, "strides": 1, "pad_mode": "valid",
                                      "data_format": "NCHW"}),
}


def _std_mean(x, axis, unbiased, keep_dims):
    """ReduceStd's (standard deviation, mean) over ``axis`` (all axes when empty)."""
    axis = None if axis in ((), []) else axis
    return (_o("std")(x, axis, ddof=int(unbiased), keepdims=keep_dims), _o("mean")(x, axis, keep_dims))


def _addn(xs):
    total = xs[0]
    for x in xs[1:]:
        total = _o("add")(total, x)
    return total


def _make(name, fn, defaults):
    doc = f"``ops.{name}({', '.join(defaults)})``: calls apply the functional op with these attributes."
    return type(name, (PrimitiveOp,), {"__slots__": (), "_defaults": defaults, "_apply": staticmethod(fn),
                                       "__module__": __name__, "__doc__": doc})


globals().update({name: _make(name, fn, d) for name, (fn, d) in _TABLE.items()})
__all__ = list(_TABLE) + ["PrimitiveOp"]

# ``ops.functional`` names that are instances of these classes in MindSpore (``F.tensor_add``,
# ``F.dtype``, ...). msjit/__init__ attaches each to ``ops`` unless a functional op has the name.
FUNCTIONAL_ALIASES = {alias: globals()[cls]() for alias, cls in {
    "tensor_add": "Add", "tensor_sub": "Sub", "tensor_mul": "Mul", "tensor_div": "RealDiv",
    "tensor_pow": "Pow", "tensor_gt": "Greater", "tensor_ge": "GreaterEqual", "tensor_lt": "Less",
    "tensor_le": "LessEqual", "tensor_exp": "Exp", "dtype": "DType", "shape": "Shape", "rank": "Rank",
    "size": "Size", "identity": "Identity", "assign_add": "AssignAdd", "assign_sub": "AssignSub",
    "print_": "Print", "fill": "Fill", "squared_difference": "SquaredDifference", "addn": "AddN",
    "scalar_cast": "ScalarCast", "bias_add": "BiasAdd", "partial": "Partial",
}.items()}

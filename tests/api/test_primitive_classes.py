"""MindSpore's primitive classes (``ops.operations``): each instance, called on random shapes,
equals its functional op (or a numpy reference for the classes that adapt arguments), eagerly
and under jit (the adapting classes under ast, bytecode and trace; the pass-through ones under
one mode each, their functional ops' tests covering the rest); gradients of the float ones
against finite differences (compiled too for the adapting classes).
A class whose functional op msjit does not have yet is skipped, naming the op."""
import numpy as np
import pytest

import mindspore as ms
import msjit
from harness import array, check_api, check_grad, shape, tensors
from support import assert_results_close, plain_result
from mindspore import Parameter, Tensor
from mindspore.ops import operations as P

pytestmark = pytest.mark.usefixtures("module_daemon_home")


def pos(rng, shp):
    return array(rng, shp, low=0.5, high=2.0)


def unit(rng, shp):
    return array(rng, shp, low=-0.9, high=0.9)


def real(rng, shp):
    return array(rng, shp)


def boolean(rng, shp):
    return array(rng, shp, bool)


def above_one(rng, shp):
    return array(rng, shp, low=1.2, high=3.0)


def ints(rng, shp):
    return array(rng, shp, np.int32, low=-8, high=8)


UNARY = {   # class -> (functional op, input kind, differentiable)
    "Exp": ("exp", real, True), "Log": ("log", pos, True), "Sqrt": ("sqrt", pos, True), "Rsqrt": ("rsqrt", pos, True),
    "Square": ("square", real, True), "Sigmoid": ("sigmoid", real, True), "Tanh": ("tanh", real, True),
    "Sin": ("sin", real, True), "Cos": ("cos", real, True), "Erf": ("erf", real, True), "Erfc": ("erfc", real, True),
    "Floor": ("floor", real, False), "Ceil": ("ceil", real, False), "Sign": ("sign", real, False),
    "Reciprocal": ("reciprocal", pos, True), "Sinh": ("sinh", real, True), "Cosh": ("cosh", real, True),
    "Tan": ("tan", unit, True), "Atan": ("atan", real, True), "Asin": ("asin", unit, True),
    "Acos": ("acos", unit, True), "Log1p": ("log1p", pos, True), "Expm1": ("expm1", real, True),
    "ReLU": ("relu", pos, True), "Abs": ("abs", pos, True), "Neg": ("neg", real, True), "ReLU6": ("relu6", pos, False),
    "HSwish": ("hardswish", pos, False), "HSigmoid": ("hardsigmoid", unit, False), "Softplus": ("softplus", real, True),
    "Softsign": ("softsign", real, True), "Mish": ("mish", real, True),   # (GeLU: tanh form, test_api_gaps)
    "FastGeLU": ("fast_gelu", real, True), "IsNan": ("isnan", real, False), "IsInf": ("isinf", real, False),
    "IsFinite": ("isfinite", real, False), "LogicalNot": ("logical_not", boolean, False),
    "OnesLike": ("ones_like", real, False), "ZerosLike": ("zeros_like", real, False),
    "Acosh": ("acosh", above_one, True), "Asinh": ("asinh", real, True), "Atanh": ("atanh", unit, True),
    "Digamma": ("digamma", pos, False), "Erfinv": ("erfinv", unit, True), "Lgamma": ("lgamma", pos, False),
    "Sinc": ("sinc", pos, True), "Trunc": ("trunc", real, False), "Inv": ("inv", pos, True),
    "StopGradient": ("stop_gradient", real, False), "Invert": ("invert", ints, False),
    "Round": ("round", real, False),
}
BINARY = {
    "Add": ("add", real, True), "Sub": ("sub", real, True), "Mul": ("mul", real, True), "Div": ("div", pos, True),
    "RealDiv": ("div", pos, True), "Pow": ("pow", pos, True), "Maximum": ("maximum", real, False),
    "Minimum": ("minimum", real, False), "Equal": ("equal", real, False), "NotEqual": ("not_equal", real, False),
    "Less": ("less", real, False), "LessEqual": ("less_equal", real, False), "Greater": ("greater", real, False),
    "GreaterEqual": ("greater_equal", real, False), "LogicalAnd": ("logical_and", boolean, False),
    "LogicalOr": ("logical_or", boolean, False), "FloorDiv": ("floor_divide", pos, False),
    "Mod": ("fmod", pos, False), "FloorMod": ("remainder", pos, False), "Atan2": ("atan2", pos, True),
    "Xlogy": ("xlogy", pos, True), "Fmax": ("fmax", real, False), "Fmin": ("fmin", real, False),
    "Hypot": ("hypot", pos, True), "Heaviside": ("heaviside", real, False), "Xdivy": ("xdivy", pos, True),
    "TruncateDiv": ("truncate_div", pos, False), "TruncateMod": ("truncate_mod", pos, False),
    "LogicalXor": ("logical_xor", boolean, False), "TensorAdd": ("add", real, True),
    "BitwiseAnd": ("bitwise_and", boolean, False), "BitwiseOr": ("bitwise_or", boolean, False),
    "BitwiseXor": ("bitwise_xor", boolean, False),
}


def functional(name):
    return lambda *xs: getattr(msjit.ops, name)(*tensors(xs)).asnumpy()


def run_case(cls, attrs, args, ref, grad, modes=("ast", "bytecode", "trace"), compiled_grad=True):
    op = getattr(P, cls)(**attrs)
    if cls in PACKED:
        op = packing(op)
    try:
        op(*tensors(args))
    except NotImplementedError as e:
        pytest.skip(str(e))
    eager = check_api(op, args, ref, modes=[m for m in modes if m != "trace"], rtol=1e-5, atol=1e-6)
    if "trace" in modes:
        check_trace(op, args, eager)
    if grad:
        check_grad(op, args, compiled=compiled_grad)


def rotating_mode(cls):
    """One capture mode per pass-through class (their ops' own tests cover every mode)."""
    return (("ast", "bytecode", "trace")[sum(map(ord, cls)) % 3],)


def packing(op):
    def packed(*xs):
        return op(xs)
    return packed


def check_trace(op, args, eager):
    """jit(capture_mode="trace") vs eager (the decorator form: trace mode has no call form)."""
    @ms.jit(capture_mode="trace", fullgraph=True)
    def traced(*xs):
        return op(*xs)
    assert_results_close(plain_result(traced(*tensors(args))), plain_result(eager), "jit(trace) vs eager")


@pytest.mark.parametrize("cls", UNARY)
def test_unary_classes(cls):
    fn, kind, grad = UNARY[cls]
    rng = np.random.default_rng(len(cls))
    x = kind(rng, shape(rng))
    run_case(cls, {}, [x], None if not hasattr(msjit.ops, fn) else functional(fn), grad, rotating_mode(cls), False)


@pytest.mark.parametrize("cls", BINARY)
def test_binary_classes(cls):
    fn, kind, grad = BINARY[cls]
    rng = np.random.default_rng(100 + len(cls))
    shp = shape(rng)
    run_case(cls, {}, [kind(rng, shp), kind(rng, shp[1:])], functional(fn) if hasattr(msjit.ops, fn) else None, grad,
             rotating_mode(cls), False)


def _cumsum_ref(exclusive, reverse):
    def ref(x, axis):
        y = np.flip(x, axis) if reverse else x
        out = np.cumsum(y, axis) - (y if exclusive else 0)
        return np.flip(out, axis) if reverse else out
    return ref


def _split_ref(x, axis, n):
    return tuple(np.split(x, n, axis))


def _l2(x, axis, eps):
    return x / np.sqrt(np.maximum(np.sum(x * x, axis, keepdims=True), eps))


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


R = np.random.default_rng(11)
A23, A34 = real(R, (2, 3)), real(R, (3, 4))
A234 = real(R, (2, 3, 4))
LABELS = R.integers(0, 4, (5,)).astype(np.int32)
LOGITS = real(R, (5, 4))
ONEHOT = np.eye(4, dtype=np.float32)[LABELS]

CASES = {   # id -> (class, attrs, args, numpy reference, differentiable)
    "ReduceSum_keep": ("ReduceSum", {"keep_dims": True}, [A234, 1], lambda x, a: x.sum(a, keepdims=True), True),
    "ReduceSum_all": ("ReduceSum", {}, [A234], lambda x: x.sum(), True),
    "ReduceMean": ("ReduceMean", {}, [A234, (0, 2)], lambda x, a: x.mean(a), True),
    "ReduceMax": ("ReduceMax", {}, [A234, -1], lambda x, a: x.max(a), True),
    "ReduceMin": ("ReduceMin", {"keep_dims": True}, [A234, 0], lambda x, a: x.min(a, keepdims=True), True),
    "ReduceProd": ("ReduceProd", {}, [A234, 1], lambda x, a: x.prod(a), True),
    "ReduceAll": ("ReduceAll", {}, [A234 > 0, 1], lambda x, a: x.all(a), False),
    "ReduceAny": ("ReduceAny", {}, [A234 > 0, 1], lambda x, a: x.any(a), False),
    "Reshape": ("Reshape", {}, [A234, (4, -1)], lambda x, s: x.reshape(s), True),
    "Transpose": ("Transpose", {}, [A234, (2, 0, 1)], lambda x, p: x.transpose(p), True),
    "Cast": ("Cast", {}, [A23, ms.float64], lambda x, t: x.astype(np.float64), False),
    "Concat": ("Concat", {"axis": 1}, [A23, A23[::-1]], lambda *xs: np.concatenate(xs, 1), False),
    "Stack": ("Stack", {"axis": -1}, [A23, A23[::-1]], lambda *xs: np.stack(xs, -1), False),
    "Split": ("Split", {"axis": 1, "output_num": 3}, [A23], lambda x: _split_ref(x, 1, 3), False),
    "ExpandDims": ("ExpandDims", {}, [A23, 1], lambda x, a: np.expand_dims(x, a), True),
    "Squeeze": ("Squeeze", {"axis": 0}, [A23[:1]], lambda x: x[0], True),
    "Tile": ("Tile", {}, [A23, (2, 1)], lambda x, m: np.tile(x, m), True),
    "BroadcastTo": ("BroadcastTo", {"shape": (4, 2, 3)}, [A23], lambda x: np.broadcast_to(x, (4, 2, 3)), True),
    "Select": ("Select", {}, [A23 > 0, A23, -A23], lambda c, x, y: np.where(c, x, y), False),
    "MatMul": ("MatMul", {}, [A23, A34], lambda x, y: x @ y, True),
    "MatMul_tb": ("MatMul", {"transpose_b": True}, [A23, A23], lambda x, y: x @ y.T, True),
    "BatchMatMul": ("BatchMatMul", {"transpose_a": True}, [A234, A234], lambda x, y: x.transpose(0, 2, 1) @ y, True),
    "Gather": ("Gather", {}, [A34, np.array([2, 0, 2], np.int32), 0], lambda x, i, a: x[i], False),
    "GatherD": ("GatherD", {}, [A34, 1, R.integers(0, 4, (3, 2)).astype(np.int32)],
                lambda x, d, i: np.take_along_axis(x, i.astype(np.int64), d), False),
    "OneHot": ("OneHot", {}, [LABELS, 4, np.float32(1.0), np.float32(0.0)], lambda i, d, a, b: ONEHOT, False),
    "Softmax": ("Softmax", {}, [A234], _softmax, True),
    "LogSoftmax": ("LogSoftmax", {"axis": -1}, [A234], lambda x: np.log(_softmax(x)), True),
    "ArgMaxWithValue": ("ArgMaxWithValue", {"axis": 1}, [A34], lambda x: (x.argmax(1), x.max(1)), False),
    "ArgMinWithValue": ("ArgMinWithValue", {"axis": 0, "keep_dims": True}, [A34],
                        lambda x: (x.argmin(0)[None], x.min(0, keepdims=True)), False),
    "Argmax": ("Argmax", {}, [A34], lambda x: x.argmax(-1).astype(np.int32), False),
    "Argmin": ("Argmin", {"axis": 0, "output_type": ms.int64}, [A34], lambda x: x.argmin(0), False),
    "Fill": ("Fill", {}, [ms.float32, (2, 3), 2.5], lambda t, s, v: np.full(s, v, np.float32), False),
    "SquaredDifference": ("SquaredDifference", {}, [A23, A23[::-1]], lambda x, y: (x - y) ** 2, True),
    "StridedSlice": ("StridedSlice", {}, [A234, (0, 1, 0), (2, 3, 4), (1, 1, 2)], lambda x, b, e, s: x[0:2, 1:3, 0:4:2],
                     True),
    "StridedSlice_masks": ("StridedSlice", {"begin_mask": 1, "shrink_axis_mask": 2}, [A234, (1, 1, 0), (2, 2, 4),
                           (1, 1, 1)], lambda x, b, e, s: x[:2, 1, 0:4], True),
    "Identity": ("Identity", {}, [A23], lambda x: x, True),
    "Flatten": ("Flatten", {}, [A234], lambda x: x.reshape(2, 12), True),
    "Triu": ("Triu", {"diagonal": 1}, [A34], lambda x: np.triu(x, 1), True),
    "Tril": ("Tril", {}, [A34], np.tril, True),
    "CumSum": ("CumSum", {}, [A34, 1], _cumsum_ref(False, False), True),
    "CumSum_exclusive_reverse": ("CumSum", {"exclusive": True, "reverse": True}, [A34, 1], _cumsum_ref(True, True),
                                 True),
    "AddN": ("AddN", {}, [A23, A23[::-1], -A23], lambda *xs: xs[0] + xs[1] + xs[2], True),
    "BiasAdd": ("BiasAdd", {}, [A234, A23[0]], lambda x, b: x + b[None, :, None], True),
    "L2Normalize": ("L2Normalize", {"axis": 1}, [A34], lambda x: _l2(x, 1, 1e-4), True),
    "SoftmaxCrossEntropyWithLogits": ("SoftmaxCrossEntropyWithLogits", {}, [LOGITS, ONEHOT],
                                      lambda x, y: (-(y * np.log(_softmax(x))).sum(-1), _softmax(x) - y), False),
    "SparseSoftmaxCrossEntropyWithLogits": ("SparseSoftmaxCrossEntropyWithLogits", {}, [LOGITS, LABELS],
                                            lambda x, y: np.mean(-np.log(_softmax(x))[np.arange(5), y]), False),
    "Slice": ("Slice", {}, [A234, (0, 1, 1), (2, -1, 2)], lambda x, b, s: x[:, 1:, 1:3], True),
    "Zeros": ("Zeros", {}, [(2, 3), ms.float32], lambda s, t: np.zeros(s, np.float32), False),
    "Ones": ("Ones", {}, [(2, 3), ms.int32], lambda s, t: np.ones(s, np.int32), False),
    "Eye": ("Eye", {}, [2, 3, ms.float32], lambda n, m, t: np.eye(n, m, dtype=np.float32), False),
    "Sort": ("Sort", {"descending": True}, [A34], lambda x: (-np.sort(-x, -1), np.argsort(-x, -1, kind="stable").astype(np.int32)),
             False),
    "Cummax": ("Cummax", {"axis": 1}, [A34], lambda x: np.maximum.accumulate(x, 1), False),
    "Cross": ("Cross", {}, [A23[:, :3], A23[::-1, :3]], lambda x, y: np.cross(x, y), True),
    "Cdist": ("Cdist", {"p": 2.0}, [A23, A34[:, :3]], None, True),
    "Logit": ("Logit", {"eps": 1e-6}, [unit(R, (3,)) * 0.5 + 0.5], lambda x: np.log(x / (1 - x)), True),
    "MatrixPower": ("MatrixPower", {"n": 3}, [A34[:, :3]], lambda x: x @ x @ x, True),
    "NanToNum": ("NanToNum", {"nan": 1.0}, [np.array([np.nan, 2.0], np.float32)], lambda x: np.nan_to_num(x, nan=1.0),
                 False),
    "SmoothL1Loss": ("SmoothL1Loss", {"beta": 0.5}, [A23, A23[::-1]], None, True),
    "IndexAdd": ("IndexAdd", {"axis": 0}, [A34, np.array([2, 0], np.int32), A34[:2]], None, False),
    "Conv2D": ("Conv2D", {"out_channel": 2, "kernel_size": 2}, [real(R, (1, 3, 4, 4)), real(R, (2, 3, 2, 2))],
               None, False),
    "MaxPool": ("MaxPool", {"kernel_size": 2, "strides": 2}, [real(R, (1, 2, 4, 4))], None, False),
    "AvgPool": ("AvgPool", {"kernel_size": 2, "strides": 1}, [real(R, (1, 2, 3, 3))], None, False),
}
PACKED = {"Concat", "Stack", "AddN"}   # called with one tuple of tensors (jit takes no tuple arguments)


def _cummax_index(x):
    """Index of the running maximum along axis 1 (the last one on ties, as MindSpore)."""
    out = np.zeros(x.shape, np.int64)
    for i in range(x.shape[0]):
        for j in range(1, x.shape[1]):
            out[i, j] = j if x[i, j] >= x[i, out[i, j - 1]] else out[i, j - 1]
    return out


@pytest.mark.parametrize("case", CASES)
def test_classes_with_attributes(case):
    cls, attrs, args, ref, grad = CASES[case]
    if cls == "Cummax":
        ref = lambda x: (np.maximum.accumulate(x, 1), _cummax_index(x))   # noqa: E731
    elif cls == "Cdist":
        ref = lambda x, y: np.sqrt(((x[:, None] - y[None]) ** 2).sum(-1))   # noqa: E731
    elif cls == "SmoothL1Loss":
        ref = lambda x, y: np.where(np.abs(x - y) < 0.5, 0.5 * (x - y) ** 2 / 0.5, np.abs(x - y) - 0.25)  # noqa
    elif cls == "IndexAdd":
        ref = lambda x, i, y: x + np.stack([y[1], np.zeros(4), y[0]]).astype(np.float32)   # noqa: E731
    elif cls == "Conv2D":
        ref = lambda x, w: msjit.ops.conv2d(Tensor(x), Tensor(w)).asnumpy()   # noqa: E731
    elif cls == "MaxPool":
        ref = lambda x: x.reshape(1, 2, 2, 2, 2, 2).max((3, 5))   # noqa: E731
    elif cls == "AvgPool":
        ref = lambda x: (x[..., :-1, :-1] + x[..., 1:, :-1] + x[..., :-1, 1:] + x[..., 1:, 1:]) / 4   # noqa: E731
    run_case(cls, attrs, args, ref, grad)


def test_static_metadata_classes():
    x = np.zeros((2, 3, 4), np.float32)
    t = Tensor(x)
    assert P.Shape()(t) == (2, 3, 4) and P.Rank()(t) == 3 and P.Size()(t) == 24 and P.DType()(t) is ms.float32
    assert P.ScalarCast()(3.7, ms.int64) == 3 and P.ScalarCast()(1, ms.float64) == 1.0

    def f(v):   # shapes are static under capture: the results are constants of the graph
        return ops_reshape(v, (P.Size()(v) // P.Shape()(v)[0], P.Shape()(v)[0]))
    got = ms.jit(f, fullgraph=True)(t)
    assert got.shape == (12, 2)


def ops_reshape(x, shp):
    return P.Reshape()(x, shp)


def test_side_effect_classes():
    p = Parameter(Tensor(np.ones(3, np.float32)), name="p")
    P.Assign()(p, Tensor(np.full(3, 2.0, np.float32)))
    P.AssignAdd()(p, Tensor(np.ones(3, np.float32)))
    P.AssignSub()(p, Tensor(np.full(3, 0.5, np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), np.full(3, 2.5, np.float32))
    x = Tensor(np.arange(3, dtype=np.float32))
    assert P.Depend()(x, P.Assign()(p, x)) is x

    @ms.jit
    def step(v):
        out = P.Depend()(v * 2, P.AssignAdd()(p, v))
        return out
    np.testing.assert_array_equal(step(x).asnumpy(), [0, 2, 4])
    np.testing.assert_array_equal(p.asnumpy(), [0, 2, 4])


def test_print(capsys):
    P.Print()("value:", Tensor(np.array([1.5], np.float32)))
    assert capsys.readouterr().out == "value: [1.5]\n"


def test_class_attribute_errors():
    with pytest.raises(TypeError, match=r"ReduceSum\(\) takes attributes"):
        P.ReduceSum(no_such=1)
    with pytest.raises(TypeError, match="takes attributes none"):
        P.Add(1)
    assert repr(P.MatMul(transpose_b=True)) == "MatMul(transpose_a=False, transpose_b=True)"


@pytest.mark.parametrize("nesterov", [False, True])
def test_apply_momentum(nesterov):
    rng = np.random.default_rng(int(nesterov))
    w0, g = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    var, accum = Parameter(Tensor(w0), name="v"), Parameter(Tensor(np.full(4, 0.5, np.float32)), name="a")
    out = P.ApplyMomentum(use_nesterov=nesterov)(var, accum, 0.1, Tensor(g), 0.9)
    acc = 0.5 * 0.9 + g
    want = w0 - 0.1 * ((g + acc * 0.9) if nesterov else acc)
    assert out is var
    np.testing.assert_allclose(accum.asnumpy(), acc, rtol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), want, rtol=1e-6)


def test_summaries_and_constexpr_are_accepted():
    from mindspore.ops import constexpr, prim_attr_register   # noqa: F401
    x = Tensor(np.ones(2, np.float32))
    for cls in ("ScalarSummary", "TensorSummary", "HistogramSummary", "ImageSummary"):
        assert getattr(P, cls)()("tag", x) is None

    @constexpr
    def half(n):
        return n // 2

    def f(v):
        return P.Reshape()(v, (half(v.shape[0] * 2), -1))
    assert ms.jit(f, fullgraph=True)(x).shape == (2, 1)


A_MS = np.array([-3.5, 3.5, -2.0, 7.25], np.float32)
B_MS = np.array([2.0, -2.0, 3.0, 2.5], np.float32)
ORACLE = {   # class -> MindSpore 2.10's result on (A_MS, B_MS) or A_MS (recorded from MindSpore itself)
    "Mod": [-1.5, 1.5, -2.0, 2.25], "FloorMod": [0.5, -0.5, 1.0, 2.25], "FloorDiv": [-2.0, -2.0, -1.0, 2.0],
    "TruncateDiv": [-1.0, -1.0, 0.0, 2.0], "TruncateMod": [-1.5, 1.5, -2.0, 2.25],
    "Xdivy": [-1.75, -1.75, -0.6666667, 2.9], "Heaviside": [0.0, 1.0, 0.0, 1.0], "Fmax": [2.0, 3.5, 3.0, 7.25],
    "Round": [-4.0, 4.0, -2.0, 7.0], "Sign": [-1.0, 1.0, -1.0, 1.0], "Trunc": [-3.0, 3.0, -2.0, 7.0],
    "Floor": [-4.0, 3.0, -2.0, 7.0], "Ceil": [-3.0, 4.0, -2.0, 8.0],
}


@pytest.mark.parametrize("cls", ORACLE)
def test_classes_match_mindspore_values(cls):
    """The class picks MindSpore's op (C-style Mod vs floor FloorMod, ...), not just some op."""
    args = (A_MS, B_MS) if cls in BINARY else (A_MS,)
    np.testing.assert_allclose(getattr(P, cls)()(*tensors(args)).asnumpy(), ORACLE[cls], rtol=1e-6)

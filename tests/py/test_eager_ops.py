"""Eager (PyNative) ops against numpy references: every op, broadcasting, dtypes, scalars, errors."""
import numpy as np
import pytest

import msjit
from msjit import Tensor, ops
from msjit import dtype as D

BINARY = {  # functional op -> numpy reference
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "maximum": np.maximum, "minimum": np.minimum,
}
UNARY = {
    "neg": np.negative, "relu": lambda x: np.maximum(x, 0), "exp": np.exp, "log": np.log,
    "sqrt": np.sqrt, "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "tanh": np.tanh,
}
FLOAT_ONLY = {"exp", "log", "sqrt", "sigmoid", "tanh"}
SHAPE_PAIRS = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1, 4), (3, 1)), ((), (2, 3)), ((1,), (5,)),
               ((4, 1), (1, 5)), ((2, 3), ())]
TOL = {D.float16: dict(rtol=2e-3, atol=2e-3), D.float32: dict(rtol=1e-5, atol=1e-6),
       D.float64: dict(rtol=1e-12, atol=0), D.int32: dict(rtol=0, atol=0), D.int64: dict(rtol=0, atol=0)}


def make(rng, shape, dt, positive=False):
    if dt.is_floating:
        a = rng.uniform(0.1, 3.0, shape) if positive else rng.standard_normal(shape)
    else:
        a = rng.integers(1 if positive else -9, 10, shape)
    return np.asarray(a, dt.np)


def check(out, ref, dt):
    assert isinstance(out, Tensor)
    assert out.dtype is dt, (out.dtype, dt)
    assert out.shape == np.shape(ref)
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), np.asarray(ref, np.float64), **TOL[dt])


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
@pytest.mark.parametrize("dt", [D.float32, D.float16, D.int32])
def test_binary_matches_numpy(rng, name, shapes, dt):
    a, b = make(rng, shapes[0], dt), make(rng, shapes[1], dt, positive=name == "div")
    out = getattr(ops, name)(Tensor(a), Tensor(b))
    rdt = D.float32 if name == "div" and not dt.is_floating else dt   # true division of ints
    check(out, BINARY[name](a.astype(rdt.np), b.astype(rdt.np)), rdt)


@pytest.mark.parametrize("name, op", [("add", "+"), ("sub", "-"), ("mul", "*"), ("div", "/")])
def test_operators_and_reflected_operators(rng, name, op):
    a, b = make(rng, (3, 4), D.float32), make(rng, (4,), D.float32, positive=True)
    ta, tb = Tensor(a), Tensor(b)
    check(eval(f"ta {op} tb"), eval(f"a {op} b"), D.float32)
    check(eval(f"ta {op} 2.5"), eval(f"a {op} np.float32(2.5)"), D.float32)
    check(eval(f"2.5 {op} tb"), eval(f"np.float32(2.5) {op} b"), D.float32)
    check(eval(f"np.float32(2.5) {op} tb"), eval(f"np.float32(2.5) {op} b"), D.float32)
    check(eval(f"ta {op} b"), eval(f"a {op} b"), D.float32)  # numpy arrays are tensor operands


@pytest.mark.parametrize("tensor_dt, scalar, result_dt", [
    (D.float16, 2.5, D.float16), (D.int32, 3, D.int32), (D.int32, 0.5, D.float32),
    (D.int64, 2, D.int64), (D.float64, 1.5, D.float64), (D.bool_, 2, D.int64),
])
@pytest.mark.parametrize("name", ["add", "sub", "mul", "maximum", "minimum"])
def test_scalar_operands_follow_the_promotion_rule(rng, tensor_dt, scalar, result_dt, name):
    a = make(rng, (2, 3), tensor_dt) if tensor_dt is not D.bool_ else rng.random((2, 3)) > 0.5
    for out, ref in ((getattr(ops, name)(Tensor(a), scalar), BINARY[name](a.astype(result_dt.np), scalar)),
                     (getattr(ops, name)(scalar, Tensor(a)), BINARY[name](scalar, a.astype(result_dt.np)))):
        check(out, np.asarray(ref, result_dt.np), result_dt)


@pytest.mark.parametrize("da, db, result", [
    (D.int32, D.float16, D.float16), (D.float16, D.float32, D.float32), (D.int32, D.int64, D.int64),
    (D.bool_, D.int32, D.int32), (D.int64, D.float32, D.float32)])
def test_mixed_dtypes_promote(rng, da, db, result):
    a = make(rng, (3,), da) if da is not D.bool_ else np.array([True, False, True])
    b = make(rng, (2, 3), db)
    check(Tensor(a) * Tensor(b), a.astype(result.np) * b.astype(result.np), result)
    check(Tensor(b) - Tensor(a), b.astype(result.np) - a.astype(result.np), result)


def test_int_division_is_float32():
    out = Tensor(np.array([1, 2, 3], np.int32)) / Tensor(np.array([2, 2, 2], np.int64))
    check(out, [0.5, 1.0, 1.5], D.float32)
    check(Tensor([7, 8]) / 2, [3.5, 4.0], D.float32)
    check(Tensor(np.array([1, 2], np.float16)) / 4, [0.25, 0.5], D.float16)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("shape", [(), (5,), (2, 3, 4)], ids=str)
@pytest.mark.parametrize("dt", [D.float32, D.float16, D.float64, D.int32])
def test_unary_matches_numpy(rng, name, shape, dt):
    a = make(rng, shape, dt, positive=name in ("log", "sqrt"))
    out = getattr(ops, name)(Tensor(a))
    rdt = D.float32 if name in FLOAT_ONLY and not dt.is_floating else dt   # ints are cast first
    check(out, UNARY[name](a.astype(rdt.np).astype(np.float64)), rdt)


def test_unary_methods_and_neg_operator(rng):
    a = make(rng, (3, 2), D.float32, positive=True)
    t = Tensor(a)
    check(-t, -a, D.float32)
    for name in ("exp", "log", "sqrt", "tanh", "sigmoid"):
        check(getattr(t, name)(), UNARY[name](a), D.float32)


def test_sigmoid_does_not_overflow_in_float16():
    out = ops.sigmoid(Tensor(np.array([-30.0, 0.0, 30.0], np.float16)))
    check(out, [0.0, 0.5, 1.0], D.float16)


@pytest.mark.parametrize("sa, sb", [((2, 3), (3, 4)), ((5, 2, 3), (5, 3, 4)), ((3,), (3, 4)),
                                    ((2, 3), (3,)), ((3,), (3,)), ((4, 2, 3), (3, 5)),
                                    ((2, 4, 2, 3), (3,)), ((1, 1), (1, 1))], ids=str)
@pytest.mark.parametrize("dt", [D.float32, D.float64, D.int32])
def test_matmul_matches_numpy(rng, sa, sb, dt):
    a, b = make(rng, sa, dt), make(rng, sb, dt)
    check(ops.matmul(Tensor(a), Tensor(b)), np.matmul(a, b), dt)
    check(Tensor(a) @ Tensor(b), np.matmul(a, b), dt)


def test_matmul_mixed_dtypes_promote(rng):
    a, b = make(rng, (2, 3), D.int32), make(rng, (3, 2), D.float32)
    check(Tensor(a) @ Tensor(b), a.astype(np.float32) @ b, D.float32)


@pytest.mark.parametrize("sa, sb, exc, pattern", [
    ((2, 3), (4, 5), ValueError, r"MatMul: inner dimensions of shapes \(2, 3\) and \(4, 5\)"),
    ((2, 2, 3), (4, 3, 5), ValueError, r"MatMul: batch dimensions of shapes \(2, 2, 3\) and \(4, 3, 5\)"),
    ((2, 3), (3, 2, 5), ValueError, r"MatMul: inner dimensions of shapes \(2, 3\) and \(3, 2, 5\)"),
    ((), (3,), ValueError, "MatMul: operands must have rank >= 1"),
])
def test_matmul_errors(sa, sb, exc, pattern):
    with pytest.raises(exc, match=pattern):
        ops.matmul(Tensor(np.ones(sa, np.float32)), Tensor(np.ones(sb, np.float32)))


def test_matmul_rejects_scalars_and_bools():
    with pytest.raises(TypeError, match="MatMul: scalar"):
        ops.matmul(Tensor(np.ones((2, 2), np.float32)), 2.0)
    with pytest.raises(TypeError, match="MatMul: expected numeric operands"):
        ops.matmul(Tensor(np.ones((2, 2), bool)), Tensor(np.ones((2, 2), bool)))


@pytest.mark.parametrize("axis", [None, 0, 1, -1, -3, (0, 2), (-1, 0), ()])
@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("dt", [D.float32, D.float16, D.int32, D.int64])
def test_sum_matches_numpy(rng, axis, keep, dt):
    a = make(rng, (2, 3, 4), dt)
    np_axis = None if axis == () else axis
    ref = np.sum(a.astype(np.float64), axis=np_axis, keepdims=keep)
    rdt = dt if dt.is_floating else D.int64             # integers sum as int64, as MindSpore 2.10
    check(ops.sum(Tensor(a), axis, keep), ref, rdt)
    check(Tensor(a).sum(axis=axis, keepdims=keep), ref, rdt)


@pytest.mark.parametrize("axis", [None, 1, -1, (0, -1)])
@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("dt", [D.float32, D.float16, D.int32])
def test_mean_matches_numpy(rng, axis, keep, dt):
    a = make(rng, (3, 4, 5), dt)
    rdt = dt                                            # an int32 mean is int32, truncated (MindSpore 2.10)
    ref = np.mean(a.astype(np.float64), axis=axis, keepdims=keep)
    ref = ref if dt.is_floating else np.trunc(ref)
    check(ops.mean(Tensor(a), axis, keep), ref, rdt)
    check(Tensor(a).mean(axis, keep_dims=keep), ref, rdt)


def test_sum_dtype_keyword_casts_first():
    out = ops.sum(Tensor(np.array([1, 2, 3], np.int32)), dtype=msjit.float32)
    check(out, 6.0, D.float32)


@pytest.mark.parametrize("fn, pattern", [
    (lambda t: ops.sum(t, 3), "ReduceSum: axis 3 is out of range for a tensor of rank 3"),
    (lambda t: ops.sum(t, -4), "ReduceSum: axis -4 is out of range"),
    (lambda t: ops.mean(t, (0, -3)), "ReduceMean: repeated axis"),
    (lambda t: ops.transpose(t, (0, 1)), "Transpose: permutation .* does not match a tensor of rank 3"),
    (lambda t: ops.transpose(t, (0, 1, 1)), "Transpose: repeated axis"),
    (lambda t: ops.reshape(t, (5, -1)), r"Reshape: cannot reshape a tensor of shape \(2, 3, 4\)"),
    (lambda t: ops.reshape(t, (2, 3, 5)), r"Reshape: cannot reshape a tensor of shape \(2, 3, 4\) into shape \(2, 3, 5\)"),
    (lambda t: ops.reshape(t, (-1, -1)), "Reshape: invalid target shape"),
])
def test_axis_and_shape_errors(fn, pattern):
    with pytest.raises(ValueError, match=pattern):
        fn(Tensor(np.ones((2, 3, 4), np.float32)))


@pytest.mark.parametrize("shape, target", [((2, 3, 4), (6, 4)), ((2, 3, 4), (-1,)), ((2, 3, 4), (4, -1, 2)),
                                           ((6,), (1, 6, 1)), ((), (1, 1)), ((1, 1), ())])
def test_reshape_matches_numpy(rng, shape, target):
    a = make(rng, shape, D.float32)
    check(ops.reshape(Tensor(a), target), a.reshape(target), D.float32)
    check(Tensor(a).reshape(*target), a.reshape(target), D.float32)
    check(Tensor(a).reshape(target), a.reshape(target), D.float32)


@pytest.mark.parametrize("perm", [(0, 1, 2), (2, 0, 1), (-1, 0, 1), (1, 0, -1)])
def test_transpose_matches_numpy(rng, perm):
    a = make(rng, (2, 3, 4), D.int32)
    check(ops.transpose(Tensor(a), perm), np.transpose(a, perm), D.int32)
    check(Tensor(a).transpose(*perm), np.transpose(a, perm), D.int32)


def test_transpose_without_perm_reverses():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    check(Tensor(a).transpose(), a.T, D.float32)


@pytest.mark.parametrize("src", [D.float32, D.int32, D.bool_, D.float16])
@pytest.mark.parametrize("dst", [D.float16, D.float32, D.float64, D.int32, D.int64, D.bool_])
def test_cast_matches_numpy(rng, src, dst):
    a = make(rng, (3, 2), src) if src is not D.bool_ else rng.random((3, 2)) > 0.5
    out = ops.cast(Tensor(a), dst)
    assert out.dtype is dst
    np.testing.assert_array_equal(out.asnumpy(), a.astype(dst.np))
    assert Tensor(a).astype(dst).dtype is dst


def test_broadcast_error_names_op_and_shapes():
    x, y = Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((4,), np.float32))
    with pytest.raises(ValueError, match=r"^Add: operands of shapes \(2, 3\) and \(4,\) are not broadcastable$"):
        x + y
    with pytest.raises(ValueError, match=r"^Maximum: operands of shapes \(2, 3\) and \(4,\)"):
        ops.maximum(x, y)


@pytest.mark.parametrize("fn, pattern", [
    (lambda b: b + b, "Add: expected numeric operands, got Bool"),
    (lambda b: -b, "Neg: expected numeric operands, got Bool"),
    (lambda b: ops.relu(b), "ReLU: expected numeric operands"),
    (lambda b: ops.mean(b), "ReduceMean: unsupported reduce operation for bool"),
    (lambda b: b + "x", "Add: unsupported operand of type str"),
    (lambda b: ops.exp(None), "Exp: unsupported operand of type NoneType"),
])
def test_dtype_errors_name_the_op(fn, pattern):
    with pytest.raises(TypeError, match=pattern):
        fn(Tensor(np.array([True, False])))


def test_primitives_apply_without_implicit_conversion():
    from msjit.ops import prims as P
    x, y = Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.int32))
    with pytest.raises(TypeError, match="Add: operands must have the same dtype, got Float32 and Int32"):
        P.Add(x, y)
    with pytest.raises(TypeError, match="Div: expected floating-point operands, got Int32"):
        P.Div(y, y)
    check(P.Add(x, x), [2.0, 2.0], D.float32)


def test_eager_result_is_a_fresh_tensor():
    t = Tensor(np.array([1.0, 2.0], np.float32))
    out = t + 0
    assert out is not t and out.asnumpy() is not t.asnumpy()

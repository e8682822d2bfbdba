"""The elementwise math ops and the linear algebra of ``mindspore.ops`` (ops/math_elementwise.py,
ops/math_linalg.py) against numpy on random shapes: eager, jit under ast/bytecode/trace, and
gradients against finite differences (float64) where the op is differentiable."""
import functools
import math

import numpy as np
import pytest

import msjit as ms
from msjit import ops
from harness import array, check_api, seeded, shape

pytestmark = pytest.mark.usefixtures("module_daemon_home")


# name: (numpy reference, (low, high) of the random input, differentiable)
UNARY = {
    "floor": (np.floor, (-3, 3), True),
    "ceil": (np.ceil, (-3, 3), True),
    "trunc": (np.trunc, (-3, 3), True),
    "round": (np.round, (-3, 3), True),
    "frac": (lambda x: x - np.trunc(x), (-3, 3), True),
    "sign": (np.sign, (-3, 3), False),
    "reciprocal": (np.reciprocal, (0.3, 3), True),
    "inv": (np.reciprocal, (0.3, 3), True),
    "log1p": (np.log1p, (-0.9, 3), True),
    "expm1": (np.expm1, (-3, 3), True),
    "log2": (np.log2, (0.1, 4), True),
    "log10": (np.log10, (0.1, 4), True),
    "exp2": (np.exp2, (-3, 3), True),
    "sinh": (np.sinh, (-3, 3), True),
    "cosh": (np.cosh, (-3, 3), True),
    "tan": (np.tan, (-1.2, 1.2), True),
    "asin": (np.arcsin, (-0.95, 0.95), True),
    "arcsin": (np.arcsin, (-0.95, 0.95), False),
    "acos": (np.arccos, (-0.95, 0.95), True),
    "arccos": (np.arccos, (-0.95, 0.95), False),
    "atan": (np.arctan, (-6, 6), True),
    "arctan": (np.arctan, (-6, 6), False),
    "asinh": (np.arcsinh, (-4, 4), True),
    "arcsinh": (np.arcsinh, (-4, 4), False),
    "acosh": (np.arccosh, (1.1, 4), True),
    "arccosh": (np.arccosh, (1.1, 4), False),
    "atanh": (np.arctanh, (-0.9, 0.9), True),
    "arctanh": (np.arctanh, (-0.9, 0.9), False),
    "erfc": (lambda x: np.vectorize(math.erfc, otypes=[x.dtype])(x), (-2, 2), True),
    "square": (np.square, (-3, 3), True),
    "neg": (np.negative, (-3, 3), True),
    "negative": (np.negative, (-3, 3), True),
    "positive": (np.positive, (-3, 3), True),
    "absolute": (np.absolute, (-3, 3), True),
    "deg2rad": (np.deg2rad, (-180, 180), True),
    "rad2deg": (np.rad2deg, (-3, 3), True),
    "isnan": (np.isnan, (-3, 3), False),
    "isinf": (np.isinf, (-3, 3), False),
    "isfinite": (np.isfinite, (-3, 3), False),
    "nan_to_num": (np.nan_to_num, (-3, 3), True),
    "lgamma": (lambda x: _vectorized(math.lgamma, x), (0.1, 6), True),
    "digamma": (lambda x: _vectorized(_digamma, x), (0.1, 6), True),
    "erfinv": (lambda x: _vectorized(_erfinv, x), (-0.99, 0.99), True),
    "sinc": (np.sinc, (-3, 3), True),
    "signbit": (np.signbit, (-3, 3), False),
    "sgn": (np.sign, (-3, 3), False),
    "logit": (lambda x: np.log(x / (1 - x)), (0.05, 0.95), True),
    "isposinf": (np.isposinf, (-3, 3), False),
    "isneginf": (np.isneginf, (-3, 3), False),
}


def _vectorized(fn, x):
    return np.vectorize(fn, otypes=[np.float64])(x).astype(x.dtype)


def _digamma(v, h=1e-5):
    return (math.lgamma(v + h) - math.lgamma(v - h)) / (2 * h)


def _erfinv(y):
    lo, hi = -10.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.erf(mid) < y else (lo, mid)
    return (lo + hi) / 2


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    ref, (low, high), grad = UNARY[name]
    rng = seeded(name)
    x = array(rng, shape(rng, high=3), low=low, high=high)     # small: gradients by finite differences
    check_api(getattr(ops, name), [x], ref, grad=grad)


def test_special_values():
    """NaN, infinities and huge values go through the Select guards unchanged."""
    x = np.array([np.nan, np.inf, -np.inf, 2.0 ** 60, -2.5, -0.5, 0.5, 1.5, 2.5, 1e-12], np.float64)
    for name, ref in (("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc), ("round", np.round),
                      ("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)):
        check_api(getattr(ops, name), [x], ref, modes=())
    check_api(ops.nan_to_num, [x.astype(np.float32)], np.nan_to_num, modes=())
    for name, ref in (("signbit", np.signbit), ("isposinf", np.isposinf), ("isneginf", np.isneginf)):
        check_api(getattr(ops, name), [np.append(x, -0.0)], ref, modes=())
    poles = np.array([0.0, -1.0, -3.0], np.float32)
    check_api(ops.lgamma, [poles], lambda v: np.full(v.shape, np.inf, v.dtype), modes=())
    check_api(ops.digamma, [poles], lambda v: np.array([-np.inf, np.nan, np.nan], v.dtype), modes=())
    check_api(ops.lgamma, [np.array([0.999, 1.001, 2.0005], np.float32)],        # near the zeros of lgamma
              lambda v: _vectorized(math.lgamma, v), modes=(), rtol=1e-5, atol=1e-8)
    reflected = np.array([-0.5, -1.5, -2.3, 0.25], np.float64)
    check_api(ops.lgamma, [reflected], lambda v: _vectorized(math.lgamma, v), modes=(), rtol=1e-10)
    check_api(ops.digamma, [reflected], lambda v: _vectorized(_digamma, v), modes=(), rtol=1e-7)
    small = np.array([1e-10, -1e-12, 3e-8], np.float64)
    for name, ref in (("log1p", np.log1p), ("expm1", np.expm1), ("sinh", np.sinh), ("asinh", np.arcsinh),
                      ("atanh", np.arctanh)):
        check_api(getattr(ops, name), [small], ref, modes=(), rtol=1e-12, atol=0)


def test_integer_inputs():
    rng = seeded("ints")
    a, b = array(rng, (3, 4), np.int32, -9, 9), array(rng, (3, 4), np.int32, 1, 5)
    b = b * np.where(rng.random((3, 4)) < 0.5, -1, 1).astype(np.int32)
    check_api(ops.floor_divide, [a, b], np.floor_divide)
    check_api(ops.remainder, [a, b], np.remainder)
    check_api(ops.fmod, [a, b], np.fmod)
    check_api(ops.sign, [a], np.sign)
    check_api(ops.div, [a, b], lambda x, y, rounding_mode: np.trunc(x / y).astype(np.int32),
              kwargs={"rounding_mode": "trunc"})
    check_api(ops.div, [a, b], lambda x, y, rounding_mode: np.floor_divide(x, y), kwargs={"rounding_mode": "floor"})
    check_api(ops.floor, [a], lambda x: x, modes=())
    check_api(ops.isnan, [a], np.isnan, modes=())
    check_api(ops.isfinite, [a], np.isfinite, modes=())


def _away_from_zero(rng, shp, low=0.5, high=3):
    return array(rng, shp, low=low, high=high) * np.where(rng.random(shp) < 0.5, -1, 1).astype(np.float32)


# name: (numpy reference, second operand maker, differentiable)
BINARY = {
    "floor_divide": (np.floor_divide, _away_from_zero, False),
    "floor_div": (np.floor_divide, _away_from_zero, False),
    "remainder": (np.remainder, _away_from_zero, True),
    "fmod": (np.fmod, _away_from_zero, True),
    "atan2": (np.arctan2, lambda rng, s: array(rng, s, low=-3, high=3), True),
    "arctan2": (np.arctan2, lambda rng, s: array(rng, s, low=-3, high=3), False),
    "hypot": (np.hypot, lambda rng, s: array(rng, s), True),
    "xlogy": (lambda x, y: x * np.log(y), lambda rng, s: array(rng, s, low=0.2, high=3), True),
    "logaddexp": (np.logaddexp, lambda rng, s: array(rng, s), True),
    "true_divide": (np.true_divide, _away_from_zero, True),
    "divide": (np.divide, _away_from_zero, True),
    "multiply": (np.multiply, lambda rng, s: array(rng, s), True),
    "subtract": (np.subtract, lambda rng, s: array(rng, s), True),
    "logical_xor": (np.logical_xor, lambda rng, s: array(rng, s, np.bool_), False),
    "eq": (np.equal, lambda rng, s: np.round(array(rng, s)), False),
    "isclose": (np.isclose, lambda rng, s: array(rng, s, low=-2.00001, high=2.00001), False),
    "float_power": (np.float_power, lambda rng, s: array(rng, s, low=-2, high=2), False),
    "floor_mod": (np.remainder, _away_from_zero, True),
    "truncate_div": (lambda x, y: np.trunc(x / y), _away_from_zero, False),
    "truncate_mod": (np.fmod, _away_from_zero, True),
    "fmax": (np.fmax, lambda rng, s: _with_nans(rng, array(rng, s)), True),
    "fmin": (np.fmin, lambda rng, s: _with_nans(rng, array(rng, s)), True),
    "xdivy": (np.divide, _away_from_zero, True),
    "logaddexp2": (np.logaddexp2, lambda rng, s: array(rng, s), True),
    "copysign": (np.copysign, _away_from_zero, True),
    "heaviside": (np.heaviside, lambda rng, s: array(rng, s), False),
    "bitwise_and": (np.bitwise_and, lambda rng, s: array(rng, s, np.bool_), False),
    "bitwise_or": (np.bitwise_or, lambda rng, s: array(rng, s, np.bool_), False),
    "bitwise_xor": (np.bitwise_xor, lambda rng, s: array(rng, s, np.bool_), False),
}


def _with_nans(rng, x):
    return np.where(rng.random(x.shape) < 0.3, np.float32(np.nan), x)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name):
    ref, other, grad = BINARY[name]
    rng = seeded(name)
    shp = shape(rng)
    x = array(rng, shp, np.bool_) if name.startswith(("logical_xor", "bitwise")) else array(rng, shp)
    if name == "float_power":
        x = np.abs(x) + np.float32(0.5)
    if name == "eq":
        x = np.round(x)
    y = other(rng, shp[1:] if len(shp) > 1 else shp)     # broadcast against a trailing shape
    check_api(getattr(ops, name), [x, y], ref, grad=grad)


def test_isclose_allclose():
    a = np.array([1.0, np.inf, -np.inf, np.nan, 1.0, np.nan], np.float32)
    b = np.array([1.0 + 1e-7, np.inf, np.inf, np.nan, np.inf, 1.0], np.float32)
    check_api(ops.isclose, [a, b], np.isclose, modes=())
    check_api(ops.isclose, [a, b], np.isclose, kwargs={"equal_nan": True})
    assert ops.allclose(ms.Tensor(a[:1]), ms.Tensor(b[:1])) is True
    assert ops.allclose(ms.Tensor(a), ms.Tensor(b)) is False


def test_combinations():
    rng = seeded("combinations")
    shp = shape(rng, 2)
    x, y, z = (array(rng, shp) for _ in range(3))
    w = array(rng, shp, low=0.5, high=2)
    check_api(ops.clamp, [x], lambda v, min, max: np.clip(v, min, max), kwargs={"min": -0.5, "max": 1.0},
              grad=True)
    check_api(ops.clip, [x, y[:1], z[:1] + 3], np.clip, grad=True)
    check_api(ops.clamp, [x], lambda v, max: np.minimum(v, max), kwargs={"max": 0.3})
    check_api(ops.lerp, [x, y, z], lambda a, b, t: a + t * (b - a), grad=True)
    check_api(ops.lerp, [x, y, 0.25], lambda a, b, t: (a + t * (b - a)).astype(np.float32), grad=True)
    check_api(ops.addcmul, [x, y, z], lambda a, b, c, value: a + value * b * c, kwargs={"value": 0.5}, grad=True)
    check_api(ops.addcdiv, [x, y, w], lambda a, b, c, value: a + value * b / c, kwargs={"value": 2}, grad=True)
    check_api(ops.subtract, [x, y], lambda a, b, alpha: a - alpha * b, kwargs={"alpha": 3}, grad=True)
    check_api(ops.round, [x * 100], lambda a, decimals: np.round(a, decimals), kwargs={"decimals": 1},
              rtol=1e-5, atol=1e-4)
    check_api(ops.logit, [np.abs(x) / 2], lambda p, eps: np.log(np.clip(p, 0.1, 0.9) / (1 - np.clip(p, 0.1, 0.9))),
              kwargs={"eps": 0.1})
    check_api(ops.invert, [x > 0], np.invert)
    check_api(ops.invert, [np.round(x * 3).astype(np.int32)], np.invert)


def test_errors():
    x = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="Clamp"):
        ops.clamp(x)
    with pytest.raises(ValueError, match="rounding_mode"):
        ops.div(x, x, rounding_mode="up")
    with pytest.raises(ValueError, match="MatMul"):
        ops.mm(x, x)
    with pytest.raises(ValueError, match="Einsum"):
        ops.einsum("ii->i", x)
    with pytest.raises(ValueError, match="TensorDot"):
        ops.tensor_dot(x, x, ((0,), (1,)))
    with pytest.raises(ValueError, match="Cross"):
        ops.cross(ms.Tensor(np.ones((2, 4), np.float32)), ms.Tensor(np.ones((2, 4), np.float32)))


# ---- Tensor methods ------------------------------------------------------------------------------------

def _methods():
    """name: (a function calling the method, its numpy reference); named functions, so that the
    ast capture mode can interpret them."""
    def clamp(x):
        return x.clamp(-1, 1)

    def clip(x):
        return x.clip(min=-0.5)

    def floor(x):
        return x.floor()

    def round(x):
        return x.round()

    def add(x):
        return x.add(x, alpha=2)

    def sub(x):
        return x.sub(1.5)

    def mul(x):
        return x.mul(x)

    def div(x):
        return x.div(2.0)

    def matmul(x):
        return x.matmul(x.swapaxes(-1, -2))

    def atan2(x):
        return x.atan2(x + 1)

    def log1p(x):
        return (x * x).log1p()

    def eq(x):
        return x.eq(x)

    def gt(x):
        return x.gt(0)

    def maximum(x):
        return x.maximum(0.5)

    def logical_not(x):
        return (x > 0).logical_not()

    def isclose(x):
        return x.isclose(x)

    def nan_to_num(x):
        return x.nan_to_num()

    refs = {"clamp": lambda v: np.clip(v, -1, 1), "clip": lambda v: np.maximum(v, np.float32(-0.5)),
            "floor": np.floor, "round": np.round, "add": lambda v: v + 2 * v, "sub": lambda v: v - np.float32(1.5),
            "mul": lambda v: v * v, "div": lambda v: v / np.float32(2),
            "matmul": lambda v: v @ np.swapaxes(v, -1, -2), "atan2": lambda v: np.arctan2(v, v + 1),
            "log1p": lambda v: np.log1p(v * v), "eq": lambda v: v == v, "gt": lambda v: v > 0,
            "maximum": lambda v: np.maximum(v, np.float32(0.5)), "logical_not": lambda v: ~(v > 0),
            "isclose": lambda v: np.isclose(v, v), "nan_to_num": np.nan_to_num}
    return {name: (fn, refs[name]) for name, fn in locals().items() if name in refs}


METHODS = _methods()


@pytest.mark.parametrize("name", sorted(METHODS))
def test_tensor_method(name):
    fn, ref = METHODS[name]
    rng = seeded(name)
    x = array(rng, shape(rng, 2))
    floating = ref(x).dtype.kind == "f"
    check_api(fn, [x], ref, grad=floating and name not in ("floor", "round"))


# ---- linear algebra ----------------------------------------------------------------------------------

def _mats(rng, *shapes):
    return [array(rng, s) for s in shapes]


def test_mm_dot_outer_inner():
    rng = seeded("linalg")
    n, k, m = (int(v) for v in rng.integers(1, 5, 3))
    a, b, v, w = _mats(rng, (n, k), (k, m), (k,), (m,))
    check_api(ops.mm, [a, b], np.matmul, grad=True)
    check_api(ops.dot, [a, b], np.dot, grad=True)
    check_api(ops.dot, [a, v], np.dot, grad=True)
    c, d = _mats(rng, (2, n, k), (3, k, m))
    check_api(ops.dot, [c, d], np.dot, grad=True)
    check_api(ops.outer, [v, w], np.outer, grad=True)
    check_api(ops.ger, [v, w], np.outer)
    check_api(ops.inner, [a, _mats(rng, (m, k))[0]], np.inner, grad=True)
    check_api(ops.inner, [v, v], np.inner)
    check_api(ops.vecdot, [a, a], lambda x, y: np.sum(x * y, -1), grad=True)


def test_addmm_baddbmm():
    rng = seeded("addmm")
    n, k, m, b = (int(v) for v in rng.integers(1, 5, 4))
    inp, x, y = _mats(rng, (n, m), (n, k), (k, m))
    check_api(ops.addmm, [inp, x, y], lambda i, p, q, beta, alpha: beta * i + alpha * p @ q,
              kwargs={"beta": 0.5, "alpha": 2.0}, grad=True)
    check_api(ops.addmm, [inp[:1], x, y], lambda i, p, q: i + p @ q, grad=True)
    inp, x, y = _mats(rng, (b, n, m), (b, n, k), (b, k, m))
    check_api(ops.baddbmm, [inp, x, y], lambda i, p, q, beta, alpha: beta * i + alpha * p @ q,
              kwargs={"beta": 2, "alpha": 0.5}, grad=True)


@pytest.mark.parametrize("axes", [1, 2, ((0,), (1,)), ((2, 0), (0, 1))])
def test_tensor_dot(axes):
    rng = seeded(str(axes))
    p, q, r = (int(v) for v in rng.integers(1, 4, 3))
    if axes == 1:
        x, y = _mats(rng, (p, q, r), (r, p))
    elif axes == 2:
        x, y = _mats(rng, (p, q, r), (q, r, p))
    elif axes == ((0,), (1,)):
        x, y = _mats(rng, (p, q), (r, p))
    else:
        x, y = _mats(rng, (p, q, r), (r, p, q))
    check_api(ops.tensor_dot, [x, y], lambda a, b, axes: np.tensordot(a, b, axes), kwargs={"axes": axes},
              grad=True)


EINSUM = [("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,kj->ik", [(2, 3), (4, 3)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
          ("i,j->ij", [(3,), (4,)]), ("ij->ji", [(2, 3)]), ("ij->", [(2, 3)]), ("ij,ij->i", [(2, 3), (2, 3)]),
          ("...ij,...jk->...ik", [(2, 2, 3), (3, 4)]), ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]),
          ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]), ("ik,kj", [(2, 3), (3, 4)])]


@pytest.mark.parametrize("equation,shapes", EINSUM)
def test_einsum(equation, shapes):
    rng = seeded(equation)
    xs = _mats(rng, *shapes)
    def einsum(*operands):
        return ops.einsum(equation, *operands)
    check_api(einsum, xs, functools.partial(np.einsum, equation), grad=True)


def test_matrix_vector_products():
    rng = seeded("mv")
    n, k, m, b = (int(v) for v in rng.integers(1, 5, 4))
    a, v, u, c = _mats(rng, (n, k), (k,), (n,), (n, k))
    check_api(ops.mv, [a, v], np.matmul, grad=True)
    check_api(ops.addmv, [u, a, v], lambda i, p, q, beta, alpha: beta * i + alpha * p @ q,
              kwargs={"beta": 2, "alpha": 0.5}, grad=True)
    check_api(ops.addr, [c, u, v], lambda i, p, q: i + np.outer(p, q), grad=True)
    inp, x, y = _mats(rng, (n, m), (b, n, k), (b, k, m))
    check_api(ops.addbmm, [inp, x, y], lambda i, p, q: i + np.sum(p @ q, 0), grad=True)
    x, y = _mats(rng, (b, n), (b, n))
    check_api(ops.batch_dot, [x, y], lambda p, q: np.sum(p * q, -1, keepdims=True), grad=True)
    x, y = _mats(rng, (b, n, k), (b, k, m))
    check_api(ops.batch_dot, [x, y], lambda p, q: p @ q, grad=True)
    x, y = _mats(rng, (n, k), (k, m))
    check_api(ops.kron, [x, y], np.kron, grad=True)
    check_api(ops.dist, [x, _mats(rng, (n, k))[0]],
              lambda a, b, p: np.asarray(np.linalg.norm((a - b).ravel(), p), np.float32), kwargs={"p": 3}, grad=True)
    x, y = _mats(rng, (b, n, k), (b, m, k))
    check_api(ops.cdist, [x, y], lambda p, q: np.linalg.norm(p[..., :, None, :] - q[..., None, :, :], axis=-1),
              grad=True)


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_matrix_power(n):
    rng = seeded(f"power{n}")
    m = int(rng.integers(1, 4))
    x = array(rng, (2, m, m), low=-1, high=1)
    check_api(ops.matrix_power, [x], lambda a, n: np.linalg.matrix_power(a, n), kwargs={"n": n}, grad=n > 0)


def test_trace_cross():
    rng = seeded("trace")
    n, m = (int(v) for v in rng.integers(1, 5, 2))
    a = array(rng, (n, m))
    check_api(ops.trace, [a], lambda x: np.asarray(np.trace(x), x.dtype), grad=True)
    check_api(ops.trace, [array(rng, (n, m), np.int32, -5, 5)], lambda x: np.asarray(np.trace(x), x.dtype))
    x, y = _mats(rng, (n, 3), (n, 3))
    check_api(ops.cross, [x, y], lambda a, b: np.cross(a, b), grad=True)
    x, y = _mats(rng, (3, n), (3, n))
    check_api(ops.cross, [x, y], lambda a, b, dim: np.cross(a, b, axis=0), kwargs={"dim": 0})

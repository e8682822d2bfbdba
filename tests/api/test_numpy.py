"""``mindspore.numpy`` (msjit/numpy) against numpy itself: each function on random shapes, eager
and under jit (ast, bytecode, trace), with gradients where differentiable."""
import numpy as np
import pytest

from msjit import numpy as mnp
import msjit as ms
from harness import array, check_api, shape

pytestmark = pytest.mark.usefixtures("module_daemon_home")


def _rng(name):
    return np.random.default_rng(sum(map(ord, name)) + 17)


def _f(low=-2, high=2, ndim=None):
    return lambda rng, shp: array(rng, shp if ndim is None else shp[:ndim], low=low, high=high)


def _b():
    return lambda rng, shp: array(rng, shp, np.bool_)


# name: (argument makers given (rng, shape), keyword arguments, differentiable)
ELEMENTWISE = {
    "exp": ([_f()], True), "log": ([_f(0.2, 3)], True), "sqrt": ([_f(0.2, 3)], True), "square": ([_f()], True),
    "abs": ([_f()], True), "absolute": ([_f()], True), "sin": ([_f()], True), "cos": ([_f()], True),
    "tanh": ([_f()], True), "floor": ([_f()], False), "ceil": ([_f()], False), "negative": ([_f()], True),
    "arctan": ([_f()], True), "log1p": ([_f(-0.5, 2)], True), "sign": ([_f()], False),
    "add": ([_f(), _f()], True), "subtract": ([_f(), _f()], True), "multiply": ([_f(), _f()], True),
    "divide": ([_f(), _f(0.5, 2)], True), "true_divide": ([_f(), _f(0.5, 2)], True),
    "power": ([_f(0.5, 2), _f()], True), "maximum": ([_f(), _f()], True), "minimum": ([_f(), _f()], True),
    "remainder": ([_f(), _f(0.5, 2)], False), "arctan2": ([_f(), _f()], True), "hypot": ([_f(), _f()], True),
    "equal": ([_f(), _f()], False), "not_equal": ([_f(), _f()], False), "less": ([_f(), _f()], False),
    "less_equal": ([_f(), _f()], False), "greater": ([_f(), _f()], False), "greater_equal": ([_f(), _f()], False),
    "isclose": ([_f(), _f()], False), "isnan": ([_f()], False), "isfinite": ([_f()], False),
    "logical_and": ([_b(), _b()], False), "logical_or": ([_b(), _b()], False), "logical_not": ([_b()], False),
    "logical_xor": ([_b(), _b()], False), "ravel": ([_f()], True),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise(name):
    makers, grad = ELEMENTWISE[name]
    rng = _rng(name)
    shp = shape(rng)
    args = [m(rng, shp) for m in makers]
    check_api(getattr(mnp, name), args, getattr(np, name), grad=grad)


def test_dtype_argument():
    rng = _rng("dtype")
    x = array(rng, shape(rng), np.int32, -5, 5)
    check_api(mnp.add, [x, x], lambda a, b, dtype: (a + b).astype(np.float32), kwargs={"dtype": mnp.float32})
    check_api(mnp.power, [x, 2], np.power)
    check_api(mnp.sum, [x], lambda a, dtype: np.sum(a, dtype=np.float64), kwargs={"dtype": mnp.float64})


REDUCTIONS = ["sum", "mean", "amax", "max", "amin", "min", "argmax", "argmin", "std", "var", "cumsum", "prod",
              "ptp", "count_nonzero"]


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reduction(name):
    rng = _rng(name)
    x = array(rng, shape(rng))
    if name in ("argmax", "argmin", "amax", "max", "amin", "min", "ptp"):
        x = (rng.permutation(x.size).reshape(x.shape) / 3).astype(np.float32)      # distinct values
    axis = int(rng.integers(-x.ndim, x.ndim))
    ref = getattr(np, name)
    check_dtype = name not in ("argmin", "count_nonzero")        # MindSpore: int32 results
    grad = name not in ("argmax", "argmin", "count_nonzero")
    check_api(getattr(mnp, name), [x], ref, kwargs={"axis": axis}, grad=grad, check_dtype=check_dtype)
    check_api(getattr(mnp, name), [x], ref, modes=("ast",), check_dtype=check_dtype, rtol=1e-4)


def test_reduction_options():
    rng = _rng("options")
    x = array(rng, shape(rng, 3))
    check_api(mnp.sum, [x], np.sum, kwargs={"axis": (0, 2), "keepdims": True, "initial": 1.5}, grad=True)
    check_api(mnp.mean, [x], np.mean, kwargs={"axis": 1, "keepdims": True}, grad=True)
    check_api(mnp.amax, [x], np.amax, kwargs={"axis": 0, "initial": 0.5})
    check_api(mnp.std, [x], np.std, kwargs={"axis": (1, 2), "ddof": 1, "keepdims": True}, grad=True)
    check_api(_average, [x, array(rng, x.shape[1:2], low=0.5, high=2)], lambda v, w: np.average(v, 1, w),
              grad=True)


def _average(x, weights):
    return mnp.average(x, 1, weights)


# name: (argument makers given (rng, shape), keyword arguments given the shape, differentiable)
ARRAY = {
    "reshape": ([_f()], lambda s: {"new_shape": (-1,) + s[-1:]}, True),
    "transpose": ([_f()], lambda s: {}, True),
    "transpose_axes": ([_f(ndim=3)], lambda s: {"axes": (1, 2, 0)}, True),
    "expand_dims": ([_f()], lambda s: {"axis": -1}, True),
    "squeeze": ([lambda rng, s: array(rng, (1,) + s + (1,))], lambda s: {}, True),
    "concatenate": ([lambda rng, s: [array(rng, s), array(rng, s)]], lambda s: {"axis": -1}, False),
    "stack": ([lambda rng, s: [array(rng, s), array(rng, s)]], lambda s: {"axis": 1}, False),
    "split": ([lambda rng, s: array(rng, (4,) + s)], lambda s: {"indices_or_sections": 2}, False),
    "split_indices": ([lambda rng, s: array(rng, (5,) + s)], lambda s: {"indices_or_sections": [1, 3]}, False),
    "tile": ([_f()], lambda s: {"reps": (2, 1)}, True),
    "broadcast_to": ([_f()], lambda s: {"shape": (2,) + s}, True),
    "flip": ([_f()], lambda s: {}, True),
    "flip_axis": ([_f()], lambda s: {"axis": 0}, True),
    "swapaxes": ([_f(ndim=2)], lambda s: {"axis1": 0, "axis2": -1}, True),
    "moveaxis": ([_f(ndim=3)], lambda s: {"source": 0, "destination": -1}, True),
    "where": ([_b(), _f(), _f()], lambda s: {}, True),
    "clip": ([_f()], lambda s: {"a_min": -1.0, "a_max": 0.5}, True),
    "dot": ([_f(ndim=2), lambda rng, s: array(rng, s[1:2] + (3,))], lambda s: {}, True),
    "matmul": ([_f(ndim=2), lambda rng, s: array(rng, s[1:2])], lambda s: {}, True),
}


@pytest.mark.parametrize("name", sorted(ARRAY))
def test_array(name):
    makers, kwargs, grad = ARRAY[name]
    rng = _rng(name)
    shp = shape(rng, 3 if name in ("transpose_axes", "moveaxis") else 2 if name in ("dot", "matmul", "swapaxes")
                else None, low=2)
    args = [m(rng, shp) for m in makers]
    kw = kwargs(shp)
    base = name.split("_axis")[0].split("_axes")[0].split("_indices")[0]
    fn, ref = getattr(mnp, base), getattr(np, base)
    if base == "clip":        # mindspore.numpy spells numpy's a_min/a_max xmin/xmax
        kw = {"xmin": kw["a_min"], "xmax": kw["a_max"]}
        ref = (lambda x, xmin, xmax: np.clip(x, xmin, xmax))
    if base == "reshape":
        ref = (lambda x, new_shape: np.reshape(x, new_shape))
    if base in ("concatenate", "stack"):
        wrap = {"concatenate": _concatenate, "stack": _stack}[base]
        check_api(wrap, args[0], lambda *xs, **k: getattr(np, base)(xs, **k), kwargs=kw, grad=True)
        return
    if base == "split":
        check_api(fn, args, lambda x, indices_or_sections: tuple(np.split(x, indices_or_sections)), kwargs=kw)
        return
    check_api(fn, args, ref, kwargs=kw, grad=grad)


def _concatenate(*xs, axis=0):
    return mnp.concatenate(xs, axis)


def _stack(*xs, axis=0):
    return mnp.stack(xs, axis)


def test_creation():
    """Values as numpy; dtypes as MindSpore's numpy (Python ints as int32, floats as float32)."""
    def same(got, want, dtype):
        assert isinstance(got, ms.Tensor) and got.dtype is dtype, (got, dtype)
        np.testing.assert_allclose(got.asnumpy(), want)

    same(mnp.array([[1, 2], [3, 4]]), [[1, 2], [3, 4]], mnp.int32)
    same(mnp.array([1.5, 2]), [1.5, 2], mnp.float32)
    same(mnp.array([[1, 2]], ndmin=3), [[[1, 2]]], mnp.int32)
    same(mnp.asarray([1, 2], mnp.float64), [1, 2], mnp.float64)
    t = ms.Tensor(np.ones(3, np.float32))
    assert mnp.asarray(t) is t
    same(mnp.zeros((2, 3)), np.zeros((2, 3)), mnp.float32)
    same(mnp.ones(4, mnp.int32), np.ones(4), mnp.int32)
    same(mnp.full((2, 2), 7), np.full((2, 2), 7), mnp.int32)
    same(mnp.full((2, 2), 0.5), np.full((2, 2), 0.5), mnp.float32)
    same(mnp.empty((3,)), np.zeros(3), mnp.float32)
    same(mnp.zeros_like(t), np.zeros(3), mnp.float32)
    same(mnp.ones_like(t, dtype=mnp.int64), np.ones(3), mnp.int64)
    same(mnp.full_like(t, 3, shape=(2,)), np.full(2, 3), mnp.float32)
    same(mnp.arange(5), np.arange(5), mnp.int32)
    same(mnp.arange(1.0, 3, 0.5), np.arange(1.0, 3, 0.5), mnp.float32)
    same(mnp.linspace(0, 1, 5), np.linspace(0, 1, 5), mnp.float32)
    same(mnp.linspace(0, 1, 4, endpoint=False), np.linspace(0, 1, 4, endpoint=False), mnp.float32)
    same(mnp.eye(2, 3, 1), np.eye(2, 3, 1), mnp.float32)
    same(mnp.identity(3), np.identity(3), mnp.float32)
    assert (mnp.pi, mnp.e, mnp.inf) == (np.pi, np.e, np.inf) and np.isnan(mnp.nan)
    assert mnp.float32 is ms.float32 and mnp.int64 is ms.int64


def test_creation_in_jit():
    """Creation functions are constants of the graph."""
    def scaled(x):
        return mnp.multiply(x, mnp.arange(3)) + mnp.ones((3,)) + mnp.eye(3)[0]

    x = np.array([1.0, 2.0, 3.0], np.float32)
    check_api(scaled, [x], lambda v: (v * np.arange(3) + 1 + np.eye(3)[0]).astype(np.float32))


def test_errors():
    x = ms.Tensor(np.ones((5, 2), np.float32))
    with pytest.raises(ValueError, match="split"):
        mnp.split(x, 2)
    with pytest.raises(ValueError, match="where"):
        mnp.where(x > 0)


# ---- the rest of mindspore.numpy (extra_ops.py) ------------------------------------------------------

def _nan_sprinkled(rng, shp):
    x = array(rng, shp)
    x[rng.random(shp) < 0.25] = np.nan
    x.flat[0] = 1.0
    return x


def _two(fn):
    """A named function of two tensors (mnp functions that take a tuple or a list of arrays)."""
    def pair(a, b):
        return fn((a, b))
    return pair


# name: (function, argument makers given (rng, shape) of a random 2-D shape, numpy reference, differentiable)
EXTRA = {
    "append": (mnp.append, [_f(), _f()], np.append, True),
    "atleast_3d": (mnp.atleast_3d, [_f(ndim=1)], np.atleast_3d, True),
    "column_stack": (_two(mnp.column_stack), [_f(ndim=1), _f(ndim=1)], lambda a, b: np.column_stack((a, b)), True),
    "dstack": (_two(mnp.dstack), [_f(), _f()], lambda a, b: np.dstack((a, b)), True),
    "rollaxis": (mnp.rollaxis, [_f(), 1], np.rollaxis, True),
    "rot90": (mnp.rot90, [_f()], np.rot90, True),
    "take": (mnp.take, [_f(), np.array([0, 1, 0])], np.take, True),
    "cbrt": (mnp.cbrt, [_f(0.5, 3)], np.cbrt, True),
    "copysign": (mnp.copysign, [_f(), _f()], np.copysign, True),
    "logaddexp2": (mnp.logaddexp2, [_f(), _f()], np.logaddexp2, True),
    "signbit": (mnp.signbit, [_f()], np.signbit, False),
    "kron": (mnp.kron, [_f(), _f()], np.kron, True),
    "norm": (mnp.norm, [_f()], lambda a: np.asarray(np.linalg.norm(a), a.dtype), True),
    "cov": (mnp.cov, [_f()], lambda a: np.cov(a).astype(a.dtype), True),
    "diff": (mnp.diff, [_f()], np.diff, True),
    "trapz": (mnp.trapz, [_f()], np.trapz, True),
    "nansum": (mnp.nansum, [_nan_sprinkled], np.nansum, False),
    "nanmean": (mnp.nanmean, [_nan_sprinkled], np.nanmean, False),
    "nanmax": (mnp.nanmax, [_nan_sprinkled], np.nanmax, False),
    "nanmin": (mnp.nanmin, [_nan_sprinkled], np.nanmin, False),
    "nanvar": (mnp.nanvar, [_nan_sprinkled], np.nanvar, False),
    "nanstd": (mnp.nanstd, [_nan_sprinkled], np.nanstd, False),
    "nancumsum": (mnp.nancumsum, [_nan_sprinkled], np.nancumsum, False),
    "matrix_power": (mnp.matrix_power, [lambda rng, s: array(rng, (s[0], s[0]), low=-1, high=1), 3],
                     np.linalg.matrix_power, True),
    "multi_dot": (lambda *xs: mnp.multi_dot(xs), [_f(), lambda rng, s: array(rng, s[::-1]), _f()],
                  lambda *xs: np.linalg.multi_dot(xs), True),
}


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_extra(name):
    fn, makers, ref, grad = EXTRA[name]
    rng = _rng(name)
    shp = shape(rng, 2, low=2)
    args = [m(rng, shp) if callable(m) else m for m in makers]
    modes = ("trace",) if name == "multi_dot" else ("ast", "bytecode", "trace")   # a lambda: trace only
    check_api(fn, args, ref, grad=grad, modes=modes, rtol=1e-4)


def test_extra_eager():
    """Python-bool and creation functions (no graph: their results are Python values or constants)."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ms.Tensor(x)
    assert mnp.array_equal(t, t) is True and mnp.array_equal(t, t + 1) is False
    assert mnp.array_equiv(t, ms.Tensor(x[:1])) is False and mnp.array_equiv(t[:1], ms.Tensor(x[:1]))
    for got, want in ((mnp.logspace(0, 2, 3), np.logspace(0, 2, 3)), (mnp.geomspace(1, 8, 4), np.geomspace(1, 8, 4)),
                      (mnp.tri(3, 4, 1), np.tri(3, 4, 1))):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    assert mnp.randint(0, 5, (4,)).dtype is mnp.int32 and mnp.rand(2, 3).shape == (2, 3)
    assert mnp.promote_types(mnp.int32, mnp.float32) is mnp.float32
    q, r = mnp.divmod(t, 4.0)
    np.testing.assert_allclose(q.asnumpy(), x // 4), np.testing.assert_allclose(r.asnumpy(), x % 4)
    np.testing.assert_allclose(mnp.matrix_power(ms.Tensor(x[:, :2]), 0).asnumpy(), np.eye(2))

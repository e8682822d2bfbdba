"""Reductions, cumulative ops and sorting of ``mindspore.ops`` (ops/math_reduce.py,
ops/math_scan.py) and their Tensor methods against numpy on random shapes and axes: eager, jit
under ast/bytecode/trace, gradients against finite differences where differentiable."""
import numpy as np
import pytest

import msjit as ms
from msjit import ops
from harness import array, check_api, shape

pytestmark = pytest.mark.usefixtures("module_daemon_home")


def _case(name, ndim=None, dtype=np.float32, low=-2, high=2):
    """A seeded random array and a random axis of it."""
    rng = np.random.default_rng(sum(map(ord, name)))
    x = array(rng, shape(rng, ndim), dtype, low, high)
    return x, int(rng.integers(-x.ndim, x.ndim))


def _distinct(x):
    """``x`` with all values distinct (arg-extrema and sorting are then unambiguous)."""
    order = np.random.default_rng(x.size).permutation(x.size)
    return (order.reshape(x.shape).astype(x.dtype) - x.size / 2) / 4


# ---- reductions over an axis ------------------------------------------------------------------------
# Functions selecting one output of a tuple (gradients are taken of a single tensor).

def max_values(x, axis):
    return ops.max(x, axis)[0]


def cummax_values(x, axis):
    return ops.cummax(x, axis)[0]


def cummin_values(x, axis):
    return ops.cummin(x, axis)[0]


def sort_values(x, axis):
    return ops.sort(x, axis, True)[0]


def median_values(x, axis):
    return ops.median(x, axis)[0]


def _lower_median(x, axis):
    return np.take(np.sort(x, axis), (x.shape[axis] - 1) // 2, axis)


def _running_argmax(x, axis):
    y = np.moveaxis(x, axis, -1)
    out = np.stack([np.argmax(y[..., :j + 1], -1) for j in range(y.shape[-1])], -1)
    return np.moveaxis(out, -1, axis)


def _stable_argsort(x, axis):
    return np.argsort(x, axis, kind="stable").astype(np.int32)


# name: (function, its keyword arguments given the random axis, numpy reference of (x, **kwargs),
#        differentiable)
REDUCTIONS = {
    "prod": (ops.prod, lambda a: {"axis": a}, lambda x, axis: np.prod(x, axis), True),
    "prod_all_keep": (ops.prod, lambda a: {"keep_dims": True}, lambda x, keep_dims: np.prod(x, keepdims=True),
                      True),
    "max_values": (max_values, lambda a: {"axis": a}, lambda x, axis: np.max(x, axis), True),
    "max": (ops.max, lambda a: {"axis": a, "keepdims": True},
            lambda x, axis, keepdims: (np.max(x, axis, keepdims=True), np.argmax(x, axis, keepdims=True)), False),
    "min": (ops.min, lambda a: {"axis": a}, lambda x, axis: (np.min(x, axis), np.argmin(x, axis)), False),
    "argmax": (ops.argmax, lambda a: {"dim": a}, lambda x, dim: np.argmax(x, dim), False),
    "argmax_all": (ops.argmax, lambda a: {}, np.argmax, False),
    "argmin": (ops.argmin, lambda a: {"axis": a, "keepdims": True},
               lambda x, axis, keepdims: np.argmin(x, axis, keepdims=True).astype(np.int32), False),
    "std": (ops.std, lambda a: {"axis": a}, lambda x, axis: np.std(x, axis), True),
    "var": (ops.var, lambda a: {"axis": a, "ddof": 1, "keepdims": True},
            lambda x, axis, ddof, keepdims: np.var(x, axis, ddof=ddof, keepdims=True), True),
    "std_all": (ops.std, lambda a: {}, np.std, True),
    "std_mean": (ops.std_mean, lambda a: {"axis": a}, lambda x, axis: (np.std(x, axis), np.mean(x, axis)), False),
    "var_mean": (ops.var_mean, lambda a: {"axis": a, "ddof": 1, "keepdims": True},
                 lambda x, axis, ddof, keepdims: (np.var(x, axis, ddof=1, keepdims=True),
                                                  np.mean(x, axis, keepdims=True)), False),
    "logsumexp": (ops.logsumexp, lambda a: {"dim": a},
                  lambda x, dim: np.log(np.sum(np.exp(x.astype(np.float64)), dim)).astype(x.dtype), True),
    "norm": (ops.norm, lambda a: {}, lambda x: np.asarray(np.linalg.norm(x.ravel()), x.dtype), True),
    "norm_dim": (ops.norm, lambda a: {"dim": a, "keepdim": True},
                 lambda x, dim, keepdim: np.linalg.norm(x, axis=dim, keepdims=True), True),
    "norm_3": (ops.norm, lambda a: {"ord": 3, "dim": a}, lambda x, ord, dim: np.linalg.norm(x, ord, dim), True),
    "norm_inf": (ops.norm, lambda a: {"ord": float("inf"), "dim": a},
                 lambda x, ord, dim: np.linalg.norm(x, ord, dim), True),
    "norm_1": (ops.norm, lambda a: {"ord": 1, "dim": a}, lambda x, ord, dim: np.linalg.norm(x, ord, dim), True),
    "norm_0": (ops.norm, lambda a: {"ord": 0, "dim": a}, lambda x, ord, dim: np.linalg.norm(x, ord, dim), False),
    "count_nonzero": (ops.count_nonzero, lambda a: {"axis": a},
                      lambda x, axis: np.count_nonzero(x, axis).astype(np.int32), False),
    "cumsum": (ops.cumsum, lambda a: {"axis": a}, lambda x, axis: np.cumsum(x, axis), True),
    "cumprod": (ops.cumprod, lambda a: {"dim": a}, lambda x, dim: np.cumprod(x, dim), True),
    "cummax": (cummax_values, lambda a: {"axis": a}, lambda x, axis: np.maximum.accumulate(x, axis), True),
    "cummin": (cummin_values, lambda a: {"axis": a}, lambda x, axis: np.minimum.accumulate(x, axis), True),
    "cummax_indices": (ops.cummax, lambda a: {"axis": a},
                       lambda x, axis: (np.maximum.accumulate(x, axis), _running_argmax(x, axis)), False),
    "sort": (ops.sort, lambda a: {"axis": a}, lambda x, axis: (np.sort(x, axis), _stable_argsort(x, axis)), False),
    "sort_values": (sort_values, lambda a: {"axis": a}, lambda x, axis: -np.sort(-x, axis), True),
    "argsort": (ops.argsort, lambda a: {"axis": a, "descending": True},
                lambda x, axis, descending: _stable_argsort(-x, axis), False),
    "median": (median_values, lambda a: {"axis": a}, _lower_median, True),
    "logcumsumexp": (ops.logcumsumexp, lambda a: {"axis": a},
                     lambda x, axis: np.log(np.cumsum(np.exp(x.astype(np.float64)), axis)).astype(x.dtype), True),
    "nansum": (ops.nansum, lambda a: {"axis": a}, lambda x, axis: np.nansum(x, axis), True),
    "nanmean": (ops.nanmean, lambda a: {"axis": a, "keepdims": True},
                lambda x, axis, keepdims: np.nanmean(x, axis, keepdims=True), True),
    "vector_norm": (ops.vector_norm, lambda a: {"ord": 3, "axis": a},
                    lambda x, ord, axis: np.linalg.norm(x, ord, axis), True),
    "diff": (ops.diff, lambda a: {"axis": a}, lambda x, axis: np.diff(x, axis=axis), True),
    "diff_2": (ops.diff, lambda a: {"n": 2, "axis": a}, lambda x, n, axis: np.diff(x, n, axis), True),
    "trapz": (ops.trapz, lambda a: {"dim": a}, lambda x, dim: np.trapz(x, axis=dim), True),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction(name):
    fn, kwargs, ref, grad = REDUCTIONS[name]
    x, axis = _case(name)
    if name.startswith(("sort", "argsort", "median", "max", "min", "argm", "cum")):
        x = _distinct(x)
    if name.startswith("nan"):
        x = np.where(np.random.default_rng(3).random(x.shape) < 0.2, np.float32(np.nan), x)
        x.flat[0] = 1.0                                          # no all-NaN row for nanmean
        x[(slice(None),) * (axis % x.ndim) + (0,)] = 1.0
    check_api(fn, [x], ref, kwargs=kwargs(axis), grad=grad)


def test_integer_and_bool_inputs():
    x, axis = _case("ints", 2, np.int32, -3, 3)
    check_api(ops.prod, [x], lambda v, axis: np.prod(v, axis, dtype=np.int64), kwargs={"axis": axis})
    check_api(ops.cumsum, [x], lambda v, axis: np.cumsum(v, axis, dtype=np.int32), kwargs={"axis": axis})
    check_api(ops.argmax, [x], lambda v, dim: np.argmax(v, dim), kwargs={"dim": axis})
    b = x > 0
    check_api(ops.all, [b], lambda v, axis: np.all(v, axis), kwargs={"axis": axis})
    check_api(ops.any, [b], lambda v, axis, keep_dims: np.any(v, axis, keepdims=True),
              kwargs={"axis": axis, "keep_dims": True})
    check_api(ops.all, [x], lambda v: np.all(v))
    check_api(ops.sum, [x], lambda v, dim: np.sum(v, dim, dtype=np.int64), kwargs={"dim": axis})   # int64, as MindSpore
    check_api(ops.sum, [b], lambda v: np.sum(v, dtype=np.int64))
    check_api(ops.mean, [x], lambda v, axis: np.trunc(np.mean(v, axis)).astype(np.int32), kwargs={"axis": axis})
    check_api(ops.cumprod, [x], lambda v, dim: np.cumprod(v, dim, dtype=np.int64), kwargs={"dim": axis})
    check_api(ops.any, [x.astype(np.float32)], lambda v: np.any(v))


def test_topk():
    x, axis = _case("topk", 2)
    x = _distinct(x)
    k = int(np.random.default_rng(1).integers(1, x.shape[-1] + 1))

    def ref(v, k, largest=True):
        idx = np.argsort(-v if largest else v, -1, kind="stable")[..., :k]
        return np.take_along_axis(v, idx, -1), idx.astype(np.int32)

    check_api(ops.topk, [x], ref, kwargs={"k": k})
    check_api(ops.topk, [x], ref, kwargs={"k": k, "largest": False})

    def topk_values(v):
        return ops.topk(v, k)[0]
    check_api(topk_values, [x], lambda v: ref(v, k)[0], grad=True)


def test_ties_and_special_values():
    """Ties: sort is stable, argmax takes the first, cummax the last; NaN is argmax's maximum."""
    x = np.array([[2.0, 1.0, 2.0, 1.0], [0.0, 3.0, 3.0, 0.0]], np.float32)
    check_api(ops.sort, [x], lambda v: (np.sort(v), np.argsort(v, kind="stable").astype(np.int32)), modes=())
    check_api(ops.argmax, [x], lambda v, dim: np.argmax(v, dim), kwargs={"dim": 1}, modes=())
    check_api(ops.cummax, [x], lambda v, axis: (np.maximum.accumulate(v, 1), np.array([[0, 0, 2, 2], [0, 1, 2, 2]])),
              kwargs={"axis": 1}, modes=())
    check_api(ops.median, [x], lambda v: (np.array([1.0, 0.0], np.float32), np.array([3, 3])), modes=())
    y = np.array([1.0, np.nan, 3.0], np.float32)
    check_api(ops.argmax, [y], np.argmax, modes=())
    check_api(ops.prod, [np.array([[0.0, -2.0, 3.0]], np.float64)], lambda v: np.prod(v), grad=True, modes=())


def test_matrix_norms():
    rng = np.random.default_rng(7)
    x = array(rng, shape(rng, 2))
    for ord in (None, "fro", 1, -1, float("inf"), float("-inf")):
        check_api(ops.norm, [x], lambda v, ord: np.linalg.norm(v, ord), kwargs={"ord": ord}, modes=("ast",),
                  grad=ord in (None, "fro"))
    check_api(ops.norm, [x], lambda v, ord, dim: np.linalg.norm(v, 1, (1, 0)), kwargs={"ord": 1, "dim": (1, 0)},
              modes=())
    with pytest.raises(ValueError, match="Norm"):
        ops.norm(ms.Tensor(x), "nuc")


def test_matrix_norm_cov_trapz():
    rng = np.random.default_rng(11)
    x = array(rng, (2,) + shape(rng, 2))
    check_api(ops.matrix_norm, [x], lambda v: np.linalg.norm(v, "fro", (-2, -1)), grad=True)
    check_api(ops.matrix_norm, [x], lambda v, ord: np.linalg.norm(v, 1, (-2, -1)), kwargs={"ord": 1})
    m = array(rng, (3, 5))
    check_api(ops.cov, [m], lambda v: np.cov(v).astype(np.float32), grad=True)
    check_api(ops.cov, [m], lambda v, correction: np.cov(v, ddof=0).astype(np.float32), kwargs={"correction": 0})
    pts = np.sort(array(rng, (5,)))
    check_api(ops.trapz, [m, pts], lambda y, x: np.trapz(y, x), grad=True)
    check_api(ops.diff, [m], lambda v, axis, prepend: np.diff(v, axis=0, prepend=prepend),
              kwargs={"axis": 0, "prepend": np.zeros((1, 5), np.float32)}, modes=())


def test_errors():
    x = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="TopK"):
        ops.topk(x, 4)
    with pytest.raises(ValueError, match="out of range"):
        ops.argmax(x, 2)
    with pytest.raises(ValueError, match="Argmin"):
        ops.argmin(ms.Tensor(np.ones((2, 0), np.float32)), 1)


# ---- Tensor methods (MindSpore's signatures) -------------------------------------------------------

def _methods():
    def max_all(x):
        return x.max()

    def max_axis(x):
        return x.max(axis=1, keepdims=True)

    def max_dim(x):
        return x.max(1)

    def min_dim(x):
        return x.min(dim=0, keepdim=True)

    def argmax(x):
        return x.argmax(axis=1)

    def argmin(x):
        return x.argmin(dim=0, keepdim=True)

    def sum_(x):
        return x.sum(1, keepdims=True)

    def sum_dim(x):
        return x.sum(dim=0, initial=1.0)

    def mean(x):
        return x.mean(1, True)

    def prod(x):
        return x.prod(0)

    def std(x):
        return x.std(1, 1)

    def var(x):
        return x.var()

    def all_(x):
        return (x > 0).all(1)

    def any_(x):
        return (x > 0).any()

    def cumsum(x):
        return x.cumsum(1)

    def cumsum_flat(x):
        return x.cumsum()

    def norm(x):
        return x.norm()

    def logsumexp(x):
        return x.logsumexp(1)

    def sort(x):
        return x.sort(0)

    def topk(x):
        return x.topk(1)

    def prod_dim(x):
        return x.prod(dim=1, keepdim=True)

    def std_dim(x):
        return x.std(dim=0)

    def argmax_axis(x):
        return x.argmax(axis=0, keepdims=True)

    def median_dim(x):
        return x.median(dim=0)

    def logsumexp_axis(x):
        return x.logsumexp(axis=1, keepdims=True)

    def aminmax(x):
        return x.aminmax(axis=1, keepdims=True)

    def argmax_with_value(x):
        return x.argmax_with_value()

    def argmin_with_value(x):
        return x.argmin_with_value(1, True)

    def msort(x):
        return x.msort()

    def ptp(x):
        return x.ptp(1)

    def cov(x):
        return x.cov(correction=0)

    refs = {
        "max_all": lambda v: np.max(v), "max_axis": lambda v: np.max(v, 1, keepdims=True),
        "max_dim": lambda v: (np.max(v, 1), np.argmax(v, 1)),
        "min_dim": lambda v: (np.min(v, 0, keepdims=True), np.argmin(v, 0, keepdims=True)),
        "argmax": lambda v: np.argmax(v, 1), "argmin": lambda v: np.argmin(v, 0, keepdims=True).astype(np.int32),
        "sum_": lambda v: np.sum(v, 1, keepdims=True), "sum_dim": lambda v: np.sum(v, 0) + np.float32(1),
        "mean": lambda v: np.mean(v, 1, keepdims=True), "prod": lambda v: np.prod(v, 0),
        "std": lambda v: np.std(v, 1, ddof=1), "var": lambda v: np.var(v), "all_": lambda v: np.all(v > 0, 1),
        "any_": lambda v: np.any(v > 0), "cumsum": lambda v: np.cumsum(v, 1), "cumsum_flat": lambda v: np.cumsum(v),
        "norm": lambda v: np.asarray(np.linalg.norm(v), v.dtype),
        "logsumexp": lambda v: np.log(np.sum(np.exp(v.astype(np.float64)), 1)).astype(v.dtype),
        "sort": lambda v: (np.sort(v, 0), np.argsort(v, 0, kind="stable").astype(np.int32)),
        "topk": lambda v: (np.sort(v, 1)[:, ::-1][:, :1], np.argsort(-v, 1, kind="stable")[:, :1].astype(np.int32)),
        "prod_dim": lambda v: np.prod(v, 1, keepdims=True), "std_dim": lambda v: np.std(v, 0),
        "argmax_axis": lambda v: np.argmax(v, 0, keepdims=True),
        "median_dim": lambda v: (_lower_median(v, 0), np.argsort(v, 0, kind="stable")[(v.shape[0] - 1) // 2]),
        "logsumexp_axis": lambda v: np.log(np.sum(np.exp(v.astype(np.float64)), 1, keepdims=True)).astype(v.dtype),
        "aminmax": lambda v: (np.min(v, 1, keepdims=True), np.max(v, 1, keepdims=True)),
        "argmax_with_value": lambda v: (np.max(v, 0), np.argmax(v, 0)),
        "argmin_with_value": lambda v: (np.min(v, 1, keepdims=True), np.argmin(v, 1, keepdims=True)),
        "msort": lambda v: np.sort(v, 0), "ptp": lambda v: np.ptp(v, 1),
        "cov": lambda v: np.cov(v, ddof=0).astype(v.dtype),
    }
    return {name: (fn, refs[name]) for name, fn in locals().items() if name in refs}


METHODS = _methods()


@pytest.mark.parametrize("name", sorted(METHODS))
def test_tensor_method(name):
    fn, ref = METHODS[name]
    x = _case(name, 2)[0]
    x = _distinct(np.concatenate([x, x], 0))      # at least two rows: std over axis 0 is not 0
    want = ref(x)
    grad = not isinstance(want, tuple) and want.dtype.kind == "f"
    check_api(fn, [x], ref, grad=grad)

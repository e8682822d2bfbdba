"""Random-shape differential tests for the operators of the models (issue 3): comparisons,
logical ops, where, pow/sin/cos/abs/rsqrt/erf, max/min reductions, broadcast_to, tile, concat,
gather, strided slices with negative steps, triu/tril, softmax, layer_norm, conv2d and pooling.
Each case draws shapes and attributes from a seeded generator, then compares jit O0/O1 (through
the real msjitd, fullgraph so nothing falls back) with eager msjit and with numpy."""
import math
import zlib

import numpy as np
import pytest

pytest.importorskip("msjit._msjit_rt")

from msjit import Tensor, jit, ops  # noqa: E402
from msjit import dtype as D  # noqa: E402

import nn_ref as R  # noqa: E402
from test_jit_e2e import private_daemon  # noqa: E402,F401  (module-scoped real daemon)
from test_jit_random_shapes import broadcast_partner, random_shape  # noqa: E402

LEVELS = ["O0", "O1"]
CASES_PER_OP = 3


def run(fn, reference, arrays, level, tol=2e-5):
    args = [Tensor(a) for a in arrays]
    eager = fn(*args)
    compiled = jit(fn, jit_level=level, fullgraph=True)
    out = compiled(*args)
    assert compiled.stats.compiles == 1
    want = np.asarray(reference(*arrays))
    for got in (eager, out):
        assert got.shape == want.shape and got.asnumpy().dtype == want.dtype, (got.shape, want.shape)
        np.testing.assert_allclose(got.asnumpy(), want, rtol=tol, atol=tol)
    np.testing.assert_allclose(out.asnumpy(), eager.asnumpy(), rtol=tol, atol=tol)


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def floats(rng, shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


@pytest.mark.parametrize("level", LEVELS)
def test_compare_logical_where(level):
    rng = rng_for("compare")
    for _ in range(CASES_PER_OP):
        a_shape, b_shape = broadcast_partner(rng, random_shape(rng))
        a, b = np.round(floats(rng, a_shape)), np.round(floats(rng, b_shape))

        def f(x, y):
            lt, ge = x < y, ops.greater_equal(x, y)
            keep = ops.logical_or(ops.logical_and(lt, ops.logical_not(x == y)), ops.not_equal(x, y))
            return ops.where(keep, x * 2.0, y) + ops.cast(ge, x.dtype)

        def ref(x, y):
            keep = np.logical_or(np.logical_and(x < y, ~(x == y)), x != y)
            return (np.where(keep, x * np.float32(2), y) + (x >= y).astype(np.float32)).astype(np.float32)

        run(f, ref, [a, b], level)


@pytest.mark.parametrize("level", LEVELS)
def test_unary_math(level):
    rng = rng_for("unary-math")
    for _ in range(CASES_PER_OP):
        x = floats(rng, random_shape(rng), 0.2, 2.0)

        def f(t):
            return ops.pow(t, 1.5) + ops.sin(t) * ops.cos(t) - ops.abs(-t) + ops.rsqrt(t) + ops.erf(t - 1.0)

        def ref(a):
            erf = np.vectorize(math.erf)(a.astype(np.float64) - 1.0)
            return (a ** 1.5 + np.sin(a) * np.cos(a) - np.abs(-a) + 1 / np.sqrt(a) + erf).astype(np.float32)

        run(f, ref, [x], level, tol=1e-4)


@pytest.mark.parametrize("level", LEVELS)
def test_max_min_reductions(level):
    rng = rng_for("amax")
    for _ in range(CASES_PER_OP):
        shape = random_shape(rng) or (4,)
        axis = int(rng.integers(-len(shape), len(shape)))
        keep = bool(rng.integers(0, 2))
        x = floats(rng, shape)

        def f(t):
            return ops.amax(t, axis, keep) - ops.amin(t, axis, keep)

        run(f, lambda a: np.max(a, axis, keepdims=keep) - np.min(a, axis, keepdims=keep), [x], level)


@pytest.mark.parametrize("level", LEVELS)
def test_broadcast_tile_concat(level):
    rng = rng_for("movement")
    for _ in range(CASES_PER_OP):
        shape = tuple(int(d) for d in rng.integers(1, 4, int(rng.integers(1, 4))))
        reps = tuple(int(r) for r in rng.integers(1, 3, len(shape)))
        axis = int(rng.integers(0, len(shape)))
        x, y = floats(rng, shape), floats(rng, shape)

        def f(a, b):
            wide = ops.broadcast_to(a, (2,) + shape)
            return ops.concat((ops.tile(a, reps), ops.tile(b, reps)), axis), wide * 3.0

        def ref(a, b):
            return np.concatenate((np.tile(a, reps), np.tile(b, reps)), axis)

        args = [Tensor(x), Tensor(y)]
        compiled = jit(f, jit_level=level, fullgraph=True)
        joined, wide = compiled(*args)
        np.testing.assert_allclose(joined.asnumpy(), ref(x, y), rtol=1e-6)
        np.testing.assert_allclose(wide.asnumpy(), np.broadcast_to(x, (2,) + shape) * 3, rtol=1e-6)
        eager_joined, eager_wide = f(*args)
        np.testing.assert_array_equal(eager_joined.asnumpy(), joined.asnumpy())
        np.testing.assert_array_equal(eager_wide.asnumpy(), wide.asnumpy())


@pytest.mark.parametrize("level", LEVELS)
def test_gather_and_strided_slices(level):
    rng = rng_for("gather-slice")
    for _ in range(CASES_PER_OP):
        shape = tuple(int(d) for d in rng.integers(2, 6, 3))
        axis = int(rng.integers(0, 3))
        indices = rng.integers(-shape[axis], shape[axis], int(rng.integers(1, 5))).astype(np.int64)
        begin = [int(rng.integers(0, d)) for d in shape]
        step = [int(rng.choice([-2, -1, 1, 2])) for _ in shape]
        x = floats(rng, shape)

        def f(t, i):
            return ops.gather(t, i, axis), t[begin[0]::step[0], begin[1]::step[1], begin[2]::step[2]]

        args = [Tensor(x), Tensor(indices)]
        compiled = jit(f, jit_level=level, fullgraph=True)
        gathered, sliced = compiled(*args)
        eager_gathered, eager_sliced = f(*args)
        np.testing.assert_array_equal(gathered.asnumpy(), np.take(x, indices, axis))
        np.testing.assert_array_equal(eager_gathered.asnumpy(), np.take(x, indices, axis))
        want = x[begin[0]::step[0], begin[1]::step[1], begin[2]::step[2]]
        np.testing.assert_array_equal(sliced.asnumpy(), want)
        np.testing.assert_array_equal(eager_sliced.asnumpy(), want)


@pytest.mark.parametrize("level", LEVELS)
def test_triangles_softmax_layer_norm(level):
    rng = rng_for("nn")
    for _ in range(CASES_PER_OP):
        rows, cols = (int(d) for d in rng.integers(1, 7, 2))
        k = int(rng.integers(-2, 3))
        axis = int(rng.integers(-2, 2))
        x = floats(rng, (2, rows, cols))

        def f(t):
            masked = ops.triu(t, k) + ops.tril(t, k - 1)
            return ops.softmax(masked, axis) + ops.layer_norm(t, (cols,))

        def ref(a):
            masked = np.triu(a, k) + np.tril(a, k - 1)
            e = np.exp(masked - masked.max(axis, keepdims=True))
            mean, var = a.mean(-1, keepdims=True), a.var(-1, keepdims=True)
            return (e / e.sum(axis, keepdims=True) + (a - mean) / np.sqrt(var + 1e-5)).astype(np.float32)

        run(f, ref, [x], level, tol=1e-4)


@pytest.mark.parametrize("level", LEVELS)
def test_conv_and_pools(level):
    rng = rng_for("conv")
    for _ in range(CASES_PER_OP):
        groups = int(rng.choice([1, 2]))
        cin, cout = groups * int(rng.integers(1, 4)), groups * int(rng.integers(1, 4))
        k, stride, pad = int(rng.integers(1, 4)), int(rng.integers(1, 3)), int(rng.integers(0, 2))
        size = int(rng.integers(k + 2, 10))
        x, w = floats(rng, (2, cin, size, size)), floats(rng, (cout, cin // groups, k, k))

        def f(a, b):
            y = ops.conv2d(a, b, stride=stride, pad_mode="pad", padding=pad, groups=groups)
            return ops.max_pool2d(y, 2, 1) + ops.avg_pool2d(y, 2, 1)

        def ref(a, b):
            y = R.conv2d(a, b, (stride, stride), (1, 1), (pad, pad, pad, pad), groups)
            return (R.max_pool(y, (2, 2), (1, 1)) + R.avg_pool(y, (2, 2), (1, 1))).astype(np.float32)

        run(f, ref, [x, w], level, tol=1e-4)

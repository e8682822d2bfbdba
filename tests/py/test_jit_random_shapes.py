"""Differential tests on random shapes: for every op, seeded random shapes (numpy broadcasting
with size-1 dims and rank differences, random axes and permutations) are run jitted at O0 and
O1 through the real msjitd and compared with eager msjit and with numpy.

Shapes are drawn from a fixed seed per case so a failure names a reproducible case id.
"""
import zlib

import numpy as np
import pytest

pytest.importorskip("msjit._msjit_rt")

from msjit import Tensor, jit, ops  # noqa: E402
from msjit import dtype as D  # noqa: E402

from test_eager_ops import make as values  # noqa: E402
from test_jit_e2e import private_daemon  # noqa: E402,F401  (module-scoped real daemon)
from test_jit_e2e import (j_add, j_div, j_exp, j_log, j_matmul, j_maximum, j_minimum, j_mul,  # noqa: E402
                          j_neg, j_relu, j_sigmoid, j_sqrt, j_sub, j_tanh)

LEVELS = ["O0", "O1"]
CASES_PER_OP = 4
TOL = {D.float32: dict(rtol=2e-5, atol=2e-5), D.float16: dict(rtol=3e-3, atol=3e-3),
       D.int32: dict(rtol=0, atol=0)}


def random_shape(rng, max_rank=4):
    return tuple(int(d) for d in rng.integers(1, 5, rng.integers(0, max_rank + 1)))


def broadcast_partner(rng, shape):
    """A shape that broadcasts with `shape`: some dims set to 1, some leading dims dropped."""
    partner = [1 if rng.random() < 0.35 else d for d in shape]
    drop = rng.integers(0, len(shape) + 1) if shape else 0
    partner = partner[drop:]
    return tuple(partner), shape if rng.random() < 0.5 else tuple(partner)


def check(out, want, dt):
    want = np.asarray(want)
    assert isinstance(out, Tensor) and out.dtype is dt and out.shape == want.shape, (out, want.shape)
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), want.astype(np.float64), **TOL[dt])


def run_case(fn, numpy_fn, arrays, dt, level):
    args = [Tensor(a) for a in arrays]
    eager = fn(*args)
    compiled = jit(fn, jit_level=level, fullgraph=True)   # never a silent eager fallback
    jitted = compiled(*args)
    assert compiled.stats.compiles == 1
    reference = numpy_fn(*arrays)
    check(eager, reference, dt)
    check(jitted, reference, dt)
    check(jitted, eager.asnumpy(), dt)


BINARY = {  # name: (function, numpy reference, positive inputs)
    "add": (j_add, np.add, False),
    "sub": (j_sub, np.subtract, False),
    "mul": (j_mul, np.multiply, False),
    "div": (j_div, np.true_divide, True),
    "maximum": (j_maximum, np.maximum, False),
    "minimum": (j_minimum, np.minimum, False),
}
UNARY = {  # name: (function, numpy reference, positive inputs, integers allowed)
    "neg": (j_neg, np.negative, False, True),
    "relu": (j_relu, lambda a: np.maximum(a, 0).astype(a.dtype), False, True),
    "exp": (j_exp, np.exp, False, False),
    "log": (j_log, np.log, True, False),
    "sqrt": (j_sqrt, np.sqrt, True, False),
    "sigmoid": (j_sigmoid, lambda a: (1 / (1 + np.exp(-a))).astype(a.dtype), False, False),
    "tanh": (j_tanh, np.tanh, False, False),
}


DTYPES = [D.float32, D.float16, D.int32]


# Integer true division and float-only unary ops on integers are promotion cases (ints become
# float32), covered by the promotion tests; they are not generated here.
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name, dt", [(n, d) for n in sorted(BINARY) for d in DTYPES
                                      if d.is_floating or n != "div"], ids=str)
def test_binary_ops_broadcast(name, dt, level):
    fn, numpy_fn, positive = BINARY[name]
    rng = np.random.default_rng(zlib.crc32(f"{name}-{dt.name}".encode()))
    for _ in range(CASES_PER_OP):
        shape = random_shape(rng)
        a_shape, b_shape = broadcast_partner(rng, shape)
        arrays = [values(rng, a_shape, dt, positive), values(rng, b_shape, dt, positive)]
        run_case(fn, numpy_fn, arrays, dt, level)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name, dt", [(n, d) for n in sorted(UNARY) for d in DTYPES
                                      if d.is_floating or UNARY[n][3]], ids=str)
def test_unary_ops(name, dt, level):
    fn, numpy_fn, positive, _ = UNARY[name]
    rng = np.random.default_rng(zlib.crc32(f"{name}-{dt.name}".encode()))
    for _ in range(CASES_PER_OP):
        run_case(fn, numpy_fn, [values(rng, random_shape(rng), dt, positive)], dt, level)


@pytest.mark.parametrize("level", LEVELS)
def test_matmul_random_dims(level):
    rng = np.random.default_rng(7)
    for _ in range(CASES_PER_OP):
        batch = random_shape(rng, max_rank=2)
        m, k, n = (int(v) for v in rng.integers(1, 9, 3))
        arrays = [values(rng, batch + (m, k), D.float32), values(rng, batch + (k, n), D.float32)]
        run_case(j_matmul, np.matmul, arrays, D.float32, level)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_reductions_random_axes(op, keep, level):
    rng = np.random.default_rng(11 + keep)
    for _ in range(CASES_PER_OP):
        shape = random_shape(rng) or (3,)
        rank = len(shape)
        count = int(rng.integers(1, rank + 1))
        axes = tuple(int(a) - (rank if rng.random() < 0.5 else 0)   # some negative
                     for a in rng.choice(rank, count, replace=False))
        x = values(rng, shape, D.float32)

        def reduce(t):
            return ops.sum(t, axes, keep) if op == "sum" else ops.mean(t, axes, keep)

        numpy_fn = np.sum if op == "sum" else np.mean
        run_case(reduce, lambda a: numpy_fn(a, axes, keepdims=keep), [x], D.float32, level)


@pytest.mark.parametrize("level", LEVELS)
def test_reshape_and_transpose_random(level):
    rng = np.random.default_rng(13)
    for _ in range(CASES_PER_OP):
        shape = random_shape(rng) or (1,)
        perm = tuple(int(p) for p in rng.permutation(len(shape)))
        flat = int(np.prod(shape))
        x = values(rng, shape, D.float32)

        def transpose(t):
            return ops.transpose(t, perm)

        def reshape(t):
            return ops.reshape(t, (flat, -1))

        def transpose_then_chain(t):  # O1 fuses the permutation into the elementwise loop nest
            return ops.exp(ops.transpose(t, perm)) * 2.0 + 1.0

        run_case(transpose, lambda a: np.transpose(a, perm), [x], D.float32, level)
        run_case(reshape, lambda a: a.reshape(flat, -1), [x], D.float32, level)
        run_case(transpose_then_chain, lambda a: np.exp(np.transpose(a, perm)) * np.float32(2) + np.float32(1),
                 [x], D.float32, level)

"""End to end: jit through the real msjitd and the native runtime, differential against eager
and numpy for every op at O0 and O1. Needs msjit._msjit_rt (built by bazel) and msjitd
(MSJITD_BIN or PATH); a private daemon is started in a temporary MSJIT_HOME."""
import os
import shutil
import tempfile

import numpy as np
import pytest

pytest.importorskip("msjit._msjit_rt")

import msjit  # noqa: E402
from msjit import Tensor, jit, ops, rpc, serialize  # noqa: E402
from msjit import dtype as D  # noqa: E402
from msjit.capture.ast import capture_ast  # noqa: E402
from support import msjitd_binary  # noqa: E402

HERE = os.path.abspath(__file__)
LEVELS = ["O0", "O1"]
TOL = {D.float16: dict(rtol=2e-3, atol=2e-3), D.float32: dict(rtol=1e-5, atol=1e-5),
       D.float64: dict(rtol=1e-12, atol=1e-12), D.int32: dict(rtol=0, atol=0), D.int64: dict(rtol=0, atol=0)}


@pytest.fixture(scope="module", autouse=True)
def private_daemon():
    """A daemon of our own, started by the client itself (MSJIT_HOME auto-start path)."""
    home = tempfile.mkdtemp(prefix="msjit-e2e", dir="/tmp")
    mp = pytest.MonkeyPatch()
    mp.setenv("MSJIT_HOME", home)
    mp.setenv("MSJITD_BIN", msjitd_binary())
    mp.delenv("MSJITD_ADDRESS", raising=False)
    rpc.reset_client()
    yield home
    rpc.reset_client()
    for proc in rpc._spawned:   # the daemon this module started, by its pid
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=60)
    mp.undo()
    shutil.rmtree(home, ignore_errors=True)


def data(shape, dt, seed, positive=False):
    rng = np.random.default_rng(seed)
    if dt.is_floating:
        a = rng.uniform(0.2, 2.0, shape) if positive else rng.standard_normal(shape)
    else:
        a = rng.integers(1 if positive else -9, 10, shape)
    return Tensor(np.asarray(a, dt.np))


def check(out, ref, dt):
    assert isinstance(out, Tensor) and out.dtype is dt and out.shape == np.shape(ref)
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), np.asarray(ref, np.float64), **TOL[dt])


def j_add(x, y): return x + y  # noqa: E704
def j_sub(x, y): return ops.sub(x, y)  # noqa: E704
def j_mul(x, y): return x * y  # noqa: E704
def j_div(x, y): return x / y  # noqa: E704
def j_maximum(x, y): return ops.maximum(x, y)  # noqa: E704
def j_minimum(x, y): return ops.minimum(x, y)  # noqa: E704
def j_neg(x): return -x  # noqa: E704
def j_relu(x): return ops.relu(x)  # noqa: E704
def j_exp(x): return ops.exp(x)  # noqa: E704
def j_log(x): return ops.log(x)  # noqa: E704
def j_sqrt(x): return ops.sqrt(x)  # noqa: E704
def j_sigmoid(x): return ops.sigmoid(x)  # noqa: E704
def j_tanh(x): return ops.tanh(x)  # noqa: E704
def j_matmul(x, y): return x @ y  # noqa: E704
def j_sum(x): return ops.sum(x, -1, True)  # noqa: E704
def j_sum_all(x): return x.sum()  # noqa: E704
def j_mean(x): return ops.mean(x, (0, -1))  # noqa: E704
def j_reshape(x): return ops.reshape(x, (-1, 2))  # noqa: E704
def j_transpose(x): return ops.transpose(x, (2, 0, 1))  # noqa: E704
def j_cast(x): return ops.cast(x, msjit.float64)  # noqa: E704
def j_scalar(x): return 2.0 * 3 + x * 0.5  # noqa: E704
def j_mixed(x, y): return x + y  # noqa: E704


F, I = [D.float32, D.float16], [D.int32, D.int64]
CASES = [  # fn, numpy reference, input shapes, dtypes, positive inputs
    (j_add, np.add, [(2, 3), (3,)], F + I, False),
    (j_sub, np.subtract, [(4, 1), (1, 5)], F + I, False),
    (j_mul, np.multiply, [(2, 3, 4), ()], F + I, False),
    (j_div, np.true_divide, [(3, 4), (3, 4)], F, True),
    (j_maximum, np.maximum, [(2, 3), (2, 3)], F + I, False),
    (j_minimum, np.minimum, [(3,), (2, 3)], F + I, False),
    (j_neg, np.negative, [(5,)], F + I, False),
    (j_relu, lambda x: np.maximum(x, 0), [(2, 5)], F + I, False),
    (j_exp, np.exp, [(7,)], F, False),
    (j_log, np.log, [(7,)], F, True),
    (j_sqrt, np.sqrt, [(2, 3)], F, True),
    (j_sigmoid, lambda x: 1 / (1 + np.exp(-x)), [(6,)], F, False),
    (j_tanh, np.tanh, [(6,)], F, False),
    (j_matmul, np.matmul, [(3, 4), (4, 5)], [D.float32, D.float64, D.int32], False),
    (j_matmul, np.matmul, [(2, 3, 4), (2, 4, 5)], [D.float32], False),
    (j_matmul, np.matmul, [(4,), (4, 3)], [D.float32], False),
    (j_sum, lambda x: np.sum(x, -1, keepdims=True), [(3, 4)], F + I, False),
    (j_sum_all, np.sum, [(3, 4)], [D.float32, D.int32], False),
    (j_mean, lambda x: np.mean(x, (0, 2)), [(2, 3, 4)], F, False),
    (j_reshape, lambda x: x.reshape(-1, 2), [(2, 3, 4)], [D.float32, D.int64], False),
    (j_transpose, lambda x: x.transpose(2, 0, 1), [(2, 3, 4)], [D.float32, D.int32], False),
    (j_cast, lambda x: x.astype(np.float64), [(3,)], [D.float32, D.int32], False),
    (j_scalar, lambda x: 6.0 + x * 0.5, [(2, 2)], F, False),
]
PARAMS = [pytest.param(fn, ref, shapes, dt, pos, id=f"{fn.__name__}-{dt.name}-{shapes}")
          for fn, ref, shapes, dts, pos in CASES for dt in dts]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("fn, ref, shapes, dt, positive", PARAMS)
def test_jit_matches_eager_and_numpy(level, fn, ref, shapes, dt, positive):
    args = [data(s, dt, seed=i, positive=positive) for i, s in enumerate(shapes)]
    eager = fn(*args)
    jitted = jit(fn, jit_level=level)
    out = jitted(*args)
    check(out, ref(*(a.asnumpy() for a in args)), eager.dtype)
    check(out, eager.asnumpy(), eager.dtype)
    again = jitted(*args)       # the fast path
    check(again, eager.asnumpy(), eager.dtype)
    assert jitted.stats.compiles == 1


@pytest.mark.parametrize("level", LEVELS)
def test_mixed_dtypes_match_eager(level):
    x, y = data((3,), D.int32, 0), data((2, 3), D.float16, 1)
    check(jit(j_mixed, jit_level=level)(x, y), j_mixed(x, y).asnumpy(), D.float16)


def tutorial_f(a, b, c):
    return a * b + c


@pytest.mark.parametrize("mode", ["ast", "bytecode", "trace"])
@pytest.mark.parametrize("level", LEVELS)
def test_tutorial_every_capture_mode(mode, level):
    jitted = jit(capture_mode=mode, jit_level=level)(tutorial_f)
    for i in range(5):
        args = [data((2, 3), D.float32, seed=10 * i + k) for k in range(3)]
        check(jitted(*args), tutorial_f(*args).asnumpy(), D.float32)
    assert jitted.stats.compiles == 1


def test_hot_path_never_calls_the_daemon():
    jitted = jit(tutorial_f)
    args = [data((2, 3), D.float32, seed=k) for k in range(3)]
    jitted(*args)
    before = rpc.client().stats().compile_requests
    for _ in range(200):
        jitted(*args)
    assert rpc.client().stats().compile_requests == before


def test_same_graph_hits_the_daemon_cache():
    args = [data((5,), D.float32, seed=k) for k in range(3)]
    before = rpc.client().stats()
    jit(tutorial_f)(*args)
    jit(tutorial_f)(*args)
    after = rpc.client().stats()
    assert after.compile_requests - before.compile_requests == 2
    assert after.compiles - before.compiles <= 1


def test_non_contiguous_inputs():
    a = np.arange(12, dtype=np.float32).reshape(3, 4).T         # a transposed view
    x = Tensor._wrap(a)
    jitted = jit(j_neg)
    check(jitted(Tensor(np.zeros((4, 3), np.float32))), np.zeros((4, 3)), D.float32)
    check(jitted(x), -a, D.float32)


def test_invalid_graph_is_a_compile_error_naming_node_and_line():
    def fn(x):
        return x * 2.0
    model = serialize.to_model(capture_ast(fn, [data((3,), D.float32, 0)]).graph)
    node = model.graph.node[-1]
    node.op_type = "NoSuchOp"
    node.location.file, node.location.line = HERE, 4242
    with pytest.raises(msjit.CompileError, match=node.name) as info:
        rpc.client().compile(model, msjit.config.CompileConfig().to_proto())
    assert f"{HERE}:4242" in str(info.value)

"""The jit call path end to end in Python: guard keys, the per-function cache, the fast path,
output reconstruction and located compile errors. The module shares one real msjitd (started by
the client in a private MSJIT_HOME) and artifacts run on the native runtime extension."""
import hashlib
import os
import re

import numpy as np
import pytest

import msjit
from msjit import Tensor, jit, ops, rpc, runtime, serialize
from msjit.jit import _no_fast
from msjit.proto import mindir_pb2, msjit_pb2

HERE = os.path.abspath(__file__)
pytestmark = pytest.mark.usefixtures("module_daemon_home")


def t(*shape, dtype=np.float32, seed=0):
    return Tensor(np.random.default_rng(seed).uniform(0.5, 2.0, shape).astype(dtype))


def assert_close(a, b):
    assert isinstance(a, Tensor) and a.dtype is b.dtype and a.shape == b.shape
    np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)


def count_slow_calls(jitted):
    """Record the calls that miss the fast path (``JitFunction.__call__`` falls through to
    ``_call_slow`` exactly when the entry's FastCall declines or there is none)."""
    calls, slow = [], jitted._call_slow

    def counting(args, kwargs):
        calls.append(args)
        return slow(args, kwargs)
    jitted._call_slow = counting
    return calls


def tutorial_f(a, b, c):
    return a * b + c


def test_compiles_once_then_takes_the_fast_path():
    jitted = jit(tutorial_f)
    args = [t(2, 3, seed=i) for i in range(3)]
    assert_close(jitted(*args), tutorial_f(*args))
    assert jitted.stats.compiles == 1 and jitted._fast is not _no_fast
    fast, slow_calls = jitted._fast, count_slow_calls(jitted)
    for i in range(3):
        new = [t(2, 3, seed=10 + i + j) for j in range(3)]
        assert_close(jitted(*new), tutorial_f(*new))
    assert slow_calls == [] and jitted._fast is fast and jitted.stats.compiles == 1


def test_new_shapes_and_dtypes_compile_new_entries():
    jitted = jit(tutorial_f, jit_level="O1")
    a = [t(2, 3, seed=i) for i in range(3)]
    b = [t(4, seed=i) for i in range(3)]
    c = [t(4, dtype=np.float16, seed=i) for i in range(3)]
    for args, compiles in ((a, 1), (b, 2), (a, 2), (c, 3), (b, 3)):
        assert_close(jitted(*args), tutorial_f(*args))
        assert jitted.stats.compiles == compiles
    assert len(jitted._cache) == 3


def scaled(x, scale, shift=0.0):
    return x * scale + shift


def test_python_constants_are_part_of_the_guard_key():
    jitted = jit(scaled)
    x = t(3)
    for scale, compiles in ((2.0, 1), (3.0, 2), (2.0, 2), (2, 3)):
        assert_close(jitted(x, scale), scaled(x, scale))
        assert jitted.stats.compiles == compiles
    assert jitted._fast is _no_fast              # a constant argument: no fast path


def test_keyword_arguments_share_the_positional_entry():
    jitted = jit(tutorial_f)
    a, b, c = (t(2, seed=i) for i in range(3))
    assert_close(jitted(a, b, c), tutorial_f(a, b, c))
    assert_close(jitted(a, c=c, b=b), tutorial_f(a, b, c))
    assert jitted.stats.compiles == 1
    assert_close(jit(scaled)(a, 2.0, shift=1.0), scaled(a, 2.0, 1.0))


def structured(x, y):
    s = ops.mean(x * y, -1)
    return {"sum": s, "inputs": [x, 3]}, s


def test_structured_outputs_are_rebuilt():
    jitted = jit(structured)
    x, y = t(2, 3), t(2, 3, seed=1)
    out = jitted(x, y)
    ref = structured(x, y)
    assert set(out[0]) == {"sum", "inputs"} and out[0]["inputs"][0] is x and out[0]["inputs"][1] == 3
    assert_close(out[0]["sum"], ref[0]["sum"])
    assert out[1] is not out[0]["sum"] and np.array_equal(out[1].asnumpy(), out[0]["sum"].asnumpy())
    assert jitted._fast is _no_fast


def two_results(x, y):
    return x + y, ops.matmul(x, ops.transpose(y, (1, 0)))


def test_tuple_results_use_the_fast_path():
    jitted = jit(two_results)
    x, y = t(2, 3), t(2, 3, seed=1)
    jitted(x, y)
    slow_calls = count_slow_calls(jitted)
    out = jitted(x, y)
    assert isinstance(out, tuple) and len(out) == 2 and slow_calls == []
    for a, b in zip(out, two_results(x, y)):
        assert_close(a, b)


def test_wrong_arguments_fall_back_to_the_slow_path():
    jitted = jit(tutorial_f)
    args = [t(2, seed=i) for i in range(3)]
    jitted(*args)
    with pytest.raises(TypeError, match="missing a required argument"):
        jitted(*args[:2])
    assert_close(jitted(args[0], args[1], 1.0), tutorial_f(args[0], args[1], 1.0))


def trace_me(a, b):
    return ops.relu(a - b)


def test_trace_and_bytecode_modes_compile_and_match():
    traced = jit(capture_mode="trace")(trace_me)
    bytecode = jit(trace_me, capture_mode="bytecode")
    a, b = t(5), t(5, seed=3)
    assert_close(traced(a, b), trace_me(a, b))
    assert_close(bytecode(a, b), trace_me(a, b))


def reject_me(x):
    y = x * 2.0  # <reject-line>
    return y


@pytest.fixture
def int32_constants(monkeypatch):
    """Make jit send graphs whose float32 constants are int32 ones: capture never builds a graph
    the daemon rejects, and a Mul of float32 and int32 is one. Calling the function it returns
    also drops the source locations, so that the daemon's diagnostic cannot name the user's line."""
    to_model, strip = serialize.to_model, []

    def corrupted(graph):
        model = to_model(graph)
        for node in model.graph.node:
            for a in node.attribute:
                if node.op_type == "Constant" and a.t.dtype == mindir_pb2.DT_FLOAT32:
                    values = np.frombuffer(a.t.raw_data, "<f4").astype("<i4")
                    a.t.dtype, a.t.raw_data = mindir_pb2.DT_INT32, values.tobytes()
            if strip:
                node.ClearField("location")
        return model
    monkeypatch.setattr(serialize, "to_model", corrupted)
    return lambda: strip.append(True)


@pytest.mark.parametrize("located_by", ["daemon", "client"])
def test_compile_errors_name_the_users_line(int32_constants, located_by):
    with open(HERE) as f:
        line = next(i + 1 for i, text in enumerate(f) if text.rstrip().endswith("# <reject-line>"))
    if located_by == "client":
        int32_constants()
    before = rpc.client().stats().compile_errors
    where = re.escape(f"{HERE}:{line}")
    message = f"^node 'Mul_1' \\({where}\\): " if located_by == "daemon" else f"^{where}: node 'Mul_1'"
    with pytest.raises(msjit.CompileError, match=message + ".*Mul operands have different dtypes: f32 vs i32") as info:
        jit(reject_me)(t(3))
    assert info.value.node == "Mul_1" and info.value.location == (HERE, line)
    assert rpc.client().stats().compile_errors == before + 1


def remote_double(x):
    return x + x


def test_remote_artifacts_are_fetched(module_daemon_home, monkeypatch):
    """The daemon's replies carry an artifact_path that does not exist here (as from a daemon on
    another machine): jit must fetch the artifact, check it and store it under MSJIT_HOME."""
    client, replies = rpc.client(), []
    compile_for_real = client.compile

    def compile_elsewhere(model, options):
        reply = msjit_pb2.CompileReply()
        reply.CopyFrom(compile_for_real(model, options))
        reply.artifact_path = "/nonexistent/msjit-remote-cache/" + os.path.basename(reply.artifact_path)
        replies.append(reply)
        return reply
    monkeypatch.setattr(client, "compile", compile_elsewhere)
    monkeypatch.setattr(runtime, "_loaded", {})            # nothing loaded yet in this process
    x = t(4)
    assert_close(jit(remote_double)(x), remote_double(x))
    (reply,) = replies
    artifacts = os.path.join(module_daemon_home.path, "artifacts")
    assert os.listdir(artifacts) == [reply.artifact_digest + ".so"]
    with open(os.path.join(artifacts, reply.artifact_digest + ".so"), "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == reply.artifact_digest


def test_identical_graphs_share_the_daemon_cache():
    before = rpc.client().stats()
    x = t(7)
    jit(remote_double)(x)
    jit(remote_double)(x)
    after = rpc.client().stats()
    assert after.compile_requests - before.compile_requests == 2
    assert after.compiles - before.compiles == 1 and after.memory_hits - before.memory_hits == 1


class Scaler:
    def __init__(self, scale):
        self.scale = scale

    @jit
    def apply(self, x):
        return x * self.scale


def test_jitted_methods_bind_their_instance():
    x = t(3)
    a, b = Scaler(2.0), Scaler(3.0)
    assert_close(a.apply(x), x * 2.0)
    assert_close(b.apply(x), x * 3.0)
    assert_close(a.apply(x), x * 2.0)
    assert Scaler.apply.stats.compiles == 2         # one specialization per instance


def test_lowered_graph_is_printable():
    text = jit(tutorial_f).lower(t(2, 3), t(2, 3), t(2, 3)).graph.as_text()
    assert text.splitlines()[0] == "graph tutorial_f(arg0: float32[2,3], arg1: float32[2,3], arg2: float32[2,3]) {"
    assert "Mul_0: float32[2,3] = Mul(arg0, arg1)  # " + HERE in text
    assert text.splitlines()[-2:] == ["  return Add_1", "}"]

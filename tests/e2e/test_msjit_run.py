"""msjit-run, the C++ client end to end, against real daemons: compile, verified artifact, run in
process, outputs equal numpy; bad inputs, a dead address and a compile error give their exit codes."""
import os
import socket
import subprocess
import time

import numpy as np
import pytest

from mindir_models import mul_add, request
from msjit import serialize
from msjit.proto import mindir_pb2, msjit_pb2
from support import ROOT

BINARY = os.path.join(ROOT, "bazel-bin/client_cpp/msjit-run")
A, B, C = (np.arange(6, dtype=np.float32).reshape(2, 3) * k + k for k in (1.0, 0.5, -2.0))


def closed_port():
    """A loopback address nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def write(path, message):
    path.write_bytes(message.SerializeToString())
    return str(path)


def inputs_file(tmp_path, arrays):
    return write(tmp_path / "inputs.pb", msjit_pb2.ExecuteRequest(inputs=[serialize.tensor_proto(a) for a in arrays]))


def outputs(path):
    reply = msjit_pb2.ExecuteReply()
    with open(path, "rb") as f:
        reply.ParseFromString(f.read())
    assert [t.dtype for t in reply.outputs] == [mindir_pb2.DT_FLOAT32] * len(reply.outputs)
    return [np.frombuffer(t.raw_data, "<f4").reshape(tuple(t.dims)) for t in reply.outputs]


def run(tmp_path, address, req, arrays=(A, B, C), home="home"):
    if not os.access(BINARY, os.X_OK):
        pytest.fail("msjit-run is not built: bazel build //client_cpp:msjit-run")
    out = tmp_path / "outputs.pb"
    if out.exists():
        out.unlink()
    env = dict(os.environ, MSJIT_HOME=str(tmp_path / home))
    env.pop("MSJITD_ADDRESS", None)
    proc = subprocess.run([BINARY, "--address", address, write(tmp_path / "request.pb", req),
                           inputs_file(tmp_path, arrays), str(out)], env=env, capture_output=True, text=True,
                          timeout=120)
    return proc, str(out)


def fields(stdout):
    return dict(item.split("=", 1) for item in stdout.split())


def test_result_equals_numpy_and_the_tier_is_printed(make_daemon, tmp_path):
    daemon = make_daemon().start()
    proc, out = run(tmp_path, daemon.address, request(mul_add()))
    assert proc.returncode == 0, proc.stderr
    (got,) = outputs(out)
    np.testing.assert_allclose(got, A * B + C, rtol=1e-6)
    first = fields(proc.stdout)
    assert first["tier"] == "TIER_NONE" and float(first["compile_ms"]) > 0, proc.stdout
    assert first["address"] == daemon.address and first["artifact"] == "daemon"

    proc, out = run(tmp_path, daemon.address, request(mul_add()), arrays=(C, A, B))
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(outputs(out)[0], C * A + B, rtol=1e-6)
    again = fields(proc.stdout)
    assert again["tier"] == "TIER_MEMORY" and again["key"] == first["key"] and float(again["compile_ms"]) == 0
    stats = daemon.stub().Stats(msjit_pb2.StatsRequest(), timeout=10)
    assert (stats.compiles, stats.compile_requests) == (1, 2)


@pytest.mark.parametrize("arrays, message", [
    ((A, B), "expected 3 inputs, got 2"),
    ((A, B, C.astype(np.float64)), "input 2 is float64\\[2,3\\] with 48 bytes; the artifact was compiled for float32\\[2,3\\]"),
    ((A, B.reshape(3, 2), C), "input 1 is float32\\[3,2\\] with 24 bytes; the artifact was compiled for float32\\[2,3\\]"),
])
def test_bad_inputs_exit_2_with_a_clear_message(make_daemon, tmp_path, arrays, message):
    daemon = make_daemon().start()
    proc, out = run(tmp_path, daemon.address, request(mul_add()), arrays=arrays)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith("msjit-run: ") and __import__("re").search(message, proc.stderr), proc.stderr
    assert not os.path.exists(out)


def test_bad_usage_and_unreadable_files_exit_2(tmp_path):
    for argv in ([], ["only-one"], ["--bogus", "a", "b", "c"]):
        proc = subprocess.run([BINARY, *argv], capture_output=True, text=True, timeout=30)
        assert proc.returncode == 2 and "usage: msjit-run" in proc.stderr, (argv, proc.stderr)
    proc = subprocess.run([BINARY, str(tmp_path / "missing.pb"), str(tmp_path / "x"), str(tmp_path / "y")],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "missing.pb is not a readable serialized msjit.rpc.CompileRequest" in proc.stderr
    help_ = subprocess.run([BINARY, "--help"], capture_output=True, text=True, timeout=30)
    assert help_.returncode == 0 and "Exit status: 0 ok; 1 compile error" in help_.stdout


def test_dead_address_exits_3(tmp_path):
    dead = closed_port()
    proc, _ = run(tmp_path, dead, request(mul_add()))
    assert proc.returncode == 3, (proc.returncode, proc.stderr)
    assert f"msjitd is not reachable at {dead}" in proc.stderr


def test_a_dead_address_first_fails_over_to_the_live_one(make_daemon, tmp_path):
    daemon = make_daemon().start()
    proc, out = run(tmp_path, f"{closed_port()}, {daemon.address}", request(mul_add()))
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(outputs(out)[0], A * B + C, rtol=1e-6)
    assert fields(proc.stdout)["address"] == daemon.address


def test_an_address_that_never_answers_costs_one_health_timeout(make_daemon, tmp_path):
    daemon = make_daemon().start()
    with socket.socket() as silent:     # accepts connections, never speaks: a hung host
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        t0 = time.monotonic()
        proc, out = run(tmp_path, f"127.0.0.1:{silent.getsockname()[1]},{daemon.address}", request(mul_add()))
        elapsed = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(outputs(out)[0], A * B + C, rtol=1e-6)
    assert fields(proc.stdout)["address"] == daemon.address
    assert 0.9 < elapsed < 10, elapsed          # one 1 s health check, then a compile and a process start


def test_compile_error_exits_1_with_the_diagnostic(make_daemon, tmp_path):
    daemon = make_daemon().start()
    bad = mul_add()
    bad.graph.input[2].dtype = mindir_pb2.DT_INT32     # Add of f32 and i32: rejected by the daemon
    proc, out = run(tmp_path, daemon.address, request(bad))
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert "compile error: node 'Add_2' (model.py:2)" in proc.stderr and "different dtypes" in proc.stderr
    assert not os.path.exists(out)

"""The daemon client: address resolution, starting one local daemon under a lock, error mapping,
and fetching artifacts. Every test runs the real msjitd (see conftest.DaemonHome), in a private
MSJIT_HOME of its own."""
import hashlib
import os
import signal
import subprocess
import sys

import grpc
import numpy as np
import pytest

from msjit import errors, rpc, runtime, serialize
from msjit.capture.ast import capture_ast
from msjit.config import CompileConfig
from msjit.proto import mindir_pb2, msjit_pb2, msjit_pb2_grpc
from msjit.tensor import Tensor

OPTIONS = CompileConfig().to_proto()


def double(x):
    return x * 2.0


def double_model():
    return serialize.to_model(capture_ast(double, [Tensor(np.ones(3, np.float32))]).graph)


BIG = np.arange(140_000, dtype=np.float64)   # 1.1 MB of constant data: an artifact over 1 MiB,
                                             # which FetchArtifact streams as more than one chunk


def add_big(x):
    return x + Tensor(BIG)


def mixed_dtype_model():
    """Mul of a float32 and an int32 tensor, built by hand: the daemon must reject it."""
    model = mindir_pb2.ModelProto(ir_version="msjit-mindir-1", producer_name="test_rpc")
    g = model.graph
    g.name = "mixed"
    g.input.add(name="x", dtype=mindir_pb2.DT_FLOAT32, dims=[3])
    g.input.add(name="y", dtype=mindir_pb2.DT_INT32, dims=[3])
    node = g.node.add(name="Mul_1", op_type="Mul", input=["x", "y"], output=["Mul_1"])
    node.location.file, node.location.line = "file.py", 12
    g.output.add(name="Mul_1", dtype=mindir_pb2.DT_FLOAT32, dims=[3])
    return model


def as_if_remote(reply, **changes):
    """A copy of a real CompileReply as a daemon on another machine sends it: its artifact_path
    does not exist here, so the client has to fetch the artifact."""
    copy = msjit_pb2.CompileReply()
    copy.CopyFrom(reply)
    copy.artifact_path = "/nonexistent/msjit-remote-cache/" + os.path.basename(reply.artifact_path)
    for field, value in changes.items():
        setattr(copy, field, value)
    return copy


def test_unreachable_explicit_address(monkeypatch):
    monkeypatch.setenv("MSJITD_ADDRESS", "127.0.0.1:1")
    client = rpc.DaemonClient()
    with pytest.raises(errors.DaemonUnavailableError, match=r"not reachable at 127\.0\.0\.1:1 \(MSJITD_ADDRESS\)"):
        client.stats()


def test_missing_binary(daemon_home, monkeypatch):
    monkeypatch.setenv("MSJITD_BIN", "/nonexistent/msjitd")
    with pytest.raises(errors.DaemonUnavailableError, match="MSJITD_BIN=/nonexistent/msjitd"):
        rpc.DaemonClient().stats()


def test_daemon_that_dies_on_start(daemon_home, monkeypatch, tmp_path):
    script = tmp_path / "dying_msjitd"        # a broken binary, for the error path
    script.write_text("#!/bin/sh\nexit 3\n")
    script.chmod(0o755)
    monkeypatch.setenv("MSJITD_BIN", str(script))
    with pytest.raises(errors.DaemonUnavailableError, match=f"exited with status 3 while starting; see {daemon_home.path}/msjitd.log"):
        rpc.DaemonClient().stats()


def test_socket_path_length_is_checked(monkeypatch):
    monkeypatch.delenv("MSJITD_ADDRESS", raising=False)
    monkeypatch.setenv("MSJIT_HOME", "/tmp/" + "x" * 120)
    with pytest.raises(errors.DaemonUnavailableError, match="shorter MSJIT_HOME"):
        rpc.DaemonClient()


_CONCURRENT_CLIENT = """
import sys
sys.path.insert(0, {client!r})
from msjit import rpc
client = rpc.DaemonClient()
print("ready", flush=True)
sys.stdin.readline()                    # all four find no daemon at the same moment
stats = client.stats()
print(stats.version, stats.cache_dir)
"""


def test_concurrent_processes_start_one_daemon(daemon_home):
    client_dir = os.path.dirname(os.path.dirname(os.path.abspath(rpc.__file__)))   # the msjit under test
    procs = [subprocess.Popen([sys.executable, "-c", _CONCURRENT_CLIENT.format(client=client_dir)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(4)]
    assert [p.stdout.readline() for p in procs] == ["ready\n"] * 4
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    outs = [p.communicate(timeout=60) for p in procs]
    cache_dir = os.path.join(daemon_home.path, "cache")
    assert [o.split()[-1:] for o, _ in outs] == [[cache_dir]] * 4, outs
    assert all(o.startswith("msjitd ") for o, _ in outs), outs
    assert len(daemon_home.pids()) == 1 and daemon_home.starts() == 1, daemon_home.log()
    assert "another daemon is already listening" not in daemon_home.log()   # no second one was even tried
    assert os.path.exists(os.path.join(daemon_home.path, "msjitd.lock"))
    assert rpc.DaemonClient().stats().cache_dir == cache_dir    # this process finds the same daemon
    assert len(daemon_home.pids()) == 1 and daemon_home.starts() == 1


def test_explicit_address_uses_the_running_daemon(daemon_home, monkeypatch):
    rpc.DaemonClient().stats()                                # auto-start one
    (pid,) = daemon_home.pids()
    monkeypatch.setenv("MSJITD_ADDRESS", daemon_home.address)
    monkeypatch.setenv("MSJITD_BIN", "/nonexistent")          # never needed
    client = rpc.DaemonClient()
    assert not client.autostart
    assert client.stats().cache_dir == os.path.join(daemon_home.path, "cache")
    assert daemon_home.pids() == [pid] and daemon_home.starts() == 1


def test_local_daemon_is_restarted_when_it_died(daemon_home):
    client = rpc.DaemonClient()
    client.stats()
    (pid,) = daemon_home.pids()
    os.kill(pid, signal.SIGTERM)
    next(p for p in rpc._spawned if p.pid == pid).wait(timeout=60)
    assert client.stats().version.startswith("msjitd ")
    (new_pid,) = daemon_home.pids()
    assert new_pid != pid and daemon_home.starts() == 2


def test_invalid_argument_is_a_compile_error(daemon_home):
    client = rpc.DaemonClient()
    with pytest.raises(errors.CompileError, match=r"^node 'Mul_1' \(file\.py:12\): (mindir\.)?Mul operands "
                                                  r"have different dtypes: f32 vs i32 \(insert a Cast\)$"):
        client.compile(mixed_dtype_model(), OPTIONS)
    stats = client.stats()
    assert stats.compile_errors == 1 and stats.compiles == 0


@pytest.mark.parametrize("key, code, details", [
    ("0" * 64, "NOT_FOUND", "no artifact for key 0{64}"),                      # well-formed, unknown
    ("nope", "INVALID_ARGUMENT", "key must be a hex SHA-256 digest"),          # not a CompileError
])
def test_other_failures_are_daemon_errors(daemon_home, key, code, details):
    with pytest.raises(errors.DaemonError, match=f"FetchArtifact failed \\({code}\\).*{details}") as info:
        rpc.DaemonClient().fetch_artifact(key)
    assert not isinstance(info.value, (errors.CompileError, errors.DaemonUnavailableError))


def test_daemon_stopped_mid_session_is_a_daemon_error(daemon_home, monkeypatch):
    rpc.DaemonClient().stats()                                 # auto-start one
    (pid,) = daemon_home.pids()
    monkeypatch.setenv("MSJITD_ADDRESS", daemon_home.address)  # explicit: not restarted
    client = rpc.DaemonClient()
    client.stats()
    os.kill(pid, signal.SIGTERM)
    next(p for p in rpc._spawned if p.pid == pid).wait(timeout=60)
    with pytest.raises(errors.DaemonUnavailableError,
                       match=f"^msjitd at {daemon_home.address} became unavailable during Compile: "):
        client.compile(double_model(), OPTIONS)
    assert daemon_home.pids() == []


def test_artifact_is_fetched_checked_and_stored_atomically(daemon_home, monkeypatch):
    client = rpc.DaemonClient()
    reply = client.compile(double_model(), OPTIONS)
    with open(reply.artifact_path, "rb") as f:          # the daemon's own cache file
        daemon_bytes = f.read()
    remote = as_if_remote(reply)
    path = runtime.local_artifact(remote, client)
    assert path == os.path.join(daemon_home.path, "artifacts", reply.artifact_digest + ".so")
    with open(path, "rb") as f:
        data = f.read()
    assert hashlib.sha256(data).hexdigest() == reply.artifact_digest and data == daemon_bytes
    assert os.listdir(os.path.dirname(path)) == [os.path.basename(path)]   # no temp files left
    inode = os.stat(path).st_ino
    assert runtime.local_artifact(remote, client) == path and os.stat(path).st_ino == inode

    monkeypatch.setattr(runtime, "_loaded", {})
    exe = runtime.load(remote, client)                  # the stored file loads and runs
    (out,) = exe.run([np.array([1, 2, 3], np.float32)])
    np.testing.assert_array_equal(out, [2, 4, 6])


def test_large_artifacts_are_fetched_in_chunks(daemon_home):
    client = rpc.DaemonClient()
    x = Tensor(np.linspace(0, 1, BIG.size))
    reply = client.compile(serialize.to_model(capture_ast(add_big, [x]).graph), OPTIONS)
    assert reply.artifact_size > 1 << 20
    with grpc.insecure_channel(daemon_home.address) as channel:    # the daemon streams it in chunks
        chunks = list(msjit_pb2_grpc.MsjitStub(channel).FetchArtifact(msjit_pb2.FetchArtifactRequest(key=reply.key)))
    assert len(chunks) >= 2
    data = client.fetch_artifact(reply.key)                        # which the client joins
    assert data == b"".join(c.data for c in chunks) and len(data) == reply.artifact_size
    assert hashlib.sha256(data).hexdigest() == reply.artifact_digest


def test_artifact_with_wrong_digest_is_not_stored(daemon_home, monkeypatch):
    client = rpc.DaemonClient()
    reply = client.compile(double_model(), OPTIONS)
    bad = as_if_remote(reply, artifact_digest="0" * 64, artifact_path="")
    with pytest.raises(errors.MsjitError, match=f"has SHA-256 {reply.artifact_digest}, but the daemon announced 0000"):
        runtime.local_artifact(bad, client)
    monkeypatch.setattr(runtime, "_loaded", {})
    with pytest.raises(errors.MsjitError, match="but the daemon announced 0000"):
        runtime.load(bad, client)
    artifacts = os.path.join(daemon_home.path, "artifacts")
    assert not os.path.exists(artifacts) or not os.listdir(artifacts)


def test_local_artifact_path_is_used_in_place(daemon_home):
    client = rpc.DaemonClient()
    reply = client.compile(double_model(), OPTIONS)
    assert reply.artifact_path.startswith(os.path.join(daemon_home.path, "cache") + os.sep)
    assert runtime.local_artifact(reply, client) == reply.artifact_path
    assert not os.path.exists(os.path.join(daemon_home.path, "artifacts"))   # nothing fetched


def test_one_client_per_process(monkeypatch, daemon_home):
    a = rpc.client()
    assert rpc.client() is a
    monkeypatch.setattr(rpc.os, "getpid", lambda: -1)      # as seen from a forked child
    assert rpc.client() is not a

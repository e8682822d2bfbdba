"""The client against a tampered cache and a daemon that is gone, with real msjitd processes.

Tampering: a `cas/*.so` replaced by another function's valid artifact (a real hijack: same
signature, other code) or by garbage never runs; the client checks every artifact's SHA-256,
loads the checked bytes from memory, quarantines the file and gets the right artifact again.
Daemon gone: under LAX a fullgraph=False function runs eagerly with one warning and tries the
daemon again later; under STRICT or with fullgraph=True it raises DaemonUnavailableError.
"""
import hashlib
import importlib
import json
import logging
import os
import socket
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

import msjit
from msjit import Tensor, jit, rpc, runtime, serialize
from msjit.capture.ast import capture_ast
from msjit.config import CompileConfig
from msjit.errors import DaemonUnavailableError, JitFallbackWarning
from msjit.proto import msjit_pb2
from support import ROOT

jit_module = importlib.import_module("msjit.jit")   # (the package's `jit` is the function)
OPTIONS = CompileConfig().to_proto()
X = np.arange(6, dtype=np.float32).reshape(2, 3)

CLIENT = r"""
import json
import numpy as np
from msjit import Tensor, jit

def f(x):
    return x * 2.0 + 1.0

print(json.dumps(jit(f)(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))).asnumpy().ravel().tolist()))
"""


def f(x):
    return x * 2.0 + 1.0


def g(x):   # the same signature as f: its artifact is a valid stand-in for f's
    return x - 3.0


def model(fn):
    return serialize.to_model(capture_ast(fn, [Tensor(X)]).graph)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def read(path):
    with open(path, "rb") as fh:
        return fh.read()


def write(path, data):
    with open(path, "wb") as fh:
        fh.write(data)


def quarantined(directory):
    """Bytes of every file in a quarantine directory."""
    if not os.path.isdir(directory):
        return []
    return [read(os.path.join(directory, name)) for name in os.listdir(directory)]


def run_client(daemon, home):
    """A fresh process running jitted f against `daemon`: (its result, its stderr)."""
    script = os.path.join(daemon.workdir, "client.py")
    write(script, CLIENT.encode())
    env = dict(os.environ, MSJITD_ADDRESS=daemon.address, MSJIT_HOME=str(home),
               PYTHONPATH=os.path.join(ROOT, "client_py"))
    proc = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


@pytest.fixture
def client_env(monkeypatch, tmp_path):
    """This process's client on a private MSJIT_HOME, reset before and after."""
    monkeypatch.setenv("MSJIT_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(runtime, "_loaded", {})
    rpc.reset_client()
    yield tmp_path / "home"
    rpc.reset_client()


@pytest.mark.parametrize("tamper", ["hijack", "garbage"])
def test_tampered_cache_file_never_runs_in_a_fresh_process(make_daemon, tmp_path, client_env, tamper):
    daemon = make_daemon().start()
    expected = (X * 2 + 1).ravel().tolist()
    assert run_client(daemon, client_env)[0] == expected
    (f_path,) = [os.path.join(root, n) for root, _, names in os.walk(os.path.join(daemon.cache_dir, "cas"))
                 for n in names]
    f_bytes = read(f_path)
    g_reply = rpc.DaemonClient(daemon.address).compile(model(g), OPTIONS)
    bad = read(g_reply.artifact_path) if tamper == "hijack" else b"\x7fELF not really" * 64
    write(f_path, bad)

    result, stderr = run_client(daemon, client_env)
    assert result == expected
    assert bad in quarantined(os.path.join(daemon.cache_dir, "quarantine"))
    with open(daemon.log) as log:   # whichever side caught it (client or daemon) said so
        assert "quarantin" in stderr + log.read()
    assert sha256(read(f_path)) == sha256(f_bytes)   # the entry was rebuilt


def test_file_swapped_after_the_reply_is_quarantined_and_recompiled(make_daemon, client_env, caplog):
    daemon = make_daemon().start()
    client = rpc.DaemonClient(daemon.address)
    f_model = model(f)
    reply = client.compile(f_model, OPTIONS)
    hijack = read(client.compile(model(g), OPTIONS).artifact_path)
    write(reply.artifact_path, hijack)   # after the daemon answered: only the client can notice
    recompiles = []

    def recompile():
        recompiles.append(1)
        return client.compile(f_model, OPTIONS)
    with caplog.at_level(logging.WARNING, logger="msjit.runtime"):
        exe = runtime.load(reply, client, recompile)
    np.testing.assert_array_equal(exe.run([X])[0], X * 2 + 1)
    assert recompiles == [1]
    assert hijack in quarantined(os.path.join(daemon.cache_dir, "quarantine"))
    warning = next(r.getMessage() for r in caplog.records if "quarantining" in r.getMessage())
    assert reply.artifact_path in warning and reply.artifact_digest in warning and sha256(hijack) in warning


def test_tampered_client_copy_is_quarantined_and_fetched_again(make_daemon, client_env):
    """A daemon on another machine: the client's own copy under $MSJIT_HOME/artifacts is
    checked on every load too; when compiling again does not help, the bytes are fetched."""
    daemon = make_daemon().start()
    client = rpc.DaemonClient(daemon.address)
    reply = client.compile(model(f), OPTIONS)
    remote = msjit_pb2.CompileReply()
    remote.CopyFrom(reply)
    remote.artifact_path = "/nonexistent/msjit-remote-cache/" + os.path.basename(reply.artifact_path)
    copy = runtime.local_artifact(remote, client)
    assert copy == os.path.join(client_env, "artifacts", reply.artifact_digest + ".so")
    write(copy, b"garbage")
    recompiles = []
    exe = runtime.load(remote, client, lambda: recompiles.append(1) or remote)
    np.testing.assert_array_equal(exe.run([X])[0], X * 2 + 1)
    assert recompiles == [1]
    assert quarantined(os.path.join(client_env, "quarantine")) == [b"garbage"]
    assert sha256(read(copy)) == reply.artifact_digest


def test_artifacts_load_from_bytes(make_daemon, client_env):
    """msrt_load_bytes: each load is its own artifact, even when the memfd numbers could repeat."""
    daemon = make_daemon().start()
    client = rpc.DaemonClient(daemon.address)
    blobs = [read(client.compile(model(fn), OPTIONS).artifact_path) for fn in (f, g, f)]
    outs = [runtime.rt().Executable(blob, name="t").run([X])[0] for blob in blobs]
    np.testing.assert_array_equal(outs[0], X * 2 + 1)
    np.testing.assert_array_equal(outs[1], X - 3)
    np.testing.assert_array_equal(outs[2], X * 2 + 1)
    with pytest.raises(RuntimeError, match="from memory"):
        runtime.rt().Executable(b"\x7fELF" + bytes(100))


LOW_FD_LIMIT = r"""
import resource, sys
from msjit import Tensor, jit
import numpy as np
resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
def inc(x):
    return x + 1.0
jit(inc, fullgraph=True)(Tensor(np.ones(3, np.float32)))
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
print(soft == hard)
"""


def test_loading_lifts_the_soft_fd_limit(make_daemon, tmp_path):
    """Every loaded artifact keeps a sealed memfd open: a process that loads thousands must not hit
    a soft limit of 1024, so the first load lifts it to the hard limit."""
    daemon = make_daemon().start()
    env = dict(os.environ, MSJITD_ADDRESS=daemon.address, MSJIT_HOME=str(tmp_path / "home"),
               PYTHONPATH=os.path.join(ROOT, "client_py"))
    script = tmp_path / "low_fd_limit.py"
    script.write_text(LOW_FD_LIMIT)
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True"


def add3(a, b, c):   # three rank-4 inputs: a manifest long enough to rewrite in place
    return a + b + c


@pytest.mark.parametrize("lines, error", [
    ("input f32 2 4611686018427387904 4", "byte count overflows 64 bits"),              # (2^62, 4)
    ("input f32 3 0 4611686018427387904 4611686018427387904", "byte count overflows"),  # strides would
    ("input f32 33" + " 1" * 33, "rank 33 \\(at most 32\\)"),
    ("input f32 2 1073741824 4", None),   # control: a large but representable tensor loads
])
def test_manifest_sizes_are_checked(make_daemon, client_env, lines, error):
    """An artifact whose manifest (patched in place, same length) describes impossible tensors."""
    daemon = make_daemon().start()
    x = Tensor(np.zeros((2, 3, 4, 5), np.float32))
    blob = read(rpc.DaemonClient(daemon.address).compile(
        serialize.to_model(capture_ast(add3, [x, x, x]).graph), OPTIONS).artifact_path)
    start = blob.index(b"msjit-artifact 1\n")
    end = blob.index(b"\0", start)
    manifest = f"msjit-artifact 1\n{lines}\n".encode()
    assert len(manifest) <= end - start
    blob = blob[:start] + manifest.ljust(end - start) + blob[end:]
    if error is None:
        assert runtime.rt().Executable(blob).inputs[0][1] == (1073741824, 4)
    else:
        with pytest.raises(RuntimeError, match=error):
            runtime.rt().Executable(blob)


@pytest.fixture
def dead_daemon(monkeypatch, tmp_path):
    """MSJITD_ADDRESS pointing at a unix socket whose daemon is gone (the file is left over)."""
    path = os.path.join(tmp_path, "msjitd.sock")
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(path)
    monkeypatch.setenv("MSJITD_ADDRESS", "unix://" + path)
    monkeypatch.setenv("MSJIT_HOME", str(tmp_path / "home"))
    rpc.reset_client()
    yield tmp_path
    rpc.reset_client()


def daemon_warnings(caught):
    return [w for w in caught if issubclass(w.category, JitFallbackWarning) and "tries msjitd again" in str(w.message)]


def test_lax_runs_eagerly_with_one_warning_and_retries_later(dead_daemon, make_daemon, monkeypatch):
    retry_s = 3.0
    monkeypatch.setattr(jit_module, "DAEMON_RETRY_S", retry_s)
    # Started before the outage so that its start-up (seconds under load) is not inside the retry
    # window; it "comes back" at the dead address by a rename of its socket, which takes no time.
    (dead_daemon / "live").mkdir()
    live = make_daemon(workdir=dead_daemon / "live").start()
    jitted = jit(f)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(4):
            np.testing.assert_array_equal(jitted(Tensor(X)).asnumpy(), X * 2 + 1)
    assert len(daemon_warnings(caught)) == 1, [str(w.message) for w in caught]
    assert (jitted.stats.daemon_unavailable, jitted.stats.compiles) == (4, 0)
    retry_at = jitted._daemon_retry_at   # the window runs from the first failure
    assert retry_at is not None

    os.replace(live.socket, os.path.join(dead_daemon, "msjitd.sock"))   # the daemon is back at the same address
    jitted(Tensor(X))
    assert time.monotonic() < retry_at, "the calls above took longer than the retry window"
    assert jitted.stats.compiles == 0          # not asked again within DAEMON_RETRY_S
    time.sleep(retry_at - time.monotonic() + 0.05)
    np.testing.assert_array_equal(jitted(Tensor(X)).asnumpy(), X * 2 + 1)
    assert (jitted.stats.daemon_unavailable, jitted.stats.compiles) == (5, 1)


def branchy(x):
    y = x * 2.0
    if float(y.sum()) > 0:   # a graph break under bytecode capture: two graph pieces around it
        return y + 1.0
    return y - 1.0


def test_lax_interpreted_call_runs_its_graph_pieces_eagerly(dead_daemon):
    jitted = jit(branchy, capture_mode="bytecode")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for x in (X, -X - 1):
            np.testing.assert_allclose(jitted(Tensor(x)).asnumpy(), branchy(Tensor(x)).asnumpy())
    assert len(daemon_warnings(caught)) == 1 and jitted.stats.compiles == 0
    # (the first call is interpreted; the second runs generated code: its pieces eagerly too)
    assert jitted.stats.graph_breaks == 1 and jitted.stats.resumed == 1 and jitted.stats.daemon_unavailable >= 2


def test_strict_and_fullgraph_raise(dead_daemon):
    with pytest.raises(DaemonUnavailableError, match="not reachable"):
        jit(f, fullgraph=True)(Tensor(X))
    msjit.set_context(jit_syntax_level=msjit.STRICT)
    try:
        with pytest.raises(DaemonUnavailableError, match="not reachable"):
            jit(f)(Tensor(X))
    finally:
        msjit.set_context(jit_syntax_level=msjit.LAX)

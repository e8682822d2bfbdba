"""Clients of several daemons (MSJITD_ADDRESS="a,b"), with real msjitd processes: a dead address
is skipped, a daemon killed mid-session is replaced by the next one and used again once it is
back; a daemon on "another host" (its cache dir in a mount namespace of its own, so the paths in
its replies do not exist here) serves artifacts over FetchArtifact, which the client verifies and
keeps in $MSJIT_HOME/artifacts for the next process (Python or C++); a tampered copy never runs."""
import glob
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from msjit import Tensor, jit, rpc, runtime, serialize
from msjit.capture.ast import capture_ast
from msjit.config import CompileConfig
from msjit.errors import CompileError
from mindir_models import mul_add
from msjit.proto import mindir_pb2, msjit_pb2
from support import ROOT, msjitd_binary
from test_msjit_run import closed_port

X = np.arange(6, dtype=np.float32).reshape(2, 3)
RUN = os.path.join(ROOT, "bazel-bin/client_cpp/msjit-run")


def f(x):
    return x * 2.0 + 1.0


def g(x):   # the same signature as f: its artifact is a valid stand-in for f's
    return x - 3.0


def h(x):
    return x * x


def stats(daemon):
    return daemon.stub().Stats(msjit_pb2.StatsRequest(), timeout=10)


def run_jit(fn):
    """fn jitted with fullgraph=True (no eager fallback), checked against eager; its compile count."""
    jitted = jit(fn, fullgraph=True)
    np.testing.assert_allclose(jitted(Tensor(X)).asnumpy(), fn(Tensor(X)).asnumpy(), rtol=1e-6)
    return jitted.stats.compiles


@pytest.fixture
def client_home(monkeypatch, tmp_path):
    """This process's client on a private MSJIT_HOME; MSJITD_ADDRESS set by `use`."""
    home = tmp_path / "home"
    monkeypatch.setenv("MSJIT_HOME", str(home))
    monkeypatch.setattr(runtime, "_loaded", {})
    rpc.reset_client()

    def use(*addresses):
        monkeypatch.setenv("MSJITD_ADDRESS", ",".join(addresses))
        rpc.reset_client()
        return home
    yield use
    rpc.reset_client()


@pytest.fixture
def two_daemons(make_daemon, tmp_path):
    for name in "ab":
        (tmp_path / name).mkdir()
    return make_daemon(workdir=tmp_path / "a").start(), make_daemon(workdir=tmp_path / "b").start()


def test_a_dead_address_first_is_skipped(make_daemon, client_home):
    live = make_daemon().start()
    client_home(closed_port(), live.address)
    t0 = time.monotonic()
    assert run_jit(f) == 1
    assert time.monotonic() - t0 < 10       # (a compile included; the dead address costs one refused connect)
    assert rpc.client().address == live.address and stats(live).compiles == 1


def test_an_address_that_never_answers_costs_one_health_timeout(make_daemon, client_home, monkeypatch):
    """A listener that accepts connections but never speaks (a hung host): its health check times
    out (DEADLINE_EXCEEDED on connect) after HEALTH_TIMEOUT_S and the next address is used."""
    monkeypatch.setattr(rpc, "FAILOVER_BACKOFF_S", 30.0)   # (no re-check during the test, however slow)
    live = make_daemon().start()
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        client_home("127.0.0.1:%d" % silent.getsockname()[1], live.address)
        t0 = time.monotonic()
        rpc.client().stats()
        assert rpc.HEALTH_TIMEOUT_S * 0.9 < time.monotonic() - t0 < rpc.HEALTH_TIMEOUT_S + 2
        assert rpc.client().address == live.address
        assert run_jit(f) == 1 and stats(live).compiles == 1
        silent_target = rpc.client()._targets[0]
        assert silent_target.backoff == 30.0         # checked once: left alone while in backoff


def test_killed_daemon_is_replaced_by_the_next_and_used_again_when_back(two_daemons, make_daemon, client_home, tmp_path):
    a, b = two_daemons
    client_home(a.address, b.address)
    assert run_jit(f) == 1 and stats(a).compiles == 1

    a.proc.send_signal(signal.SIGKILL)       # the daemon in use dies mid-session
    a.proc.wait(timeout=30)
    killed_at = time.monotonic()
    assert run_jit(g) == 1                   # the next call goes to b
    assert rpc.client().address == b.address and stats(b).compiles == 1
    assert run_jit(f) == 1                   # (a fresh jit of f: compiled again, on b)
    assert stats(b).compiles == 2

    again = make_daemon(workdir=tmp_path / "a").start()   # a is back, at the same address
    time.sleep(max(0.0, killed_at + rpc.FAILOVER_BACKOFF_S + 0.1 - time.monotonic()))
    assert run_jit(h) == 1
    assert rpc.client().address == a.address and stats(again).compiles == 1 and stats(b).compiles == 2


def test_a_compile_error_is_not_a_failover(two_daemons, client_home):
    a, b = two_daemons
    client_home(a.address, b.address)
    bad = mul_add()
    bad.graph.input[2].dtype = mindir_pb2.DT_INT32     # Add of f32 and i32: the daemon rejects the graph
    with pytest.raises(CompileError, match="different dtypes"):
        rpc.client().compile(bad, msjit_pb2.CompileOptions(jit_level="O0"))
    assert stats(a).compile_errors == 1 and stats(b).compile_requests == 0


OTHER_HOST = """#!/bin/sh
# msjitd with its cache dir a tmpfs in a mount namespace of its own (unshare execs, no fork: one pid)
exec unshare --mount --propagation private sh -c 'mount -t tmpfs -o mode=0700 msjit-other-host "$0" && exec "$@"' \\
  {cache_dir} {msjitd} "$@"
"""


@pytest.fixture
def other_host(make_daemon, monkeypatch, tmp_path):
    """A daemon whose cache dir exists on "its host" only: the artifact paths in its replies do not
    exist in this process's view, as for a daemon on another machine."""
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"needs a mount namespace (unshare --mount) to hide a daemon's cache: {probe.stderr!r}")
    (tmp_path / "remote").mkdir()
    daemon = make_daemon(workdir=tmp_path / "remote")
    os.makedirs(daemon.cache_dir)
    wrapper = tmp_path / "other-host-msjitd"
    wrapper.write_text(OTHER_HOST.format(cache_dir=daemon.cache_dir, msjitd=msjitd_binary()))
    wrapper.chmod(0o755)
    with monkeypatch.context() as m:
        m.setenv("MSJITD_BIN", str(wrapper))
        daemon.start()
    return daemon


FRESH_PROCESS = r"""
import json
import numpy as np
from msjit import Tensor, jit, rpc

fetches = []
fetch = rpc.DaemonClient.fetch_artifact
rpc.DaemonClient.fetch_artifact = lambda self, key: fetches.append(key) or fetch(self, key)   # (counts, then fetches)

def f(x):
    return x * 2.0 + 1.0

jitted = jit(f, fullgraph=True)
out = jitted(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))
print(json.dumps({"out": out.asnumpy().ravel().tolist(), "fetches": len(fetches), "compiles": jitted.stats.compiles}))
"""


def fresh_process(tmp_path, daemon, home):
    script = tmp_path / "fresh_client.py"
    script.write_text(FRESH_PROCESS)
    env = dict(os.environ, MSJITD_ADDRESS=daemon.address, MSJIT_HOME=str(home), PYTHONPATH=os.path.join(ROOT, "client_py"))
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result.pop("out") == (X * 2 + 1).ravel().tolist()
    return result


def msjit_run(tmp_path, daemon, home, request, address=None):
    (tmp_path / "request.pb").write_bytes(request.SerializeToString())
    inputs = msjit_pb2.ExecuteRequest(inputs=[serialize.tensor_proto(X)])
    (tmp_path / "inputs.pb").write_bytes(inputs.SerializeToString())
    env = dict(os.environ, MSJITD_ADDRESS=address or daemon.address, MSJIT_HOME=str(home))
    proc = subprocess.run([RUN, str(tmp_path / "request.pb"), str(tmp_path / "inputs.pb"), str(tmp_path / "out.pb")],
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    reply = msjit_pb2.ExecuteReply()
    reply.ParseFromString((tmp_path / "out.pb").read_bytes())
    np.testing.assert_array_equal(np.frombuffer(reply.outputs[0].raw_data, "<f4").reshape(2, 3), X * 2 + 1)
    return dict(item.split("=", 1) for item in proc.stdout.split())["artifact"]


def quarantined(home):
    return [open(p, "rb").read() for p in glob.glob(os.path.join(home, "quarantine", "*"))]


def test_artifacts_of_another_host_are_fetched_verified_and_kept(other_host, client_home, tmp_path):
    home = client_home(other_host.address)
    assert not os.listdir(other_host.cache_dir)        # its cache is not on this filesystem
    first = fresh_process(tmp_path, other_host, home)
    assert first == {"fetches": 1, "compiles": 1}
    (copy,) = glob.glob(os.path.join(home, "artifacts", "*.so"))
    digest = os.path.basename(copy)[:-3]
    assert hashlib.sha256(open(copy, "rb").read()).hexdigest() == digest
    assert os.stat(os.path.dirname(copy)).st_mode & 0o777 == 0o700
    assert [n for n in os.listdir(os.path.dirname(copy)) if n.startswith(".")] == []   # no temp file left
    assert fresh_process(tmp_path, other_host, home) == {"fetches": 0, "compiles": 1}   # the next process: no fetch

    # The C++ client shares the cache: the same graph's artifact comes from the copy the Python client kept.
    request = msjit_pb2.CompileRequest(model=serialize.to_model(capture_ast(f, [Tensor(X)]).graph),
                                       options=CompileConfig().to_proto())
    reply = rpc.client().compile(request.model, request.options)
    assert reply.artifact_digest == digest and not os.path.exists(reply.artifact_path)
    assert msjit_run(tmp_path, other_host, home, request) == "client-cache"


@pytest.mark.parametrize("tamper", ["hijack", "garbage"])
def test_a_tampered_client_copy_never_runs(other_host, client_home, tmp_path, tamper):
    home = client_home(other_host.address)
    client = rpc.client()
    f_request = msjit_pb2.CompileRequest(model=serialize.to_model(capture_ast(f, [Tensor(X)]).graph),
                                         options=CompileConfig().to_proto())
    assert msjit_run(tmp_path, other_host, home, f_request) == "fetched"     # the C++ client keeps a copy
    (copy,) = glob.glob(os.path.join(home, "artifacts", "*.so"))
    g_reply = client.compile(serialize.to_model(capture_ast(g, [Tensor(X)]).graph), CompileConfig().to_proto())
    bad = client.fetch_artifact(g_reply.key) if tamper == "hijack" else b"\x7fELF not really" * 64
    for round_, run in enumerate(("python", "c++")):
        with open(copy, "wb") as fh:
            fh.write(bad)
        if run == "python":
            # f's result, not g's: the copy is quarantined, the daemon asked again (compile, then fetch)
            assert fresh_process(tmp_path, other_host, home) == {"fetches": 1, "compiles": 2}
        else:
            assert msjit_run(tmp_path, other_host, home, f_request) == "fetched"
        assert quarantined(home) == [bad] * (round_ + 1)
        assert hashlib.sha256(open(copy, "rb").read()).hexdigest() == os.path.basename(copy)[:-3]


def test_an_artifact_whose_daemon_died_is_compiled_again_by_the_next(other_host, make_daemon, client_home, tmp_path):
    """Compiled on a daemon of another host that dies before the fetch: the next address has never
    seen the key (FetchArtifact NOT_FOUND), so the graph is compiled there, then loaded."""
    (tmp_path / "b").mkdir()
    b = make_daemon(workdir=tmp_path / "b").start()
    client_home(other_host.address, b.address)
    client = rpc.client()
    model = serialize.to_model(capture_ast(f, [Tensor(X)]).graph)
    reply = client.compile(model, CompileConfig().to_proto())
    assert not os.path.exists(reply.artifact_path)
    other_host.proc.send_signal(signal.SIGKILL)
    other_host.proc.wait(timeout=30)
    recompiles = []
    exe = runtime.load(reply, client, lambda: recompiles.append(1) or client.compile(model, CompileConfig().to_proto()))
    np.testing.assert_array_equal(exe.run([X])[0], X * 2 + 1)
    assert recompiles == [1] and client.address == b.address and stats(b).compiles == 1


def test_the_cpp_client_follows_the_same_numbers():
    """One failover policy: client_cpp/client.h states the numbers of client_py/msjit/rpc.py."""
    import re
    header = open(os.path.join(ROOT, "client_cpp/client.h")).read()
    numbers = {name: int(value) for name, value in re.findall(r"constexpr int (k\w+) = (\d+);", header)}
    assert numbers == {"kHealthTimeoutMs": rpc.HEALTH_TIMEOUT_S * 1000, "kBackoffFirstMs": rpc.FAILOVER_BACKOFF_S * 1000,
                       "kBackoffMaxMs": rpc.FAILOVER_BACKOFF_MAX_S * 1000}


def test_credentials_apply_to_every_address(make_daemon, client_home, monkeypatch, tmp_path):
    """Two TCP daemons wanting a token: after the first dies, the second gets the same token (the
    Python client, then msjit-run); without it, the failure is the credential's, not a failover."""
    token = tmp_path / "token"
    token.write_text("failover-test-token\n")
    credentials = rpc.Credentials("failover-test-token", None, None, None, None)
    daemons = []
    for name in "ab":
        (tmp_path / name).mkdir()
        daemons.append(make_daemon("--auth-token-file", str(token), workdir=tmp_path / name,
                                   listen=closed_port(), credentials=credentials).start())
    a, b = daemons
    monkeypatch.setenv("MSJITD_TOKEN_FILE", str(token))
    home = client_home(closed_port(), a.address, b.address)
    assert run_jit(f) == 1 and stats(a).compiles == 1
    a.proc.send_signal(signal.SIGKILL)
    a.proc.wait(timeout=30)
    assert run_jit(g) == 1 and rpc.client().address == b.address and stats(b).compiles == 1
    request = msjit_pb2.CompileRequest(model=serialize.to_model(capture_ast(f, [Tensor(X)]).graph),
                                       options=CompileConfig().to_proto())
    assert msjit_run(tmp_path, b, home, request, address=f"{a.address},{b.address}") == "daemon"
    monkeypatch.delenv("MSJITD_TOKEN_FILE")
    client_home(a.address, b.address)
    with pytest.raises(rpc.DaemonError, match="UNAUTHENTICATED"):
        run_jit(h)

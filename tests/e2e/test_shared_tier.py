"""The shared tier: real redis-server, several real msjitd with their own cache dirs sharing it
(--shared-cache). A graph compiled once anywhere is served everywhere; concurrent requests on
different daemons compile once; what Redis holds is verified; Redis trouble costs local compiles."""
import hashlib
import os
import signal
import subprocess
import threading
import time

import grpc
import numpy as np
import pytest

from daemon_process import Daemon
from mindir_models import F32, chain, model, mul_add, request
from msjit.proto import mindir_pb2, msjit_pb2
from redis_server import make_tls_files, start_redis
from support import msjitd_binary


class Cluster:
    """One redis-server and the daemons started on it (each in a directory of its own)."""

    def __init__(self, tmp_path, lease_s=30, error_s=10, tls=False):
        self.tmp_path = tmp_path
        self.tls = make_tls_files(tmp_path) if tls else None
        self.redis = start_redis(tmp_path, password="redis-secret", tls=self.tls)
        self.signing_key = self.secret("signing.key", "cluster signing key")
        self.lease_s, self.error_s = lease_s, error_s
        self.daemons = []

    def secret(self, name, text):
        path = os.path.join(self.tmp_path, name)
        with open(path, "w") as f:
            f.write(text + "\n")
        return path

    def flags(self, password_file=None, signing_key=None, tls=None):
        """tls: {"ca", "client_cert", "client_key"} (None: this cluster's own, if it uses TLS)."""
        tls = tls if tls is not None else self.tls or {}
        tls_flags = [f"--shared-cache-tls-{name}={tls[key]}"
                     for name, key in (("ca", "ca"), ("cert", "client_cert"), ("key", "client_key")) if key in tls]
        return ["--shared-cache", self.redis.url, *tls_flags,
                "--shared-cache-password-file", password_file or self.redis.password_file,
                "--shared-cache-signing-key-file", signing_key or self.signing_key,
                "--lease-s", str(self.lease_s), "--shared-error-s", str(self.error_s)]

    def daemon(self, name, *extra, **flags):
        workdir = self.tmp_path / name
        workdir.mkdir()
        d = Daemon(workdir, *self.flags(**flags), *extra)
        self.daemons.append(d)
        return d.start()

    def stop(self):
        for d in self.daemons:
            if d.proc and d.proc.poll() is None:
                d.proc.send_signal(signal.SIGCONT)
            d.stop()
        self.redis.kill()

    def wait_for_lease(self, timeout=30):
        """The key of the first compile lease a daemon takes."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            leases = self.redis.command("KEYS", "msjit:lease:*")
            if leases:
                return leases[0].decode().rsplit(":", 1)[1]
            time.sleep(0.02)
        raise TimeoutError("no daemon took a compile lease")


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(tmp_path)
    yield c
    c.stop()


@pytest.fixture
def make_cluster(tmp_path):
    made = []

    def make(**options):
        made.append(Cluster(tmp_path, **options))
        return made[-1]

    yield make
    for c in made:
        c.stop()


def stats(d):
    return d.stub().Stats(msjit_pb2.StatsRequest(), timeout=10)


def run_mul_add(d, key, dims=(2, 3)):
    """Executes `key` (a*b+c) on daemon `d` and checks it against numpy."""
    a, b, c = (np.random.default_rng(i).standard_normal(dims).astype(np.float32) for i in range(3))
    tensors = [mindir_pb2.TensorProto(dtype=F32, dims=list(dims), raw_data=x.tobytes()) for x in (a, b, c)]
    out = d.stub().Execute(msjit_pb2.ExecuteRequest(key=key, inputs=tensors), timeout=60).outputs[0]
    np.testing.assert_allclose(np.frombuffer(out.raw_data, np.float32).reshape(dims), a * b + c, rtol=1e-6)


def compile_error(d, m, timeout=60):
    with pytest.raises(grpc.RpcError) as info:
        d.stub().Compile(request(m), timeout=timeout)
    return info.value


def test_a_graph_compiled_on_one_daemon_is_a_shared_hit_on_another(cluster):
    a, b, c = cluster.daemon("a"), cluster.daemon("b"), cluster.daemon("c")
    cold = a.stub().Compile(request(mul_add()), timeout=60)
    assert cold.hit == msjit_pb2.TIER_NONE
    shared = b.stub().Compile(request(mul_add()), timeout=60)
    assert shared.hit == msjit_pb2.TIER_SHARED
    assert (shared.key, shared.artifact_digest) == (cold.key, cold.artifact_digest)
    assert shared.artifact_path.startswith(b.cache_dir) and os.path.exists(shared.artifact_path)
    assert b.stub().Compile(request(mul_add()), timeout=60).hit == msjit_pb2.TIER_MEMORY  # filled the local tiers
    run_mul_add(b, shared.key)
    sa, sb = stats(a), stats(b)
    assert (sa.compiles, sa.shared_stores, sa.shared_misses) == (1, 1, 1)
    assert (sb.compiles, sb.shared_hits, sb.shared_rejected) == (0, 1, 0)
    assert sb.shared_ms_total > 0
    assert sb.shared_cache.startswith("redis://127.0.0.1:") and "secret" not in sb.shared_cache
    # A daemon that never saw a Compile of the key executes and streams it from Redis.
    run_mul_add(c, cold.key)
    data = b"".join(ch.data for ch in c.stub().FetchArtifact(msjit_pb2.FetchArtifactRequest(key=cold.key), timeout=30))
    assert hashlib.sha256(data).hexdigest() == cold.artifact_digest
    assert stats(c).compiles == 0


def test_concurrent_requests_on_two_daemons_compile_once(cluster):
    a, b = cluster.daemon("a"), cluster.daemon("b")
    slow = request(chain(1500))
    replies, errors = [], []

    def compile_on(d):
        try:
            replies.append(d.stub().Compile(slow, timeout=240))
        except grpc.RpcError as err:
            errors.append(err)

    threads = [threading.Thread(target=compile_on, args=(a,)) for _ in range(2)]
    threads[0].start()
    cluster.wait_for_lease()  # a compiles; every request on b now finds the lease held
    threads += [threading.Thread(target=compile_on, args=(b,)) for _ in range(3)]
    for t in threads[1:]:
        t.start()
    for t in threads:
        t.join(300)
    assert not errors and len(replies) == 5
    assert len({r.artifact_digest for r in replies}) == 1
    sa, sb = stats(a), stats(b)
    assert sa.compiles + sb.compiles == 1
    assert (sa.compiles, sb.shared_waits) == (1, 1)
    assert msjit_pb2.TIER_CLUSTER in {r.hit for r in replies}
    assert not cluster.redis.command("KEYS", "msjit:lease:*")  # released


def test_requests_racing_on_three_daemons_compile_once(cluster):
    daemons = [cluster.daemon(name) for name in "abc"]
    slow = request(chain(1200))
    barrier = threading.Barrier(9)
    replies, errors = [], []

    def compile_on(d):
        barrier.wait(30)
        try:
            replies.append(d.stub().Compile(slow, timeout=240))
        except grpc.RpcError as err:
            errors.append(err)

    threads = [threading.Thread(target=compile_on, args=(d,)) for d in daemons for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not errors and len(replies) == 9
    assert len({r.artifact_digest for r in replies}) == 1
    all_stats = [stats(d) for d in daemons]
    assert sum(s.compiles for s in all_stats) == 1
    assert sum(s.shared_waits + s.shared_hits for s in all_stats) >= 2  # the other two daemons


def test_a_tampered_entry_or_artifact_in_redis_is_refused_and_recompiled(cluster):
    a, b, c = cluster.daemon("a"), cluster.daemon("b"), cluster.daemon("c")
    cold = a.stub().Compile(request(mul_add()), timeout=60)
    ac, cas = f"msjit:ac:{cold.key}", f"msjit:cas:{cold.artifact_digest}"
    entry = bytearray(cluster.redis.command("GET", ac))
    entry[-1] ^= 1
    cluster.redis.command("SET", ac, bytes(entry))
    again = b.stub().Compile(request(mul_add()), timeout=60)
    assert again.hit == msjit_pb2.TIER_NONE
    assert (stats(b).shared_rejected, stats(b).compiles) == (1, 1)
    run_mul_add(b, again.key)

    # b stored a good entry again; now the artifact's bytes change under it.
    artifact = bytearray(cluster.redis.command("GET", cas))
    artifact[len(artifact) // 2] ^= 0xFF
    cluster.redis.command("SET", cas, bytes(artifact))
    third = c.stub().Compile(request(mul_add()), timeout=60)
    assert third.hit == msjit_pb2.TIER_NONE and third.artifact_digest == cold.artifact_digest
    assert (stats(c).shared_rejected, stats(c).compiles) == (1, 1)
    run_mul_add(c, third.key)
    assert hashlib.sha256(cluster.redis.command("GET", cas)).hexdigest() == cold.artifact_digest  # stored again


BAD_SHAPES = model([("x", [2, 3], F32), ("y", [4], F32)], [("Add_1", "Add", ["x", "y"], {})], ["Add_1"])


def test_a_compile_error_is_shared_for_shared_error_s(make_cluster):
    cluster = make_cluster(error_s=2)
    a, b = cluster.daemon("a"), cluster.daemon("b")
    first = compile_error(a, BAD_SHAPES)
    assert first.code() == grpc.StatusCode.INVALID_ARGUMENT and "not broadcastable" in first.details()
    shared = compile_error(b, BAD_SHAPES)
    assert (shared.code(), shared.details()) == (first.code(), first.details())
    sb = stats(b)
    assert (sb.shared_errors_served, sb.compile_errors, sb.compiles) == (1, 0, 0)
    time.sleep(2.5)  # the error lapses: the next daemon compiles (and fails) itself
    c = cluster.daemon("c")
    assert compile_error(c, BAD_SHAPES).code() == grpc.StatusCode.INVALID_ARGUMENT
    assert (stats(c).shared_errors_served, stats(c).compile_errors) == (0, 1)


def test_a_killed_lease_holder_is_taken_over_and_no_client_waits_past_its_deadline(make_cluster):
    cluster = make_cluster(lease_s=2)
    a, b, c = cluster.daemon("a"), cluster.daemon("b"), cluster.daemon("c")
    slow = request(chain(1500))
    held = threading.Thread(target=lambda: compile_error(a, slow.model, timeout=240))
    held.start()
    cluster.wait_for_lease()
    # A stopped holder renews nothing, deterministically; then it dies for good.
    a.proc.send_signal(signal.SIGSTOP)
    taken = {}
    taker = threading.Thread(target=lambda: taken.update(reply=b.stub().Compile(slow, timeout=240)))
    taker.start()  # while the lease is still held: b waits, then takes it over
    start = time.monotonic()
    with pytest.raises(grpc.RpcError) as info:
        c.stub().Compile(slow, timeout=1.0)
    assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert time.monotonic() - start < 3.0
    while stats(c).queued and time.monotonic() - start < 5:  # c stopped waiting, too
        time.sleep(0.05)
    assert stats(c).queued == 0
    a.proc.kill()
    a.proc.wait(10)
    held.join(30)
    taker.join(240)
    assert taken["reply"].hit == msjit_pb2.TIER_NONE
    sb = stats(b)
    assert (sb.shared_takeovers, sb.shared_waits, sb.compiles) == (1, 0, 1)
    # The result b compiled is served from Redis to c.
    assert c.stub().Compile(slow, timeout=60).hit == msjit_pb2.TIER_SHARED


def test_a_daemon_waiting_for_another_compiles_itself_when_redis_dies(cluster):
    a, b = cluster.daemon("a"), cluster.daemon("b")
    slow = request(chain(1500))
    replies = {}
    threads = [threading.Thread(target=lambda d=d: replies.update({d: d.stub().Compile(slow, timeout=240)}))
               for d in (a, b)]
    threads[0].start()
    key = cluster.wait_for_lease()
    threads[1].start()
    deadline = time.monotonic() + 30  # b waits on done:<key>
    while cluster.redis.command("PUBSUB", "NUMSUB", f"msjit:done:{key}")[1] == 0:
        assert time.monotonic() < deadline, "b never subscribed"
        time.sleep(0.02)
    cluster.redis.kill()
    for t in threads:
        t.join(240)
    assert (replies[a].hit, replies[b].hit) == (msjit_pb2.TIER_NONE, msjit_pb2.TIER_NONE)
    assert replies[a].artifact_digest == replies[b].artifact_digest
    assert stats(b).compiles == 1 and stats(b).shared_unavailable > 0


def test_daemons_keep_serving_when_redis_dies_and_start_without_it(cluster):
    a = cluster.daemon("a")
    assert a.stub().Compile(request(mul_add()), timeout=60).hit == msjit_pb2.TIER_NONE
    cluster.redis.kill()
    start = time.monotonic()
    reply = a.stub().Compile(request(mul_add((4, 5))), timeout=30)
    assert reply.hit == msjit_pb2.TIER_NONE and time.monotonic() - start < 20
    run_mul_add(a, reply.key, (4, 5))
    assert stats(a).shared_unavailable > 0
    b = cluster.daemon("b")  # Redis is still down: b starts and serves locally
    assert b.stub().Compile(request(mul_add()), timeout=30).hit == msjit_pb2.TIER_NONE
    assert stats(b).shared_unavailable > 0
    assert "unreachable at startup" in open(b.log).read()


def test_wrong_password_serves_locally_and_another_signing_key_is_refused(cluster):
    a = cluster.daemon("a")
    cold = a.stub().Compile(request(mul_add()), timeout=60)
    wrong = cluster.daemon("wrong", password_file=cluster.secret("wrong.password", "not it"))
    assert wrong.stub().Compile(request(mul_add()), timeout=30).hit == msjit_pb2.TIER_NONE
    assert stats(wrong).shared_unavailable > 0 and stats(wrong).shared_hits == 0
    assert "WRONGPASS" in open(wrong.log).read()
    other = cluster.daemon("other", signing_key=cluster.secret("other.key", "another cluster's key"))
    reply = other.stub().Compile(request(mul_add()), timeout=60)
    assert reply.hit == msjit_pb2.TIER_NONE and reply.artifact_digest == cold.artifact_digest
    assert (stats(other).shared_rejected, stats(other).compiles) == (1, 1)


def test_an_unreadable_secret_file_stops_startup_naming_the_flag(cluster, tmp_path):
    for flag, flags in (("--shared-cache-signing-key-file", {"signing_key": str(tmp_path / "missing.key")}),
                        ("--shared-cache-password-file", {"password_file": str(tmp_path / "missing.pw")})):
        log = tmp_path / f"startup{len(flag)}.log"
        proc = subprocess.run([msjitd_binary(), "--listen", "unix://" + str(tmp_path / "x.sock"),
                               "--cache-dir", str(tmp_path / "cache"), "--log-file", str(log),
                               *cluster.flags(**flags)],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
        assert proc.returncode == 1
        assert flag in log.read_text()


def test_rediss_with_client_certificates(make_cluster, tmp_path):
    cluster = make_cluster(tls=True)
    a, b = cluster.daemon("a"), cluster.daemon("b")
    cold = a.stub().Compile(request(mul_add()), timeout=60)
    shared = b.stub().Compile(request(mul_add()), timeout=60)
    assert (cold.hit, shared.hit) == (msjit_pb2.TIER_NONE, msjit_pb2.TIER_SHARED)
    assert stats(b).shared_cache.startswith("rediss://127.0.0.1:")
    # No client certificate, or a CA that did not sign Redis's certificate: no Redis, local compiles.
    stranger = make_tls_files(tmp_path / "stranger")
    for name, tls in (("no-cert", {"ca": cluster.tls["ca"]}), ("other-ca", stranger)):
        d = cluster.daemon(name, tls=tls)
        assert d.stub().Compile(request(mul_add()), timeout=30).hit == msjit_pb2.TIER_NONE
        assert stats(d).shared_unavailable > 0 and stats(d).shared_hits == 0
    assert "client certificate" in open(cluster.daemons[-2].log).read()
    assert "TLS handshake with 127.0.0.1" in open(cluster.daemons[-1].log).read()

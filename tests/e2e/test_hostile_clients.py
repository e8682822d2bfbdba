"""Issue 11, acceptance 1: what a hostile or careless client sends fails that request alone.
Every test runs against a real msjitd while a bystander client (hostile.bystander) keeps
compiling and hitting the cache; it must see no error and the daemon must outlive the test."""
import hashlib
import os
import pathlib
import re
import signal
import stat
import subprocess
import threading
import time

import grpc
import numpy as np
import pytest

from hostile import (UNPARSEABLE, assert_status, busy_worker, bystander, children, raw_call, rpc_error,
                     stats, wait_for)
from mindir_models import F32, chain, constant, model, mul_add, request
from support import msjitd_binary
from msjit.proto import health_pb2, health_pb2_grpc, mindir_pb2, msjit_pb2

INVALID = grpc.StatusCode.INVALID_ARGUMENT
SLOW = 3000   # chain length whose compile takes seconds (about 3 s on an idle core)


class Call(threading.Thread):
    """A Compile running in the background; .error is its grpc.RpcError (None when it succeeded)."""

    def __init__(self, stub, m, timeout=180):
        super().__init__(daemon=True)
        self.stub, self.m, self.timeout = stub, m, timeout
        self.reply = self.error = None
        self.start()

    def run(self):
        try:
            self.reply = self.stub.Compile(request(self.m), timeout=self.timeout)
        except grpc.RpcError as err:
            self.error = err

    def result(self, timeout=180):
        self.join(timeout)
        assert not self.is_alive(), "a Compile never returned"
        return self


BAD_DIMS = {
    "constant 2^32 x 2^32, no data": (constant([1 << 32, 1 << 32]), "Const_1"),
    "constant 2^31 x 2^31, no data": (constant([1 << 31, 1 << 31]), "Const_1"),
    "constant -1 x 4": (constant([-1, 4]), "Const_1"),
    "input 2^62 x 4": (model([("x", [1 << 62, 4], F32)], [("Neg_1", "Neg", ["x"], {})], ["Neg_1"]), "'x'"),
}


@pytest.mark.parametrize("case", sorted(BAD_DIMS))
def test_overflowing_dims_are_invalid_argument_naming_the_node(make_daemon, case):
    d = make_daemon().start()
    bad, name = BAD_DIMS[case]
    with bystander(d):
        assert_status(rpc_error(d.stub().Compile, request(bad), timeout=60), INVALID, name)


def test_a_graph_over_max_nodes_is_invalid_argument(make_daemon):
    d = make_daemon("--max-nodes", "50000").start()
    with bystander(d):
        assert_status(rpc_error(d.stub().Compile, request(chain(100_000)), timeout=120), INVALID, "50000|max-nodes")


def test_a_100k_node_chain_under_default_limits_compiles_or_times_out(make_daemon):
    # Before issue 11 the importer's recursive DFS overflowed the stack on this graph.
    d = make_daemon("--compile-timeout", "5").start()
    with bystander(d):
        call = Call(d.stub(), chain(100_000)).result()
    if call.error:
        assert_status(call.error, grpc.StatusCode.DEADLINE_EXCEEDED, r"--compile-timeout\b.*\b5 s\b")


def test_unparseable_requests_are_invalid_argument(make_daemon):
    d = make_daemon().start()
    with bystander(d):
        for method in ("Compile", "Execute", "FetchArtifact"):
            for payload in UNPARSEABLE:
                err = raw_call(d.address, method, payload)
                assert err is not None, (method, payload)
                assert err.code() == INVALID, (method, payload, err.code(), err.details())


def test_execute_with_overflowing_input_dims_is_invalid_argument(make_daemon):
    d = make_daemon().start()
    stub = d.stub()
    key = stub.Compile(request(mul_add((2, 4)))).key
    with bystander(d):
        for dims in ([1 << 62, 4], [1 << 32, 1 << 32], [-1, 4]):
            huge = mindir_pb2.TensorProto(dtype=F32, dims=dims)
            err = rpc_error(stub.Execute, msjit_pb2.ExecuteRequest(key=key, inputs=[huge] * 3), timeout=60)
            assert_status(err, INVALID)


def test_a_killed_worker_fails_that_request_only_and_is_replaced(make_daemon):
    d = make_daemon("--jobs", "2", "--crash-retry-after", "60").start()
    stub = d.stub()
    with bystander(d):
        victim = Call(stub, chain(SLOW, width=7))
        worker = busy_worker(d.proc.pid)
        other = Call(stub, chain(SLOW * 2 // 3, width=9))   # another client's compile, in flight
        busy_worker(d.proc.pid, exclude=[worker])
        os.kill(worker, signal.SIGKILL)
        err = victim.result().error
        assert err is not None, "the compile whose worker was killed succeeded"
        assert_status(err, err.code(), r"SIGKILL|signal 9\b")
        assert other.result().error is None, other.error.details()
        # Replaced: two new compiles at once both succeed, on two workers, neither the killed one.
        pair = [Call(stub, chain(SLOW // 3, width=w)) for w in (11, 12)]
        assert all(c.result().error is None for c in pair), [c.error.details() for c in pair if c.error]
        assert worker not in children(d.proc.pid) and len(children(d.proc.pid)) >= 2, children(d.proc.pid)
        # A retry within --crash-retry-after fails fast with the remembered message.
        retry = request(chain(SLOW, width=7))
        start = time.monotonic()
        again = rpc_error(stub.Compile, retry, timeout=60)
        assert time.monotonic() - start < 1.0, "the retry of a crashing key compiled again"
        assert again.code() == err.code() and again.details().startswith(err.details()), again.details()
    assert stats(stub, "worker_crashes", "remembered_failures") == {"worker_crashes": 1, "remembered_failures": 1}
    # The message's reproducer is real: the saved request compiles without a daemon.
    command = re.search(r"reproduce with: (msjit-worker --replay (\S+))", err.details())
    assert command and os.path.exists(command.group(2)), err.details()
    worker_binary = os.path.join(os.path.dirname(msjitd_binary()), "msjit-worker")
    replay = subprocess.run([worker_binary, "--replay", command.group(2)], capture_output=True, text=True, timeout=300)
    assert replay.returncode == 0 and replay.stdout.startswith("JOB_OK"), replay


def test_compile_timeout_is_deadline_exceeded_naming_the_limit(make_daemon):
    d = make_daemon("--compile-timeout", "1").start()
    with bystander(d):
        start = time.monotonic()
        err = Call(d.stub(), chain(SLOW)).result().error
        assert err is not None, "a compile past --compile-timeout 1 succeeded"
        assert_status(err, grpc.StatusCode.DEADLINE_EXCEEDED, r"--compile-timeout\b.*\b1 s\b")
        assert time.monotonic() - start < 15
    assert stats(d.stub(), "compile_timeouts")["compile_timeouts"] == 1


def test_a_client_deadline_cancels_its_compile(make_daemon):
    d = make_daemon().start()
    stub = d.stub()
    with bystander(d):
        err = rpc_error(stub.Compile, request(chain(SLOW)), timeout=0.5)
        assert err.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        wait_for(lambda: sum(stats(stub, "compile_timeouts", "compile_cancellations").values()) >= 1, 30,
                 "Stats to count the abandoned compile as cancelled or timed out")
        wait_for(lambda: stats(stub, "queued")["queued"] == 0, 30, "the abandoned compile to leave the queue")
    assert stats(stub, "compiles")["compiles"] == 1   # the bystander's graph only: the chain never finished


def test_a_client_giving_up_does_not_cancel_a_compile_another_waits_for(make_daemon):
    d = make_daemon().start()
    stub = d.stub()
    with bystander(d):
        patient = Call(stub, chain(SLOW))
        busy_worker(d.proc.pid)
        err = rpc_error(stub.Compile, request(chain(SLOW)), timeout=0.5)   # joins, then leaves
        assert err.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert patient.result().error is None, patient.error.details()
    assert stats(stub, "compile_cancellations")["compile_cancellations"] == 0


def test_compile_memory_limit_is_resource_exhausted(make_daemon):
    # 600 MiB (RLIMIT_DATA): an idle worker already holds ~0.3 GiB of heap and library data,
    # so the bystander's small graph still compiles and the 128 MiB constant cannot.
    d = make_daemon("--compile-memory-mb", "600").start()
    big = np.arange(32 << 20, dtype=np.float32).tobytes()   # a 128 MiB constant, copied several times
    with bystander(d):
        err = Call(d.stub(), constant([32 << 20], big)).result().error
        assert err is not None, "a 128 MiB constant compiled under --compile-memory-mb 600"
        assert_status(err, grpc.StatusCode.RESOURCE_EXHAUSTED, r"--compile-memory-mb\b.*\b600 MiB")


def test_a_full_queue_rejects_instead_of_hanging(make_daemon):
    d = make_daemon("--jobs", "1", "--max-queue", "2").start()
    stub = d.stub()
    with bystander(d):
        calls = [Call(stub, chain(SLOW // 2, width=w), timeout=120) for w in range(20, 28)]
        codes = [c.error.code() if c.error else grpc.StatusCode.OK for c in (c.result() for c in calls)]
    assert set(codes) <= {grpc.StatusCode.OK, grpc.StatusCode.RESOURCE_EXHAUSTED}, codes
    rejected = codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED)
    assert rejected >= 1 and codes.count(grpc.StatusCode.OK) >= 1, codes
    assert stats(stub, "queue_rejections")["queue_rejections"] == rejected, " ".join(c.name for c in codes)


def add_mul(dims):
    """(a + b) * c: the same signature as mul_add, a different result."""
    return model([(n, list(dims), F32) for n in "abc"],
                 [("Add_1", "Add", ["a", "b"], {}), ("Mul_2", "Mul", ["Add_1", "c"], {})], ["Mul_2"])


@pytest.mark.parametrize("first", ["Compile", "FetchArtifact", "Execute"])
def test_a_tampered_artifact_is_never_served_or_run(make_daemon, first):
    d = make_daemon().start()
    stub = d.stub()
    dims = (2, 3)
    good = stub.Compile(request(mul_add(dims)))
    other = stub.Compile(request(add_mul(dims)))
    # The nastiest replacement: a valid artifact of the same signature computing something else.
    forged = pathlib.Path(other.artifact_path).read_bytes()
    tmp = pathlib.Path(good.artifact_path + ".forged")
    tmp.write_bytes(forged)
    os.replace(tmp, good.artifact_path)

    a, b, c = (np.random.default_rng(i).standard_normal(dims).astype(np.float32) for i in range(3))
    tensors = [mindir_pb2.TensorProto(dtype=F32, dims=dims, raw_data=x.tobytes()) for x in (a, b, c)]

    def check(call):
        if call == "Compile":
            reply = stub.Compile(request(mul_add(dims)), timeout=60)
            on_disk = pathlib.Path(reply.artifact_path).read_bytes()
            assert hashlib.sha256(on_disk).hexdigest() == reply.artifact_digest == good.artifact_digest
        elif call == "FetchArtifact":
            try:
                chunks = list(stub.FetchArtifact(msjit_pb2.FetchArtifactRequest(key=good.key), timeout=60))
            except grpc.RpcError as err:   # refusing is fine; serving forged bytes is not
                assert err.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.DATA_LOSS), err.details()
                return
            data = b"".join(ch.data for ch in chunks)
            assert hashlib.sha256(data).hexdigest() == chunks[0].artifact_digest == good.artifact_digest
        else:
            try:
                out = stub.Execute(msjit_pb2.ExecuteRequest(key=good.key, inputs=tensors), timeout=60).outputs[0]
            except grpc.RpcError as err:
                assert err.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.DATA_LOSS), err.details()
                return
            got = np.frombuffer(out.raw_data, np.float32).reshape(dims)
            assert not np.allclose(got, (a + b) * c), "Execute ran the forged artifact"
            np.testing.assert_allclose(got, a * b + c, rtol=1e-6)

    with bystander(d):
        for call in [first] + [c for c in ("Compile", "FetchArtifact", "Execute") if c != first]:
            check(call)
    quarantine = os.path.join(d.cache_dir, "quarantine")
    held = list(pathlib.Path(quarantine).glob("*")) if os.path.isdir(quarantine) else []
    assert any(p.read_bytes() == forged for p in held), f"the forged file was not quarantined: {held}"
    assert stats(stub, "quarantined")["quarantined"] >= 1


def test_socket_and_cache_are_private_whatever_the_umask(make_daemon):
    old = os.umask(0o022)
    try:
        d = make_daemon().start()
    finally:
        os.umask(old)
    with bystander(d):
        d.stub().Compile(request(mul_add((4, 4))))
    def mode(path):
        return stat.S_IMODE(os.stat(path).st_mode)

    assert mode(d.socket) == 0o600, oct(mode(d.socket))
    wrong = []
    for root, dirs, files in os.walk(d.cache_dir):
        wrong += [(root, oct(mode(root)))] if mode(root) != 0o700 else []
        wrong += [(f, oct(mode(os.path.join(root, f)))) for f in files if mode(os.path.join(root, f)) != 0o600]
    assert not wrong, wrong


def health(address):
    with grpc.insecure_channel(address) as channel:
        return health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5).status


def test_health_is_not_serving_while_draining(make_daemon):
    d = make_daemon().start()
    with bystander(d):
        assert health(d.address) == health_pb2.HealthCheckResponse.SERVING
    # The bystander stops here: once draining, new requests are refused by design.
    slow = Call(d.stub(), chain(SLOW))
    busy_worker(d.proc.pid)
    d.proc.send_signal(signal.SIGTERM)
    seen = set()

    def draining():
        try:
            seen.add(health(d.address))
        except grpc.RpcError:
            pass
        return health_pb2.HealthCheckResponse.NOT_SERVING in seen or slow.reply or slow.error

    wait_for(draining, 60, "Health to say NOT_SERVING")
    assert health_pb2.HealthCheckResponse.NOT_SERVING in seen, f"Health said {seen} while draining"
    assert slow.result().error is None, slow.error.details()   # the compile in flight still finishes
    assert d.proc.wait(timeout=60) == 0

"""msjitd over real gRPC: errors, cache tiers, restarts, dumps, shutdown."""
import glob
import hashlib
import os
import threading

import grpc
import numpy as np
import pytest

from mindir_models import F32, model, mul_add, request
from msjit.proto import mindir_pb2, msjit_pb2


def compile_error(stub, m):
    with pytest.raises(grpc.RpcError) as info:
        stub.Compile(request(m))
    return info.value


BAD_MODELS = {
    "unknown op": (model([("x", [2], F32)], [("Frob_1", "Frobnicate", ["x"], {})], ["Frob_1"]),
                   ["node 'Frob_1' (model.py:1)", "unknown op 'Frobnicate'"]),
    "cycle": (model([("x", [2], F32)], [("Add_1", "Add", ["x", "Mul_2"], {}),
                                       ("Mul_2", "Mul", ["Add_1", "x"], {})], ["Mul_2"]),
              ["cycle"]),
    "dtype mismatch": (model([("x", [2], F32), ("i", [2], mindir_pb2.DT_INT32)],
                             [("Mul_1", "Mul", ["x", "i"], {})], ["Mul_1"]),
                       ["node 'Mul_1' (model.py:1)", "different dtypes"]),
    "undefined input": (model([("x", [2], F32)], [("Neg_1", "Neg", ["ghost"], {})], ["Neg_1"]),
                        ["node 'Neg_1'", "'ghost'"]),
    "bad shapes": (model([("x", [2, 3], F32), ("y", [4], F32)], [("Add_1", "Add", ["x", "y"], {})], ["Add_1"]),
                   ["node 'Add_1'", "not broadcastable"]),
    "malformed ir_version": (mindir_pb2.ModelProto(ir_version="nope"), ["ir_version"]),
}


@pytest.mark.parametrize("case", sorted(BAD_MODELS))
def test_bad_graphs_are_invalid_argument_and_the_daemon_keeps_serving(daemon, case):
    stub = daemon.stub()
    bad, expected = BAD_MODELS[case]
    err = compile_error(stub, bad)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    for text in expected:
        assert text in err.details()
    reply = stub.Compile(request(mul_add()))  # the next request is served
    assert reply.artifact_path
    stats = stub.Stats(msjit_pb2.StatsRequest())
    assert stats.compile_errors == 1 and stats.compiles == 1


def test_invalid_options_name_the_valid_values(daemon):
    err = compile_error_with_options(daemon.stub(), jit_level="O7")
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "O0, O1, O2" in err.details()


def compile_error_with_options(stub, **options):
    with pytest.raises(grpc.RpcError) as info:
        stub.Compile(msjit_pb2.CompileRequest(model=mul_add(), options=msjit_pb2.CompileOptions(**options)))
    return info.value


def test_artifact_is_an_elf_shared_object_in_the_cache_dir(daemon):
    reply = daemon.stub().Compile(request(mul_add()))
    assert reply.hit == msjit_pb2.TIER_NONE and reply.compile_ms > 0
    assert reply.artifact_path.startswith(daemon.cache_dir)
    data = open(reply.artifact_path, "rb").read()
    assert data[:4] == b"\x7fELF"
    assert hashlib.sha256(data).hexdigest() == reply.artifact_digest


def test_memory_hit_then_disk_hit_after_restart(make_daemon):
    first = make_daemon().start()
    cold = first.stub().Compile(request(mul_add()))
    warm = first.stub().Compile(request(mul_add()))
    assert (cold.hit, warm.hit) == (msjit_pb2.TIER_NONE, msjit_pb2.TIER_MEMORY)
    assert first.stop() == 0
    second = make_daemon().start()
    after_restart = second.stub().Compile(request(mul_add()))
    assert after_restart.hit == msjit_pb2.TIER_DISK
    assert after_restart.key == cold.key and after_restart.artifact_digest == cold.artifact_digest
    stats = second.stub().Stats(msjit_pb2.StatsRequest())
    assert stats.compiles == 0 and stats.disk_hits == 1


def test_concurrent_identical_compiles_compile_once(daemon):
    stub = daemon.stub()
    replies = [None] * 6

    def work(i):
        replies[i] = stub.Compile(request(mul_add((3, 5))))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(replies))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({r.key for r in replies}) == 1
    assert daemon.stub().Stats(msjit_pb2.StatsRequest()).compiles == 1


def test_execute_runs_remotely_and_fetch_streams_the_artifact(daemon):
    stub = daemon.stub()
    reply = stub.Compile(request(mul_add()))
    a, b, c = (np.random.default_rng(i).standard_normal((2, 3)).astype(np.float32) for i in range(3))
    tensors = [mindir_pb2.TensorProto(dtype=F32, dims=[2, 3], raw_data=x.tobytes()) for x in (a, b, c)]
    out = stub.Execute(msjit_pb2.ExecuteRequest(key=reply.key, inputs=tensors)).outputs[0]
    np.testing.assert_allclose(np.frombuffer(out.raw_data, np.float32).reshape(2, 3), a * b + c, rtol=1e-6)

    chunks = list(stub.FetchArtifact(msjit_pb2.FetchArtifactRequest(key=reply.key)))
    data = b"".join(c.data for c in chunks)
    assert chunks[0].artifact_digest == reply.artifact_digest == hashlib.sha256(data).hexdigest()

    with pytest.raises(grpc.RpcError) as info:
        stub.Execute(msjit_pb2.ExecuteRequest(key=reply.key, inputs=tensors[:2]))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as info:
        stub.FetchArtifact(msjit_pb2.FetchArtifactRequest(key="../etc/passwd")).next()
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def count_generics(path):
    return open(path).read().count("linalg.generic")


def test_dump_ir_shows_every_stage_and_o1_fuses(make_daemon, tmp_path):
    dump = tmp_path / "dump"
    d = make_daemon("--dump-ir", str(dump)).start()
    for level in ("O0", "O1"):
        key = d.stub().Compile(request(mul_add(), jit_level=level)).key
        stages = sorted(os.path.basename(p) for p in glob.glob(str(dump / (key[:16] + ".*"))))
        assert [s.split(".")[1] for s in stages] == ["0-mindir", "1-autodiff", "2-linalg", "3-bufferized", "4-llvm", "5-llvmir"]
        generics = count_generics(dump / f"{key[:16]}.2-linalg.mlir")
        assert generics == (1 if level == "O1" else 2), level


def test_sigterm_shuts_down_cleanly(daemon):
    daemon.stub().Compile(request(mul_add()))
    assert daemon.stop() == 0
    assert not os.path.exists(daemon.socket)
    assert "msjitd stopped" in open(daemon.log).read()
    # Nothing half-written is left in the cache.
    assert not [p for p in glob.glob(daemon.cache_dir + "/**/.tmp-*", recursive=True)]


def test_a_second_daemon_on_a_live_socket_refuses_to_start(daemon, make_daemon):
    import subprocess
    from support import msjitd_binary
    proc = subprocess.run([msjitd_binary(), "--listen", daemon.address, "--cache-dir", daemon.cache_dir],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1
    assert "already listening" in proc.stderr
    assert daemon.stub().Stats(msjit_pb2.StatsRequest()).version  # the first one is unharmed


def test_bad_flags_exit_2_naming_the_flag():
    import subprocess
    from support import msjitd_binary
    proc = subprocess.run([msjitd_binary(), "--listen", "unix:///tmp/x.sock", "--cache-dir", "/tmp/x", "--jobs", "0"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "--jobs must be > 0" in proc.stderr


def test_disk_budget_evicts_least_recently_used(make_daemon):
    d = make_daemon("--cache-disk-mb", "1").start()
    stub = d.stub()
    for n in range(1, 120):   # distinct graphs, ~16 KB artifacts each: well past 1 MiB
        stub.Compile(request(mul_add((n, 3))))
    stats = stub.Stats(msjit_pb2.StatsRequest())
    assert stats.disk_evictions > 0
    assert stats.disk_bytes <= 1 << 20
    assert stats.compiles == 119

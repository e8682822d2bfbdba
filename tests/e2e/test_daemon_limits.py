"""Daemon-wide limits an operator sets: request bytes held at once (--max-inflight-mb) and the
flags' own validation."""
import subprocess
import threading
import time

import grpc
import numpy as np

from mindir_models import chain, constant, request
from msjit.proto import mindir_pb2, msjit_pb2
from support import msjitd_binary


def padded(m, megabytes):
    """`m` plus an unused Constant carrying `megabytes` of float32 data: a request of that size."""
    node = m.graph.node.add(name="Pad", op_type="Constant", output=["Pad"])
    data = np.zeros(megabytes << 18, np.float32)
    node.attribute.add(name="value").t.CopyFrom(
        mindir_pb2.TensorProto(dtype=mindir_pb2.DT_FLOAT32, dims=[data.size], raw_data=data.tobytes()))
    return m


def test_request_bytes_held_at_once_are_bounded(make_daemon):
    d = make_daemon("--jobs", "1", "--max-request-mb", "4", "--max-inflight-mb", "4").start()
    stub = d.stub()
    slow = {}
    first = threading.Thread(target=lambda: slow.update(reply=stub.Compile(request(padded(chain(2500), 3)),
                                                                           timeout=300)))
    first.start()
    time.sleep(1.0)  # the first request is admitted and compiling, holding its 3 MiB
    second = request(constant([1 << 19], np.ones(1 << 19, np.float32).tobytes()))  # 2 MiB
    try:
        stub.Compile(second, timeout=60)
        raise AssertionError("a request past --max-inflight-mb was accepted")
    except grpc.RpcError as err:
        assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, err
        assert "--max-inflight-mb 4" in err.details()
    first.join(300)
    assert "reply" in slow
    assert stub.Compile(second, timeout=120).key  # once the first is done, there is room


def test_inflight_budget_below_the_request_limit_is_refused():
    proc = subprocess.run([msjitd_binary(), "--listen", "unix:///tmp/x.sock", "--cache-dir", "/tmp/x",
                           "--max-request-mb", "64", "--max-inflight-mb", "32"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "--max-inflight-mb must be at least --max-request-mb" in proc.stderr


def test_the_python_client_waits_out_a_full_queue(make_daemon):
    """Two clients, one worker and room for one graph: the second is refused (RESOURCE_EXHAUSTED)
    while the first compiles, and msjit's client asks again until it gets in."""
    from msjit import rpc
    d = make_daemon("--jobs", "1", "--max-queue", "1").start()
    replies = {}

    def compile_as(name, m):
        replies[name] = rpc.DaemonClient(d.address).compile(m, request(m).options)

    first = threading.Thread(target=compile_as, args=("slow", chain(2500)))
    first.start()
    time.sleep(1.0)
    compile_as("quick", chain(3, width=5))
    first.join(300)
    assert set(replies) == {"slow", "quick"}
    stats = d.stub().Stats(msjit_pb2.StatsRequest())
    assert stats.queue_rejections >= 1 and stats.compiles == 2

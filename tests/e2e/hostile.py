"""Helpers for the hostile-client tests: raw (unparsed) requests, a bystander client that must
never notice what the hostile one does, the daemon's worker processes seen through /proc, and
the issue-11 Stats fields read by name."""
import contextlib
import os
import re
import signal
import threading
import time

import grpc
import pytest

from mindir_models import mul_add, request
from msjit.proto import msjit_pb2, msjit_pb2_grpc
from support import processes

SERVICE = "/msjit.rpc.Msjit/"

# Bytes no protobuf parser accepts: a truncated varint, a length past the end, an end-group tag
# that was never opened, and a field number 0.
UNPARSEABLE = [b"\xff\xff\xff\xff", b"\x0a\xff\xff\xff\xff\x0f", b"\x0c", b"\x00\x01"]


def raw_call(address, method, payload, timeout=30):
    """Calls Msjit/<method> with `payload` as the request bytes, bypassing serialization.
    Returns the grpc.RpcError it ended with (None when it succeeded)."""
    with grpc.insecure_channel(address) as channel:
        try:
            if method == "FetchArtifact":   # server-streaming
                list(channel.unary_stream(SERVICE + method)(payload, timeout=timeout))
            else:
                channel.unary_unary(SERVICE + method)(payload, timeout=timeout)
        except grpc.RpcError as err:
            return err
    return None


def rpc_error(call, *args, **kwargs):
    """The grpc.RpcError `call(*args, **kwargs)` raises (the test fails if it succeeds)."""
    with pytest.raises(grpc.RpcError) as info:
        result = call(*args, **kwargs)
        if hasattr(result, "__next__"):   # a stream fails when read
            list(result)
    return info.value


def assert_status(err, code, *patterns):
    """`err` has status `code` and a message matching every regex in `patterns` (case-insensitive)."""
    assert err.code() == code, f"expected {code}, got {err.code()}: {err.details()!r}"
    for p in patterns:
        assert re.search(p, err.details() or "", re.I), f"{p!r} not in {err.details()!r}"


def stats(stub, *names):
    """The named StatsReply fields; fails clearly when the daemon's proto predates them."""
    reply = stub.Stats(msjit_pb2.StatsRequest(), timeout=30)
    missing = [n for n in names if n not in reply.DESCRIPTOR.fields_by_name]
    if missing:
        pytest.fail(f"StatsReply has no field(s) {missing}: the daemon and client_py/msjit/proto must "
                    "come from a build with issue 11's Stats fields (`make stage`)")
    return {n: getattr(reply, n) for n in names}


class Bystander(threading.Thread):
    """A second, well-behaved client on its own channel: compiles one small graph, then keeps
    asking for it (cache hits) until stopped, recording every failure."""

    def __init__(self, daemon, dims=(5, 11), pause=0.02):
        super().__init__(daemon=True)
        self.daemon, self.dims, self.pause = daemon, dims, pause
        self.calls, self.hits, self.errors = 0, 0, []
        self._stop_event = threading.Event()

    def run(self):
        with self.daemon.credentials.channel(self.daemon.address) as channel:   # (the daemon's own credentials)
            stub = msjit_pb2_grpc.MsjitStub(channel)
            while not self._stop_event.is_set():
                try:
                    reply = stub.Compile(request(mul_add(self.dims)), timeout=30)
                    self.calls += 1
                    self.hits += reply.hit != msjit_pb2.TIER_NONE
                except grpc.RpcError as err:
                    self.errors.append(f"{err.code()}: {err.details()}")
                self._stop_event.wait(self.pause)

    def stop(self):
        self._stop_event.set()
        self.join(timeout=60)


@contextlib.contextmanager
def bystander(daemon, min_calls=3):
    """Runs a Bystander against `daemon` for the body; afterwards it must have seen no error and
    been served throughout, and the daemon must still be running."""
    b = Bystander(daemon)
    b.start()
    wait_for(lambda: b.calls or b.errors, 60, "the bystander's first compile")
    try:
        yield b
        # Served after the hostile request too, not only before it.
        after = b.calls
        wait_for(lambda: b.calls >= after + min_calls or b.errors, 30, "the bystander to be served again")
    finally:
        b.stop()
    assert not b.errors, f"the bystander saw {len(b.errors)} error(s), first: {b.errors[0]}"
    assert b.hits >= b.calls - 1, "the bystander's graph stopped hitting the cache"
    assert daemon.proc.poll() is None, f"msjitd died (exit {daemon.proc.returncode})"


def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


# Worker processes, seen through /proc.
def children(pid):
    """Live (non-zombie) child processes of `pid`."""
    return sorted(child for child, state, parent, _ in processes() if parent == pid and state != "Z")


def cpu_ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])   # utime + stime
    except OSError:
        return -1


def busy_worker(daemon_pid, timeout=60, exclude=()):
    """The daemon's child process that keeps burning CPU (the one compiling), waiting for one.
    Busy means busy in two windows in a row: a worker that is only starting up is not."""
    deadline = time.monotonic() + timeout
    samples = []
    while time.monotonic() < deadline:
        samples = (samples + [{p: cpu_ticks(p) for p in children(daemon_pid) if p not in exclude}])[-3:]
        if len(samples) == 3:
            busy = [p for p in samples[0] if all(p in s and s[p] - samples[i][p] >= 2 and samples[i][p] >= 0
                                                 for i, s in enumerate(samples[1:]))]
            if busy:
                return busy[0]
        time.sleep(0.2)
    pytest.fail(f"no worker process of msjitd {daemon_pid} started compiling within {timeout} s "
                f"(children: {children(daemon_pid)})")


def alive(pid):
    """True while `pid` runs (a zombie, dead but not yet reaped, counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def kill_leftovers(pids):
    """SIGKILLs those of `pids` still running (workers orphaned by a killed daemon); returns them."""
    left = [p for p in pids if alive(p)]
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return left

"""Fixtures that run real msjitd processes (no fakes): each test gets its own
socket and cache directory, and every daemon is stopped with SIGTERM."""
import os
import signal
import subprocess
import sys
import time

import grpc
import pytest

TESTS = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path[:0] = [os.path.join(os.path.dirname(TESTS), "client_py"), TESTS]

from support import msjitd_binary  # noqa: E402

from msjit.proto import health_pb2, health_pb2_grpc, msjit_pb2_grpc  # noqa: E402


def wait_healthy(address, timeout=15.0):
    # A fresh channel per attempt: a channel that failed once backs off for seconds.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with grpc.insecure_channel(address) as channel:
            try:
                reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
        time.sleep(0.02)
    raise TimeoutError(f"msjitd at {address} did not become healthy")


class Daemon:
    """One msjitd process on a unix socket in `workdir`."""

    def __init__(self, workdir, *extra):
        self.workdir = str(workdir)
        self.cache_dir = os.path.join(self.workdir, "cache")
        self.socket = os.path.join(self.workdir, "msjitd.sock")
        self.address = "unix://" + self.socket
        self.log = os.path.join(self.workdir, "msjitd.log")
        self.extra = list(extra)
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            [msjitd_binary(), "--listen", self.address, "--cache-dir", self.cache_dir,
             "--log-file", self.log, *self.extra],
            # Never the test runner's stdout: a daemon left behind would hold CI's pipe open.
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_healthy(self.address)
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)
        return self.proc.returncode

    def stub(self):
        return msjit_pb2_grpc.MsjitStub(grpc.insecure_channel(self.address))


@pytest.fixture
def daemon(tmp_path):
    d = Daemon(tmp_path).start()
    yield d
    d.stop()


@pytest.fixture
def make_daemon(tmp_path):
    started = []

    def make(*extra, workdir=None):
        d = Daemon(workdir or tmp_path, *extra)
        started.append(d)
        return d

    yield make
    for d in started:
        d.stop()

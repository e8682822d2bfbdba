"""A real msjitd process for tests (no fakes): its own socket and cache directory, stopped with
SIGTERM. A module of its own, not a conftest, so any test folder can import it by name."""
import os
import subprocess
import time

import grpc

from support import msjitd_binary, terminate

from msjit.proto import health_pb2, health_pb2_grpc, msjit_pb2_grpc
from msjit.rpc import NO_CREDENTIALS


def wait_healthy(address, timeout=15.0, credentials=NO_CREDENTIALS, proc=None):
    # A fresh channel per attempt: a channel that failed once backs off for seconds.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with credentials.channel(address) as channel:
            try:
                reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"msjitd for {address} exited with status {proc.returncode} while starting")
        time.sleep(0.02)
    raise TimeoutError(f"msjitd at {address} did not become healthy")


class Daemon:
    """One msjitd process on a unix socket in `workdir`, or on `listen` (e.g. a loopback TCP
    address). `credentials` (an msjit.rpc.Credentials) are what its health check and stub() use."""

    def __init__(self, workdir, *extra, listen=None, credentials=NO_CREDENTIALS):
        self.workdir = str(workdir)
        self.cache_dir = os.path.join(self.workdir, "cache")
        self.socket = os.path.join(self.workdir, "msjitd.sock")
        self.address = listen or "unix://" + self.socket
        self.credentials = credentials
        self.log = os.path.join(self.workdir, "msjitd.log")
        self.extra = list(extra)
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            [msjitd_binary(), "--listen", self.address, "--cache-dir", self.cache_dir,
             "--log-file", self.log, *self.extra],
            # Never the test runner's stdout: a daemon left behind would hold CI's pipe open.
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_healthy(self.address, credentials=self.credentials, proc=self.proc)
        return self

    def stop(self):
        return terminate(self.proc, grace=60)

    def stub(self, credentials=None):
        """A stub over this daemon's credentials, or over other `credentials`."""
        return msjit_pb2_grpc.MsjitStub((credentials or self.credentials).channel(self.address))

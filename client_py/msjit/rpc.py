"""gRPC client of msjitd, and starting a private local daemon when none is configured.

Address: ``MSJITD_ADDRESS`` (any gRPC target) if set, and then it must answer. Otherwise
``unix://$MSJIT_HOME/msjitd.sock`` (MSJIT_HOME defaults to ~/.cache/msjit); if nothing answers
there, one ``msjitd`` is started under an flock so that concurrent processes start only one.
"""
import fcntl
import logging
import os
import shutil
import subprocess
import threading
import time

import grpc

from .errors import CompileError, DaemonError, DaemonUnavailableError
from .proto import health_pb2, health_pb2_grpc, msjit_pb2, msjit_pb2_grpc

logger = logging.getLogger(__name__)

HEALTH_TIMEOUT_S = 1.0
START_TIMEOUT_S = 10.0
COMPILE_TIMEOUT_S = 600.0
FETCH_TIMEOUT_S = 120.0
_UNIX_PATH_MAX = 107
_CHANNEL_OPTIONS = [("grpc.max_send_message_length", 1 << 30),
                    ("grpc.max_receive_message_length", 1 << 30),
                    ("grpc.initial_reconnect_backoff_ms", 100),
                    ("grpc.max_reconnect_backoff_ms", 1000)]
_spawned = []  # Popen objects of daemons we started (kept so they are not reported as leaked)


def msjit_home():
    return os.path.abspath(os.path.expanduser(os.environ.get("MSJIT_HOME") or "~/.cache/msjit"))


def is_serving(address, timeout=HEALTH_TIMEOUT_S):
    """True if a gRPC health check at ``address`` answers SERVING. Uses its own channel, so no
    reconnect backoff state is shared with the long-lived one."""
    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=timeout)
        except grpc.RpcError:
            return False
    return reply.status == health_pb2.HealthCheckResponse.SERVING


def start_local_daemon(home, address):
    """Start ``msjitd`` for ``home`` unless one already serves ``address``; wait until it serves."""
    binary = os.environ.get("MSJITD_BIN") or shutil.which("msjitd")
    if not binary or not os.access(binary, os.X_OK):
        raise DaemonUnavailableError(
            f"no msjitd answers at {address} and the msjitd binary was not found "
            f"({'MSJITD_BIN=' + binary if binary else 'not on PATH'}); set MSJITD_BIN, put msjitd "
            "on PATH, or set MSJITD_ADDRESS to a running daemon")
    os.makedirs(home, exist_ok=True)
    log_file = os.path.join(home, "msjitd.log")
    with open(os.path.join(home, "msjitd.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if is_serving(address):
            return  # another process started it while we waited for the lock
        cmd = [binary, "--listen", address, "--cache-dir", os.path.join(home, "cache"),
               "--log-file", log_file]
        logger.info("starting %s", " ".join(cmd))
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
        _spawned.append(proc)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if is_serving(address, timeout=0.5):
                logger.info("msjitd (pid %d) serving at %s", proc.pid, address)
                return
            if proc.poll() is not None:
                raise DaemonUnavailableError(f"msjitd ({binary}) exited with status {proc.returncode} "
                                             f"while starting; see {log_file}")
            time.sleep(0.05)
        raise DaemonUnavailableError(f"msjitd (pid {proc.pid}) did not serve {address} within "
                                     f"{START_TIMEOUT_S:.0f} s; see {log_file}")


class DaemonClient:
    """Calls to one msjitd. Connects (and, without MSJITD_ADDRESS, starts the daemon) on first use."""

    def __init__(self, address=None):
        explicit = address or os.environ.get("MSJITD_ADDRESS")
        self.home = msjit_home()
        self.address = explicit or f"unix://{self.home}/msjitd.sock"
        self.autostart = not explicit
        if self.autostart and len(self.address) - len("unix://") > _UNIX_PATH_MAX:
            raise DaemonUnavailableError(f"socket path {self.address} is longer than a unix socket "
                                         f"allows ({_UNIX_PATH_MAX}); use a shorter MSJIT_HOME")
        self._channel = None
        self._stub = None

    def _connect(self):
        if not is_serving(self.address):
            if not self.autostart:
                raise DaemonUnavailableError(f"msjitd is not reachable at {self.address} (MSJITD_ADDRESS); "
                                             "start it there, or unset MSJITD_ADDRESS for a local one")
            start_local_daemon(self.home, self.address)
        self._channel = grpc.insecure_channel(self.address, options=_CHANNEL_OPTIONS)
        self._stub = msjit_pb2_grpc.MsjitStub(self._channel)

    def _call(self, what, fn):
        """Run ``fn(stub)``, mapping gRPC failures to msjit errors. A local daemon that went away
        is started again, once."""
        for may_retry in (self.autostart, False):
            if self._stub is None:
                self._connect()
            try:
                return fn(self._stub)
            except grpc.RpcError as e:
                error = e
            if not (may_retry and error.code() == grpc.StatusCode.UNAVAILABLE):
                break
            logger.warning("msjitd at %s unavailable during %s (%s); restarting it", self.address, what,
                           error.details())
            self.close()
        raise _map_error(error, what, self.address) from None

    def compile(self, model, options):
        """Compile a ModelProto; returns the CompileReply. CompileError for a rejected graph."""
        request = msjit_pb2.CompileRequest(model=model, options=options)
        return self._call("Compile", lambda stub: stub.Compile(request, timeout=COMPILE_TIMEOUT_S))

    def fetch_artifact(self, key):
        """The artifact bytes of a compiled key (streamed in chunks)."""
        request = msjit_pb2.FetchArtifactRequest(key=key)
        return self._call("FetchArtifact", lambda stub: b"".join(
            chunk.data for chunk in stub.FetchArtifact(request, timeout=FETCH_TIMEOUT_S)))

    def stats(self):
        return self._call("Stats", lambda stub: stub.Stats(msjit_pb2.StatsRequest(), timeout=10.0))

    def close(self):
        if self._channel is not None:
            self._channel.close()
        self._channel = self._stub = None


def _map_error(error, what, address):
    """gRPC status -> msjit error: a rejected graph is a CompileError carrying the daemon's
    diagnostic (which names the node and its source location)."""
    code, details = error.code(), error.details()
    if code == grpc.StatusCode.INVALID_ARGUMENT and what == "Compile":
        return CompileError(details)
    if code == grpc.StatusCode.UNAVAILABLE:
        return DaemonUnavailableError(f"msjitd at {address} became unavailable during {what}: {details}")
    return DaemonError(f"msjitd {what} failed ({code.name}) at {address}: {details}")


_client = None
_client_pid = None
_client_lock = threading.Lock()


def client():
    """The process's DaemonClient: one channel per process, re-created after fork."""
    global _client, _client_pid
    if _client is None or _client_pid != os.getpid():
        with _client_lock:
            if _client is None or _client_pid != os.getpid():
                _client, _client_pid = DaemonClient(), os.getpid()
    return _client


def reset_client():
    """Forget the process's client (e.g. after changing MSJITD_ADDRESS or MSJIT_HOME)."""
    global _client
    with _client_lock:
        if _client is not None and _client_pid == os.getpid():
            _client.close()
        _client = None

"""gRPC client of msjitd, and starting a private local daemon when none is configured.

Address: ``MSJITD_ADDRESS`` (a gRPC target, or several separated by commas) if set, and then one
of them must answer. Otherwise ``unix://$MSJIT_HOME/msjitd.sock`` (MSJIT_HOME defaults to
~/.cache/msjit); if nothing answers there, one ``msjitd`` is started under an flock so that
concurrent processes start only one. MSJIT_HOME is made private (0700): the socket and the
artifacts in it are the user's alone.

Several addresses (daemons of one cluster): calls go to the first address whose health check
answers within HEALTH_TIMEOUT_S. A call failing with UNAVAILABLE (the daemon went away) is made
again on the next address; a compile error or any other failure is the caller's. An address that
failed is skipped for FAILOVER_BACKOFF_S (doubling per failure, up to FAILOVER_BACKOFF_MAX_S) and
then checked again, so a recovered daemon earlier in the list is used again. The C++ client
(client_cpp/client.h, FailoverClient) follows the same policy with the same numbers.

Credentials for a daemon at ``MSJITD_ADDRESS`` (a TCP daemon wants a token, TLS, or both; the
private local daemon needs none), each variable naming a file:

- ``MSJITD_TOKEN_FILE``: the daemon's bearer token (its ``--auth-token-file``); sent as
  ``authorization: Bearer <token>`` on every msjit call. Trailing whitespace is ignored.
- ``MSJITD_TLS_CA``: PEM root certificate(s) that signed the daemon's certificate; setting it
  makes the channel TLS.
- ``MSJITD_TLS_CERT`` and ``MSJITD_TLS_KEY``: this client's PEM certificate and key, for a daemon
  started with ``--tls-client-ca`` (mutual TLS). Both or neither.
- ``MSJITD_TLS_SERVER_NAME`` (a name, not a file): check the daemon's certificate against this
  name instead of the address's host.
"""
import collections
import fcntl
import logging
import os
import shutil
import subprocess
import threading
import time

import grpc

from .errors import ArtifactNotFoundError, CompileError, DaemonError, DaemonUnavailableError
from .proto import health_pb2, health_pb2_grpc, msjit_pb2, msjit_pb2_grpc

logger = logging.getLogger(__name__)

HEALTH_TIMEOUT_S = 1.0
FAILOVER_BACKOFF_S = 1.0
FAILOVER_BACKOFF_MAX_S = 30.0
START_TIMEOUT_S = 10.0
COMPILE_TIMEOUT_S = 600.0
FETCH_TIMEOUT_S = 120.0
BUSY_RETRY_S = 120.0
_UNIX_PATH_MAX = 107
_CHANNEL_OPTIONS = [("grpc.max_send_message_length", 1 << 30),
                    ("grpc.max_receive_message_length", 1 << 30),
                    ("grpc.initial_reconnect_backoff_ms", 100),
                    ("grpc.max_reconnect_backoff_ms", 1000)]
_spawned = []  # Popen objects of daemons we started (kept so they are not reported as leaked)


def msjit_home():
    return os.path.abspath(os.path.expanduser(os.environ.get("MSJIT_HOME") or "~/.cache/msjit"))


def make_private_dir(path):
    """Create ``path`` (and its parents) readable by this user only; an existing one this user
    owns is made 0700 too, so that a directory made under a loose umask is tightened."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    info = os.stat(path)
    if info.st_uid == os.getuid() and info.st_mode & 0o077:
        os.chmod(path, 0o700)


def _read_env_file(variable):
    """The bytes of the file the environment variable names, None when it is unset."""
    path = os.environ.get(variable)
    if not path:
        return None
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise DaemonError(f"cannot read {variable}={path}: {e.strerror}") from None


class Credentials(collections.namedtuple("Credentials", "token root_certificates private_key "
                                                         "certificate_chain server_name")):
    """What this client presents to a daemon: a bearer token and TLS settings (see the module
    docstring for the environment variables)."""

    @classmethod
    def from_environment(cls):
        token = _read_env_file("MSJITD_TOKEN_FILE")
        if token is not None:
            token = token.decode().rstrip()
            if not token:
                raise DaemonError(f"MSJITD_TOKEN_FILE={os.environ['MSJITD_TOKEN_FILE']} is empty")
        cert, key = _read_env_file("MSJITD_TLS_CERT"), _read_env_file("MSJITD_TLS_KEY")
        if (cert is None) != (key is None):
            raise DaemonError("MSJITD_TLS_CERT and MSJITD_TLS_KEY go together (a client certificate "
                              "and its key); set both or neither")
        return cls(token, _read_env_file("MSJITD_TLS_CA"), key, cert,
                   os.environ.get("MSJITD_TLS_SERVER_NAME") or None)

    @property
    def tls(self):
        return self.root_certificates is not None or self.certificate_chain is not None

    def channel(self, address, options=()):
        """A channel to ``address``: TLS when configured, every call carrying the token."""
        options = list(options)
        if self.tls:
            if self.server_name:
                options.append(("grpc.ssl_target_name_override", self.server_name))
            channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(
                self.root_certificates, self.private_key, self.certificate_chain), options=options)
        else:
            channel = grpc.insecure_channel(address, options=options)
        if self.token:
            # Per-call metadata rather than call credentials: gRPC refuses those on plaintext
            # channels, and a loopback daemon may take a token without TLS.
            channel = grpc.intercept_channel(channel, _MetadataInterceptor(
                (("authorization", f"Bearer {self.token}"),)))
        return channel


NO_CREDENTIALS = Credentials(None, None, None, None, None)


class _CallDetails(collections.namedtuple("_CallDetails", "method timeout metadata credentials "
                                                           "wait_for_ready compression"),
                   grpc.ClientCallDetails):
    pass


class _MetadataInterceptor(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    """Adds fixed metadata to every call of a channel."""

    def __init__(self, metadata):
        self._metadata = tuple(metadata)

    def _details(self, d):
        return _CallDetails(d.method, d.timeout, tuple(d.metadata or ()) + self._metadata, d.credentials,
                            d.wait_for_ready, d.compression)

    def intercept_unary_unary(self, continuation, details, request):
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation, details, request):
        return continuation(self._details(details), request)


def is_serving(address, timeout=HEALTH_TIMEOUT_S, credentials=NO_CREDENTIALS):
    """True if a gRPC health check at ``address`` answers SERVING. Uses its own channel, so no
    reconnect backoff state is shared with the long-lived one."""
    with credentials.channel(address) as channel:
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
    make_private_dir(home)
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


def split_addresses(value):
    """The gRPC targets of a comma-separated list (blanks dropped)."""
    return [a.strip() for a in (value or "").split(",") if a.strip()]


class _Target:
    """One daemon address of the list and its failure backoff."""

    def __init__(self, address):
        self.address = address
        self.backoff = 0.0          # 0: not down
        self.retry_at = 0.0         # time.monotonic() after which it is checked again

    def down(self):
        self.backoff = min(self.backoff * 2, FAILOVER_BACKOFF_MAX_S) if self.backoff else FAILOVER_BACKOFF_S
        self.retry_at = time.monotonic() + self.backoff

    def waiting(self, now):
        return self.backoff > 0 and now < self.retry_at


class DaemonClient:
    """Calls to msjitd: the first healthy address of MSJITD_ADDRESS, failing over to the next (see
    the module docstring). Connects (and, without MSJITD_ADDRESS, starts the daemon) on first use."""

    def __init__(self, address=None):
        explicit = address or os.environ.get("MSJITD_ADDRESS")
        self.home = msjit_home()
        addresses = split_addresses(explicit) or [f"unix://{self.home}/msjitd.sock"]
        self.autostart = not split_addresses(explicit)
        if self.autostart and len(addresses[0]) - len("unix://") > _UNIX_PATH_MAX:
            raise DaemonUnavailableError(f"socket path {addresses[0]} is longer than a unix socket "
                                         f"allows ({_UNIX_PATH_MAX}); use a shorter MSJIT_HOME")
        # The private daemon we start listens on a 0700 directory's socket without credentials.
        self.credentials = NO_CREDENTIALS if self.autostart else Credentials.from_environment()
        self._targets = [_Target(a) for a in addresses]
        self._current = None          # index of the address in use
        self._lock = threading.Lock()
        self._channel = None
        self._stub = None

    @property
    def addresses(self):
        return [t.address for t in self._targets]

    @property
    def address(self):
        """The address in use (the first one before any call)."""
        return self._targets[self._current or 0].address

    def _choose(self, excluded):
        """Index of the first healthy address not in ``excluded``: those not waiting out a
        backoff first, in list order, then the others; None when none answers."""
        now = time.monotonic()
        for waiting in (False, True):
            for i, target in enumerate(self._targets):
                if i in excluded or target.waiting(now) != waiting:
                    continue
                if is_serving(target.address, credentials=self.credentials):
                    target.backoff = 0.0
                    return i
                target.down()
        return None

    def _connect(self, excluded=()):
        """Points the stub at the first healthy address (starting the local daemon if that is ours)."""
        index = self._choose(excluded)
        if index is None:
            if not self.autostart:
                hint = "" if self.credentials.tls else " (a TLS daemon needs MSJITD_TLS_CA)"
                names = ", ".join(self.addresses)
                raise DaemonUnavailableError(f"msjitd is not reachable at {names} (MSJITD_ADDRESS){hint}; start it "
                                             f"there, or unset MSJITD_ADDRESS for a local one")
            start_local_daemon(self.home, self.address)
            index = 0
        if self._current != index or self._stub is None:
            if self._current is not None and self._current != index:
                logger.warning("msjitd: using %s (was %s)", self._targets[index].address, self.address)
            self.close()
            self._current = index
            self._channel = self.credentials.channel(self.address, options=_CHANNEL_OPTIONS)
            self._stub = msjit_pb2_grpc.MsjitStub(self._channel)

    def _stub_for_call(self, excluded):
        """The stub to call now and its address index; looks for an address again when there is
        none yet, or when one earlier in the list has waited out its backoff."""
        with self._lock:
            now = time.monotonic()
            earlier = self._current is not None and any(
                t.backoff and not t.waiting(now) for t in self._targets[:self._current])
            if self._stub is None or earlier:
                self._connect(excluded)
            return self._stub, self._current

    def _call(self, what, fn):
        """Run ``fn(stub)``, mapping gRPC failures to msjit errors. UNAVAILABLE moves to the next
        address (each address once per call); a local daemon that went away is started again, once."""
        excluded = set()
        for may_restart in (self.autostart, False):
            while True:
                stub, index = self._stub_for_call(excluded)
                try:
                    return fn(stub)
                except grpc.RpcError as e:
                    error = e
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    raise _map_error(error, what, self._targets[index].address) from None
                with self._lock:
                    self._targets[index].down()
                    excluded.add(index)
                    if index == self._current:
                        self.close()
                if len(excluded) == len(self._targets):
                    break
                logger.warning("msjitd at %s unavailable during %s (%s); trying the next address",
                               self._targets[index].address, what, error.details())
            if not may_restart:
                break
            logger.warning("msjitd at %s unavailable during %s (%s); restarting it", self.address, what,
                           error.details())
            excluded = set()
        raise _map_error(error, what, self._targets[index].address) from None

    def compile(self, model, options):
        """Compile a ModelProto; returns the CompileReply. CompileError for a rejected graph.
        A busy daemon (its compile queue or request budget full: RESOURCE_EXHAUSTED) is asked
        again with backoff for up to BUSY_RETRY_S, as a cluster's clients share one server."""
        request = msjit_pb2.CompileRequest(model=model, options=options)
        deadline, pause = time.monotonic() + BUSY_RETRY_S, 0.05

        def busy_aware(stub):
            nonlocal pause
            while True:
                try:
                    return stub.Compile(request, timeout=COMPILE_TIMEOUT_S)
                except grpc.RpcError as e:
                    if e.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or time.monotonic() + pause > deadline \
                            or "--compile-memory-mb" in (e.details() or ""):   # (a graph over it stays over it)
                        raise
                    logger.info("msjitd at %s is busy (%s); asking again in %.2f s", self.address, e.details(), pause)
                    time.sleep(pause)
                    pause = min(pause * 2, 2.0)

        return self._call("Compile", busy_aware)

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
    if code == grpc.StatusCode.NOT_FOUND:
        return ArtifactNotFoundError(f"msjitd {what} failed (NOT_FOUND) at {address}: {details}")
    if code == grpc.StatusCode.UNAUTHENTICATED:
        return DaemonError(f"msjitd at {address} refused the credentials for {what} (UNAUTHENTICATED): "
                           f"{details}; set MSJITD_TOKEN_FILE to a file holding its token")
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

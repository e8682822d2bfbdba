"""A real redis-server for tests (tests/e2e, tests/cluster): Debian's /usr/bin/redis-server on a
free loopback port, no persistence, stopped by the test. ``Redis.command(...)`` speaks RESP over
a plain socket so tests can inspect or tamper with what the daemons stored (no redis-py here)."""
import os
import socket
import ssl
import subprocess
import time

import pytest

from support import terminate

REDIS_SERVER = "/usr/bin/redis-server"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisError(Exception):
    """An error reply (-ERR ...) from Redis."""


def make_tls_files(workdir):
    """A throwaway CA and, signed by it, a server certificate for 127.0.0.1 and a client
    certificate: {"ca", "server_cert", "server_key", "client_cert", "client_key"} paths."""
    d = os.path.join(str(workdir), "tls")
    os.makedirs(d, exist_ok=True)
    files = {k: os.path.join(d, k.replace("_", ".")) for k in
             ("ca", "server_cert", "server_key", "client_cert", "client_key")}
    ca_key, ext = os.path.join(d, "ca.key"), os.path.join(d, "san.ext")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

    def openssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)

    openssl("req", "-x509", *ec, "-keyout", ca_key, "-out", files["ca"], "-subj", "/CN=msjit test CA", "-days", "2")
    for who, cn in (("server", "127.0.0.1"), ("client", "msjitd")):
        csr = os.path.join(d, who + ".csr")
        openssl("req", *ec, "-keyout", files[who + "_key"], "-out", csr, "-subj", "/CN=" + cn)
        openssl("x509", "-req", "-in", csr, "-CA", files["ca"], "-CAkey", ca_key, "-CAcreateserial",
                "-out", files[who + "_cert"], "-days", "2", *(["-extfile", ext] if who == "server" else []))
    return files


class Redis:
    """One redis-server process. ``url`` is what msjitd's --shared-cache takes; ``password_file``
    (or None) what --shared-cache-password-file takes. With ``tls`` (make_tls_files()) it
    speaks only TLS and requires a client certificate."""

    def __init__(self, workdir, password=None, port=None, extra=(), tls=None):
        self.workdir = str(workdir)
        self.port = port or free_port()
        self.tls = tls
        self.url = f"{'rediss' if tls else 'redis'}://127.0.0.1:{self.port}"
        self.password = password
        self.password_file = None
        self.log = os.path.join(self.workdir, f"redis-{self.port}.log")
        self.extra = list(extra)
        self.proc = None
        if password is not None:
            self.password_file = os.path.join(self.workdir, f"redis-{self.port}.password")
            with open(self.password_file, "w") as f:
                f.write(password + "\n")
            os.chmod(self.password_file, 0o600)

    def start(self, timeout=10.0):
        argv = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", self.workdir, "--logfile", self.log, *self.extra]
        if self.password is not None:
            argv += ["--requirepass", self.password]
        if self.tls:
            argv[1:3] = ["--port", "0", "--tls-port", str(self.port), "--tls-cert-file", self.tls["server_cert"],
                         "--tls-key-file", self.tls["server_key"], "--tls-ca-cert-file", self.tls["ca"],
                         "--tls-auth-clients", "yes"]
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}; see {self.log}")
            try:
                if self.command("PING") == "PONG":
                    return self
            except (OSError, RedisError):
                pass
            time.sleep(0.02)
        self.kill()
        raise TimeoutError(f"redis-server on port {self.port} did not answer PING")

    def command(self, *args, timeout=5.0):
        """Run one command (authenticating first if a password is set); returns the decoded
        reply: str for status, bytes for bulk strings, int, list, or None."""
        s = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        try:
            if self.tls:
                context = ssl.create_default_context(cafile=self.tls["ca"])
                context.load_cert_chain(self.tls["client_cert"], self.tls["client_key"])
                s = context.wrap_socket(s, server_hostname="127.0.0.1")
            reader = s.makefile("rb")
            if self.password is not None:
                _send(s, ("AUTH", self.password))
                _read(reader)
            _send(s, args)
            return _read(reader)
        finally:
            s.close()

    def stop(self):
        """SIGTERM, then SIGKILL after 10 s: never left behind."""
        terminate(self.proc, grace=10)

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _send(sock, args):
    parts = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
    sock.sendall(b"".join(parts))


def _read(reader):
    line = reader.readline()
    if not line:
        raise OSError("redis closed the connection")
    kind, rest = line[:1], line[1:-2]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        raise RedisError(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        n = int(rest)
        if n < 0:
            return None
        data = reader.read(n + 2)
        return data[:-2]
    if kind == b"*":
        n = int(rest)
        return None if n < 0 else [_read(reader) for _ in range(n)]
    raise OSError(f"unexpected reply {line!r}")


def start_redis(tmp_path, password=None, extra=(), tls=None):
    """A started redis-server in ``tmp_path`` (skips the test if redis-server is not installed).
    The caller stops it (``.stop()``) or kills it (``.kill()``)."""
    if not os.access(REDIS_SERVER, os.X_OK):
        pytest.skip(f"{REDIS_SERVER} is not installed")
    for attempt in range(3):  # another process may take the free port before redis binds it
        try:
            return Redis(tmp_path, password=password, extra=extra, tls=tls).start()
        except RuntimeError:
            if attempt == 2:
                raise

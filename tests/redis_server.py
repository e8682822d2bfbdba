"""A real redis-server for tests (tests/e2e, tests/cluster): Debian's /usr/bin/redis-server on a
free loopback port, no persistence, stopped by the test. ``Redis.command(...)`` speaks RESP over
a plain socket so tests can inspect or tamper with what the daemons stored (no redis-py here)."""
import os
import signal
import socket
import subprocess
import time

import pytest

REDIS_SERVER = "/usr/bin/redis-server"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisError(Exception):
    """An error reply (-ERR ...) from Redis."""


class Redis:
    """One redis-server process. ``url`` is what msjitd's --shared-cache takes; ``password_file``
    (or None) what --shared-cache-password-file takes."""

    def __init__(self, workdir, password=None, port=None, extra=()):
        self.workdir = str(workdir)
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}"
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
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
            reader = s.makefile("rb")
            if self.password is not None:
                _send(s, ("AUTH", self.password))
                _read(reader)
            _send(s, args)
            return _read(reader)

    def stop(self):
        """SIGTERM, then SIGKILL after 10 s: never left behind."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

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


def start_redis(tmp_path, password=None, extra=()):
    """A started redis-server in ``tmp_path`` (skips the test if redis-server is not installed).
    The caller stops it (``.stop()``) or kills it (``.kill()``)."""
    if not os.access(REDIS_SERVER, os.X_OK):
        pytest.skip(f"{REDIS_SERVER} is not installed")
    for attempt in range(3):  # another process may take the free port before redis binds it
        try:
            return Redis(tmp_path, password=password, extra=extra).start()
        except RuntimeError:
            if attempt == 2:
                raise

"""Shared fixtures. Makes `client_py` importable when PYTHONPATH is not set.

Tests that talk to a daemon use the real msjitd (MSJITD_BIN, bazel-bin/server/msjitd or PATH),
started by the client itself in a private MSJIT_HOME; every daemon a test starts is stopped."""
import os
import shutil
import signal
import sys
import tempfile
import time

import numpy as np
import pytest

TESTS = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path[:0] = [p for p in (os.path.join(os.path.dirname(TESTS), "client_py"), TESTS) if p not in sys.path]

from support import msjitd_binary, processes  # noqa: E402


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture
def no_daemon(monkeypatch):
    """Point msjit at an address where nothing listens: a test using it must never compile."""
    from msjit import rpc
    monkeypatch.setenv("MSJITD_ADDRESS", "unix:///nonexistent/msjit-test.sock")
    rpc.reset_client()
    yield
    rpc.reset_client()


class DaemonHome:
    """A private MSJIT_HOME in which the client auto-starts the real msjitd; ``stop`` ends every
    daemon serving it (SIGTERM), whichever process started it."""

    def __init__(self, mp):
        self.path = tempfile.mkdtemp(prefix="msjit-t", dir="/tmp")   # short: unix socket paths are limited
        self.address = f"unix://{self.path}/msjitd.sock"
        self.log_file = os.path.join(self.path, "msjitd.log")
        mp.setenv("MSJIT_HOME", self.path)
        mp.setenv("MSJITD_BIN", msjitd_binary())
        mp.delenv("MSJITD_ADDRESS", raising=False)

    def pids(self):
        """Pids of the live processes listening on this home's socket (``--listen ADDRESS``)."""
        found = []
        for pid, state, _, argv in processes():
            if state != "Z" and any(a == "--listen" and b == self.address for a, b in zip(argv, argv[1:])):
                found.append(pid)
        return sorted(found)

    def log(self):
        try:
            with open(self.log_file) as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def starts(self):
        """How many daemons came up here: each appends its 'listening' line to the log."""
        return self.log().count("msjitd listening on ")

    def stop(self):
        from msjit import rpc
        rpc.reset_client()
        pids = self.pids()
        for pid in pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        ours = {p.pid: p for p in rpc._spawned}
        deadline = time.monotonic() + 60
        for pid in pids:
            if pid in ours:        # our child: reap it
                ours[pid].wait(timeout=max(deadline - time.monotonic(), 1))
            else:                  # started by another test process: wait until it has exited
                while pid in self.pids():
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"msjitd (pid {pid}) did not stop on SIGTERM")
                    time.sleep(0.02)
        for proc in rpc._spawned:  # reap the children that already exited (a binary that failed)
            proc.poll()
        shutil.rmtree(self.path, ignore_errors=True)


def _daemon_home():
    from msjit import rpc
    with pytest.MonkeyPatch.context() as mp:
        home = DaemonHome(mp)
        rpc.reset_client()
        try:
            yield home
        finally:
            home.stop()


@pytest.fixture
def daemon_home():
    """A fresh MSJIT_HOME for one test (its daemon is started on first use)."""
    yield from _daemon_home()


@pytest.fixture(scope="module")
def module_daemon_home():
    """One MSJIT_HOME, and so one daemon, shared by the tests of a module."""
    yield from _daemon_home()

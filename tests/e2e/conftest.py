"""Fixtures that run real msjitd processes (no fakes): each test gets its own
socket and cache directory, and every daemon is stopped with SIGTERM."""
import os
import sys

import pytest

TESTS = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path[:0] = [os.path.join(os.path.dirname(TESTS), "client_py"), TESTS]

from daemon_process import Daemon, wait_healthy  # noqa: E402,F401  (re-exported for tests/load, tests/cluster)


@pytest.fixture
def daemon(tmp_path):
    d = Daemon(tmp_path).start()
    yield d
    d.stop()


@pytest.fixture
def make_daemon(tmp_path):
    started = []

    def make(*extra, workdir=None, **options):
        d = Daemon(workdir or tmp_path, *extra, **options)
        started.append(d)
        return d

    yield make
    for d in started:
        d.stop()

"""Helpers shared by the Python test suites (tests/py, tests/e2e)."""
import os
import shutil

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def msjitd_binary():
    """The real daemon under test: MSJITD_BIN, the Bazel build, or the installed one."""
    for candidate in (os.environ.get("MSJITD_BIN"), os.path.join(ROOT, "bazel-bin/server/msjitd"),
                      shutil.which("msjitd")):
        if candidate and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    pytest.fail("msjitd is not built: run `make build` or set MSJITD_BIN")

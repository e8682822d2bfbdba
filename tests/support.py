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


def marker_lines(path):
    """``line_of(marker)`` for the test file at ``path``: the number of the only line that ends
    with ``# <marker>`` (tests name the source line an error must point at this way)."""
    with open(path) as f:
        lines = f.read().splitlines()

    def line_of(marker):
        hits = [i + 1 for i, text in enumerate(lines) if text.rstrip().endswith(f"# <{marker}>")]
        assert len(hits) == 1, (marker, hits)
        return hits[0]

    return line_of

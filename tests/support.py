"""Helpers shared by the Python test suites (tests/py, tests/e2e)."""
import os
import shutil
import signal
import subprocess

import numpy as np

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def terminate(proc, grace):
    """Stops a started process: SIGTERM, then SIGKILL after ``grace`` seconds, so nothing a test
    started is ever left behind. Returns its exit status (None if it was never started)."""
    if proc is not None and proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return None if proc is None else proc.returncode


def msjitd_binary():
    """The real daemon under test: MSJITD_BIN, the Bazel build, or the installed one."""
    for candidate in (os.environ.get("MSJITD_BIN"), os.path.join(ROOT, "bazel-bin/server/msjitd"),
                      shutil.which("msjitd")):
        if candidate and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    pytest.fail("msjitd is not built: run `make build` or set MSJITD_BIN")


def processes():
    """(pid, state, parent pid, argv) of each process in /proc now; one that ends meanwhile, or is
    not ours to read, is skipped."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        yield int(entry), fields[0], int(fields[1]), argv


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


# Comparing a jitted function's result with eager and numpy references (capture tests).
def plain_result(v):
    """A result as plain Python/numpy: containers kept (their type too), tensors as arrays."""
    from msjit import Tensor

    if isinstance(v, Tensor):
        return ("tensor", v.asnumpy())
    if isinstance(v, (tuple, list)):
        return (type(v).__name__, [plain_result(x) for x in v])
    if isinstance(v, dict):
        return ("dict", {k: plain_result(x) for k, x in v.items()})
    if isinstance(v, (np.ndarray, np.generic)):
        return ("tensor", np.asarray(v))
    return ("const", v)


def assert_results_close(got, want, where="result", exact_kinds=True):
    """Same structure, same values; ``exact_kinds``: tensors where tensors are (eager vs jit)."""
    (gk, gv), (wk, wv) = got, want
    if gk in ("tuple", "list", "dict") or wk in ("tuple", "list", "dict"):
        assert gk == wk, f"{where}: {gk} vs {wk}"
        if gk == "dict":
            assert list(gv) == list(wv), where
            for k in gv:
                assert_results_close(gv[k], wv[k], f"{where}[{k!r}]", exact_kinds)
        else:
            assert len(gv) == len(wv), where
            for i, (a, b) in enumerate(zip(gv, wv)):
                assert_results_close(a, b, f"{where}[{i}]", exact_kinds)
        return
    numbers = (int, float, np.ndarray, np.generic)
    if gv is None or wv is None or (gk == wk == "const" and not (isinstance(gv, numbers) and isinstance(wv, numbers))):
        assert gv == wv, f"{where}: {gv!r} vs {wv!r}"
        return
    if exact_kinds:
        assert gk == wk, f"{where}: {gk} vs {wk}"
    g, w = np.asarray(gv), np.asarray(wv)
    assert g.shape == w.shape, f"{where}: shape {g.shape} vs {w.shape}"
    if exact_kinds and gk == "tensor":
        assert g.dtype == w.dtype, f"{where}: dtype {g.dtype} vs {w.dtype}"
    np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=1e-5, atol=1e-5, err_msg=where)


# Gradients against finite differences (tests/grad, tests/api).
def cotangent(shape, dtype):
    """The fixed cotangent of an output of ``shape`` (seeded by the shape)."""
    rng = np.random.default_rng(abs(hash(tuple(shape))) % 2**32)
    return rng.standard_normal(shape).astype(dtype)


def central_difference(x, evaluate, ct, eps=1e-6):
    """d sum(ct * evaluate()) / dx by central differences in float64: ``x`` (an array that
    ``evaluate`` reads) is perturbed in place one element at a time and restored."""
    ct = np.asarray(ct, np.float64)
    grad = np.zeros(x.shape, np.float64)
    for idx in np.ndindex(x.shape):
        value = x[idx]
        total = []
        for sign in (1, -1):
            x[idx] = value + sign * eps
            total.append(np.sum(np.asarray(evaluate(), np.float64) * ct))
        x[idx] = value
        grad[idx] = (total[0] - total[1]) / (2 * eps)
    return grad

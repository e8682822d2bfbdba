"""Shared driver of the model benchmarks (conv.py, attention.py): the tutorial's forward and
forward+backward measurements for eager (PyNative) and jit O0/O1 — time to prepare (first call)
and time per call — printed with ratios to eager measured in the same run."""
import os
import sys
import tempfile
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before numpy loads libgomp: see msjit/__init__.py

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path[:0] = [os.path.join(ROOT, "client_py"), os.path.join(ROOT, "tests")]
os.environ.setdefault("MSJIT_HOME", tempfile.mkdtemp(prefix="msjit-bench-", dir="/tmp"))
os.environ.pop("MSJITD_ADDRESS", None)

import atexit  # noqa: E402

import mindspore  # noqa: E402
from msjit import rpc  # noqa: E402


@atexit.register
def _stop_private_daemon():
    """The daemon this run started for its private MSJIT_HOME is not left behind."""
    for proc in rpc._spawned:
        proc.terminate()


def measure(fn, x, iterations):
    start = time.perf_counter()
    out = fn(x)
    prepare = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(iterations):
        out = fn(x)
    return prepare, (time.perf_counter() - start) / iterations, out


def forward(cell, level):
    """The cell's forward: eagerly (level None) or jitted at ``level``."""
    return cell if level is None else mindspore.jit(cell.construct, jit_level=level)


def forward_backward(cell, level):
    """value_and_grad over the cell's trainable Parameters (every output differentiated)."""
    step = mindspore.value_and_grad(cell, None, cell.trainable_params())
    return step if level is None else mindspore.jit(step, jit_level=level)


def run(title, make_cell, x, iterations, mode=forward):
    """Times eager and jit O0/O1 of ``mode`` on a fresh cell each (same weights: same seed)."""
    rpc.client().stats()  # start the private daemon before timing anything
    rows = {"eager (PyNative)": mode(make_cell(), None)}
    for level in ("O0", "O1"):
        cell = make_cell()
        cell.set_jit_config(mindspore.JitConfig(jit_level=level))
        rows[f"jit ast {level}"] = mode(cell, level)
    print(f"{title}: input {tuple(x.shape)}, {iterations} timed calls after the first")
    print(f"{'mode':<18} {'prepare':>10} {'per call':>11} {'vs eager':>9}")
    results = {name: measure(fn, x, iterations) for name, fn in rows.items()}
    eager = results["eager (PyNative)"][1]
    for name, (prepare, per_call, _) in results.items():
        print(f"{name:<18} {prepare:>9.3f}s {per_call * 1e3:>9.2f}ms {per_call / eager:>8.2f}x")
    return results

#!/usr/bin/python3
"""The tutorial's simple-function benchmark: f(a, b, c) = a * b + c on (2, 3).

The tutorial's 13 rows (eager; ast, bytecode and trace x O0/O1/GE; ast fullgraph
x O0/O1/GE) with its two figures, time to prepare (the first call: for jit, a
cold compile through the daemon) and time to run 1000 calls, plus per-call time
and ratios against eager and against plain numpy measured in the same run. One extra row times bytecode's
interpreted path: a function with a graph break is interpreted again on every call
(its two graph pieces are compiled once).

A private daemon is started first (MSJIT_HOME in a temp dir) so "prepare" is a
real compile, not a cache hit and not daemon start-up.
"""
import logging
import os
import tempfile
import time

os.environ.setdefault("MSJIT_HOME", tempfile.mkdtemp(prefix="msjit-bench-"))
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before numpy loads libgomp: see msjit/__init__.py
os.environ.pop("MSJITD_ADDRESS", None)

import numpy as np  # noqa: E402

import mindspore  # noqa: E402
from mindspore import Tensor  # noqa: E402
from msjit import rpc  # noqa: E402
from model_bench import _stop_private_daemon  # noqa: E402,F401  (stops the private daemon at exit)

RUNS = 1000
REPEATS = 5  # best of, for the per-call figure


def f(a: Tensor, b: Tensor, c: Tensor):
    return a * b + c


def traced_f(a, b, c):
    return a * b + c


def f_with_break(a: Tensor, b: Tensor, c: Tensor):
    y = a * b
    if float(y.sum()) > -1e30:   # Python needs a value: the graph breaks here
        return y + c
    return c


def measure(fn, inputs):
    start = time.perf_counter()
    fn(*inputs[0])
    prepare = time.perf_counter() - start
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        for i in range(RUNS):
            fn(*inputs[i])
        best = min(best, time.perf_counter() - start)
    return prepare, best


def main():
    logging.basicConfig(level=logging.WARNING)
    rpc.client().stats()  # start the private daemon before timing anything
    dataset = [[Tensor(np.random.randn(2, 3), mindspore.float32) for _ in range(3)] for _ in range(RUNS)]
    arrays = [[t.asnumpy() for t in row] for row in dataset]
    _, numpy_run = measure(lambda a, b, c: a * b + c, arrays)

    rows = [("eager (PyNative)", f)]
    variants = [("O0", {"jit_level": "O0"}), ("O1", {"jit_level": "O1"}), ("GE", {"backend": "GE"})]
    for mode in ("ast", "bytecode", "trace"):
        for name, knobs in variants:
            if mode == "trace":  # decorator form only, as the tutorial notes
                fn = mindspore.jit(capture_mode="trace", **knobs)(traced_f)
            else:
                fn = mindspore.jit(f, capture_mode=mode, **knobs)
            rows.append((f"jit {mode} {name}", fn))
    for name, knobs in variants:
        rows.append((f"jit ast {name} fullgraph", mindspore.jit(f, capture_mode="ast", fullgraph=True, **knobs)))
    rows.append(("(jit bytecode O1, 1 break)", mindspore.jit(f_with_break, capture_mode="bytecode", jit_level="O1")))
    results = {name: measure(fn, dataset) for name, fn in rows}
    eager_run = results["eager (PyNative)"][1]

    print(f"{'function':<26} {'prepare':>10} {'1000 runs':>10} {'per call':>10} {'vs eager':>9} {'vs numpy':>9}")
    print(f"{'numpy a*b+c':<26} {'-':>10} {numpy_run:>9.4f}s {numpy_run / RUNS * 1e6:>8.2f}us {'-':>9} {1.0:>8.2f}x")
    for name, (prepare, run) in results.items():
        print(f"{name:<26} {prepare * 1e3:>8.1f}ms {run:>9.4f}s {run / RUNS * 1e6:>8.2f}us "
              f"{run / eager_run:>8.2f}x {run / numpy_run:>8.2f}x")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Bytecode capture with graph breaks: per-call time of a function with one and with three breaks.

For each function, measured in the same run:
- eager: the function run as plain Python (PyNative ops);
- jit: jit(capture_mode="bytecode") after its first call, i.e. the generated code of
  capture/resume.py (graph pieces compiled, the Python between them as normal bytecode);
- interpreted: the previous design, the whole call interpreted again (JitFunction._interpret);
- python parts: the statements that break the graph, run alone as plain Python;
- pieces: the compiled pieces' executables alone (Executable.run on arrays of their inputs).
and the ratio jit / (python parts + pieces), whose target is 2x or less. Benchmarks print
numbers; they assert nothing about timings.

A private daemon is started first (MSJIT_HOME in a temp dir) and stopped at exit.
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
from mindspore import Tensor, ops  # noqa: E402
from msjit import rpc  # noqa: E402
from model_bench import _stop_private_daemon  # noqa: E402,F401  (stops the private daemon at exit)

RUNS = 300
ROUNDS = 7  # best of; each round measures every figure once, so load on the machine hits them alike


def one_break(a, b, c):
    y = a * b + c
    if float(y.sum()) > -1e30:   # Python needs a value: the graph breaks here
        y = y * c
    return y - a


def one_break_python(y):
    return float(y.sum()) > -1e30


def three_breaks(a, b, c):
    y = a * b + c
    if float(y.sum()) > -1e30:
        y = y * c
    z = ops.exp(y) - a
    if float(z.max()) > -1e30:
        z = z + b
    w = z * z
    if float(w.min()) > -1e30:
        w = w - c
    return w + y


def three_breaks_python(y):
    return float(y.sum()) > -1e30, float(y.max()) > -1e30, float(y.min()) > -1e30


def per_call(fn, args):
    start = time.perf_counter()
    for _ in range(RUNS):
        fn(*args)
    return (time.perf_counter() - start) / RUNS


def executables(jitted):
    """(executable, input arrays) of every compiled piece the generated code of ``jitted`` calls."""
    out = []
    for entry in jitted._cache.values():
        for piece in getattr(entry, "pieces", ()):
            for sub in piece.jitted._cache.values():
                if getattr(sub, "exe", None) is not None:
                    g = sub.captured.graph
                    out.append((sub.exe, [np.ones(a.shape, a.dtype.np) for _, a in g.inputs + g.parameters]))
            out += executables(piece.jitted)
    return out




def main():
    logging.basicConfig(level=logging.WARNING)
    rpc.client().stats()  # start the private daemon before timing anything
    args = [Tensor(np.random.randn(4, 8).astype(np.float32)) for _ in range(3)]
    print(f"{'function':<14} {'eager':>9} {'jit':>9} {'interp.':>9} {'py parts':>9} {'pieces':>9} "
          f"{'jit/(py+pieces)':>16} {'jit/eager':>10}")
    for fn, python_part in ((one_break, one_break_python), (three_breaks, three_breaks_python)):
        jitted = mindspore.jit(fn, capture_mode="bytecode")
        for _ in range(3):        # the first call captures; the next ones capture the pieces
            jitted(*args)
        exes = executables(jitted)
        timed = {"eager": (fn, args), "jit": (jitted, args), "python": (python_part, args[:1]),
                 "interpreted": (lambda *a: jitted._interpret(a, {}, want_captured=False), args)}
        timed.update((i, (exe.run, (arrays,))) for i, (exe, arrays) in enumerate(exes))
        best = dict.fromkeys(timed, float("inf"))
        for _ in range(ROUNDS):
            for name, (f, a) in timed.items():
                best[name] = min(best[name], per_call(f, a))
        eager, jit, interpreted, python = best["eager"], best["jit"], best["interpreted"], best["python"]
        pieces, count = sum(best[i] for i in range(len(exes))), len(exes)
        print(f"{fn.__name__:<14} {eager * 1e6:>7.1f}us {jit * 1e6:>7.1f}us {interpreted * 1e6:>7.1f}us "
              f"{python * 1e6:>7.1f}us {pieces * 1e6:>7.1f}us {jit / (python + pieces):>15.2f}x "
              f"{jit / eager:>9.2f}x   ({count} pieces)")


if __name__ == "__main__":
    main()

"""msjit.explain: the captured graph with source lines, graph breaks with file:line and what
happens at them, the guard, and whether a compiled entry already serves it."""
import inspect

import numpy as np
import pytest

import msjit
from msjit import Tensor


def straight(a, b):
    return a * b + 1.0


def breaks(x):
    y = x * 2.0
    print(y)  # the graph break
    return y


BREAK_LINE = inspect.getsourcelines(breaks)[1] + 2


def x23():
    return Tensor(np.ones((2, 3), np.float32))


def test_straight_line_function_shows_its_graph():
    report = msjit.explain(straight, x23(), x23())
    assert (len(report.graphs), len(report.breaks)) == (1, 0)
    text = report.graphs[0]
    line = inspect.getsourcelines(straight)[1] + 1
    assert "Mul(" in text and "Add(" in text
    assert f"{__file__}:{line}" in text
    assert report.guard == ((np.dtype(np.float32), (2, 3)), (np.dtype(np.float32), (2, 3)))
    assert "graph breaks: 0" in str(report)


@pytest.mark.parametrize("fullgraph, consequence", [(False, "JIT Fallback"), (True, "raises")])
def test_graph_break_names_file_line_reason_and_consequence(fullgraph, consequence):
    report = msjit.explain(msjit.jit(breaks, fullgraph=fullgraph), x23())
    assert report.graphs == [] and len(report.breaks) == 1
    brk = report.breaks[0]
    assert brk.location == f"{__file__}:{BREAK_LINE}"
    assert "print" in brk.reason
    assert consequence in brk.consequence
    assert f"break at {__file__}:{BREAK_LINE}" in str(report)


def test_explain_compiles_and_runs_nothing(module_daemon_home):
    jitted = msjit.jit(straight)
    msjit.explain(jitted, x23(), x23())
    assert jitted.stats.compiles == 0 and jitted.stats.captures == 0
    assert not msjit.explain(jitted, x23(), x23()).cached
    jitted(x23(), x23())
    assert jitted.stats.compiles == 1
    assert msjit.explain(jitted, x23(), x23()).cached
    assert not msjit.explain(jitted, Tensor(np.ones((4,), np.float32)), Tensor(np.ones((4,), np.float32))).cached

"""Control flow under capture_mode="ast" beyond the corpus (corpus.py runs every control-flow form
under every mode): the predicate of a tensor ``if`` stays in the graph (an If node; a conditional
expression is a Select), loops over Python values are unrolled (tensor loops: test_regions.py), constructs that stay unsupported name their file:line under STRICT, and under LAX the
graph is split where Python needs a tensor's value."""
import os
import warnings

import numpy as np
import pytest

import corpus
import msjit
from corpus import MIX, NEG, POS, SMALL
from msjit import Tensor, jit, ops
from msjit.errors import JitFallbackWarning, UnsupportedSyntaxError
from support import marker_lines

HERE = os.path.abspath(__file__)
line_of = marker_lines(HERE)


@pytest.fixture(scope="module", autouse=True)
def _daemon(module_daemon_home):
    yield module_daemon_home


def flips(x):
    if x.sum() > 0:  # <flip-if>
        y = x + 100.0
    else:
        y = x - 100.0
    return y * 2.0 if y.mean() > 50.0 else y * 3.0


@pytest.mark.parametrize("level", ["O0", "O1"])
def test_flipping_a_tensor_condition_needs_no_recompile(level):
    jitted = jit(flips, jit_level=level, fullgraph=True)
    graph = jitted.lower(Tensor(POS)).graph
    ifs = [n for n in graph.nodes if n.op_type == "If"]            # the 'if' statement: one branch runs
    selects = [n for n in graph.nodes if n.op_type == "Select"]    # the conditional expression
    assert len(ifs) == 1 and len(selects) == 1
    assert ifs[0].location == (HERE, line_of("flip-if"))
    outs = []
    for a in (POS, NEG, POS * 3.0, NEG * 0.5, MIX):
        got = jitted(Tensor(a))
        want = (a + 100.0) * 2.0 if a.sum() > 0 else (a - 100.0) * 3.0
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
        np.testing.assert_allclose(got.asnumpy(), flips(Tensor(a)).asnumpy(), rtol=1e-6)
        outs.append(got.asnumpy())
    assert not np.allclose(outs[0] - POS, outs[1] - NEG)   # both branches were really taken
    assert (jitted.stats.captures, jitted.stats.compiles) == (1, 1)


def test_loops_are_unrolled_at_capture():
    graph = jit(corpus.loop_range, fullgraph=True).lower(Tensor(POS)).graph
    assert [n.op_type for n in graph.nodes].count("Mul") == 4
    assert not any(n.op_type == "Select" for n in graph.nodes)


def test_constant_condition_in_loop_picks_one_branch():
    graph = jit(corpus.loop_break_continue, fullgraph=True).lower(Tensor(POS)).graph
    assert not any(n.op_type == "Select" for n in graph.nodes)
    assert [n.op_type for n in graph.nodes].count("Mul") == 4   # i = 0, 2, 4, 6


# ---- unsupported under STRICT (the corpus covers the rest) -----------------------------------------

STATE = msjit.Parameter(Tensor(np.zeros(3, np.float32)), name="state")


def param_write_in_branch(x):
    if x.sum() > 0:
        ops.assign(STATE, x)  # <param-write>
    return x * 2.0


def print_in_branch(x):
    if x.sum() > 0:
        print("positive")  # <print-branch>
    return x


def endless_while(x):
    n = 0
    while n >= 0:  # <endless>
        n += 1
    return x


def ambiguous_condition(x):
    if x > 0:  # <ambiguous>
        x = x + 1.0
    return x


UNSUPPORTED = [
    (print_in_branch, "print-branch", "call to print"),
    (endless_while, "endless", "'while' loop running more than 10000 iterations"),
]


@pytest.mark.parametrize("fn, marker, what", UNSUPPORTED, ids=[u[1] for u in UNSUPPORTED])
def test_strict_unsupported_names_file_and_line(fn, marker, what):
    jitted = jit(fn, fullgraph=True)
    with pytest.raises(UnsupportedSyntaxError, match=f"^{HERE}:{line_of(marker)}: {what}") as info:
        jitted(Tensor(POS))
    assert (info.value.filename, info.value.lineno) == (HERE, line_of(marker))
    assert info.value.text.rstrip().endswith(f"# <{marker}>")
    assert jitted.stats.compiles == 0
    assert not STATE.asnumpy().any()   # nothing ran at capture


def test_parameter_write_in_a_branch_happens_only_when_it_runs():
    """(issue 12) The branch is an If region; the write is threaded out of it, written back after the call."""
    jitted = jit(param_write_in_branch, fullgraph=True)
    try:
        np.testing.assert_allclose(jitted(Tensor(NEG)).asnumpy(), NEG * 2.0)
        assert not STATE.asnumpy().any()
        np.testing.assert_allclose(jitted(Tensor(POS)).asnumpy(), POS * 2.0)
        np.testing.assert_allclose(STATE.asnumpy(), POS)
        assert jitted.stats.compiles == 1
    finally:
        STATE.set_data(Tensor(np.zeros(3, np.float32)))


def test_one_branch_variable_error_names_the_use():
    with pytest.raises(UnsupportedSyntaxError,
                       match=f"used after the 'if', at line {corpus.line_of('one_branch') + 4}"):
        jit(corpus.one_branch_variable, fullgraph=True)(Tensor(POS))


def test_one_branch_variable_unused_after_is_fine():
    def unused(x):
        if x.sum() > 0:
            tmp = x * 2.0  # noqa: F841
        return x + 1.0
    jitted = jit(unused, fullgraph=True)
    np.testing.assert_allclose(jitted(Tensor(NEG)).asnumpy(), NEG + 1.0)
    assert jitted.stats.compiles == 1


def test_ambiguous_condition_is_a_value_error_like_eager():
    with pytest.raises(ValueError):
        ambiguous_condition(Tensor(POS))
    with pytest.raises(ValueError, match=f"^{HERE}:{line_of('ambiguous')}: the truth value of a tensor with 3"):
        jit(ambiguous_condition, fullgraph=True)(Tensor(POS))


@pytest.mark.parametrize("fn", [corpus.list_append_in_branch, corpus.mismatched_branches])
def test_lax_splits_the_graph_at_the_tensor_condition(fn):
    jitted = jit(fn)   # fullgraph=False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for a in (SMALL, NEG):
            got = jitted(Tensor(a.copy()))
            want = fn(Tensor(a.copy()))
            np.testing.assert_allclose(got.asnumpy(), want.asnumpy())
    fallbacks = [w for w in caught if issubclass(w.category, JitFallbackWarning)]
    assert len(fallbacks) == 1 and str(fallbacks[0].message).startswith(f"{corpus.HERE if fn.__module__ == 'corpus' else HERE}:")
    assert jitted.stats.fallbacks == 1 and jitted.stats.graph_breaks >= 2   # one or more per call
    STATE.set_data(Tensor(np.zeros(3, np.float32)))

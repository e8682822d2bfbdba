"""capture_mode="bytecode" beyond the corpus: graph breaks and the pieces they compile, guards on
globals, closure variables and attributes, the cache limit, side effects, the spec's two notes
(GRAPH_MODE, inside an ast function), explain(), and Python features the interpreter runs itself.
Every result is checked against eager on a real daemon."""
import logging
import os
import warnings

import numpy as np
import pytest

import msjit
from msjit import Tensor, explain, jit, ops
from msjit.errors import JitFallbackWarning, UnsupportedSyntaxError
from support import marker_lines

HERE = os.path.abspath(__file__)
line_of = marker_lines(HERE)
POS = np.asarray([1.0, 2.0, 0.5], np.float32)
NEG = -POS


@pytest.fixture(scope="module", autouse=True)
def _daemon(module_daemon_home):
    yield module_daemon_home


def bytecode(fn, **kw):
    return jit(capture_mode="bytecode", **kw)(fn)


def same(got, want):
    np.testing.assert_allclose(np.asarray(got.asnumpy()), np.asarray(want.asnumpy()), rtol=1e-6)


# ---- graph breaks ----------------------------------------------------------------------------

def branchy(x):
    y = x * 2.0
    if y.sum() > 0:  # <branchy>
        return y + 1.0
    return y - 1.0


def test_tensor_condition_breaks_the_graph_and_pieces_are_reused():
    jitted = bytecode(branchy)
    for a in (POS, NEG, POS, NEG):
        same(jitted(Tensor(a)), branchy(Tensor(a)))
    # the first call's segments: y and the predicate; y + 1. Later calls run generated code (see
    # test_resume.py) whose pieces are y; y + 1; y - 1, each compiled once and reused.
    assert jitted.stats.compiles == 5
    assert jitted.stats.graph_breaks == 1 and jitted.stats.interpreted == 0 and jitted.stats.resumed == 3
    strict = bytecode(branchy, fullgraph=True)   # fullgraph=True: one graph with an If node (bytecode_if)
    for a in (POS, NEG, POS):
        same(strict(Tensor(a)), branchy(Tensor(a)))
    assert strict.stats.compiles == 1 and strict.stats.graph_breaks == 0


def scalar_from_tensor(x):
    s = float(x.sum())  # <scalar>
    return x * s + 1.0


def test_scalar_from_a_tensor_is_an_input_of_the_next_piece():
    jitted = bytecode(scalar_from_tensor)
    for a in (POS, NEG, POS * 3.0):
        same(jitted(Tensor(a)), scalar_from_tensor(Tensor(a)))
    assert jitted.stats.compiles == 2   # x.sum(); x * s + 1 (s an input: not one graph per value)


def numpy_in_the_middle(x):
    y = ops.exp(x)
    z = Tensor(np.sin(y.asnumpy()))  # <numpy_mid>
    return z * y + x


def test_numpy_on_a_tensor_breaks_and_its_result_feeds_the_next_piece():
    jitted = bytecode(numpy_in_the_middle)
    for a in (POS, NEG):
        same(jitted(Tensor(a)), numpy_in_the_middle(Tensor(a)))
    assert jitted.stats.compiles == 2 and jitted.stats.graph_breaks == 1   # (later calls: generated code)


def loop_with_break(xs):
    total = xs[0] * 0.0
    for t in xs:
        if t.sum() > 2.0:  # <loop_break>
            break
        total = total + t
    return total


def test_break_inside_a_loop_updates_the_items_not_reached_yet():
    jitted = bytecode(loop_with_break)
    xs = Tensor(np.asarray([[0.5, 0.5, 0.5], [1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], np.float32))
    same(jitted(xs), loop_with_break(xs))
    same(jitted(xs * 0.1), loop_with_break(xs * 0.1))


def while_on_tensor(x):
    n = 0
    while x.max() > 1.0:
        x = x * 0.5
        n += 1
    return x, n


def test_while_on_a_tensor_condition():
    jitted = bytecode(while_on_tensor)
    for a in (POS * 10.0, POS, NEG):
        got, want = jitted(Tensor(a)), while_on_tensor(Tensor(a))
        same(got[0], want[0])
        assert got[1] == want[1]


def counts_to_bound(x, t):
    i = 0
    for k in range(t):
        x = x + k
        i += 1
    while x.sum() < 50.0:
        x = x * 2.0
    return x, i


def test_fullgraph_tensor_loops_are_while_nodes():
    """fullgraph=True: a 'while' on a tensor condition and a 'for' over a range with a tensor bound
    are While nodes of one graph (bytecode_loop), equal to eager for every trip count."""
    jitted = bytecode(counts_to_bound, fullgraph=True)
    x = Tensor(POS)
    text = jitted.lower(x, Tensor(np.asarray(3, np.int32))).graph.as_text()
    assert text.count("While") >= 2, text
    for t in (0, 1, 4):
        for a in (POS, POS * 30.0):
            args = (Tensor(a), Tensor(np.asarray(t, np.int32)))
            got, want = jitted(*args), counts_to_bound(*args)
            same(got[0], want[0])
            assert int(got[1]) == int(want[1])
    assert (jitted.stats.captures, jitted.stats.compiles, jitted.stats.graph_breaks) == (1, 1, 0), jitted.stats


def prints_in_loop(x):
    while x.sum() < 10.0:
        x = x + 1.0
        print("step")  # <loop_print>
    return x


def breaks_under_tensor_condition(x):
    while x.sum() < 10.0:
        x = x + 1.0
        if x.max() > 3.0:
            break
        x = x * 1.5
    return x


def returns_under_tensor_condition(x):
    while x.sum() < 10.0:
        x = x + 1.0
        if x.max() > 3.0:
            return x * 2.0
    return x - 1.0


def breaks_past_else(x):
    while x.sum() < 10.0:
        x = x + 1.0
        if x.max() > 3.0:  # <loop_else_break>
            break
    else:
        x = x * 100.0
    return x


def test_fullgraph_refuses_what_a_while_node_cannot_hold():
    """A Python side effect in the body, or a 'break' under a tensor condition past the loop's
    'else': refused at the user's line under fullgraph=True, never run wrongly; fullgraph=False
    breaks the graph instead. 'break' and 'return' under a tensor condition are carried flags of
    the While (after it, an If returns or runs the rest of the function)."""
    with pytest.raises(UnsupportedSyntaxError) as info:
        bytecode(prints_in_loop, fullgraph=True)(Tensor(POS))
    assert info.value.lineno == line_of("loop_print"), str(info.value)
    with pytest.raises(UnsupportedSyntaxError) as info:
        bytecode(breaks_past_else, fullgraph=True)(Tensor(POS))
    assert info.value.lineno == line_of("loop_else_break"), str(info.value)
    for a in (POS, NEG, POS * 0.1, POS * 9.0):
        same(bytecode(breaks_past_else)(Tensor(a)), breaks_past_else(Tensor(a)))
        for fn in (breaks_under_tensor_condition, returns_under_tensor_condition):
            same(bytecode(fn, fullgraph=True)(Tensor(a)), fn(Tensor(a)))


# ---- side effects ------------------------------------------------------------------------------

CALLS = []


def logs_and_scales(x):
    CALLS.append(1)  # <side_effect>
    print("scaling")
    return x * 3.0


def test_side_effects_run_on_every_call(capsys):
    CALLS.clear()
    jitted = bytecode(logs_and_scales)
    for a in (POS, NEG, POS):
        same(jitted(Tensor(a)), Tensor(a * 3.0))
    assert len(CALLS) == 3 and capsys.readouterr().out.count("scaling") == 3
    # no break; the first call's graph (its constants inputs after a side effect) and the piece of
    # the generated code later calls run (test_resume.py)
    assert jitted.stats.compiles == 2 and jitted.stats.graph_breaks == 0 and jitted.stats.resumed == 2
    with pytest.raises(UnsupportedSyntaxError, match=f"^{HERE}:{line_of('side_effect')}: call to list.append"):
        bytecode(logs_and_scales, fullgraph=True)(Tensor(POS))


class Config:
    def __init__(self, scale):
        self.scale = scale


def attribute_write(x, config):
    config.scale = config.scale + 1.0
    return x * config.scale


def test_attribute_writes_happen_as_in_eager():
    config, eager = Config(1.0), Config(1.0)
    jitted = bytecode(attribute_write)
    for _ in range(3):
        same(jitted(Tensor(POS), config), attribute_write(Tensor(POS), eager))
    assert config.scale == eager.scale == 4.0


# ---- guards --------------------------------------------------------------------------------------

OFFSET = 1.0


def reads_global(x):
    return x + OFFSET


def make_closure(k):
    def scaled(x):
        return x * k
    return scaled


def reads_attribute(x, config):
    return x * config.scale


def test_guards_on_globals_closures_and_attributes_recompile():
    global OFFSET
    g = bytecode(reads_global)
    same(g(Tensor(POS)), Tensor(POS + 1.0))
    OFFSET = 5.0
    try:
        same(g(Tensor(POS)), Tensor(POS + 5.0))
        same(g(Tensor(POS)), Tensor(POS + 5.0))
    finally:
        OFFSET = 1.0
    assert g.stats.compiles == 2

    k = [2.0]
    scaled = make_closure(k[0])
    c = bytecode(scaled)
    same(c(Tensor(POS)), Tensor(POS * 2.0))
    scaled.__closure__[0].cell_contents = -3.0
    same(c(Tensor(POS)), Tensor(POS * -3.0))
    assert c.stats.compiles == 2

    config = Config(2.0)
    a = bytecode(reads_attribute)
    same(a(Tensor(POS), config), Tensor(POS * 2.0))
    config.scale = 4.0
    same(a(Tensor(POS), config), Tensor(POS * 4.0))
    same(a(Tensor(POS), config), Tensor(POS * 4.0))
    assert a.stats.compiles == 2


def test_unchanged_calls_take_the_cached_graph():
    jitted = bytecode(reads_global)
    for _ in range(5):
        same(jitted(Tensor(POS)), Tensor(POS + OFFSET))
    assert (jitted.stats.captures, jitted.stats.compiles, jitted.stats.interpreted) == (1, 1, 0)


def test_cache_limit_runs_new_guards_eagerly(caplog):
    jitted = bytecode(reads_global)
    jitted.cache_limit = 2
    with caplog.at_level(logging.WARNING, logger="msjit.jit"):
        for n in (2, 3, 4, 5):
            x = Tensor(np.ones(n, np.float32))
            same(jitted(x), x + OFFSET)
    assert jitted.stats.compiles == 2
    assert sum("cache_limit (2) reached" in r.getMessage() for r in caplog.records) == 2


# ---- the spec's notes ----------------------------------------------------------------------------

def test_bytecode_runs_as_plain_python_in_graph_mode():
    jitted = bytecode(branchy)
    msjit.set_context(mode=msjit.GRAPH_MODE)
    try:
        same(jitted(Tensor(POS)), branchy(Tensor(POS)))
    finally:
        msjit.set_context(mode=msjit.PYNATIVE_MODE)
    assert (jitted.stats.captures, jitted.stats.compiles) == (0, 0)


@jit(capture_mode="bytecode")
def inner_bytecode(x):
    return x * 2.0


def outer_ast(x):
    return inner_bytecode(x) + 1.0


def test_bytecode_function_inside_ast_is_plain_python():
    outer = jit(outer_ast, fullgraph=True)
    same(outer(Tensor(POS)), Tensor(POS * 2.0 + 1.0))
    assert outer.stats.compiles == 1 and inner_bytecode.stats.captures == 0
    assert len(outer.lower(Tensor(POS)).graph.nodes) >= 2      # both ops in the outer graph


# ---- Python the interpreter runs itself ----------------------------------------------------------

def python_features(x, table):
    try:
        scale = table["missing"]
    except KeyError:
        scale = 2.0
    parts = {k: x * v for k, v in table.items()}
    picked = [p for k, p in sorted(parts.items()) if k != "skip"]
    first, *rest = picked
    total = sum(rest, first)
    label = f"{len(picked)} parts"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        total = total * scale
    return total + len(label), (lambda v: v - 1.0)(x)


def test_python_features():
    table = {"a": 1.0, "b": 2.0, "skip": 5.0}
    jitted = bytecode(python_features)
    got, want = jitted(Tensor(POS), table), python_features(Tensor(POS), table)
    same(got[0], want[0])
    same(got[1], want[1])


def test_explain_reports_pieces_breaks_and_guards():
    report = explain(bytecode(branchy), Tensor(POS))
    assert len(report.graphs) == 2 and len(report.breaks) == 1
    assert report.breaks[0].location == f"{HERE}:{line_of('branchy')}"
    assert "graph split" in report.breaks[0].consequence
    pure = explain(bytecode(reads_global), Tensor(POS))
    assert pure.breaks == [] and any("OFFSET" in a for a in pure.assumptions)
    assert "break at" in str(report)


def uses_generator(x):
    def gen():
        yield x
    return next(gen()) * 2.0


def test_a_generator_function_is_called_as_python():
    jitted = bytecode(uses_generator)
    same(jitted(Tensor(POS)), uses_generator(Tensor(POS)))


def top_level_generator(x):  # <generator>
    yield x


def test_an_uninterpretable_function_falls_back_with_its_line():
    with pytest.raises(UnsupportedSyntaxError, match=f"^{HERE}:{line_of('generator')}: the RETURN_GENERATOR"):
        bytecode(top_level_generator, fullgraph=True)(Tensor(POS))
    with pytest.warns(JitFallbackWarning):
        out = bytecode(top_level_generator)(Tensor(POS))
    assert next(out) is not None

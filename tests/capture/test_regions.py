"""Loops on tensor values captured as one While node (issue 12): ``while`` on a tensor condition,
``for`` over ``range`` with a tensor bound, ``break``/``continue`` under tensor conditions (carried
flags), nested loops. Each function is checked against eager msjit and against itself run on numpy
arrays, on random inputs that change how many iterations run; the graph is run by the graph
evaluator (``control.evaluate``, what an interpreted piece runs while msjitd is gone)."""
import os

import numpy as np
import pytest

from msjit import Parameter, Tensor, jit, nn, ops
from msjit.capture import control
from msjit.errors import UnsupportedSyntaxError
from support import marker_lines

HERE = os.path.abspath(__file__)
line_of = marker_lines(HERE)
RNG = np.random.default_rng(12)


@pytest.fixture(scope="module", autouse=True)
def daemon(module_daemon_home):   # a private daemon for this module (never a stale one on the default socket)
    yield module_daemon_home


def f32(*shape, low=-1.0, high=3.0):
    return RNG.uniform(low, high, shape).astype(np.float32)


def i32(v):
    return np.array(v, np.int32)


# ---- the forms -------------------------------------------------------------------------------------

def while_countdown(x):
    n = 0
    while x.sum() > 0:  # <countdown>
        x = x - 1.0
        n = n + 1
    return x, n


def for_tensor_bound(x, m):
    s = 0.0
    for i in range(m):
        s = s + x * i
    return s


def for_start_stop_step(x, lo, hi):
    acc = x
    for i in range(lo, hi, 2):
        acc = acc * 0.5 + i
    return acc


def while_break(x):
    while x.sum() < 100.0:
        if x.max() > 20.0:
            break
        x = x * 2.0
    return x


def for_continue(x, m):
    acc = x * 0.0
    for i in range(m):
        if i % 2 == 0:
            continue
        acc = acc + x * i
    return acc


def break_and_continue(x, m):
    acc = x
    for i in range(m):
        if acc.sum() > 50.0:
            break
        if i % 3 == 1:
            continue
        acc = acc + x * 1.5
    return acc


def nested_loops(x, m):
    total = x * 0.0
    for i in range(m):
        j = i
        while j > 0:
            total = total + x
            j = j - 1
    return total


def while_else(x):
    y = x
    while y.sum() < 30.0:
        if y.min() > 5.0:
            break
        y = y + 1.0
    else:
        y = -y
    return y


def loop_in_tensor_if(x, m):
    if x.sum() > 0:  # <loop-in-if>
        for _ in range(m):  # <loop-in-if-for>
            x = x * 1.5
    else:
        x = x - 1.0
    return x


def reads_outer_values(x, scale):
    y = x * 0.0
    k = 0
    while k < 4:     # a Python counter: unrolled, and the tensor loop inside it reads x and scale
        z = y
        while z.sum() < scale.sum() * k:  # <outer-read>
            z = z + x * scale
        y = y + z
        k += 1
    return y


def return_in_while(x, m):
    i = 0
    while i < m:
        if x[i] > 1.0:
            return x * i      # a 'return' inside the loop: the 'returned' flag stops it
        i = i + 1
    return -x


def return_in_for(x, m):
    acc = x
    for _ in range(m):
        acc = acc + 1.0
        if acc.sum() > 10.0:
            return acc * 2.0
    return acc


def pos3():
    return f32(3, low=0.1, high=2.0)


def inputs(fn):
    return {
        while_countdown: [(f32(3, low=0.0, high=4.0),) for _ in range(3)] + [(-pos3(),)],
        for_tensor_bound: [(f32(3), i32(n)) for n in (0, 1, 4, 7)],
        for_start_stop_step: [(f32(3), i32(lo), i32(hi)) for lo, hi in ((0, 5), (-3, 6), (4, 2))],
        while_break: [(pos3() * s,) for s in (0.1, 1.0, 10.0, 30.0)],
        for_continue: [(f32(3), i32(n)) for n in (0, 3, 6)],
        break_and_continue: [(pos3() * s, i32(n)) for s, n in ((1.0, 9), (5.0, 9), (0.1, 2))],
        nested_loops: [(f32(3), i32(n)) for n in (0, 2, 5)],
        while_else: [(f32(3, low=-1.0, high=1.0),), (f32(3, low=5.5, high=6.0),), (f32(3, low=9.0, high=12.0),)],
        loop_in_tensor_if: [(pos3(), i32(3)), (-pos3(), i32(3)), (pos3(), i32(0))],
        reads_outer_values: [(pos3(), pos3()), (pos3() * 3.0, pos3())],
        return_in_while: [(np.array(v, np.float32), i32(m)) for v, m in (([0.5, 0.2, 3.0], 3), ([0.5, 0.2, 0.3], 3),
                                                                          ([2.0, 1.0, 1.0], 2), ([0.1, 1.5, 2.0], 3))],
        return_in_for: [(f32(3), i32(m)) for m in (0, 2, 5, 9)],
    }[fn]


FORMS = [while_countdown, for_tensor_bound, for_start_stop_step, while_break, for_continue, break_and_continue,
         nested_loops, while_else, loop_in_tensor_if, reads_outer_values, return_in_while, return_in_for]


def as_numpy(v):
    if isinstance(v, (tuple, list)):
        return [as_numpy(x) for x in v]
    return np.asarray(v.asnumpy() if isinstance(v, Tensor) else v)


def check(got, want):
    got, want = as_numpy(got), as_numpy(want)
    if isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w)
        return
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def op_types(graph):
    """The op types of ``graph``'s nodes and of the nodes of the regions inside them."""
    out = []
    for n in graph.nodes:
        out.append(n.op_type)
        for region in (v for v in n.attrs.values() if hasattr(v, "nodes")):
            out += op_types(region)
    return out


def run_graph(captured, args):
    """The captured graph run by the evaluator, rebuilt into the function's result."""
    c = captured
    outs = iter(control.evaluate(c.graph, [args[i] for i in c.tensor_args]))
    leaves = [next(outs) if kind == "out" else args[v] if kind == "arg" else v for kind, v in c.leaves]
    return leaves[0] if len(leaves) == 1 else leaves


@pytest.mark.parametrize("fn", FORMS, ids=[f.__name__ for f in FORMS])
def test_loop_is_one_while_node_and_matches_eager_and_numpy(fn):
    jitted = jit(fn, fullgraph=True)
    for args in inputs(fn):
        captured = jitted.lower(*map(Tensor, args))
        assert "While" in op_types(captured.graph)
        want = fn(*args)                             # numpy
        check(fn(*map(Tensor, args)), want)          # eager msjit
        check(run_graph(captured, args), want)       # the graph


def test_the_regions_are_closed_graphs_with_the_agreed_signature():
    graph = jit(reads_outer_values, fullgraph=True).lower(Tensor(pos3()), Tensor(pos3())).graph
    loops = [n for n in graph.nodes if n.op_type == "While"]
    assert len(loops) == 4   # the Python loop is unrolled: one While per iteration
    for n in loops:
        cond, body = n.attrs["cond"], n.attrs["body"]
        assert not cond.parameters and not body.parameters
        assert [a for _, a in cond.inputs] == [a for _, a in body.inputs] == [a for _, a in body.outputs] == list(n.aval)
        assert len(n.inputs) == len(n.outputs) == len(body.inputs)
        assert [str(a) for _, a in cond.outputs] == ["bool_[]"]
        assert n.location == (HERE, line_of("outer-read"))


def test_graph_text_shows_the_regions_under_their_node():
    text = jit(while_break, fullgraph=True).lower(Tensor(pos3())).graph.as_text()
    assert "= While(" in text and "    cond: graph" in text and "    body: graph" in text


def widening_counter(x):
    n = 0
    while x.sum() > 0:
        x = x - 1.0
        n = n + 0.5      # an int before the loop, a float in it: carried as float32 from the start
    return n


def changes_shape(x):
    while x.sum() > 0:  # <shape-change>
        x = x[1:]
    return x


def used_after_only_inside(x):
    while x.sum() > 0:  # <loop-local>
        y = x
        x = x - 1.0
    return y


def changes_a_list(x):
    seen = []
    while x.sum() > 0:
        seen.append(x)  # <loop-append>
        x = x - 1.0
    return x


def test_a_python_number_widens_to_the_tensor_the_loop_makes_it():
    x = pos3()
    captured = jit(widening_counter, fullgraph=True).lower(Tensor(x))
    check(run_graph(captured, (x,)), widening_counter(x))


@pytest.mark.parametrize("fn, marker, what", [
    (changes_shape, "shape-change", "a 'while' loop on a tensor value where variable 'x' is a float32\\[3\\] tensor before an iteration and a float32\\[2\\]"),
    (used_after_only_inside, "loop-local", "a loop on a tensor value that assigns variable 'y' only inside the loop"),
    (changes_a_list, "loop-append", "call to list.append on a container from outside"),
])
def test_loops_that_cannot_be_one_while_name_their_line(fn, marker, what):
    with pytest.raises(UnsupportedSyntaxError, match=f"^{HERE}:{line_of(marker)}: {what}"):
        jit(fn, fullgraph=True).lower(Tensor(pos3()))


def test_without_graph_loops_a_tensor_while_is_refused(monkeypatch):
    monkeypatch.setattr(control, "GRAPH_LOOPS", False)
    with pytest.raises(UnsupportedSyntaxError, match="'while' loop whose condition is a tensor value"):
        jit(while_countdown, fullgraph=True).lower(Tensor(pos3()))


# ---- 'return' under a tensor condition: a 'returned' flag and value --------------------------------

def early_return(x):
    if x.sum() > 0:
        return x * 2.0
    y = x - 1.0
    return y * 3.0


def return_in_unrolled_loop(x):
    for i in range(3):
        if x[i] > 1.0:
            return x * i
        x = x + 0.5
    return -x


def return_in_nested_if(x):
    if x.max() > 1.0:
        if x.min() > 0.5:
            return x + 10.0
        x = x * 0.5
    return x - 1.0


def returns_a_tuple(x):
    if x.sum() < 0:
        return x, x.sum()
    return -x, x.max()


RETURNS = [early_return, return_in_unrolled_loop, return_in_nested_if, returns_a_tuple]
RETURN_INPUTS = [(f32(3, low=-2.0, high=2.0),) for _ in range(4)] + [(pos3() + 0.6,), (-pos3(),)]


@pytest.mark.parametrize("ifs", [False, True], ids=["select", "if-node"])
@pytest.mark.parametrize("fn", RETURNS, ids=[f.__name__ for f in RETURNS])
def test_return_under_a_tensor_condition(fn, ifs, monkeypatch):
    monkeypatch.setattr(control, "GRAPH_IFS", ifs)
    jitted = jit(fn, fullgraph=True)
    for args in RETURN_INPUTS:
        captured = jitted.lower(*map(Tensor, args))
        assert any(n.op_type == "If" for n in captured.graph.nodes) == ifs
        want = fn(*args)
        check(fn(*map(Tensor, args)), want)
        check(run_graph(captured, args), want)


def falls_off_the_end(x):
    if x.sum() > 0:  # <falls-off>
        return x
    x = x + 1.0


def test_a_function_that_may_return_none_is_refused():
    with pytest.raises(UnsupportedSyntaxError, match=f"^{HERE}:{line_of('falls-off')}: a condition on a tensor value where the return value is a float32\\[3\\] tensor in one "
                       "branch and a NoneType in the other"):
        jit(falls_off_the_end, fullgraph=True).lower(Tensor(pos3()))


# ---- If nodes: only the branch taken runs ----------------------------------------------------------

def safe_index(x, i):
    if i < 3:
        y = x[i]
    else:
        y = x[0] * 0.0
    return y


def safe_divide(a, d):
    if d != 0:
        q = a // d
    else:
        q = a
    return q


def test_an_untaken_branch_that_would_fault_does_not_run(monkeypatch):
    x = f32(3)
    monkeypatch.setattr(control, "GRAPH_IFS", False)
    with_select = jit(safe_index, fullgraph=True).lower(Tensor(x), Tensor(i32(7)))
    with pytest.raises(IndexError):     # both branches run: the gather out of range faults
        run_graph(with_select, (x, i32(7)))
    monkeypatch.setattr(control, "GRAPH_IFS", True)
    captured = jit(safe_index, fullgraph=True).lower(Tensor(x), Tensor(i32(7)))
    for i in (7, 1, 2, 3):
        check(run_graph(captured, (x, i32(i))), safe_index(x, i32(i)))


def test_if_node_signature():
    graph = jit(safe_index, fullgraph=True).lower(Tensor(f32(3)), Tensor(i32(1))).graph
    (node,) = [n for n in graph.nodes if n.op_type == "If"]
    then, other = node.attrs["then_branch"], node.attrs["else_branch"]
    assert [a for _, a in then.inputs] == [a for _, a in other.inputs] == [graph.node(i).aval if graph.node(i) else
                                                                            dict(graph.inputs)[i] for i in node.inputs[1:]]
    assert [a for _, a in then.outputs] == [a for _, a in other.outputs] == list(node.aval)
    assert str(dict(graph.inputs).get(node.inputs[0]) or graph.node(node.inputs[0]).aval) == "bool_[]"


# ---- compiled by msjitd ----------------------------------------------------------------------------

COMPILED = [(fn, inputs(fn), True) for fn in FORMS] + [(fn, RETURN_INPUTS, ifs) for fn in RETURNS for ifs in (True, False)] + [
    (safe_index, [(f32(3), i32(i)) for i in (7, 1, 2, 30)], True),
    (safe_divide, [(np.array([7, -8, 9], np.int32), i32(d)) for d in (0, 2, -3)], True)]


@pytest.mark.parametrize("level", ["O0", "O1"])
@pytest.mark.parametrize("fn, sets, ifs", COMPILED, ids=[c[0].__name__ + ("" if c[2] else "-select") for c in COMPILED])
def test_compiled_region_ops_match_eager_and_numpy_with_one_compile(fn, sets, ifs, level, daemon, monkeypatch):
    monkeypatch.setattr(control, "GRAPH_IFS", ifs)
    jitted = jit(fn, fullgraph=True, jit_level=level)
    for args in sets:
        want = fn(*args)
        check(jitted(*map(Tensor, args)), want)
        check(fn(*map(Tensor, args)), want)
    assert jitted.stats.compiles == 1   # one guard: every input set ran the same compiled loop


def test_explain_lists_region_ops_with_their_lines():
    from msjit import explain
    report = explain(jit(loop_in_tensor_if, fullgraph=True), Tensor(pos3()), Tensor(i32(2)))
    assert report.regions == [f"If at {HERE}:{line_of('loop-in-if')} (one branch runs)",
                              f"  While at {HERE}:{line_of('loop-in-if-for')} (4 loop-carried values, captures included)"]
    text = str(report)
    assert f"region op If at {HERE}:{line_of('loop-in-if')}" in text
    assert "then_branch: graph" in text and "body: graph" in text


# ---- gradients through If and While (msjitd's adjoints) vs finite differences ----------------------

def loop_then_branch(x):
    y = x
    while y.sum() < 20.0:
        y = y * 1.5 + 0.25
    if y.max() > 12.0:
        z = y * y * 0.5
    else:
        z = y * 3.0 - x
    return z.sum()


def counted_loop(x, m):
    acc = x * 0.0
    for i in range(m):
        acc = acc * x + i
    return (acc * acc).sum()


@pytest.mark.parametrize("level", ["O0", "O1"])
@pytest.mark.parametrize("fn, extra", [(loop_then_branch, ()), (counted_loop, (i32(3),))],
                         ids=["while-if", "for-range"])
def test_grad_through_if_and_while_matches_finite_differences(fn, extra, level, daemon):
    from msjit import grad
    from support import central_difference
    for x in (pos3(), pos3() * 4.0, pos3() * 0.3):
        got = grad(jit(fn, fullgraph=True, jit_level=level))(Tensor(x), *map(Tensor, extra)).asnumpy()
        x64 = x.astype(np.float64)
        want = central_difference(x64, lambda: fn(x64, *extra), np.ones(()))
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)
        inside = jit(grad(fn), fullgraph=True, jit_level=level)(Tensor(x), *map(Tensor, extra)).asnumpy()
        np.testing.assert_allclose(inside, want, rtol=1e-3, atol=1e-3)


# ---- side effects: Parameter writes in an If branch or a While body ---------------------------------
#
# A Parameter assigned in a region is threaded out of it as one more output (an If: its value at the
# 'if' in the branch that leaves it; a While: one more carried value) and assigned in the enclosing
# graph, so the writes happen in program order and only where the branch or iteration ran; the
# compiled function writes the final value back after each call, as BatchNorm's statistics are.

def make_state():
    return (Parameter(Tensor(np.zeros(3, np.float32)), name="total"),
            Parameter(Tensor(np.zeros((), np.float32)), name="count"))


def writes_in_branches(state, x):
    total, count = state
    if x.sum() > 0:
        ops.assign(total, total + x)
    else:
        ops.assign(count, count + 1.0)
    return x * 2.0 + total


def writes_in_loop(state, x):
    total, count = state
    while x.sum() > 0:
        x = x - 1.0
        ops.assign(count, count + 1.0)
        if x.max() > 1.0:
            total.set_data(total + x)     # (under capture, set_data is ops.assign)
    return x, count * 1.0


@pytest.mark.parametrize("level", ["O0", "O1"])
@pytest.mark.parametrize("fn", [writes_in_branches, writes_in_loop], ids=["if", "while"])
def test_parameter_writes_in_regions_match_eager(fn, level, daemon):
    compiled_state, eager_state = make_state(), make_state()

    def call(x):
        return fn(compiled_state, x)
    jitted = jit(call, fullgraph=True, jit_level=level)
    for x in (pos3(), -pos3(), pos3() * 3.0, pos3()):
        check(jitted(Tensor(x)), fn(eager_state, Tensor(x)))
        for got, want in zip(compiled_state, eager_state):
            np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5)
    assert eager_state[1].asnumpy() > 0 and eager_state[0].asnumpy().any()   # both kinds of writes ran
    assert jitted.stats.compiles == 1


class Counter(nn.Cell):
    """``self.count += 1`` and a conditional ``self.total = ...`` on Parameter attributes."""

    def __init__(self):
        super().__init__()
        self.count = Parameter(Tensor(np.zeros((), np.float32)), name="count")
        self.total = Parameter(Tensor(np.zeros(3, np.float32)), name="total")

    def construct(self, x):
        self.count += 1
        if x.sum() > 0:
            self.total = self.total + x * self.count
        return x * self.count


@pytest.mark.parametrize("level", ["O0", "O1"])
def test_cell_attribute_writes_are_parameter_assignments_in_order(level, daemon):
    compiled, eager = Counter(), Counter()
    jitted = jit(compiled.construct, fullgraph=True, jit_level=level)
    for x in (pos3(), -pos3(), pos3() * 2.0):
        check(jitted(Tensor(x)), eager.construct(Tensor(x)))
        for name in ("count", "total"):
            np.testing.assert_allclose(getattr(compiled, name).asnumpy(), getattr(eager, name).asnumpy(), rtol=1e-6)
    assert float(eager.count.asnumpy()) == 3.0 and jitted.stats.compiles == 1


class PlainCounter:
    calls = 0


PLAIN = PlainCounter()


def writes_a_python_attribute(x):
    PLAIN.calls = PLAIN.calls + 1  # <python-attr>
    return x


def test_a_python_attribute_write_is_refused_with_the_reason():
    with pytest.raises(UnsupportedSyntaxError, match=f"^{HERE}:{line_of('python-attr')}: assignment to an attribute "
                       "\\('calls' is not a Parameter"):
        jit(writes_a_python_attribute, fullgraph=True).lower(Tensor(pos3()))


def is_after_loop(x):
    a = 0
    i = 0
    while i < x:
        i = i + 1
        a = a + 1
    return a is 3, a is not 2


def is_after_if(x):
    a = 0
    if x > 1:
        a = a + 1
    return a is 1, a is 2


@pytest.mark.parametrize("fn, x, want", [(is_after_loop, 3, (True, True)), (is_after_loop, 2, (False, False)),
                                         (is_after_if, 3, (True, False)), (is_after_if, 0, (False, False))])
def test_is_compares_a_number_carried_by_a_region_by_value(fn, x, want):
    """A variable that was a Python number stays a scalar to MindSpore after a tensor loop or if
    carried it: `a is 3` compares its value (eager Python: small ints are one object)."""
    assert fn(x) == want   # eager, on a Python int
    got = jit(fn, fullgraph=True)(Tensor(np.array([x], np.int32)))
    assert tuple(bool(g) for g in got) == want

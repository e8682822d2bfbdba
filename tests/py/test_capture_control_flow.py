"""Control flow under capture_mode="ast" (issue 4, first step): loops unrolled at capture, and
conditions on tensors captured as both branches merged with Select.

Each corpus function runs eagerly, as a numpy reference (the same Python source run on numpy
arrays, or an explicit numpy version) and through ``jit(fn, jit_level=L, fullgraph=True)`` on the
real daemon; every input set is run through one jitted function, whose inputs flip the tensor
conditions, so it must give the eager answer for all of them from a single compile.
"""
import os
import warnings

import numpy as np
import pytest

import msjit
from msjit import Tensor, jit, nn, ops
from msjit.errors import JitFallbackWarning, UnsupportedSyntaxError

from support import assert_results_close, marker_lines, plain_result  # noqa: E402

HERE = os.path.abspath(__file__)
line_of = marker_lines(HERE)


@pytest.fixture(scope="module", autouse=True)
def _daemon(module_daemon_home):
    yield module_daemon_home


def arr(*values):
    return np.asarray(values, np.float32)


# ---- corpus: loops ---------------------------------------------------------------------------------

def loop_range(x):
    for i in range(4):
        x = x * 0.5 + i
    return x


def loop_range_step(x):
    acc = x * 0.0
    for i in range(10, 0, -3):
        acc = acc + x * i
    return acc


def loop_tuple_of_constants(x):
    for s in (0.5, 2.0, -1.5):
        x = x * s + s
    return x


def loop_list_of_tensors(x, y):
    acc = x
    for t in [y, x * y, y - x]:
        acc = acc + t
    return acc


def loop_dict(x, y):
    d = {"a": x, "b": y, "c": x + y}
    out = x * 0.0
    for k in d:
        out = out + d[k]
    for k, v in d.items():
        out = out * 0.5 + v
    return out


def loop_zip_enumerate(x, y):
    scales = (1.0, 2.0, 3.0)
    out = x
    for i, (t, s) in enumerate(zip([x, y, x * y], scales)):
        out = out + t * s * i
    return out


def loop_nested(x):
    for i in range(3):
        for j in range(i + 1):
            x = x + i * j - 0.25
    return x


def loop_break_continue(x):
    for i in range(10):
        if i % 2 == 1:
            continue
        if i > 6:
            break
        x = x * 1.5 + i
    return x


def loop_for_else(x):
    for i in range(3):
        x = x + i
    else:
        x = x * 2.0   # runs: no break
    for i in range(5):
        if i == 2:
            break
        x = x - 1.0
    else:
        x = x * 100.0  # skipped: broke out
    return x


def loop_while_constant(x):
    i = 0
    while i < 5:
        x = x * 1.5 - i
        i += 1
    else:
        x = x + 10.0
    n = 0
    while True:
        n += 1
        if n >= 3:
            break
        x = x * 0.5
    return x, i, n


def loop_over_tensor_rows(x):
    total = x[0] * 0.0
    for k, row in enumerate(x):
        total = total + row * (k + 1)
    for i in range(len(x)):
        total = total - x[i] * 0.5
    return total


# ---- corpus: conditions on tensors ------------------------------------------------------------------

def tif_simple(x):
    if x.sum() > 0:
        y = x * 2.0
    else:
        y = -x
    return y


def tif_no_else(x):
    y = x
    if x.max() > 1.0:
        y = y * 0.5
    return y


def tif_elif_chain(x):
    s = x.sum()
    if s > 3.0:
        y = x - 3.0
    elif s > 0:
        y = x * 10.0
    elif s > -3.0:
        y = x + 100.0
    else:
        y = -x
    return y


def tif_several_vars(x, y):
    a, b = x, y
    if (x * y).mean() < 0:
        a = x + y
        b, c = y * 2.0, x
    else:
        c = y
        a = a - 1.0
    return a, b, c


def tif_constants_in_branches(x):
    if x.sum() > 0:
        scale, tag = 2.0, 7
        sign = 1.0
    else:
        scale, tag = -3.0, 7
        sign = -1.0
    return x * scale + sign, tag


def tif_nested(x, y):
    if x.sum() > 0:
        if y.sum() > 0:
            z = x + y
        else:
            z = x - y
    else:
        z = x * y
        if y.min() > 0:
            z = z * 2.0
    return z


def tif_both_return(x):
    if x.sum() > 0:
        return x * 3.0, {"s": x.sum()}
    else:
        return x - 1.0, {"s": x.sum() * 2.0}


def tif_elif_returns(x):
    if x.mean() > 1.0:
        return x
    elif x.mean() > 0:
        return x * x
    else:
        return -x


def tif_in_loop(x):
    for i in range(4):
        if x.sum() > i:
            x = x - 1.0
        else:
            x = x + 0.5
    return x


def tif_bool_ops(x, y):
    if x.sum() > 0 and y.sum() > 0:
        z = x + y
    elif x.sum() > 0 or not y.max() > 1.0:
        z = x - y
    else:
        z = x * y
    return z


def tif_truthiness(x, y):
    if x.sum():     # a non-bool one-element tensor: true when non-zero
        z = y
    else:
        z = -y
    if (y > 0.5)[0:1]:   # a one-element bool tensor of shape (1,)
        z = z + 1.0
    return z


def ternaries(x):
    y = x * 2.0 if x.mean() > 0 else x - 1.0
    z = (y if y.sum() > 5.0 else -y) if x.max() > 0.5 else y * 0.0
    return y + z


def tif_early_data_dependent_ternary_in_loop(x):
    acc = x * 0.0
    for k in range(3):
        acc = acc + (x * k if x.sum() > k else x - k)
    return acc


def tif_branch_local_list(x):
    if x.sum() > 0:
        parts = []
        parts.append(x)
        parts.append(x * 2.0)
        out = parts[0] + parts[1]
    else:
        out = x
    return out


# ---- corpus: builtins, assignment forms, calls, return values ---------------------------------------

def aug_assign(x, y):
    x += y
    x *= 2.0
    n = 1
    n += 2
    n *= 3
    x -= n
    x /= 4.0
    names = ["a"]
    names += ["b"]
    return x, n, names


def builtins_on_constants(x):
    sizes = (3, 1, 2)
    k = max(sizes) + min(sizes) + len(sizes) + min(4, 2.5)
    if isinstance(k, float) and isinstance(x.shape, tuple) and len(x) == x.shape[0]:
        x = x + k
    total = x
    for i in range(min(len(x), 2)):
        total = total + x[i]
    return total, k


def returns_structures(x):
    return {"a": x + 1.0, "b": None, "c": [x * 2.0, 3, (x.sum(), None)]}


def returns_none(x):
    y = x + 1.0  # noqa: F841  (captured, not returned)


def helper_scale(v, k=2.0):
    for _ in range(2):
        v = v * k
    return v


def helper_pick(v):
    if v.sum() > 0:
        return v
    else:
        return v * -1.0


@jit
def jitted_helper(v):
    return helper_scale(v, 0.5) + 1.0


def nested_calls(x):
    y = helper_pick(helper_scale(x))
    return jitted_helper(y) + helper_scale(x, k=3.0)


def nested_calls_ref(x):
    y = helper_pick(x * 4.0)
    return y * 0.25 + 1.0 + x * 9.0


# ---- corpus: Cells ----------------------------------------------------------------------------------

def _dense(i, o, seed):
    rng = np.random.default_rng(seed)
    w = Tensor(rng.uniform(-0.5, 0.5, (o, i)).astype(np.float32))
    b = Tensor(rng.uniform(-0.5, 0.5, (o,)).astype(np.float32))
    return nn.Dense(i, o, weight_init=w, bias_init=b)


SEQ = nn.SequentialCell(_dense(3, 4, 1), nn.ReLU(), _dense(4, 3, 2))
LAYERS = [_dense(3, 3, 3), _dense(3, 3, 4), _dense(3, 3, 5)]


def _np_dense(cell, x):
    return x @ cell.weight.asnumpy().T + cell.bias.asnumpy()


def loop_over_sequential(x):
    for cell in SEQ:
        x = cell(x)
    return x


def loop_over_sequential_ref(x):
    return _np_dense(SEQ[2], np.maximum(_np_dense(SEQ[0], x), 0))


def loop_over_cell_list(x):
    for i, layer in enumerate(LAYERS):
        y = layer(x)
        x = y if y.sum() > 0 else y * 0.5 + i
    return x


def loop_over_cell_list_ref(x):
    for i, layer in enumerate(LAYERS):
        y = _np_dense(layer, x)
        x = y if y.sum() > 0 else y * 0.5 + i
    return x


class Stack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.first = _dense(3, 3, 6)
        self.rest = nn.SequentialCell(_dense(3, 3, 7), nn.Tanh())
        self.blocks = [self.first, self.rest]

    def construct(self, x):
        for block in self.blocks:
            h = block(x)
            if h.mean() > 0:
                x = x + h
            else:
                x = x - h
        return x


STACK = Stack()


def cell_with_loop(x):
    return STACK(x)


def cell_with_loop_ref(x):
    blocks = (lambda v: _np_dense(STACK.first, v), lambda v: np.tanh(_np_dense(STACK.rest[0], v)))
    for block in blocks:
        h = block(x)
        x = x + h if h.mean() > 0 else x - h
    return x


# ---- the corpus: (function, input sets, numpy reference or None for "the function itself") --------

POS, NEG, MIX = arr(1.0, 2.0, 0.5), arr(-1.0, -2.0, -0.5), arr(1.5, -3.0, 0.25)
SMALL, ZERO = arr(0.1, 0.2, 0.05), arr(0.0, 0.0, 0.0)
X2 = np.asarray([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]], np.float32)
ONE_ARG = [(POS,), (NEG,), (MIX,), (SMALL,), (ZERO,)]
TWO_ARGS = [(POS, NEG), (NEG, POS), (POS, POS), (NEG, NEG), (MIX, SMALL), (SMALL, ZERO)]

CORPUS = [
    (loop_range, ONE_ARG, None),
    (loop_range_step, ONE_ARG, None),
    (loop_tuple_of_constants, ONE_ARG, None),
    (loop_list_of_tensors, TWO_ARGS, None),
    (loop_dict, TWO_ARGS, None),
    (loop_zip_enumerate, TWO_ARGS, None),
    (loop_nested, ONE_ARG, None),
    (loop_break_continue, ONE_ARG, None),
    (loop_for_else, ONE_ARG, None),
    (loop_while_constant, ONE_ARG, None),
    (loop_over_tensor_rows, [(X2,), (-X2,)], None),
    (tif_simple, ONE_ARG, None),
    (tif_no_else, ONE_ARG, None),
    (tif_elif_chain, ONE_ARG + [(arr(2.0, 2.0, 2.0),), (arr(-2.0, -2.0, -2.0),)], None),
    (tif_several_vars, TWO_ARGS, None),
    (tif_constants_in_branches, ONE_ARG, None),
    (tif_nested, TWO_ARGS, None),
    (tif_both_return, ONE_ARG, None),
    (tif_elif_returns, ONE_ARG, None),
    (tif_in_loop, ONE_ARG + [(arr(3.0, 2.0, 1.0),)], None),
    (tif_bool_ops, TWO_ARGS, None),
    (tif_truthiness, TWO_ARGS, None),
    (ternaries, ONE_ARG, None),
    (tif_early_data_dependent_ternary_in_loop, ONE_ARG + [(arr(1.0, 0.5, 0.0),)], None),
    (tif_branch_local_list, ONE_ARG, None),
    (aug_assign, TWO_ARGS, None),
    (builtins_on_constants, ONE_ARG, None),
    (returns_structures, ONE_ARG, None),
    (returns_none, ONE_ARG, None),
    (nested_calls, ONE_ARG, nested_calls_ref),
    (loop_over_sequential, [(np.stack([POS, NEG]),), (np.stack([MIX, SMALL]),)], loop_over_sequential_ref),
    (loop_over_cell_list, [(POS[None],), (NEG[None],), (MIX[None],)], loop_over_cell_list_ref),
    (cell_with_loop, [(POS[None],), (NEG[None],), (MIX[None],), (SMALL[None],)], cell_with_loop_ref),
]




@pytest.mark.parametrize("level", ["O0", "O1"])
@pytest.mark.parametrize("fn, inputs, ref", CORPUS, ids=[c[0].__name__ for c in CORPUS])
def test_corpus_matches_eager_and_numpy_with_one_compile(fn, inputs, ref, level):
    jitted = jit(fn, jit_level=level, fullgraph=True)
    for arrays in inputs:
        eager = fn(*(Tensor(a.copy()) for a in arrays))
        with warnings.catch_warnings():
            warnings.simplefilter("error", JitFallbackWarning)
            got = jitted(*(Tensor(a.copy()) for a in arrays))
        reference = (ref or fn)(*(a.copy() for a in arrays))
        assert_results_close(plain_result(got), plain_result(eager), f"{fn.__name__}{tuple(a.tolist() for a in arrays)} jit vs eager")
        assert_results_close(plain_result(got), plain_result(reference), f"{fn.__name__} jit vs numpy", exact_kinds=False)
    assert jitted.stats.fallbacks == 0
    expected_compiles = 0 if fn is returns_none else 1
    assert (jitted.stats.captures, jitted.stats.compiles) == (1, expected_compiles)


def test_corpus_size():
    assert len(CORPUS) >= 25


# ---- the predicate is in the graph ------------------------------------------------------------------

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
    selects = [n for n in graph.nodes if n.op_type == "Select"]
    assert len(selects) == 2
    assert selects[0].location == (HERE, line_of("flip-if"))
    outs = []
    for a in (POS, NEG, POS * 3.0, NEG * 0.5, POS):
        got = jitted(Tensor(a))
        want = (a + 100.0) * 2.0 if a.sum() > 0 else (a - 100.0) * 3.0
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
        np.testing.assert_allclose(got.asnumpy(), flips(Tensor(a)).asnumpy(), rtol=1e-6)
        outs.append(got.asnumpy())
    assert not np.allclose(outs[0] - POS, outs[1] - NEG)   # both branches were really taken
    assert (jitted.stats.captures, jitted.stats.compiles) == (1, 1)


def test_loops_are_unrolled_at_capture():
    graph = jit(loop_range, fullgraph=True).lower(Tensor(POS)).graph
    assert [n.op_type for n in graph.nodes].count("Mul") == 4
    assert not any(n.op_type == "Select" for n in graph.nodes)


def test_constant_condition_in_loop_picks_one_branch():
    graph = jit(loop_break_continue, fullgraph=True).lower(Tensor(POS)).graph
    assert not any(n.op_type == "Select" for n in graph.nodes)
    assert [n.op_type for n in graph.nodes].count("Mul") == 4   # i = 0, 2, 4, 6


# ---- still unsupported: STRICT raises at the construct's file:line, LAX falls back -----------------

def tensor_while(x):
    while x.sum() > 0:  # <tensor-while>
        x = x - 1.0
    return x


def one_branch_variable(x):
    if x.sum() > 0:  # <one-branch>
        y = x * 2.0
    else:
        pass
    return x + y  # noqa: F821


def param_write_in_branch(x):
    if x.sum() > 0:
        ops.assign(STATE, x)  # <param-write>
    return x * 2.0


STATE = msjit.Parameter(Tensor(np.zeros(3, np.float32)), name="state")


def print_in_branch(x):
    if x.sum() > 0:
        print("positive")  # <print-branch>
    return x


SEEN = []


def list_append_in_branch(x):
    if x.sum() > 0:
        SEEN.append(x)  # <append-branch>
    return x


def return_in_one_branch(x):
    if x.sum() > 0:  # <one-return>
        return x
    y = -x
    return y


def break_in_tensor_branch(x):
    for _ in range(3):
        if x.sum() > 0:  # <tensor-break>
            break
        x = x + 1.0
    return x


def mismatched_branches(x):
    if x.sum() > 0:  # <mismatch>
        y = x
    else:
        y = x.sum()
    return y


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
    (tensor_while, "tensor-while", "'while' loop whose condition is a tensor value"),
    (one_branch_variable, "one-branch", "a condition on a tensor value that assigns variable 'y' in only one "
                                        "branch"),
    (param_write_in_branch, "param-write", "assigning Parameter 'state' inside a branch"),
    (print_in_branch, "print-branch", "call to print"),
    (list_append_in_branch, "append-branch", "call to list.append on a container from outside a branch"),
    (return_in_one_branch, "one-return", "a condition on a tensor value with 'return' in only one branch"),
    (break_in_tensor_branch, "tensor-break", "a condition on a tensor value with 'break' in a branch"),
    (mismatched_branches, "mismatch", "a condition on a tensor value where variable 'y' is a float32\\[3\\] tensor "
                                      "in one branch and a float32\\[\\] tensor in the other"),
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
    assert SEEN == [] and not STATE.asnumpy().any()   # nothing ran at capture


def test_one_branch_variable_error_names_the_use():
    with pytest.raises(UnsupportedSyntaxError, match=f"used after the 'if', at line {line_of('one-branch') + 4}"):
        jit(one_branch_variable, fullgraph=True)(Tensor(POS))


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


@pytest.mark.parametrize("fn", [tensor_while, param_write_in_branch, list_append_in_branch, return_in_one_branch])
def test_lax_splits_the_graph_at_the_tensor_condition(fn):
    jitted = jit(fn)   # fullgraph=False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for a in (SMALL, NEG):
            got = jitted(Tensor(a.copy()))
            want = fn(Tensor(a.copy()))
            np.testing.assert_allclose(got.asnumpy(), want.asnumpy())
    fallbacks = [w for w in caught if issubclass(w.category, JitFallbackWarning)]
    assert len(fallbacks) == 1 and str(fallbacks[0].message).startswith(f"{HERE}:")
    assert jitted.stats.fallbacks == 1 and jitted.stats.graph_breaks >= 2   # one or more per call
    SEEN.clear()
    STATE.set_data(Tensor(np.zeros(3, np.float32)))

"""Bytecode capture with graph breaks runs generated code after the first call (capture/resume.py):
graph pieces compiled and guarded, the Python between them as normal bytecode, never the
interpreter again. Results are checked against eager and numpy on a real daemon."""
import traceback

import numpy as np
import pytest

from msjit import Tensor, jit, ops
from msjit.capture import bytecode
from support import marker_lines

line_of = marker_lines(__file__)
EVENTS = []
SCALE = 2.0


@pytest.fixture(scope="module", autouse=True)
def _daemon(module_daemon_home):
    yield module_daemon_home


def compiled(fn):
    return jit(capture_mode="bytecode")(fn)


def close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def one_break(a, b):
    y = a * b + 1.0
    EVENTS.append(("mid", float(y.sum())))   # a break and a side effect
    return ops.exp(y) - b


def one_break_np(a, b):
    return np.exp(a * b + 1.0) - b


def three_breaks(x, w):
    h = ops.matmul(x, w)
    if h.sum() > 0:              # break 1: a tensor condition
        h = h * 2.0
    else:
        h = h - 1.0
    s = float(h.max())  # break 2: a value for Python
    EVENTS.append(("s", s))
    z = h / (abs(s) + 1.0)
    print("norm", round(float(z.sum()), 3))   # break 3: print of a value
    return ops.tanh(z) + x.sum()


def three_breaks_np(x, w):
    h = x @ w
    h = h * 2.0 if h.sum() > 0 else h - 1.0
    z = h / (abs(np.float32(h.max())) + 1.0)
    return np.tanh(z) + x.sum()


def test_results_match_eager_and_numpy_on_random_shapes(capsys):
    rng = np.random.default_rng(12)
    one, three = compiled(one_break), compiled(three_breaks)
    for rows, cols in ((2, 3), (5, 4), (1, 7)):
        for _ in range(3):
            a, b = (rng.standard_normal((rows, cols)).astype(np.float32) for _ in range(2))
            w = rng.standard_normal((cols, rows)).astype(np.float32) * rng.choice([-1, 1])
            close(one(Tensor(a), Tensor(b)).asnumpy(), one_break(Tensor(a), Tensor(b)).asnumpy())
            close(one(Tensor(a), Tensor(b)).asnumpy(), one_break_np(a, b))
            close(three(Tensor(a), Tensor(w)).asnumpy(), three_breaks(Tensor(a), Tensor(w)).asnumpy())
            close(three(Tensor(a), Tensor(w)).asnumpy(), three_breaks_np(a, w))
    capsys.readouterr()


def test_side_effects_happen_once_per_call_in_order(capsys):
    jitted = compiled(three_breaks)
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    w = Tensor(np.ones((3, 2), np.float32))
    EVENTS.clear()
    for _ in range(4):
        three_breaks(x, w)
    want_events, want_out = list(EVENTS), capsys.readouterr().out
    EVENTS.clear()
    for _ in range(4):
        jitted(x, w)
    assert EVENTS == want_events and len(EVENTS) == 4
    assert capsys.readouterr().out == want_out and want_out.count("norm") == 4


def test_after_the_first_call_the_interpreter_is_not_used(capsys):
    jitted = compiled(three_breaks)
    pos = (Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((3, 2), np.float32)))
    neg = (pos[0], Tensor(-np.ones((3, 2), np.float32)))
    for _ in range(2):               # every path reached after the first call: each piece captured
        jitted(*pos), jitted(*neg)
    entries, compiles = bytecode.entries, jitted.stats.compiles
    for _ in range(5):
        close(jitted(*pos).asnumpy(), three_breaks(*pos).asnumpy())
        close(jitted(*neg).asnumpy(), three_breaks(*neg).asnumpy())
    assert bytecode.entries == entries, "a call was interpreted again"
    assert jitted.stats.compiles == compiles and jitted.stats.interpreted == 0
    assert type(jitted._cache[next(iter(jitted._cache))]).__name__ == "_Resumed"
    capsys.readouterr()


def reads_global(x):
    y = x * SCALE
    EVENTS.append("g")
    return y + SCALE


def test_a_changed_global_or_argument_kind_specializes_again():
    global SCALE
    jitted = compiled(reads_global)
    x = Tensor(np.asarray([1.0, 2.0], np.float32))
    for scale in (2.0, 2.0, 3.0, 3.0, -1.0):
        SCALE = scale
        close(jitted(x).asnumpy(), np.asarray([1.0, 2.0]) * scale + scale)
    SCALE = 2.0
    x64 = Tensor(np.asarray([1.0, 2.0], np.float64))     # another dtype: another guard of the function
    got = jitted(x64)
    assert got.asnumpy().dtype == reads_global(x64).asnumpy().dtype == np.float64
    close(got.asnumpy(), [4.0, 6.0])
    assert len(jitted._cache) == 2


def counted_loop(x, n):
    m = n.sum()                  # a tensor
    for _ in range(m):           # range() needs its value: the loop runs in Python, its body is a piece
        x = x * 2.0 + 1.0
    return x


def loop_from_max(x):
    for _ in range(int(x.max())):
        x = x - 1.0
    return x


def test_for_range_of_a_value_from_a_tensor():
    """The PIJit example's `for _ in range(m)`, m from a tensor: a graph break at range();
    the loop is Python, its body one compiled piece whatever m is."""
    jitted, jitted_max = compiled(counted_loop), compiled(loop_from_max)
    x = np.asarray([0.5, 1.0, -1.0], np.float32)
    for counts in ([1, 2], [0, 0], [4, 1], [2, 0]):
        n = np.asarray(counts, np.int32)
        want = x.copy()
        for _ in range(n.sum()):
            want = want * 2.0 + 1.0
        close(jitted(Tensor(x), Tensor(n)).asnumpy(), want)
        close(jitted_max(Tensor(x * sum(counts))).asnumpy(), loop_from_max(Tensor(x * sum(counts))).asnumpy())
    entries = bytecode.entries
    close(jitted(Tensor(x), Tensor(np.asarray([3, 3], np.int32))).asnumpy(), counted_loop(
        Tensor(x), Tensor(np.asarray([3, 3], np.int32))).asnumpy())
    assert bytecode.entries == entries


def scalar_feeds_a_piece(x):
    s = float(x.sum())
    return x * s + 1.0


def test_a_python_float_is_an_input_of_the_next_piece_not_a_specialization():
    jitted = compiled(scalar_feeds_a_piece)
    for k in range(6):
        x = np.asarray([1.0, 2.0, k], np.float32)
        close(jitted(Tensor(x)).asnumpy(), x * x.sum() + 1.0)
    assert jitted.stats.compiles == 2     # x.sum() and x * s + 1 from the first call, reused


def raises_in_python(x):
    y = x + 1.0
    if float(y.sum()) > 100.0:
        raise ValueError("too large")  # <raise>
    return y * 3.0


def test_errors_in_python_parts_name_the_original_line():
    jitted = compiled(raises_in_python)
    x = Tensor(np.ones(3, np.float32))
    close(jitted(x).asnumpy(), [6.0, 6.0, 6.0])
    with pytest.raises(ValueError, match="too large") as info:
        jitted(x * 100.0)      # (the same guard: generated code raises)
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert (last.filename, last.lineno) == (__file__, line_of("raise"))


def make_closure(offset):
    def with_closure(x):
        EVENTS.append("c")
        return x + offset
    return with_closure


def test_a_closure_stays_interpreted_and_correct():
    jitted = compiled(make_closure(2.0))
    x = Tensor(np.ones(2, np.float32))
    EVENTS.clear()
    for _ in range(3):
        close(jitted(x).asnumpy(), [3.0, 3.0])
    assert EVENTS == ["c"] * 3 and jitted.stats.interpreted == 2


def collects_rows(xs):
    out, seen = [], {"n": 0}
    for t in xs:
        if t.sum() > 0:          # a break inside the loop
            out.append(t * 2.0)  # a list of the function's own: changed by Python, not by a piece's copy
            seen["n"] += 1
    return out, seen["n"]


def test_containers_the_function_made_are_changed_in_place():
    jitted = compiled(collects_rows)
    for signs in ([1, -1, 1], [-1, -1, 1], [1, 1, 1], [-1, -1, -1]):
        xs = np.asarray(signs, np.float32)[:, None] * np.ones((3, 2), np.float32)
        got, want = jitted(Tensor(xs)), collects_rows(Tensor(xs))
        assert got[1] == want[1] == signs.count(1) and len(got[0]) == len(want[0])
        for g, w in zip(got[0], want[0]):
            close(g.asnumpy(), w.asnumpy())


def adds_its_counter(x, n):
    for i in range(n.sum()):
        x = x + i                # a piece given the loop counter: a new int on every iteration
    return x


def test_a_loop_counter_does_not_compile_a_piece_per_value(caplog):
    jitted = compiled(adds_its_counter)
    x, n = Tensor(np.ones(3, np.float32)), Tensor(np.asarray([6, 6], np.int32))
    with caplog.at_level("WARNING", logger="msjit.jit"):
        for _ in range(3):
            close(jitted(x, n).asnumpy(), np.ones(3) + sum(range(12)))
    assert jitted.stats.compiles <= 3 and "cache_limit" not in caplog.text

"""Complete guards (issue 12): what a jitted function read from lists, tuples, dicts, objects and
closure cells is guarded. Each case mutates one item the function read, in place, and checks that
the next call gives the new answer (against eager and numpy), that it recompiled exactly once, on
the compiled path (fullgraph=True: one graph, no interpretation), and that MSJIT_LOG=recompiles
names the item. A mutation of an item the function did not read recompiles nothing."""
import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from msjit import Tensor, explain, jit, nn
from msjit.capture.guards import Guards, compile_check, what_changed

jit_module = sys.modules["msjit.jit"]   # (``msjit.jit`` the attribute is the function)
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
X = np.asarray([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], np.float32)


@pytest.fixture(scope="module", autouse=True)
def _daemon(module_daemon_home):
    yield module_daemon_home


# -- state the functions read; reset() before each case -----------------------------------------

class Config:
    def __init__(self):
        self.scale = 2.0
        self.inner = Config.Inner()

    class Inner:
        def __init__(self):
            self.values = [0.5, 1.5]


FACTORS = [2.0, 5.0]
CONFIG = {"a": [1.0, 2.0], "b": 3.0}
OPTIONS = {"scale": 2.0}
WEIGHTS = {"a": 1.0, "b": 2.0}
PAIRS = [(1.0, 2.0), (3.0, 4.0)]
SHIFTS = [1.0, 2.0]
EXTRA = []
CFG = Config()


def reset():
    FACTORS[:] = [2.0, 5.0]
    CONFIG.clear()
    CONFIG.update({"a": [1.0, 2.0], "b": 3.0})
    OPTIONS.clear()
    OPTIONS["scale"] = 2.0
    WEIGHTS.clear()
    WEIGHTS.update({"a": 1.0, "b": 2.0})
    PAIRS[:] = [(1.0, 2.0), (3.0, 4.0)]
    SHIFTS[:] = [1.0, 2.0]
    EXTRA.clear()
    CFG.__init__()


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.factors = [2.0, 3.0]
        self.cfg = Config()

    def construct(self, x):
        return x * self.factors[1] + self.cfg.scale


def make_closure():
    xs = [2.0, 7.0]

    def closure_item(x):
        return x * xs[0]
    return closure_item, xs


# -- the functions ----------------------------------------------------------------------------

def list_item(x):
    return x * FACTORS[0]


def nested_list_in_dict(x):
    return x * CONFIG["a"][1]


def dict_value(x):
    return x + CONFIG["b"]


def key_membership(x):
    if "shift" in OPTIONS:
        x = x + OPTIONS["shift"]
    return x * OPTIONS["scale"]


def dict_iteration(x):
    y = x * 0.0
    for k in WEIGHTS:
        y = y + x * WEIGHTS[k]
    return y


def tuple_in_list(x):
    return x * PAIRS[0][1]


def object_attribute(x):
    return x * CFG.scale


def attribute_chain(x):
    return x + CFG.inner.values[1]


def list_iteration(x):
    for s in SHIFTS:
        x = x + s
    return x


def truthiness(x):
    return x * 2.0 if EXTRA else x * 3.0


def builtin_over_a_list(x):
    return x * max(FACTORS)


def dict_get(x):
    return x + OPTIONS.get("shift", 0.0)


def _set(container, key, value):
    container[key] = value


# name -> (function factory, mutation, numpy of the answer from the current state, log fragment)
CASES = {
    "global list item": (lambda: list_item, lambda: _set(FACTORS, 0, 3.0),
                         lambda: X * FACTORS[0], "global 'FACTORS'[0] changed: 2.0 -> 3.0"),
    "nested list in a dict": (lambda: nested_list_in_dict, lambda: _set(CONFIG["a"], 1, 4.0),
                              lambda: X * CONFIG["a"][1], "global 'CONFIG'['a'][1] changed: 2.0 -> 4.0"),
    "list in a dict replaced": (lambda: nested_list_in_dict, lambda: _set(CONFIG, "a", [1.0, 6.0]),
                                lambda: X * CONFIG["a"][1], "global 'CONFIG'['a'] changed: [1.0, 2.0] -> [1.0, 6.0]"),
    "dict value": (lambda: dict_value, lambda: _set(CONFIG, "b", 7.0),
                   lambda: X + CONFIG["b"], "global 'CONFIG'['b'] changed: 3.0 -> 7.0"),
    "dict key added (membership)": (lambda: key_membership, lambda: _set(OPTIONS, "shift", 1.0),
                                    lambda: (X + OPTIONS.get("shift", 0.0)) * OPTIONS["scale"],
                                    "'shift' in global 'OPTIONS' changed: False -> True"),
    "dict key removed (iteration)": (lambda: dict_iteration, lambda: WEIGHTS.pop("b"),
                                     lambda: X * sum(WEIGHTS.values()),
                                     "global 'WEIGHTS' keys changed: ('a', 'b') -> ('a',)"),
    "tuple in a list replaced": (lambda: tuple_in_list, lambda: _set(PAIRS, 0, (1.0, 5.0)),
                                 lambda: X * PAIRS[0][1], "global 'PAIRS'[0] changed: (1.0, 2.0) -> (1.0, 5.0)"),
    "object attribute": (lambda: object_attribute, lambda: setattr(CFG, "scale", 3.0),
                         lambda: X * CFG.scale, "global 'CFG'.scale changed: 2.0 -> 3.0"),
    "attribute chain": (lambda: attribute_chain, lambda: _set(CFG.inner.values, 1, 2.5),
                        lambda: X + CFG.inner.values[1], "global 'CFG'.inner.values[1] changed: 1.5 -> 2.5"),
    "list length (iteration)": (lambda: list_iteration, lambda: SHIFTS.append(3.0),
                                lambda: X + sum(SHIFTS), "len(global 'SHIFTS') changed: 2 -> 3"),
    "list truthiness": (lambda: truthiness, lambda: EXTRA.append(1.0),
                        lambda: X * 2.0 if EXTRA else X * 3.0, "bool(global 'EXTRA') changed: False -> True"),
    "builtin over a list": (lambda: builtin_over_a_list, lambda: _set(FACTORS, 1, 10.0),
                            lambda: X * max(FACTORS), "global 'FACTORS'[1] changed: 5.0 -> 10.0"),
    "dict.get of a key added": (lambda: dict_get, lambda: _set(OPTIONS, "shift", 1.0),
                                lambda: X + OPTIONS.get("shift", 0.0),
                                "global 'OPTIONS'['shift'] changed: <missing> -> 1.0"),
}


def same(got, want):
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)


@pytest.fixture
def recompiles(caplog, monkeypatch):
    """The recompile log lines (as MSJIT_LOG=recompiles writes them) of the test."""
    monkeypatch.setattr(jit_module, "_LOG_RECOMPILES", True)
    caplog.set_level(logging.INFO, logger="msjit.jit")
    return lambda: [r.getMessage() for r in caplog.records if r.getMessage().startswith("recompiling")]


def check_recompiles_once(jitted, eager, mutate, expected, log, fragment):
    x = Tensor(X)
    same(jitted(x), expected())
    same(jitted(x), expected())
    assert jitted.stats.compiles == 1
    mutate()
    same(eager(x), expected())          # (the case's numpy formula agrees with eager Python)
    same(jitted(x), expected())
    same(jitted(x), expected())
    assert jitted.stats.compiles == 2 and jitted.stats.interpreted == 0
    lines = log()
    assert len(lines) == 1 and fragment in lines[0], lines


@pytest.mark.parametrize("mode", ["ast", "bytecode"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_changed_item_recompiles_once(case, mode, recompiles):
    reset()
    make, mutate, expected, fragment = CASES[case]
    fn = make()
    try:
        check_recompiles_once(jit(fn, capture_mode=mode, fullgraph=True), fn, mutate, expected, recompiles, fragment)
    finally:
        reset()


@pytest.mark.parametrize("mode", ["ast", "bytecode"])
def test_closure_captured_list_item(mode, recompiles):
    fn, xs = make_closure()
    check_recompiles_once(jit(fn, capture_mode=mode, fullgraph=True), fn, lambda: _set(xs, 0, 9.0),
                          lambda: X * xs[0], recompiles, "closure variable 'xs'[0] changed: 2.0 -> 9.0")


@pytest.mark.parametrize("mode", ["ast", "bytecode"])
@pytest.mark.parametrize("what", ["list item", "plain object attribute"])
def test_cell_attributes(mode, what, recompiles):
    net = Net()
    if what == "list item":
        mutate, fragment = lambda: _set(net.factors, 1, 4.0), "attribute 'factors'[1] changed: 3.0 -> 4.0"
    else:
        mutate, fragment = lambda: setattr(net.cfg, "scale", 5.0), "attribute 'cfg'.scale changed: 2.0 -> 5.0"
    check_recompiles_once(jit(net.construct, capture_mode=mode, fullgraph=True), net.construct, mutate,
                          lambda: X * net.factors[1] + net.cfg.scale, recompiles, fragment)


@pytest.mark.parametrize("mode", ["ast", "bytecode"])
def test_o1_recompiles_with_the_new_item(mode, recompiles):
    reset()
    try:
        check_recompiles_once(jit(nested_list_in_dict, capture_mode=mode, jit_level="O1", fullgraph=True),
                              nested_list_in_dict, lambda: _set(CONFIG["a"], 1, 4.0), lambda: X * CONFIG["a"][1],
                              recompiles, "global 'CONFIG'['a'][1]")
    finally:
        reset()


@pytest.mark.parametrize("mode", ["ast", "bytecode"])
def test_an_item_not_read_does_not_recompile(mode, recompiles):
    reset()
    try:
        jitted, x = jit(list_item, capture_mode=mode, fullgraph=True), Tensor(X)
        same(jitted(x), X * 2.0)
        FACTORS[1] = 11.0             # list_item reads FACTORS[0] only
        CONFIG["b"] = 12.0            # nor CONFIG at all
        for _ in range(3):
            same(jitted(x), X * 2.0)
        assert jitted.stats.compiles == 1 and recompiles() == []
    finally:
        reset()


SCRIPT = textwrap.dedent("""
    import logging, numpy as np
    import msjit
    logging.basicConfig(level=logging.INFO, format="%(name)s %(message)s")
    FACTORS = [2.0]

    def f(x):
        return x * FACTORS[0]

    j = msjit.jit(f, capture_mode="bytecode")
    x = msjit.Tensor(np.ones((2,), np.float32))
    assert j(x).asnumpy().tolist() == [2.0, 2.0]
    FACTORS[0] = 3.0
    assert j(x).asnumpy().tolist() == [3.0, 3.0]
""")


def test_msjit_log_recompiles_names_the_item(tmp_path):
    script = tmp_path / "factors.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "client_py"), MSJIT_LOG="recompiles")
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "recompiling f: global 'FACTORS'[0] changed: 2.0 -> 3.0" in proc.stderr, proc.stderr


def test_a_graph_piece_after_a_break_guards_containers_read_before_it():
    """The Guards of the piece after a graph break follow those before it: an item read there of
    a container reached earlier is guarded (and a deleted global fails the check, named)."""
    reset()
    namespace = {"FACTORS": FACTORS}
    try:
        first, second = Guards(), Guards()
        first.read_global(namespace, "FACTORS", FACTORS)
        second.follow(first)
        second.read_item(FACTORS, 0, FACTORS[0])
        guards = tuple(second.values())
        check = compile_check(guards)
        assert check() and what_changed(guards) is None
        FACTORS[0] = 4.0
        assert not check() and what_changed(guards) == "global 'FACTORS'[0] changed: 2.0 -> 4.0"
        first_check = compile_check(tuple(first.values()))
        del namespace["FACTORS"]
        assert not first_check()
        assert what_changed(tuple(first.values())) == "global 'FACTORS' changed: [4.0, 5.0] -> <missing>"
    finally:
        reset()


def with_a_break(x):
    y = x * FACTORS[0]
    if float(y.sum()) > -1e30:   # Python needs a value: the graph breaks here
        return y + FACTORS[1]
    return y


def test_a_function_with_a_graph_break_sees_changed_items():
    """Pieces of a function with a graph break (interpreted, or generated code after the first
    call) never serve a stale item, before or after the break."""
    reset()
    try:
        jitted, x = jit(with_a_break, capture_mode="bytecode"), Tensor(X)
        for _ in range(2):
            same(jitted(x), X * FACTORS[0] + FACTORS[1])
        FACTORS[0] = 3.0
        same(jitted(x), X * 3.0 + FACTORS[1])
        FACTORS[1] = -1.0
        for _ in range(2):
            same(jitted(x), X * 3.0 - 1.0)
        assert jitted.stats.graph_breaks >= 1
    finally:
        reset()


@pytest.mark.parametrize("mode", ["ast", "bytecode"])
def test_explain_lists_the_item_guards(mode):
    reset()
    report = explain(jit(list_iteration, capture_mode=mode), Tensor(X))
    assert report.assumptions == ["global 'SHIFTS' == [1.0, 2.0]", "len(global 'SHIFTS') == 2",
                                  "global 'SHIFTS'[0] == 1.0", "global 'SHIFTS'[1] == 2.0"]

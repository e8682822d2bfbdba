"""Runs the control-flow corpus (cf_corpus.py) under capture_mode ast/bytecode x O0/O1 on the real
daemon: every result equals eager msjit and the numpy reference, side effects leave the same
state as eager and numpy, gradients match central differences, and compiles are one per guard key.

ast runs with fullgraph=True: tensor control flow is If/While nodes in one graph. bytecode runs
the corpus with fullgraph=False: it breaks the graph where Python needs a tensor's value, and the
pieces compile once each (a last pass over the same inputs compiles nothing). Under fullgraph=True
bytecode captures a tensor 'if' as one If node (capture/bytecode_if.py) and a loop on tensor values
as one While node (capture/bytecode_loop.py), 'break', 'continue' and 'return' under tensor
conditions included; what it cannot hold is refused (BYTECODE_STRICT_REFUSED). (MindSpore 2.10's PIJit,
checked: a plain tensor if/else is captured, an early return, an 'if' in a loop and a tensor
'while' are refused.)"""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import cf_corpus
from cf_corpus import CF_CORPUS, Gate, gate_ref
from corpus import SAME
from msjit import Tensor, grad, jit
from msjit.capture import control
from msjit.errors import JitFallbackWarning, UnsupportedSyntaxError
from support import assert_results_close, central_difference, marker_lines, plain_result
from test_corpus import guard_key, numpy_args, tensors

line_of = marker_lines(cf_corpus.__file__)
MODES = [(mode, level) for mode in ("ast", "bytecode") for level in ("O0", "O1")]
# Loops bytecode refuses under fullgraph=True: a 'break' under a tensor condition out of a loop with
# an 'else', or out of a Python loop, or a 'return' from one (ast: a While from then on), a while
# condition of several jumps ('and').
BYTECODE_STRICT_REFUSED = {
    "while_and_condition", "while_else_form", "while_true_break", "while_true_return", "python_while_return",
    "unrolled_for_break", "break_inner_only"}


@pytest.fixture(scope="module", autouse=True)
def _daemon(module_daemon_home):
    yield module_daemon_home


def kind(case):
    return next((k for k in ("state", "grad", "fault", "refused") if k in case.notes), "plain")


def cases(k):
    return [pytest.param(c, mode, level, id=f"{c.name}-{mode}-{level}")
            for c in CF_CORPUS if kind(c) == k for mode, level in MODES]


def make_jit(fn, mode, level):
    return jit(fn, capture_mode=mode, jit_level=level, fullgraph=mode == "ast")


def reference(case):
    return case.fn if case.ref == SAME else case.ref


def check_compiles(jitted, mode, keys, run_again):
    """ast: one capture and one compile per guard key. bytecode: once every piece of the generated
    code has run for each guard (the first call of a guard is interpreted, its segments are not
    the generated code's pieces), another pass compiles nothing."""
    stats = jitted.stats
    assert stats.fallbacks == 0, stats
    if mode == "ast":
        assert (stats.captures, stats.compiles) == (keys, keys), stats
        return
    run_again()
    before = stats.compiles
    run_again()
    assert jitted.stats.compiles == before, jitted.stats


@pytest.mark.parametrize("case, mode, level", cases("plain"))
def test_cf_corpus(case, mode, level):
    jitted = make_jit(case.fn, mode, level)

    def run_all():
        for arrays in case.inputs:
            where = f"{case.name}[{mode}/{level}]{tuple(np.asarray(a).tolist() for a in arrays)}"
            got = plain_result(jitted(*tensors(arrays)))
            assert_results_close(got, plain_result(case.fn(*tensors(arrays))), f"{where} jit vs eager")
            assert_results_close(got, plain_result(reference(case)(*numpy_args(arrays))), f"{where} jit vs numpy",
                                 exact_kinds=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", JitFallbackWarning)
        run_all()
        check_compiles(jitted, mode, len({guard_key(a) for a in case.inputs}), run_all)


@pytest.mark.parametrize("case, mode, level", cases("state"))
def test_cf_side_effects(case, mode, level):
    """The state after each call (Parameters, Cell and jit_class attributes) equals eager's and numpy's."""
    run_stateful(case, make_jit(case.fn, mode, level), mode, check_compiles_too=mode == "ast" or
                 not case.notes.get("rebinds"))


def run_stateful(case, jitted, mode, check_compiles_too=True):
    make, read = case.notes["state"], case.notes["read"]
    jit_state, eager_state = make(), make()
    np_state = read(make())

    def run_all():
        for arrays in case.inputs:
            where = f"{case.name}[{mode}]{tuple(np.asarray(a).tolist() for a in arrays)}"
            got = plain_result(jitted(jit_state, *tensors(arrays)))
            assert_results_close(got, plain_result(case.fn(eager_state, *tensors(arrays))), f"{where} jit vs eager")
            assert_results_close(got, plain_result(case.ref(np_state, *numpy_args(arrays))), f"{where} jit vs numpy",
                                 exact_kinds=False)
            for i, (j, e, n) in enumerate(zip(read(jit_state), read(eager_state), np_state)):
                np.testing.assert_allclose(j, e, rtol=1e-5, atol=1e-5, err_msg=f"{where} state[{i}] vs eager")
                np.testing.assert_allclose(j, n, rtol=1e-5, atol=1e-5, err_msg=f"{where} state[{i}] vs numpy")
    with warnings.catch_warnings():
        warnings.simplefilter("error", JitFallbackWarning)
        run_all()
        assert any(np.any(a != b) for a, b in zip(np_state, read(make()))), "no side effect ran"
        if check_compiles_too:
            check_compiles(jitted, mode, len({guard_key(a) for a in case.inputs}), run_all)


def _grad_check(fn, x, extra, got, what):
    x64 = x.astype(np.float64)
    want = central_difference(x64, lambda: fn(x64, *extra), np.ones(()))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-3, atol=1e-3, err_msg=what)


@pytest.mark.parametrize("case, mode, level", cases("grad"))
def test_cf_grads(case, mode, level):
    """grad(jit(f)), jit(grad(f)) and eager grad(f) vs central differences (f's first argument)."""
    outer = grad(make_jit(case.fn, mode, level))
    inner = make_jit(grad(case.fn), mode, level)
    for x, *extra in case.inputs:
        args = (Tensor(x), *map(Tensor, extra))
        where = f"{case.name}[{mode}/{level}]({x.tolist()}, {[np.asarray(e).tolist() for e in extra]})"
        _grad_check(case.fn, x, extra, outer(*args), f"{where} grad(jit)")
        _grad_check(case.fn, x, extra, inner(*args), f"{where} jit(grad)")
        _grad_check(case.fn, x, extra, grad(case.fn)(*args), f"{where} eager grad")
        assert_results_close(plain_result(make_jit(case.fn, mode, level)(*args)),
                             plain_result(case.fn(x, *extra)), f"{where} value", exact_kinds=False)


@pytest.mark.parametrize("mode, level", MODES)
def test_grad_through_a_branch_that_assigns_a_parameter(mode, level):
    """The gradient is right and the write happens once per call, where the branch runs."""
    for make in (lambda: grad(make_jit(cf_corpus.grad_with_assign, mode, level)),
                 lambda: make_jit(grad(cf_corpus.grad_with_assign), mode, level)):
        cf_corpus.STEPS.set_data(Tensor(np.zeros((), np.float32)))
        gradient = make()
        for x, steps in ((cf_corpus.pos(3), 1.0), (cf_corpus.neg(3), 1.0), (cf_corpus.f32(3) + 3.0, 2.0)):
            got = gradient(Tensor(x)).asnumpy()
            np.testing.assert_allclose(got, 2.0 * x if x.sum() > 0 else np.full(3, 3.0), rtol=1e-5)
            assert float(cf_corpus.STEPS.asnumpy()) == steps


@pytest.mark.parametrize("mode, level", MODES)
def test_grad_of_a_jitted_cell_construct_with_a_tensor_if(mode, level):
    net = Gate()
    jitted = make_jit(net.construct, mode, level)
    for x in (cf_corpus.pos(3), cf_corpus.neg(3), np.array([1.0, 2.0, 0.1], np.float32)):
        assert_results_close(plain_result(jitted(Tensor(x))), plain_result(gate_ref(x)), "value", exact_kinds=False)
        _grad_check(gate_ref, x, (), grad(jitted)(Tensor(x)), f"grad(jit(construct))({x.tolist()})")
        _grad_check(gate_ref, x, (), grad(net.construct)(Tensor(x)), f"eager grad({x.tolist()})")


_FAULT_CHILD = r"""
import sys, numpy as np
sys.path[:0] = {paths!r}
import cf_corpus, test_cf_corpus as t
from msjit import Tensor
from support import assert_results_close, plain_result
case = next(c for c in cf_corpus.CF_CORPUS if c.name == {name!r})
for mode, level in t.MODES:
    jitted = t.make_jit(case.fn, mode, level)
    for arrays in case.inputs:
        got = plain_result(jitted(*t.tensors(arrays)))
        assert_results_close(got, plain_result(case.fn(*t.tensors(arrays))), "vs eager")
        assert_results_close(got, plain_result(case.fn(*t.numpy_args(arrays))), "vs numpy", exact_kinds=False)
    assert jitted.stats.fallbacks == 0, jitted.stats
    if mode == "ast":
        assert jitted.stats.compiles == len({{t.guard_key(a) for a in case.inputs}}), jitted.stats
t.check_untaken_branch_does_not_run(case)
print("ok", case.name)
"""


def _evaluate(fn, arrays):
    """The ast graph of ``fn`` run by the graph evaluator (numpy kernels), every floating-point
    error raised: an out-of-range index or an integer division by zero that runs faults."""
    captured = jit(fn, fullgraph=True).lower(*tensors(arrays))
    with np.errstate(all="raise"):
        return control.evaluate(captured.graph, [arrays[i] for i in captured.tensor_args])


def check_untaken_branch_does_not_run(case):
    """msjitd's kernels clamp indices and divide integers through floats, so a compiled faulting
    op would not fault: the proof is the evaluator's. With If nodes the untaken branch never runs;
    with both branches merged by Select (control.GRAPH_IFS off) the same inputs fault."""
    for arrays in case.inputs:
        want = case.fn(*numpy_args(arrays))
        np.testing.assert_array_equal(np.asarray(_evaluate(case.fn, arrays)[0]).reshape(np.shape(want)), want)
    control.GRAPH_IFS = False
    try:
        faults = 0
        for arrays in case.inputs:
            try:
                _evaluate(case.fn, arrays)
            except (IndexError, FloatingPointError):
                faults += 1
        assert faults >= 1, "no input faults when both branches run: the case proves nothing"
    finally:
        control.GRAPH_IFS = True


@pytest.mark.parametrize("case", [c for c in CF_CORPUS if kind(c) == "fault"], ids=lambda c: c.name)
def test_an_untaken_faulting_branch_does_not_run(case):
    """In a child process: a SIGFPE (integer division by zero) or a crash shows as a failure."""
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [here, os.path.dirname(here)] + [p for p in sys.path if p]
    code = _FAULT_CHILD.format(paths=paths, name=case.name)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=here)
    assert proc.returncode == 0 and f"ok {case.name}" in proc.stdout, (proc.returncode, proc.stdout, proc.stderr[-3000:])


@pytest.mark.parametrize("level", ["O0", "O1"])
def test_recursion_bounded_only_by_a_tensor_is_refused(level):
    """ast inlines calls, so a recursion that only a tensor value ends is refused at the recursive
    call (MindSpore 2.10's graph mode compiles it as a recursive graph: not supported here)."""
    case = next(c for c in CF_CORPUS if kind(c) == "refused")
    with pytest.raises(UnsupportedSyntaxError) as info:
        make_jit(case.fn, "ast", level)(Tensor(case.inputs[0][0]))
    assert info.value.lineno == line_of(case.notes["refused"]), str(info.value)
    bytecode = make_jit(case.fn, "bytecode", level)   # PIJit: the condition breaks the graph; Python recurses
    for x in (cf_corpus.pos(3), cf_corpus.neg(3)):
        np.testing.assert_allclose(bytecode(Tensor(x)).asnumpy(), case.fn(Tensor(x)).asnumpy(), rtol=1e-6)


@pytest.mark.parametrize("case, level", [pytest.param(c, level, id=f"{c.name}-{level}") for c in CF_CORPUS
                                          if kind(c) == "plain" for level in ("O0", "O1")])
def test_bytecode_fullgraph(case, level):
    """fullgraph=True: a tensor 'if' is one If node, a loop on tensor values one While node (one
    compile per guard key, results as eager and numpy); what bytecode cannot hold is refused."""
    jitted = jit(case.fn, capture_mode="bytecode", jit_level=level, fullgraph=True)
    if case.name in BYTECODE_STRICT_REFUSED:
        with pytest.raises(UnsupportedSyntaxError):
            jitted(*tensors(case.inputs[0]))
        assert jitted.stats.compiles == 0
        return
    for arrays in case.inputs:
        where = f"{case.name}[bytecode-fullgraph/{level}]{tuple(np.asarray(a).tolist() for a in arrays)}"
        got = plain_result(jitted(*tensors(arrays)))
        assert_results_close(got, plain_result(case.fn(*tensors(arrays))), f"{where} jit vs eager")
        assert_results_close(got, plain_result(reference(case)(*numpy_args(arrays))), f"{where} jit vs numpy",
                             exact_kinds=False)
    keys = len({guard_key(a) for a in case.inputs})
    assert (jitted.stats.captures, jitted.stats.compiles, jitted.stats.graph_breaks) == (keys, keys, 0), jitted.stats


@pytest.mark.parametrize("case, level", [pytest.param(c, level, id=f"{c.name}-{level}") for c in CF_CORPUS
                                          if kind(c) == "state" for level in ("O0", "O1")])
def test_bytecode_fullgraph_side_effects(case, level):
    """fullgraph=True: Parameter writes (ops.assign, Parameter attributes of Cells and jit_class
    objects) in a tensor 'if' or a tensor loop are the If's or While's outputs, assigned once per call."""
    jitted = jit(case.fn, capture_mode="bytecode", jit_level=level, fullgraph=True)
    if case.name in BYTECODE_STRICT_REFUSED:
        with pytest.raises(UnsupportedSyntaxError):
            jitted(case.notes["state"](), *tensors(case.inputs[0]))
        return
    run_stateful(case, jitted, "ast")   # (one graph: one capture and compile per guard key, as ast)
    assert jitted.stats.graph_breaks == 0


@pytest.mark.parametrize("case, level", [pytest.param(c, level, id=f"{c.name}-{level}") for c in CF_CORPUS
                                          if kind(c) == "grad" for level in ("O0", "O1")])
def test_bytecode_fullgraph_grads(case, level):
    """fullgraph=True: grad(jit(f)) and jit(grad(f)) through bytecode-captured If and While nodes vs
    central differences, in one graph."""
    outer_jit = jit(case.fn, capture_mode="bytecode", jit_level=level, fullgraph=True)
    inner = jit(grad(case.fn), capture_mode="bytecode", jit_level=level, fullgraph=True)
    for x, *extra in case.inputs:
        args = (Tensor(x), *map(Tensor, extra))
        where = f"{case.name}[bytecode-fullgraph/{level}]({x.tolist()}, {[np.asarray(e).tolist() for e in extra]})"
        _grad_check(case.fn, x, extra, grad(outer_jit)(*args), f"{where} grad(jit)")
        _grad_check(case.fn, x, extra, inner(*args), f"{where} jit(grad)")
    assert outer_jit.stats.graph_breaks == inner.stats.graph_breaks == 0


def test_corpus_size():
    assert len(CF_CORPUS) >= 60 and len({c.name for c in CF_CORPUS}) == len(CF_CORPUS)
    assert sum(kind(c) == "state" for c in CF_CORPUS) >= 10 and sum(kind(c) == "grad" for c in CF_CORPUS) >= 5


def chained_on_many_elements(x):
    return 0 < x < 1


def test_a_chained_comparison_of_a_multi_element_tensor_is_ambiguous_as_eagerly():
    x = Tensor(cf_corpus.pos(3))
    with pytest.raises(ValueError, match="truth value"):
        chained_on_many_elements(x)
    with pytest.raises(ValueError, match="truth value of a tensor with 3 elements is ambiguous"):
        jit(chained_on_many_elements, fullgraph=True)(x)



def untaken_endless_loop(x, n):
    if n > 0:
        y = x * 2.0
    else:
        y = endless_loop(x, n)
    return y


def endless_loop(x, n):
    i = x.sum() * 0.0
    while i < 1.0:     # never ends: i stays 0
        i = i * 1.0
    return x + i       # the loop's value is used, so no pass may drop the loop


_ENDLESS_CHILD = r"""
import sys, numpy as np
sys.path[:0] = {paths!r}
import test_cf_corpus as t
from msjit import Tensor, jit
x = np.arange(1.0, 4.0, dtype=np.float32)
for n in (1, 5):
    jitted = jit(getattr(t, {fn!r}), capture_mode="ast", jit_level={level!r}, fullgraph=True)
    got = jitted(Tensor(x), Tensor(np.int32(n))).asnumpy()
    np.testing.assert_array_equal(got, x * 2.0)
    assert jitted.stats.compiles == 1 and jitted.stats.fallbacks == 0, jitted.stats
print("ok")
"""


def _run_endless_child(fn, level, timeout):
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [here, os.path.dirname(here)] + [p for p in sys.path if p]
    code = _ENDLESS_CHILD.format(paths=paths, fn=fn, level=level)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, cwd=here)


@pytest.mark.parametrize("level", ["O0", "O1"])
def test_compiled_code_runs_only_the_branch_taken(level):
    """The compiled proof (msjitd's kernels do not fault, so a faulting op cannot show it): the
    untaken branch holds a tensor loop that never ends. If both branches ran, the call would
    never return; with an If node only the branch taken runs, in compiled code."""
    proc = _run_endless_child("untaken_endless_loop", level, timeout=120)
    assert proc.returncode == 0 and "ok" in proc.stdout, (proc.returncode, proc.stdout, proc.stderr[-3000:])


def test_the_endless_loop_does_not_return_when_it_runs():
    """The check above can fail: the same loop, compiled and run, does not return."""
    with pytest.raises(subprocess.TimeoutExpired):
        _run_endless_child("endless_loop", "O0", timeout=15)

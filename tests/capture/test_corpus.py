"""Runs the capture corpus (corpus.py) under every applicable capture_mode x jit_level x fullgraph
on the real daemon, and checks: the jitted result equals eager (and the numpy reference), one
compile per distinct guard key, and STRICT (fullgraph=True) raising UnsupportedSyntaxError exactly
where the corpus says, its message starting with the construct's file:line; LAX
(fullgraph=False) falling back to eager after exactly one JitFallbackWarning."""
import re
import warnings

import numpy as np
import pytest

import corpus
from corpus import CORPUS, HERE, NEG, POS, SAME, line_of
from msjit import Tensor, jit
from msjit.errors import JitFallbackWarning, UnsupportedSyntaxError
from support import assert_results_close, plain_result


@pytest.fixture(scope="module", autouse=True)
def _daemon(module_daemon_home):
    yield module_daemon_home


def make_jit(fn, mode, level, fullgraph):
    # trace only exists in decorator form (see test_trace_needs_decorator_form)
    return jit(capture_mode=mode, jit_level=level, fullgraph=fullgraph)(fn)


def tensors(arrays):
    return tuple(Tensor(a.copy()) if isinstance(a, np.ndarray) else a for a in arrays)


def numpy_args(arrays):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in arrays)


def guard_key(arrays):
    return tuple((a.dtype.str, a.shape) if isinstance(a, np.ndarray) else repr(a) for a in arrays)




def _check_against_eager(case, jitted, arrays, mode):
    where = f"{case.name}[{mode}]{tuple(np.asarray(a).tolist() for a in arrays)}"
    eager = case.fn(*tensors(arrays))
    got = jitted(*tensors(arrays))
    assert_results_close(plain_result(got), plain_result(eager), f"{where} jit vs eager")
    if case.ref is not None:
        ref = case.fn if case.ref == SAME else case.ref
        assert_results_close(plain_result(got), plain_result(ref(*numpy_args(arrays))), f"{where} jit vs numpy", exact_kinds=False)


PARAMS = [pytest.param(c, mode, level, fg, id=f"{c.name}-{mode}-{level}-{'strict' if fg else 'lax'}")
          for c in CORPUS for mode in c.modes() for level in ("O0", "O1") for fg in (True, False)]


@pytest.mark.parametrize("case, mode, level, fullgraph", PARAMS)
def test_corpus(case, mode, level, fullgraph):
    jitted = make_jit(case.fn, mode, level, fullgraph)
    marker = case.expected_error(mode, fullgraph)
    if marker is None:   # capturable: every input through the graph, one compile per guard key
        with warnings.catch_warnings():
            warnings.simplefilter("error", JitFallbackWarning)
            for arrays in case.inputs:
                _check_against_eager(case, jitted, arrays, mode)
        keys = {guard_key(a) for a in case.inputs}
        expected_compiles = len(keys) if case.compiles is None else case.compiles
        assert (jitted.stats.captures, jitted.stats.compiles, jitted.stats.fallbacks) == \
            (len(keys), expected_compiles, 0)
        return
    line = line_of(marker)
    if fullgraph:        # STRICT: the error, at the construct's file:line, for every input; nothing compiled
        what = case.expected_what(mode)
        for arrays in case.inputs:
            with pytest.raises(UnsupportedSyntaxError, match=f"^{re.escape(HERE)}:{line}: {what}") as info:
                jitted(*tensors(arrays))
            assert (info.value.filename, info.value.lineno) == (HERE, line)
            assert info.value.text.rstrip().endswith(f"# <{marker}>")
        assert (jitted.stats.compiles, jitted.stats.fallbacks) == (0, 0)
        return
    if mode == "bytecode":   # LAX: the graph breaks there (or the call has a side effect); eager answers
        with warnings.catch_warnings():
            warnings.simplefilter("error", JitFallbackWarning)
            for arrays in case.inputs:
                _check_against_eager(case, jitted, arrays, mode)
        assert jitted.stats.fallbacks == 0 and jitted.stats.graph_breaks + jitted.stats.resumed >= 1
        return
    # LAX: one JitFallbackWarning naming the same file:line, then eager answers (ast: the graph is
    # split around the construct)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for arrays in case.inputs:
            _check_against_eager(case, jitted, arrays, mode)
    fallbacks = [w for w in caught if issubclass(w.category, JitFallbackWarning)]
    assert len(fallbacks) == 1, [str(w.message) for w in fallbacks]
    assert str(fallbacks[0].message).startswith(f"{HERE}:{line}: ")
    assert (jitted.stats.captures, jitted.stats.fallbacks) == (0, 1)


def test_corpus_size():
    assert len(CORPUS) >= 60
    assert len({c.name for c in CORPUS}) == len(CORPUS)
    assert sum(c.error is not None for c in CORPUS) >= 10
    assert sum(c.trace_error is not None for c in CORPUS) >= 10


def test_trace_needs_decorator_form():
    with pytest.raises(ValueError, match="decorator form"):
        jit(corpus.add_mul, capture_mode="trace")


@pytest.mark.parametrize("level", ["O0", "O1"])
@pytest.mark.parametrize("mode", ["ast", "bytecode", "trace"])
def test_new_shapes_and_dtypes_recompile(mode, level):
    jitted = make_jit(corpus.tif_shape_condition, mode, level, True)
    for arrays, compiles in [((POS,), 1), ((NEG,), 1), ((corpus.X2,), 2), ((POS.astype(np.float64),), 3),
                             ((-corpus.X2,), 3), ((POS,), 3)]:
        _check_against_eager(corpus.CORPUS[12], jitted, arrays, mode)
        assert jitted.stats.compiles == compiles, (arrays, jitted.stats)


@pytest.fixture
def restore_globals():
    saved = corpus.SCALE, corpus.MODE
    yield
    corpus.SCALE, corpus.MODE = saved


@pytest.mark.parametrize("fullgraph", [True, False])
@pytest.mark.parametrize("level", ["O0", "O1"])
@pytest.mark.parametrize("mode", ["ast", "bytecode"])
def test_changed_globals_recompile(mode, level, fullgraph, restore_globals):
    scale = make_jit(corpus.global_scale, mode, level, fullgraph)
    picked = make_jit(corpus.global_mode, mode, level, fullgraph)
    x = Tensor(POS.copy())
    np.testing.assert_allclose(scale(x).asnumpy(), POS * 2.0 + 1.0)
    np.testing.assert_allclose(picked(x).asnumpy(), POS * 2.0)
    corpus.SCALE, corpus.MODE = -3.0, "shift"
    np.testing.assert_allclose(scale(x).asnumpy(), POS * -3.0 + 1.0)
    np.testing.assert_allclose(picked(x).asnumpy(), POS - 1.0)
    np.testing.assert_allclose(scale(x).asnumpy(), corpus.global_scale(x).asnumpy())
    assert scale.stats.compiles == 2 and picked.stats.compiles == 2
    np.testing.assert_allclose(scale(x).asnumpy(), POS * -3.0 + 1.0)   # unchanged: no third compile
    assert scale.stats.compiles == 2


@pytest.mark.parametrize("level", ["O0", "O1"])
def test_trace_freezes_globals_and_side_effects(level, restore_globals):
    """Documents what trace does today: control flow, globals and Python side effects are those of
    the first (tracing) call; nothing is guarded (compare test_changed_globals_recompile)."""
    scale = make_jit(corpus.global_scale, "trace", level, True)
    x = Tensor(POS.copy())
    np.testing.assert_allclose(scale(x).asnumpy(), POS * 2.0 + 1.0)
    corpus.SCALE = -3.0
    np.testing.assert_allclose(scale(x).asnumpy(), POS * 2.0 + 1.0)     # stale: the traced value
    assert scale.stats.compiles == 1
    before = corpus.COUNTER.calls
    counted = make_jit(corpus.attribute_write, "trace", level, True)
    for a in (POS, NEG, POS):
        np.testing.assert_allclose(counted(Tensor(a)).asnumpy(), a * 2.0)
    assert corpus.COUNTER.calls == before + 1     # the attribute write ran once, while tracing


def test_tensor_if_is_one_graph_with_an_if_node():
    jitted = make_jit(corpus.tif_simple, "ast", "O0", True)
    graph = jitted.lower(Tensor(POS)).graph
    ifs = [n for n in graph.nodes if n.op_type == "If"]   # (issue 12: one branch runs)
    assert len(ifs) == 1 and ifs[0].location == (HERE, line_of("tif_simple"))
    outs = [jitted(Tensor(a)).asnumpy() for a in (POS, NEG)]
    np.testing.assert_allclose(outs[0], POS * 2.0)
    np.testing.assert_allclose(outs[1], -NEG)
    assert jitted.stats.compiles == 1


def test_trace_error_has_source_text():
    jitted = make_jit(corpus.tif_simple, "trace", "O0", True)
    with pytest.raises(UnsupportedSyntaxError) as info:
        jitted(Tensor(POS))
    assert info.value.lineno == line_of("tif_simple")
    assert info.value.text is not None and info.value.text.rstrip().endswith("# <tif_simple>")

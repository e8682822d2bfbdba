"""The jit / JitConfig surface: argument validation, decorator and function forms, the
mindspore alias, and calls that need no compilation."""
import numpy as np
import pytest

import msjit
from msjit import JitConfig, Tensor, jit
from msjit.config import CompileConfig
from msjit.jit import JitFunction


def f(a, b, c):
    """Doc of f."""
    return a * b + c


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(capture_mode="graph"), "capture_mode must be one of 'ast', 'bytecode', 'trace'; got 'graph'"),
    (dict(capture_mode="AST"), "capture_mode must be one of 'ast', 'bytecode', 'trace'"),
    (dict(jit_level="O2"), "jit_level must be one of 'O0', 'O1'; got 'O2'"),
    (dict(jit_level=0), "jit_level must be one of 'O0', 'O1'; got 0"),
    (dict(backend="cpu"), "backend must be one of '', 'ms_backend', 'GE'; got 'cpu'"),
    (dict(fullgraph="yes"), "fullgraph must be one of True, False"),
    (dict(dynamic=1), "dynamic must be one of True, False"),
    (dict(exec_order="random"), "option 'exec_order' must be one of 'bfs', 'dfs'; got 'random'"),
    (dict(infer_boost=True), "option 'infer_boost' must be one of 'on', 'off'; got True"),
    (dict(disable_format_transform="no"), "option 'disable_format_transform' must be one of True, False"),
    (dict(ge_options=[1]), "option 'ge_options' must be a dict with keys 'global' and/or 'session'"),
    (dict(ge_options={"device": {}}), "ge_options key must be one of 'global', 'session'; got 'device'"),
    (dict(ge_options={"global": 3}), r"ge_options\['global'\] must be a dict"),
    (dict(mode="XJit"), "jit: mode must be one of 'PSJit', 'PIJit'; got 'XJit'"),
])
@pytest.mark.parametrize("form", ["function", "decorator"])
def test_invalid_arguments_name_the_valid_values(kwargs, pattern, form):
    with pytest.raises(ValueError, match=pattern):
        jit(f, **kwargs) if form == "function" else jit(**kwargs)


def test_unknown_options_are_ignored_with_a_warning_naming_them(caplog):
    """MindSpore 2.10 passes options it does not know to its backend; programs write them."""
    with caplog.at_level("WARNING", logger="msjit"):
        jitted = jit(f, opt_level=3, exec_order="dfs")
    assert jitted.config.options == {"exec_order": "dfs"}
    assert "ignoring option(s) 'opt_level'" in caplog.text and "'exec_order'" in caplog.text


@pytest.mark.parametrize("mode, capture", [("PSJit", "ast"), ("PIJit", "bytecode")])
def test_legacy_mode_picks_the_capture_mode(mode, capture, module_daemon_home):
    assert jit(f, mode=mode).config.capture_mode == capture
    assert jit(f, mode=mode, capture_mode="bytecode").config.capture_mode == "bytecode"   # explicit wins
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    jitted = jit(mode=mode, fullgraph=True)(f)
    np.testing.assert_array_equal(jitted(x, x, x).asnumpy(), f(x, x, x).asnumpy())
    assert jitted.stats.compiles == 1


@pytest.mark.parametrize("kwargs", [
    {}, dict(capture_mode="bytecode", jit_level="O1"), dict(backend="GE", fullgraph=True),
    dict(backend="ms_backend", dynamic=True), dict(exec_order="dfs", infer_boost="on", disable_format_transform=True),
    dict(ge_options={"global": {"a": "1"}, "session": {}}),
])
def test_valid_arguments_are_accepted(kwargs):
    jitted = jit(f, **kwargs)
    assert isinstance(jitted, JitFunction)
    for key, value in kwargs.items():
        got = getattr(jitted.config, key, None)
        assert (got if got is not None else jitted.config.options[key]) == value


def test_trace_only_in_decorator_form():
    with pytest.raises(ValueError, match="capture_mode='trace' is only supported in decorator form"):
        jit(f, capture_mode="trace")
    with pytest.raises(ValueError, match="decorator form"):
        jit(function=f, capture_mode="trace", jit_level="O1")
    jitted = jit(capture_mode="trace", jit_level="O1")(f)
    assert jitted.config.capture_mode == "trace" and jitted.config.jit_level == "O1"


def test_decorator_forms_keep_the_function_identity():
    @jit
    def g(x):
        """Doc of g."""
        return x

    @jit(fullgraph=True)
    def h(x):
        return x

    assert isinstance(g, JitFunction) and g.__name__ == "g" and g.__doc__ == "Doc of g."
    assert h.config.fullgraph is True and h.__wrapped__.__name__ == "h"
    assert jit(function=f).__doc__ == "Doc of f."


def test_jit_rejects_non_callables():
    with pytest.raises(TypeError, match="expected a function"):
        jit(3)


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(jit_level="O3"), "JitConfig: jit_level must be one of 'O0', 'O1', 'O2'; got 'O3'"),
    (dict(exc_mode="always"), "JitConfig: exc_mode must be one of 'auto', 'sink', 'no_sink'"),
    (dict(jit_syntax_level="strict"), "JitConfig: jit_syntax_level must be one of '', 'STRICT', 'COMPATIBLE', 'LAX'"),
    (dict(exec_order="x"), "JitConfig: option 'exec_order' must be one of 'bfs', 'dfs'"),
    (dict(unknown=1), "JitConfig: unknown option 'unknown'"),
])
def test_jitconfig_validation(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        JitConfig(**kwargs)


@pytest.mark.parametrize("kwargs, expected", [
    ({}, dict(jit_level="O1", backend="", fullgraph=False)),
    (dict(jit_level="O2", exc_mode="sink", jit_syntax_level="STRICT"), dict(jit_level="O2", backend="GE", fullgraph=True)),
    (dict(exc_mode="no_sink", jit_syntax_level="LAX", infer_boost="on"),
     dict(backend="ms_backend", fullgraph=False, options={"infer_boost": "on"})),
])
def test_jitconfig_maps_to_compile_config(kwargs, expected):
    jc = JitConfig(**kwargs)
    assert jc.jit_config_dict["jit_level"] == kwargs.get("jit_level", "O1")
    config = jc.to_config()
    for key, value in expected.items():
        assert getattr(config, key) == value


def test_compile_options_proto():
    proto = CompileConfig.for_jit("ast", "O1", False, False, "", dict(exec_order="dfs")).to_proto()
    assert (proto.jit_level, proto.backend, proto.exec_order, proto.infer_boost) == ("O1", "ms_backend", "dfs", "off")
    assert CompileConfig.for_jit("ast", "O0", False, False, "GE", {}).to_proto().backend == "GE"


def test_mindspore_alias_surface():
    import mindspore
    import mindspore.ops as ops_alias
    from mindspore import Tensor as T, jit as j, ops
    # mindspore.ops is a module of its own (it has MindSpore's submodules) over msjit's very objects
    assert ops_alias is ops and ops.add is msjit.ops.add and T is Tensor and j is jit
    assert mindspore.float32 is msjit.float32 and mindspore.JitConfig is JitConfig
    assert mindspore.jit(f).fn is f
    x = mindspore.Tensor(np.ones((2, 3)), mindspore.float32)
    assert (ops.add(x, x).asnumpy() == 2).all()


def test_functions_without_tensor_results_need_no_daemon(no_daemon):
    @jit(fullgraph=True)
    def ident(x, k):
        y = x * 2.0   # computed but not returned: nothing to compile
        return x, k + 1, y.shape

    x = Tensor(np.ones(3, np.float32))
    out = ident(x, 1)
    assert out[0] is x and out[1] == 2 and out[2] == (3,)
    assert ident.stats.captures == 1 and ident.stats.compiles == 0
    ident(x, 1)
    assert ident.stats.captures == 1           # cached under the same guard key
    ident(x, 2)
    assert ident.stats.captures == 2           # a new constant is a new guard key


def test_unreachable_daemon_is_reported(no_daemon):
    def double(x):
        return x * 2.0
    with pytest.raises(msjit.DaemonUnavailableError, match="unix:///nonexistent/msjit-test.sock"):
        jit(double, fullgraph=True)(Tensor(np.ones(2, np.float32)))
    # Under LAX without fullgraph the call runs eagerly, with a warning naming the address.
    with pytest.warns(msjit.JitFallbackWarning, match="unix:///nonexistent/msjit-test.sock"):
        out = jit(double)(Tensor(np.ones(2, np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), [2.0, 2.0])


@pytest.mark.parametrize("bad", [np.ones(2), {"k": [1]}, {1, 2}])
def test_unsupported_argument_kinds(bad, no_daemon):
    @jit
    def g(x, y):
        return x
    x = Tensor(np.ones(2, np.float32))
    if isinstance(bad, dict):
        g(x, bad)  # a dict of constants is a fine constant argument
        return
    with pytest.raises(TypeError, match="jit: "):
        g(x, bad)


def weighted_sum(pair, scales, *, extra=None, bias=0.0):
    total = pair[0] * scales["a"] + pair[1] * scales["b"]
    return total + extra + bias if extra is not None else total + bias


@pytest.mark.parametrize("mode", ["ast", "bytecode"])
def test_tensors_in_containers_and_keywords_are_graph_inputs(mode, module_daemon_home):
    """Tensors inside tuples, lists and dicts, or passed by keyword, are graph inputs like positional
    ones: new values reuse the compiled graph; the containers' other contents are guarded constants."""
    rng = np.random.default_rng(5)
    t = [Tensor(rng.standard_normal(3).astype(np.float32)) for _ in range(4)]
    jitted = jit(weighted_sum, capture_mode=mode, fullgraph=True)
    for k in range(3):
        args = ((t[0] * k, t[1]), {"a": 2.0, "b": t[2]})
        got = jitted(*args, extra=t[3], bias=1.0)
        np.testing.assert_allclose(got.asnumpy(), weighted_sum(*args, extra=t[3], bias=1.0).asnumpy(), rtol=1e-6)
    assert jitted.stats.compiles == 1
    jitted((t[0], t[1]), {"a": 3.0, "b": t[2]}, extra=t[3], bias=1.0)   # another constant: another graph
    assert jitted.stats.compiles == 2


def apply_first(pair):
    return pair[0](pair[1])


def test_a_cell_inside_a_container_argument_is_guarded(module_daemon_home):
    """A Cell passed inside a tuple with a Tensor is a constant keyed by its guard: switching it to
    training recompiles instead of serving the evaluation graph."""
    bn = msjit.nn.BatchNorm2d(2)
    x = Tensor(np.random.default_rng(2).standard_normal((3, 2, 2, 2)).astype(np.float32))
    jitted = jit(apply_first)
    np.testing.assert_allclose(jitted((bn, x)).asnumpy(), bn(x).asnumpy(), rtol=1e-5, atol=1e-6)
    bn.set_train()
    want = (x.asnumpy() - x.asnumpy().mean((0, 2, 3), keepdims=True)) / np.sqrt(
        x.asnumpy().var((0, 2, 3), keepdims=True) + bn.eps)
    np.testing.assert_allclose(jitted((bn, x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    assert jitted.stats.compiles == 2

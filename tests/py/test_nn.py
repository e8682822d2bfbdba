"""nn.Cell, Parameter and the execution modes: registration, Parameters as graph inputs by
reference, BatchNorm statistics written back from a compiled graph, GRAPH_MODE and PYNATIVE_MODE,
bad input errors eagerly and compiled alike."""
import warnings

import numpy as np
import pytest

import mindspore as ms
import msjit
from msjit import JitConfig, Parameter, Tensor, context, jit, nn, ops
from msjit.capture.ast import capture_ast
from msjit.errors import JitFallbackWarning
from msjit import serialize

import nn_ref as R


@pytest.fixture(autouse=True)
def pynative_after():
    yield
    msjit.set_context(mode=msjit.PYNATIVE_MODE, jit_syntax_level=msjit.LAX, jit_config=None)


@pytest.fixture
def graph_mode(module_daemon_home):
    pytest.importorskip("msjit._msjit_rt")
    msjit.set_context(mode=msjit.GRAPH_MODE)


def f32(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


class Scale(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")
        self.mul = ops.Mul()

    def construct(self, x):
        return self.mul(x, self.w) + 1.0


class Block(nn.Cell):
    def __init__(self, c=3):
        super().__init__()
        self.conv = nn.Conv2d(c, 4, 3, has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.head = nn.SequentialCell([nn.Flatten(), nn.Dense(4 * 5 * 5, 6, activation="relu")])

    def construct(self, x):
        return self.head(self.relu(self.bn(self.conv(x))))


def block_ref(net, x, training=False):
    y = R.conv2d(x, net.conv.weight.asnumpy(), pad=(1, 1, 1, 1)) + net.conv.bias.asnumpy().reshape(1, -1, 1, 1)
    mean, var = R.batch_stats(y) if training else (net.bn.moving_mean.asnumpy(), net.bn.moving_variance.asnumpy())
    y = np.maximum(R.batch_norm(y, mean, var, net.bn.gamma.asnumpy(), net.bn.beta.asnumpy(), 1e-5), 0)
    d = net.head[1]
    return np.maximum(y.reshape(len(x), -1) @ d.weight.asnumpy().T + d.bias.asnumpy(), 0)


# ---- registration ----------------------------------------------------------------------------
def test_parameters_and_names_and_training_flags():
    net = Block()
    names = [n for n, _ in net.parameters_and_names()]
    assert names == ["conv.weight", "conv.bias", "bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta",
                     "head.1.weight", "head.1.bias"]   # MindSpore's order: BatchNorm's moving stats first
    assert len(net.trainable_params()) == 6 and len(list(net.get_parameters())) == 8
    assert [n for n, _ in net.cells_and_names()][:3] == ["", "conv", "bn"]
    assert not net.training and not net.bn.training
    assert net.set_train() is net and net.bn.training and net.head[1].training
    net.set_train(False)
    assert not net.head[0].training
    assert net.conv.weight.shape == (4, 3, 3, 3) and net.conv.weight.name == "conv.weight"


def test_parameter_set_data_keeps_shape_and_array():
    p = Parameter(Tensor(np.ones((2, 2), np.float32)), name="p")
    array = p.asnumpy()
    p.set_data(Tensor(np.full((2, 2), 3, np.int32)))      # cast into float32
    assert p.asnumpy() is array and p.dtype is msjit.float32 and float(p.asnumpy()[0, 0]) == 3.0
    with pytest.raises(ValueError, match=r"shape.*\(2, 2\).*\(3,\)"):
        p.set_data(Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="Float64"):
        p.set_data(Tensor(np.ones((2, 2), np.float64)))
    assert isinstance(p, Tensor) and p.requires_grad


def test_initializers_and_defaults():
    msjit.set_seed(3)
    conv = nn.Conv2d(2, 4, 3, weight_init="normal", has_bias=True, bias_init="zeros")
    assert abs(float(conv.weight.asnumpy().std()) - 0.01) < 0.005 and not conv.bias.asnumpy().any()
    dense = nn.Dense(10, 3)
    bound = np.sqrt(6 / ((1 + 5) * 10))      # HeUniform(sqrt(5)): gain sqrt(2 / 6), fan_in 10
    assert np.abs(dense.weight.asnumpy()).max() <= bound and dense.bias.shape == (3,)
    assert (nn.Conv2d(1, 1, 1, weight_init="ones").weight.asnumpy() == 1).all()


# ---- eager cells -----------------------------------------------------------------------------
def test_eager_block_matches_numpy_in_inference_and_training():
    net, x = Block(), f32(2, 3, 5, 5)
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), block_ref(net, x), rtol=1e-4, atol=1e-5)
    net.set_train()
    before = net.bn.moving_mean.asnumpy().copy()
    out = net(Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), block_ref(net, x, training=True), rtol=1e-4, atol=1e-4)
    y = R.conv2d(x, net.conv.weight.asnumpy(), pad=(1, 1, 1, 1)) + net.conv.bias.asnumpy().reshape(1, -1, 1, 1)
    np.testing.assert_allclose(net.bn.moving_mean.asnumpy(), before * 0.9 + R.batch_stats(y)[0] * 0.1, rtol=1e-5, atol=1e-6)


def test_dropout_embedding_and_activations():
    drop, x = nn.Dropout(p=0.5), Tensor(np.ones((200, 50), np.float32))
    assert drop(x) is x or (drop(x).asnumpy() == 1).all()
    drop.set_train()
    y = drop(x).asnumpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 0.4 < (y == 0).mean() < 0.6
    emb = nn.Embedding(7, 3)
    ids = np.array([[6, 0], [2, 2]], np.int32)
    np.testing.assert_array_equal(emb(Tensor(ids)).asnumpy(), emb.embedding_table.asnumpy()[ids])
    np.testing.assert_allclose(nn.Softmax()(Tensor(f32(2, 4))).asnumpy(), R.softmax(f32(2, 4)), rtol=1e-6)


@pytest.mark.parametrize("bad, exc, pattern", [
    (np.ones((2, 5, 5, 5), np.float32), ValueError, r"Conv2D: .*shape \(2, 5, 5, 5\).*\(4, 3, 3, 3\)"),
    (np.ones((3, 5, 5), np.float32), ValueError, r"Conv2D: expected a 4-D input.*\(3, 5, 5\)"),
    (np.ones((2, 3, 5, 5), np.float64), TypeError, "Conv2D: expected float32 operands, got Float64"),
    (np.ones((2, 3, 4, 4), np.float32), ValueError, r"Dense: input of shape \(2, 64\).*\(6, 100\)"),
])
@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_bad_input_names_op_and_shapes(request, mode, bad, exc, pattern):
    if mode == "graph":
        request.getfixturevalue("graph_mode")
    with pytest.raises(exc, match=pattern):
        Block()(Tensor(bad))


# ---- Parameters in graphs --------------------------------------------------------------------
def test_parameter_is_a_graph_parameter_not_a_constant():
    net = Scale()
    captured = capture_ast(net.construct, [Tensor(f32(3, 2))])
    model = serialize.to_model(captured.graph)
    assert [p.name for p in model.graph.parameter] == ["param0"] and list(model.graph.parameter[0].dims) == [2]
    assert "param0" in [i for n in model.graph.node for i in n.input]
    assert all(n.op_type != "Constant" or list(n.attribute[0].t.dims) == [] for n in model.graph.node)
    assert captured.parameters == (net.w,)


def test_infer_boost_folds_parameters():
    net = Scale()
    captured = capture_ast(net.construct, [Tensor(f32(3, 2))], fold_parameters=True)
    assert not captured.graph.parameters and captured.folded == ((net.w, 0),)


def test_parameter_update_seen_without_recompiling(graph_mode):
    net, x = Scale(), Tensor(f32(3, 2))
    np.testing.assert_allclose(net(x).asnumpy(), x.asnumpy() * [2, 3] + 1, rtol=1e-6)
    for k in range(3):
        net.w.set_data(Tensor(np.array([k, -k], np.float32)))
        np.testing.assert_allclose(net(x).asnumpy(), x.asnumpy() * [k, -k] + 1, rtol=1e-6)
    net.w.asnumpy()[:] = 5.0                          # in place
    np.testing.assert_allclose(net(x).asnumpy(), x.asnumpy() * 5 + 1, rtol=1e-6)
    jitted = net._graph[1]
    assert (jitted.stats.captures, jitted.stats.compiles) == (1, 1)


def test_infer_boost_recompiles_after_set_data(module_daemon_home):
    pytest.importorskip("msjit._msjit_rt")
    net, x = Scale(), Tensor(f32(3, 2))
    f = jit(net.construct, infer_boost="on")
    np.testing.assert_allclose(f(x).asnumpy(), x.asnumpy() * [2, 3] + 1, rtol=1e-6)
    f(x)
    net.w.set_data(Tensor(np.array([1.0, 1.0], np.float32)))
    np.testing.assert_allclose(f(x).asnumpy(), x.asnumpy() + 1, rtol=1e-6)
    assert f.stats.captures == 2


def test_graph_mode_block_is_one_graph_matching_eager(graph_mode):
    net, x = Block(), Tensor(f32(2, 3, 5, 5))
    out = net(x)
    jitted = net._graph[1]
    graph = jitted.lower(x).graph
    assert {"Conv2D", "Rsqrt", "MatMul", "ReLU"} <= {n.op_type for n in graph.nodes}
    assert len(graph.parameters) == 8
    np.testing.assert_allclose(out.asnumpy(), block_ref(net, x.asnumpy()), rtol=1e-4, atol=1e-5)
    net(x)
    assert jitted.stats.compiles == 1


def test_graph_mode_batchnorm_training_writes_statistics_back(graph_mode):
    msjit.set_seed(0)
    net, x = Block(), f32(4, 3, 5, 5)
    twin = Block()
    for (_, p), (_, q) in zip(net.parameters_and_names(), twin.parameters_and_names()):
        q.set_data(p)
    net.set_train()
    twin.set_train()
    for step in range(2):
        out = net(Tensor(x + step))
        msjit.set_context(mode=msjit.PYNATIVE_MODE)
        ref = twin(Tensor(x + step))
        msjit.set_context(mode=msjit.GRAPH_MODE)
        np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), rtol=1e-4, atol=1e-5)
        for p, q in ((net.bn.moving_mean, twin.bn.moving_mean), (net.bn.moving_variance, twin.bn.moving_variance)):
            np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6)
    assert not np.allclose(net.bn.moving_mean.asnumpy(), 0)
    assert net._graph[1].stats.compiles == 1


def test_set_train_recompiles(graph_mode):
    net, x = Block(), Tensor(f32(2, 3, 5, 5))
    inference = net(x)
    net.set_train()
    training = net(x)
    assert not np.allclose(inference.asnumpy(), training.asnumpy())
    net.set_train(False)
    np.testing.assert_allclose(net(x).asnumpy(), block_ref(net, x.asnumpy()), rtol=1e-4, atol=1e-5)


def test_graph_mode_dropout_training_falls_back_to_eager(graph_mode):
    net = nn.SequentialCell(nn.Dense(4, 4), nn.Dropout(p=0.5))
    net.set_train()
    with pytest.warns(JitFallbackWarning, match="dropout in training mode"):
        out = net(Tensor(f32(3, 4)))
    assert out.shape == (3, 4)


def test_strict_jit_config_raises_for_fallback(graph_mode):
    net = nn.SequentialCell(nn.Dropout(p=0.5))
    net.set_train()
    net.set_jit_config(JitConfig(jit_syntax_level="STRICT"))
    with pytest.raises(msjit.UnsupportedSyntaxError, match="dropout"):
        net(Tensor(f32(3, 4)))


def test_pynative_jit_construct_compiles_only_that_cell(module_daemon_home):
    pytest.importorskip("msjit._msjit_rt")

    class Inner(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(Tensor(np.float32(3.0)))

        @jit
        def construct(self, x):
            return x * self.p

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def construct(self, x):
            return self.inner(x) + 1.0

    net, x = Outer(), Tensor(f32(2, 2))
    np.testing.assert_allclose(net(x).asnumpy(), x.asnumpy() * 3 + 1, rtol=1e-6)
    net.inner.p.set_data(Tensor(np.float32(-1.0)))
    np.testing.assert_allclose(net(x).asnumpy(), 1 - x.asnumpy(), rtol=1e-6)
    stats = type(net.inner).__dict__["construct"].stats
    assert (stats.captures, stats.compiles) == (1, 1)


def test_trace_capture_inlines_cells_and_reads_parameters(module_daemon_home):
    pytest.importorskip("msjit._msjit_rt")
    net = Scale()

    @jit(capture_mode="trace")
    def f(x):
        return net(x) * 2.0

    x = Tensor(f32(3, 2))
    np.testing.assert_allclose(f(x).asnumpy(), (x.asnumpy() * [2, 3] + 1) * 2, rtol=1e-6)
    net.w.set_data(Tensor(np.array([0.0, 1.0], np.float32)))
    np.testing.assert_allclose(f(x).asnumpy(), (x.asnumpy() * [0, 1] + 1) * 2, rtol=1e-6)


# ---- context ---------------------------------------------------------------------------------
def test_context_values_and_validation():
    assert (ms.GRAPH_MODE, ms.PYNATIVE_MODE) == (0, 1) and ms.get_context("mode") == ms.PYNATIVE_MODE
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU", jit_syntax_level=ms.STRICT)
    assert ms.get_context("mode") == 0 and context.is_graph_mode()
    for bad, pattern in [(dict(mode=3), "mode must be"), (dict(device_target="GPU"), "not available"),
                         (dict(no_such_key=1), "unknown key 'no_such_key'"),
                         (dict(jit_syntax_level="fast"), "jit_syntax_level")]:
        with pytest.raises(ValueError, match=pattern):
            ms.set_context(**bad)
    assert ms.get_context("device_target") == "CPU"


def test_cell_compile_config_follows_jit_config_and_context():
    net = Scale()
    assert net.compile_config().jit_level == "O0" and not net.compile_config().fullgraph
    ms.set_context(jit_syntax_level=ms.STRICT, jit_config={"jit_level": "O1"})
    assert net.compile_config().fullgraph and net.compile_config().jit_level == "O1"
    net.set_jit_config(JitConfig(jit_level="O0", jit_syntax_level="LAX"))
    assert not net.compile_config().fullgraph and net.compile_config().jit_level == "O0"


def test_primitive_class_instances_are_captured_as_ops():
    def f(x, y):
        return ops.MatMul(transpose_b=True)(x, y) + ops.Softmax()(x @ ops.Transpose()(y, (1, 0)))
    captured = capture_ast(f, [Tensor(f32(2, 3)), Tensor(f32(4, 3))])
    kinds = [n.op_type for n in captured.graph.nodes]
    assert "MatMul" in kinds and "ReduceMax" in kinds and "Transpose" in kinds
    assert captured.graph.nodes[0].attrs == {"transpose_b": True}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        repr(ops.BatchMatMul(False, True))

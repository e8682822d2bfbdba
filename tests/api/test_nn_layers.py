"""nn layers (Dense, convolutions, normalizations, pools, activations, Embedding, ...) against
numpy on random shapes, eager and under jit (ast/bytecode/trace), gradients with respect to the
input against finite differences; containers and the Cell API (MindSpore's parameter names)."""
from collections import OrderedDict

import numpy as np
import pytest

import msjit as ms
from msjit import Parameter, Tensor, nn
from harness import array, as_input, check_api, seeded, shape

pytestmark = pytest.mark.usefixtures("module_daemon_home")


def w(p):
    return p.asnumpy().astype(np.float64)


# ---- activation Cells: (Cell, constructor kwargs, numpy reference) ---------------------------
SELU = (1.6732632423543772, 1.0507009873554805)
ACTIVATION_CELLS = {
    "ReLU": ({}, lambda x: np.maximum(x, 0)),
    "ReLU6": ({}, lambda x: np.clip(x, 0, 6)),
    "LeakyReLU": ({"alpha": 0.1}, lambda x: np.where(x > 0, x, 0.1 * x)),
    "ELU": ({}, lambda x: np.where(x > 0, x, np.expm1(x))),
    "CELU": ({"alpha": 2.0}, lambda x: np.where(x > 0, x, 2.0 * np.expm1(x / 2.0))),
    "SeLU": ({}, lambda x: SELU[1] * np.where(x > 0, x, SELU[0] * np.expm1(x))),
    "GELU": ({}, lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    "SiLU": ({}, lambda x: x / (1 + np.exp(-x))),
    "Sigmoid": ({}, lambda x: 1 / (1 + np.exp(-x))),
    "Tanh": ({}, np.tanh),
    "Softmax": ({"axis": 0}, lambda x: np.exp(x) / np.exp(x).sum(0, keepdims=True)),
    "LogSoftmax": ({}, lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True))),
    "Softplus": ({}, lambda x: np.log1p(np.exp(x))),
    "HSwish": ({}, lambda x: x * np.clip(x / 6 + 0.5, 0, 1)),
    "HSigmoid": ({}, lambda x: np.clip(x / 6 + 0.5, 0, 1)),
    "Mish": ({}, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    "Softsign": ({}, lambda x: x / (1 + np.abs(x))),
    "LogSigmoid": ({}, lambda x: -np.log1p(np.exp(-x))),
    "Hardtanh": ({"min_val": -0.5, "max_val": 0.7}, lambda x: np.clip(x, -0.5, 0.7)),
    "Softmin": ({}, lambda x: np.exp(-x) / np.exp(-x).sum(-1, keepdims=True)),
    "SoftShrink": ({"lambd": 0.3}, lambda x: np.where(x > 0.3, x - 0.3, np.where(x < -0.3, x + 0.3, 0))),
    "HShrink": ({}, lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    "Tanhshrink": ({}, lambda x: x - np.tanh(x)),
    "Threshold": ({"threshold": 0.2, "value": 5.0}, lambda x: np.where(x > 0.2, x, 5.0)),
    "GLU": ({"axis": 0}, lambda x: x[:len(x) // 2] / (1 + np.exp(-x[len(x) // 2:]))),
}


@pytest.mark.parametrize("name", sorted(ACTIVATION_CELLS))
def test_activation_cell(name):
    kwargs, ref = ACTIVATION_CELLS[name]
    rng = seeded(name)
    x = array(rng, (4,) + shape(rng, 2) if name == "GLU" else shape(rng), low=-4, high=4)
    check_api(getattr(nn, name)(**kwargs), [x], as_input(ref), grad=True, rtol=1e-4, atol=1e-5)


def test_get_activation_and_prelu():
    assert isinstance(nn.get_activation("relu6"), nn.ReLU6) and nn.get_activation(None) is None
    with pytest.raises(KeyError, match="swish"):
        nn.get_activation("swish")
    prelu = nn.PReLU(3, 0.3)
    assert [n for n, _ in prelu.parameters_and_names()] == ["w"] and prelu.w.shape == (3,)
    rng = seeded("prelu")
    x = array(rng, (2, 3, 4))
    check_api(prelu, [x], as_input(lambda x: np.where(x > 0, x, 0.3 * x)), grad=True)


# ---- numpy references of the layers --------------------------------------------------------
def conv2d_ref(x, weight, bias, stride, pad):
    """NCHW cross-correlation with explicit (top, bottom, left, right) padding."""
    x = np.pad(x, ((0, 0), (0, 0), pad[:2], pad[2:]))
    o, _, kh, kw = weight.shape
    oh, ow = (x.shape[2] - kh) // stride[0] + 1, (x.shape[3] - kw) // stride[1] + 1
    out = np.zeros((x.shape[0], o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, weight)
    return out if bias is None else out + bias.reshape(1, -1, 1, 1)


def same_pad(n, k, s):
    total = max((-(-n // s) - 1) * s + k - n, 0)
    return total // 2, total - total // 2


def batch_norm_ref(x, mean, var, gamma, beta, eps):
    view = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(view)) / np.sqrt(var.reshape(view) + eps) * gamma.reshape(view) + beta.reshape(view)


def pool2d_ref(x, k, s, pad, reduce, fill):
    x = np.pad(x, ((0, 0), (0, 0), pad[:2], pad[2:]), constant_values=fill)
    oh, ow = (x.shape[2] - k[0]) // s[0] + 1, (x.shape[3] - k[1]) // s[1] + 1
    return np.stack([np.stack([reduce(x[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]], (2, 3))
                               for j in range(ow)], -1) for i in range(oh)], -2)


def test_dense():
    rng = seeded("dense")
    net = nn.Dense(4, 3, activation="relu")
    assert [n for n, _ in net.parameters_and_names()] == ["weight", "bias"] and net.weight.shape == (3, 4)
    bound = 1 / np.sqrt(4)   # MindSpore's default initializers: HeUniform(sqrt 5) weight, Uniform(1/sqrt(in)) bias
    assert np.abs(net.weight.asnumpy()).max() <= bound + 1e-6 and np.abs(net.bias.asnumpy()).max() <= bound + 1e-6
    x = array(rng, shape(rng, 3)[:2] + (4,))
    check_api(net, [x], as_input(lambda x: np.maximum(x @ w(net.weight).T + w(net.bias), 0)), grad=True)
    plain = nn.Dense(5, 2, has_bias=False)
    assert plain.bias is None and [n for n, _ in plain.parameters_and_names()] == ["weight"]
    check_api(plain, [array(rng, (5,))], as_input(lambda x: w(plain.weight) @ x), grad=True)


@pytest.mark.parametrize("pad_mode, padding, stride", [("same", 0, 1), ("valid", 0, 2), ("pad", 1, 1)])
def test_conv2d(pad_mode, padding, stride):
    rng = seeded("conv2d" + pad_mode)
    net = nn.Conv2d(3, 4, 3, stride=stride, pad_mode=pad_mode, padding=padding, has_bias=True)
    x = array(rng, (2, 3) + shape(rng, 2, 3, 6))
    pad = {"same": same_pad(x.shape[2], 3, stride) + same_pad(x.shape[3], 3, stride), "valid": (0,) * 4,
           "pad": (1,) * 4}[pad_mode]
    check_api(net, [x], as_input(lambda x: conv2d_ref(x, w(net.weight), w(net.bias), (stride, stride), pad)),
              rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("pad_mode", ["same", "valid", "pad"])
def test_conv1d(pad_mode):
    rng = seeded("conv1d" + pad_mode)
    padding = 2 if pad_mode == "pad" else 0
    net = nn.Conv1d(2, 3, 3, stride=2, pad_mode=pad_mode, padding=padding, has_bias=True)
    assert net.weight.shape == (3, 2, 1, 3) and [n for n, _ in net.parameters_and_names()] == ["weight", "bias"]
    x = array(rng, (2, 2, int(rng.integers(5, 9))))
    pad = {"same": same_pad(x.shape[2], 3, 2), "valid": (0, 0), "pad": (2, 2)}[pad_mode]

    def ref(x):
        return conv2d_ref(x[:, :, None], w(net.weight), w(net.bias), (1, 2), (0, 0) + pad)[:, :, 0]
    check_api(net, [x], as_input(ref), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="3-D"):
        net(Tensor(x[0]))


def conv_transpose_ref(x, weight, bias, stride, top_left, out_size):
    """Scatter each input pixel times the kernel into the full output, then crop at ``top_left``."""
    n, _, h, wd = x.shape
    _, o, kh, kw = weight.shape
    full = np.zeros((n, o, (h - 1) * stride + kh, (wd - 1) * stride + kw))
    for i in range(h):
        for j in range(wd):
            full[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw] += np.einsum(
                "nc,cohw->nohw", x[:, :, i, j], weight)
    t, l = top_left
    return full[:, :, t:t + out_size[0], l:l + out_size[1]] + bias.reshape(1, -1, 1, 1)


@pytest.mark.parametrize("pad_mode, padding", [("same", 0), ("valid", 0), ("pad", 1)])
def test_conv2d_transpose(pad_mode, padding):
    rng = seeded("transpose" + pad_mode)
    net = nn.Conv2dTranspose(3, 2, 3, stride=2, pad_mode=pad_mode, padding=padding, has_bias=True)
    assert net.weight.shape == (3, 2, 3, 3)
    x = array(rng, (2, 3) + shape(rng, 2, 2, 4))
    h, wd = x.shape[2:]
    size = {"same": (2 * h, 2 * wd), "valid": (2 * h + 1, 2 * wd + 1), "pad": (2 * h - 1, 2 * wd - 1)}[pad_mode]
    top_left = {"same": (0, 0), "valid": (0, 0), "pad": (1, 1)}[pad_mode]
    check_api(net, [x], as_input(lambda x: conv_transpose_ref(x, w(net.weight), w(net.bias), 2, top_left, size)),
              rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode, np_mode", [("CONSTANT", "constant"), ("REFLECT", "reflect"),
                                           ("SYMMETRIC", "symmetric")])
def test_pad_cell(mode, np_mode):
    rng = seeded("pad" + mode)
    x = array(rng, (3, 4, 5))
    paddings = ((0, 0), (1, 2), (2, 1))
    check_api(nn.Pad(paddings, mode), [x], lambda x: np.pad(x, paddings, np_mode), grad=True)
    with pytest.raises(ValueError, match="mode"):
        nn.Pad(paddings, "EDGE")


@pytest.mark.parametrize("cls, ndim", [(nn.BatchNorm1d, 2), (nn.BatchNorm1d, 3), (nn.BatchNorm2d, 4)])
def test_batch_norm(cls, ndim):
    rng = seeded(cls.__name__ + str(ndim))
    net = cls(3, momentum=0.8, gamma_init="normal", beta_init="normal", moving_mean_init="normal",
              moving_var_init="ones")
    assert [n for n, _ in net.parameters_and_names()] == ["moving_mean", "moving_variance", "gamma", "beta"]
    assert [p.name for p in net.get_parameters()] == ["moving_mean", "moving_variance", "gamma", "beta"]
    assert len(net.trainable_params()) == 2
    x = array(rng, (4, 3) + shape(rng, ndim - 2, 2, 3))
    stats = [w(p) for p in (net.moving_mean, net.moving_variance, net.gamma, net.beta)]
    check_api(net, [x], as_input(lambda x: batch_norm_ref(x, *stats, 1e-5)), grad=True, rtol=1e-4, atol=1e-5)
    net.set_train()
    axes = (0,) + tuple(range(2, ndim))
    y = net(Tensor(x))
    mean, var = x.astype(np.float64).mean(axes), x.astype(np.float64).var(axes)
    np.testing.assert_allclose(y.asnumpy(), batch_norm_ref(x, mean, var, stats[2], stats[3], 1e-5), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(net.moving_mean.asnumpy(), stats[0] * 0.8 + mean * 0.2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.moving_variance.asnumpy(), stats[1] * 0.8 + var * 0.2, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="rank"):
        net(Tensor(np.ones((2, 3) + (2,) * (5 - ndim), np.float32)))


def test_layer_norm_and_group_norm():
    rng = seeded("norms")
    x = array(rng, (2, 4, 3))
    ln = nn.LayerNorm((3,), gamma_init="normal", beta_init="normal")
    g, b = w(ln.gamma), w(ln.beta)
    check_api(ln, [x], as_input(lambda x: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-7)
                                * g + b), grad=True, rtol=1e-4, atol=1e-5)
    wide = nn.LayerNorm((3,), begin_norm_axis=1, gamma_init="normal")   # normalize over (4, 3), scale over 3
    wg = w(wide.gamma)
    check_api(wide, [x], as_input(lambda x: (x - x.mean((1, 2), keepdims=True))
                                  / np.sqrt(x.var((1, 2), keepdims=True) + 1e-7) * wg), grad=True, rtol=1e-4, atol=1e-5)
    gn = nn.GroupNorm(2, 4, gamma_init="normal", beta_init="normal")
    assert [n for n, _ in gn.parameters_and_names()] == ["gamma", "beta"]
    gg, gb = w(gn.gamma), w(gn.beta)

    def group_ref(x):
        h = x.reshape(2, 2, -1)
        y = ((h - h.mean(-1, keepdims=True)) / np.sqrt(h.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
        return y * gg.reshape(1, -1, 1) + gb.reshape(1, -1, 1)
    check_api(gn, [x], as_input(group_ref), grad=True, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="divisible"):
        nn.GroupNorm(3, 4)


@pytest.mark.parametrize("cls, kwargs, pad_of, reduce, fill", [
    (nn.MaxPool2d, {"kernel_size": 2, "stride": 2}, lambda h, w: (0, 0, 0, 0), np.max, -np.inf),
    (nn.MaxPool2d, {"kernel_size": 3, "stride": 1, "pad_mode": "same"},
     lambda h, w: same_pad(h, 3, 1) + same_pad(w, 3, 1), np.max, -np.inf),
    (nn.AvgPool2d, {"kernel_size": (2, 3), "stride": (1, 2)}, lambda h, w: (0, 0, 0, 0), np.mean, 0),
    (nn.AvgPool2d, {"kernel_size": 3, "stride": 2, "pad_mode": "pad", "padding": 1},
     lambda h, w: (1, 1, 1, 1), lambda v, a: v.sum(a) / 9, 0),
])
def test_pool2d(cls, kwargs, pad_of, reduce, fill):
    rng = seeded(cls.__name__ + str(kwargs))
    x = array(rng, (2, 3) + shape(rng, 2, 4, 7))
    k = kwargs["kernel_size"]
    k = (k, k) if isinstance(k, int) else k
    s = kwargs["stride"]
    s = (s, s) if isinstance(s, int) else s
    check_api(cls(**kwargs), [x], as_input(lambda x: pool2d_ref(x, k, s, pad_of(*x.shape[2:]), reduce, fill)))


def test_avg_pool2d_same_excludes_padding():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    out = nn.AvgPool2d(3, 1, pad_mode="same")(Tensor(x)).asnumpy()
    np.testing.assert_allclose(out[0, 0, 0], [2.5, 3.0, 4.0, 4.5])   # MindSpore 2.10's values


@pytest.mark.parametrize("cls, kwargs, ref", [
    (nn.MaxPool1d, {"kernel_size": 3, "stride": 2},
     lambda x: np.stack([x[..., i:i + 3].max(-1) for i in range(0, x.shape[-1] - 2, 2)], -1)),
    (nn.AvgPool1d, {"kernel_size": 2, "stride": 1},
     lambda x: (x[..., 1:] + x[..., :-1]) / 2),
    (nn.AdaptiveAvgPool2d, {"output_size": (2, None)},
     lambda x: x.reshape(x.shape[:2] + (2, x.shape[2] // 2, x.shape[3])).mean(3)),
    (nn.AdaptiveAvgPool1d, {"output_size": 1}, lambda x: x.mean(-1, keepdims=True)),
])
def test_pool_1d_and_adaptive(cls, kwargs, ref):
    rng = seeded(cls.__name__)
    x = array(rng, (2, 3, 6) + ((5,) if cls is nn.AdaptiveAvgPool2d else ()))
    check_api(cls(**kwargs), [x], as_input(ref), grad=True)


def test_flatten_identity_embedding_dropout():
    rng = seeded("misc")
    x = array(rng, (2, 3, 4))
    check_api(nn.Flatten(), [x], lambda x: x.reshape(2, -1), grad=True)
    check_api(nn.Flatten(0, 1), [x], lambda x: x.reshape(6, 4))
    check_api(nn.Identity(), [x], lambda x: x)
    emb = nn.Embedding(7, 3)
    assert [n for n, _ in emb.parameters_and_names()] == ["embedding_table"] and emb.embedding_table.shape == (7, 3)
    ids = rng.integers(0, 7, (2, 5)).astype(np.int32)
    check_api(emb, [ids], lambda i: emb.embedding_table.asnumpy()[i])
    padded = nn.Embedding(5, 2, padding_idx=3)
    assert not padded.embedding_table.asnumpy()[3].any() and padded.embedding_table.asnumpy()[0].any()
    drop = nn.Dropout(p=0.4)
    assert drop.p == 0.4 and nn.Dropout(keep_prob=0.75).p == 0.25
    check_api(drop, [x], lambda x: x)            # inference: identity
    drop.set_train()
    ms.set_seed(0)
    y = drop(Tensor(x)).asnumpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], x[kept] / 0.6, rtol=1e-6)
    assert 0 < kept.mean() < 1


# ---- containers and the Cell API ----------------------------------------------------------
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.ones(2, np.float32)))
        self.fc = nn.Dense(3, 2)
        self.bn = nn.BatchNorm1d(2)
        self.seq = nn.SequentialCell([nn.Dense(2, 2), nn.ReLU()])
        self.blocks = nn.CellList([nn.Dense(2, 2)])
        self.heads = nn.CellDict({"a": nn.Dense(2, 1)})

    def construct(self, x):
        x = self.seq(self.bn(self.fc(x)) + self.p)
        for block in self.blocks:
            x = block(x)
        return self.heads["a"](x)


def test_parameter_names_follow_mindspore():
    net = Net()
    names = [p.name for p in net.get_parameters()]
    assert names == ["p", "fc.weight", "fc.bias", "bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta",
                     "seq.0.weight", "seq.0.bias", "blocks.0.weight", "blocks.0.bias", "heads.a.weight",
                     "heads.a.bias"]
    assert [n for n, _ in net.parameters_and_names()] == names
    assert list(net.parameters_dict()) == names
    assert [n for n, _ in net.cells_and_names()] == ["", "fc", "bn", "seq", "seq.0", "seq.1", "blocks", "blocks.0",
                                                     "heads", "heads.a"]
    assert list(net.name_cells()) == ["fc", "bn", "seq", "blocks", "heads"]
    assert len(net.trainable_params()) == 11 and len(net.untrainable_params()) == 2
    net.update_parameters_name("model.")
    assert net.fc.weight.name == "model.fc.weight"


def test_net_with_containers_eager_and_graph_mode():
    rng = seeded("containers")
    net = Net()
    x = array(rng, (4, 3))

    def ref(x):
        h = batch_norm_ref(x @ w(net.fc.weight).T + w(net.fc.bias), w(net.bn.moving_mean), w(net.bn.moving_variance),
                           w(net.bn.gamma), w(net.bn.beta), 1e-5) + 1
        h = np.maximum(h @ w(net.seq[0].weight).T + w(net.seq[0].bias), 0)
        h = h @ w(net.blocks[0].weight).T + w(net.blocks[0].bias)
        return h @ w(net.heads["a"].weight).T + w(net.heads["a"].bias)
    eager = check_api(net, [x], as_input(ref), rtol=1e-4, atol=1e-5)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_allclose(net(Tensor(x)).asnumpy(), eager.asnumpy(), rtol=1e-5, atol=1e-6)
        assert net._graph[1].stats.compiles == 1 and net._graph[1].stats.fallbacks == 0
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_cell_list_and_sequential_api():
    a, b, c = nn.Dense(2, 2), nn.ReLU(), nn.Dense(2, 3)
    cells = nn.CellList([a])
    cells.append(b)
    cells.extend([c])
    assert list(cells) == [a, b, c] and len(cells) == 3 and cells[-1] is c
    cells.insert(1, nn.Tanh())
    assert [type(x).__name__ for x in cells] == ["Dense", "Tanh", "ReLU", "Dense"]
    assert list(cells.name_cells()) == ["0", "1", "2", "3"]
    del cells[1]
    assert list(cells) == [a, b, c] and cells.name_cells()["2"] is c
    cells[1] = nn.Sigmoid()
    assert isinstance(cells[1], nn.Sigmoid) and isinstance(cells[:2], nn.CellList)
    with pytest.raises(IndexError):
        cells[5]
    with pytest.raises(TypeError, match="not a Cell"):
        cells.append(3)
    seq = nn.SequentialCell(OrderedDict([("dense", nn.Dense(2, 3)), ("act", nn.ReLU())]))
    assert list(seq.name_cells()) == ["dense", "act"] and seq[0] is seq.dense
    assert [p.name for p in seq.get_parameters()] == ["dense.weight", "dense.bias"]
    seq.append(nn.Dense(3, 1))
    x = np.ones((2, 2), np.float32)
    assert seq(Tensor(x)).shape == (2, 1)


def test_cell_dict_api():
    d = nn.CellDict({"a": nn.ReLU()})
    d["b"] = nn.Tanh()
    d.update([("c", nn.Sigmoid())])
    assert list(d) == ["a", "b", "c"] and list(d.keys()) == ["a", "b", "c"] and len(d) == 3 and "b" in d
    assert isinstance(d.pop("b"), nn.Tanh) and "b" not in d
    assert [type(v).__name__ for v in d.values()] == ["ReLU", "Sigmoid"]
    with pytest.raises(TypeError):
        d["x"] = 1
    with pytest.raises(KeyError):
        d["with.dot"] = nn.ReLU()
    with pytest.raises(TypeError, match="container"):
        d(Tensor(np.ones(2, np.float32)))
    d.clear()
    assert len(d) == 0


def test_cell_api_misc():
    net = Net()
    seen = []
    assert net.apply(lambda cell: seen.append(type(cell).__name__)) is net
    assert seen[-1] == "Net" and seen.count("Dense") == 4
    assert net.set_grad() is net and net.requires_grad
    assert net.set_train() is net and net.training and net.seq[1].training
    net.set_train(False)
    assert not net.bn.training
    net.insert_child_to_cell("extra", nn.ReLU())
    assert "extra" in net.name_cells()
    net.extra = None
    assert "extra" not in net.name_cells() and net.extra is None
    net.q = Parameter(Tensor(np.zeros(1, np.float32)))
    assert net.q.name == "q" and "q" in net.parameters_dict()
    with pytest.raises(KeyError):
        net.insert_child_to_cell("a.b", nn.ReLU())
    half = nn.Dense(2, 2).to_float(ms.float16)
    out = half(Tensor(np.ones((1, 2), np.float32)))
    assert out.dtype == ms.float16


def test_forward_hooks_eager_and_graph_mode():
    rng = seeded("hooks")
    x = array(rng, (2, 3))
    net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU()])
    plain = net(Tensor(x)).asnumpy()
    seen = []
    pre = net[0].register_forward_pre_hook(lambda cell, args: (args[0] * 2,))
    post = net[1].register_forward_hook(lambda cell, args, out: out + 1)
    net[1].register_forward_hook(lambda cell, args, out: seen.append(out.shape))
    want = np.maximum(2 * x @ w(net[0].weight).T + w(net[0].bias), 0) + 1
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert seen == [(2, 4)]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_allclose(net(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    pre.remove()
    post.remove()
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), plain, rtol=1e-6)


def test_cell_api_mindspore_signatures():
    net = Net()
    assert [n for n, _ in net.cells_and_names(name_prefix="m")][:3] == ["m", "m.fc", "m.bn"]
    seen = {net.fc}
    assert "fc" not in [n for n, _ in net.cells_and_names(seen)]
    assert net.cls_name == "Net" and net.recompute() is net and net.add_flags(x=1).get_flags() == {"x": 1}
    net.set_inputs(Tensor(np.ones((2, 3), np.float32)))
    assert net.get_inputs()[0].shape == (2, 3)
    assert [p.name for p in net.init_parameters_data()] == list(net.parameters_dict())   # {Parameter: Parameter}
    net.insert_param_to_cell("extra_w", Parameter(Tensor(np.ones(1, np.float32))))
    assert net.extra_w.name == "extra_w"
    with pytest.raises(KeyError):
        net.insert_param_to_cell("a.b", Parameter(Tensor(np.ones(1, np.float32))))


def test_cells_added_to_attached_containers_get_full_names():
    net = Net()
    net.seq.append(nn.Dense(2, 2))
    net.blocks.insert(0, nn.Dense(2, 2))
    net.blocks[1] = nn.Dense(2, 2)
    assert net.seq[2].weight.name == "seq.2.weight"
    assert net.blocks[0].weight.name == "blocks.0.weight" and net.blocks[1].bias.name == "blocks.1.bias"
    net.heads["b"] = nn.Dense(2, 1)
    assert net.heads["b"].weight.name == "heads.b.weight"
    outer = nn.SequentialCell([net])
    assert net.seq[2].weight.name == "0.seq.2.weight"
    outer.append(nn.ReLU())


@pytest.mark.parametrize("cls, args, np_widths, np_mode", [
    (nn.ConstantPad1d, (2, 0.5), ((0, 0), (0, 0), (2, 2)), "constant"),
    (nn.ConstantPad2d, ((1, 0, 2, 1), -1.0), ((0, 0), (2, 1), (1, 0)), "constant"),
    (nn.ZeroPad2d, (1,), ((0, 0), (1, 1), (1, 1)), "constant"),
    (nn.ReflectionPad1d, ((1, 2),), ((0, 0), (0, 0), (1, 2)), "reflect"),
    (nn.ReflectionPad2d, (1,), ((0, 0), (1, 1), (1, 1)), "reflect"),
    (nn.ReplicationPad1d, ((3, 1),), ((0, 0), (0, 0), (3, 1)), "edge"),
    (nn.ReplicationPad2d, ((1, 0, 2, 0),), ((0, 0), (2, 0), (1, 0)), "edge"),
])
def test_padding_cells(cls, args, np_widths, np_mode):
    rng = seeded(cls.__name__)
    x = array(rng, (2, 3, 4))
    value = args[1] if len(args) > 1 else 0
    extra = {"constant_values": value} if np_mode == "constant" else {}
    check_api(cls(*args), [x], lambda x: np.pad(x, np_widths, np_mode, **extra), grad=True)


def test_upsample():
    rng = seeded("upsample")
    x = array(rng, (1, 2, 3, 2))
    check_api(nn.Upsample(scale_factor=2.0, recompute_scale_factor=True), [x],
              lambda x: x.repeat(2, 2).repeat(2, 3))
    up = nn.Upsample(size=(5, 4), mode="bilinear", align_corners=True)
    assert up(Tensor(x)).shape == (1, 2, 5, 4)


# ---- recurrent layers -------------------------------------------------------------------------
def _sig(v):
    return 1 / (1 + np.exp(-v))


def rnn_ref(cell, kind, x, h0=None, c0=None):
    """numpy RNN/GRU/LSTM over (T, B, I) (or batch first), all layers and directions."""
    p = {n: w(q) for n, q in cell.parameters_and_names()}
    x = x.transpose(1, 0, 2) if cell.batch_first else x
    dirs, hid = cell.num_directions, cell.hidden_size
    shape = (cell.num_layers * dirs, x.shape[1], hid)
    h0 = np.zeros(shape) if h0 is None else h0
    c0 = np.zeros(shape) if c0 is None else c0
    hs, cs = [], []
    for layer in range(cell.num_layers):
        outs = []
        for d in range(dirs):
            sfx = f"l{layer}" + ("_reverse" if d else "")
            h, c = h0[layer * dirs + d], c0[layer * dirs + d]
            seq = [None] * len(x)
            for t in (reversed(range(len(x))) if d else range(len(x))):
                gx = x[t] @ p["weight_ih_" + sfx].T + p["bias_ih_" + sfx]
                gh = h @ p["weight_hh_" + sfx].T + p["bias_hh_" + sfx]
                if kind == "LSTM":
                    i, f, g, o = np.split(gx + gh, 4, -1)
                    c = _sig(f) * c + _sig(i) * np.tanh(g)
                    h = _sig(o) * np.tanh(c)
                elif kind == "GRU":
                    (xr, xz, xn), (hr, hz, hn) = np.split(gx, 3, -1), np.split(gh, 3, -1)
                    r, z = _sig(xr + hr), _sig(xz + hz)
                    n = np.tanh(xn + r * hn)
                    h = (1 - z) * n + z * h
                else:
                    h = np.tanh(gx + gh)
                seq[t] = h
            outs.append(np.stack(seq))
            hs.append(h)
            cs.append(c)
        x = np.concatenate(outs, -1)
    out = x.transpose(1, 0, 2) if cell.batch_first else x
    return (out, (np.stack(hs), np.stack(cs))) if kind == "LSTM" else (out, np.stack(hs))


@pytest.mark.parametrize("kind, kwargs", [
    ("LSTM", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("LSTM", {}),
    ("GRU", {"num_layers": 2}),
    ("GRU", {"bidirectional": True, "batch_first": True}),
    ("RNN", {"num_layers": 2, "bidirectional": True}),
])
def test_recurrent_layers(kind, kwargs):
    rng = seeded(kind + str(kwargs))
    cell = getattr(nn, kind)(3, 4, **kwargs)
    x = array(rng, (2, 5, 3), low=-1, high=1)
    check_api(cell, [x], as_input(lambda x: rnn_ref(cell, kind, x)), rtol=1e-4, atol=1e-5)

    def output_only(x):
        return cell(x)[0]
    check_api(output_only, [x[:, :3]], None, modes=(), grad=True)


def test_recurrent_initial_state_seq_length_and_names():
    rng = seeded("rnn state")
    lstm = nn.LSTM(3, 4, batch_first=True)
    assert [n for n, _ in lstm.parameters_and_names()] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0",
                                                           "bias_hh_l0"]
    assert lstm.weight_ih_l0.shape == (16, 3) and np.abs(lstm.weight_hh_l0.asnumpy()).max() <= 0.5
    x, h0, c0 = array(rng, (2, 4, 3)), array(rng, (1, 2, 4)), array(rng, (1, 2, 4))
    out, (h, c) = lstm(Tensor(x), (Tensor(h0), Tensor(c0)))
    want_out, (want_h, want_c) = rnn_ref(lstm, "LSTM", x, h0, c0)
    for got, want in ((out, want_out), (h, want_h), (c, want_c)):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-5)
    # seq_length: outputs past each sequence's end are zeros, the state is the one at its end
    gru = nn.GRU(3, 4, batch_first=True)
    out, h = gru(Tensor(x), None, Tensor(np.array([4, 2], np.int32)))
    full, _ = rnn_ref(gru, "GRU", x)
    short, short_h = rnn_ref(gru, "GRU", x[1:, :2])
    np.testing.assert_allclose(out.asnumpy()[0], full[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out.asnumpy()[1, :2], short[0], rtol=1e-4, atol=1e-5)
    assert not out.asnumpy()[1, 2:].any()
    np.testing.assert_allclose(h.asnumpy()[0, 1], short_h[0, 0], rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="nonlinearity"):
        nn.RNN(3, 4, nonlinearity="gelu")


def test_one_hot():
    ids = np.array([[0, 5], [-1, 2]], np.int32)      # out of range: all off_value
    check_api(nn.OneHot(depth=3), [ids], lambda i: (i[..., None] == np.arange(3)).astype(np.float32))
    check_api(nn.OneHot(axis=0, depth=3, on_value=2.0, off_value=-1.0), [ids[1]],
              lambda i: np.where(np.arange(3)[:, None] == i, 2.0, -1.0).astype(np.float32))

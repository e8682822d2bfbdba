"""nn.MultiheadAttention, the single-step RNN Cells, dynamic weight decay, TrainOneStepCell's
``return_grad`` and the ``mindspore.nn.wrap.loss_scale`` path.

MultiheadAttention and the Cells are checked against independent numpy forwards on random
shapes (eager, jit ast/bytecode/trace, input gradients); a Cell schedule as ``weight_decay`` is
checked against a numpy optimizer loop, eagerly and in GRAPH_MODE."""
import numpy as np
import pytest

import msjit as ms
from msjit import Tensor, nn
from harness import array, as_input, check_api, check_grad, seeded

pytestmark = pytest.mark.usefixtures("module_daemon_home")


def w(p):
    return None if p is None else p.asnumpy().astype(np.float64)


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


# ---- MultiheadAttention ------------------------------------------------------------------------
def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def mha_ref(net, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
            average_attn_weights=True):
    """Multi-head attention in numpy on (L, N, E) / (N, L, E) / (L, E) inputs."""
    batched = query.ndim == 3
    if not batched:
        query, key, value = (x[:, None] for x in (query, key, value))
        key_padding_mask = None if key_padding_mask is None else key_padding_mask[None]
    elif net.batch_first:
        query, key, value = (x.swapaxes(0, 1) for x in (query, key, value))
    e, h = net.embed_dim, net.num_heads
    if net.in_proj_weight is not None:
        wq, wk, wv = np.split(w(net.in_proj_weight), 3)
    else:
        wq, wk, wv = w(net.q_proj_weight), w(net.k_proj_weight), w(net.v_proj_weight)
    bq, bk, bv = np.split(w(net.in_proj_bias), 3) if net.in_proj_bias is not None else (0, 0, 0)
    q, k, v = query @ wq.T + bq, key @ wk.T + bk, value @ wv.T + bv          # (len, N, E)
    n = q.shape[1]
    mask = np.zeros((n, h, q.shape[0], k.shape[0]))
    if attn_mask is not None:
        am = np.where(attn_mask, -np.inf, 0.0) if attn_mask.dtype == bool else attn_mask
        mask = mask + (am.reshape(n, h, *am.shape[1:]) if am.ndim == 3 else am)
    if key_padding_mask is not None:
        kpm = key_padding_mask
        kpm = np.where(kpm, -np.inf, 0.0) if kpm.dtype == bool and (attn_mask is None or attn_mask.dtype == bool) \
            else kpm.astype(np.float64)
        mask = mask + kpm[:, None, None, :]
    if net.bias_k is not None:
        k = np.concatenate([k, np.broadcast_to(w(net.bias_k), (1, n, e))])
        v = np.concatenate([v, np.broadcast_to(w(net.bias_v), (1, n, e))])
        mask = np.concatenate([mask, np.zeros(mask.shape[:-1] + (1,))], -1)
    heads = [x.reshape(x.shape[0], n, h, e // h).transpose(1, 2, 0, 3) for x in (q, k, v)]   # (N, h, len, d)
    if net.add_zero_attn:
        heads[1:] = [np.concatenate([x, np.zeros(x.shape[:2] + (1, e // h))], 2) for x in heads[1:]]
        mask = np.concatenate([mask, np.zeros(mask.shape[:-1] + (1,))], -1)
    qh, kh, vh = heads
    weights = softmax(qh @ kh.swapaxes(-1, -2) / np.sqrt(e // h) + mask)
    out = (weights @ vh).transpose(2, 0, 1, 3).reshape(q.shape[0], n, e) @ w(net.out_proj.weight).T
    out = out + (w(net.out_proj.bias) if net.out_proj.bias is not None else 0)
    weights = weights.mean(1) if average_attn_weights else weights
    if not batched:
        out, weights = out[:, 0], weights[0]
    elif net.batch_first:
        out = out.swapaxes(0, 1)
    return (out, weights) if need_weights else (out,)


# name: (constructor kwargs, (L, S, N), extra call inputs, call kwargs)
MHA_CASES = {
    "basic": (dict(embed_dim=8, num_heads=2), (5, 4, 3), {}),
    "batch_first_per_head": (dict(embed_dim=8, num_heads=4, batch_first=True), (3, 6, 2),
                             dict(average_attn_weights=False)),
    "kdim_vdim_padding": (dict(embed_dim=6, num_heads=3, kdim=5, vdim=4), (4, 5, 2), dict(key_padding_mask=bool)),
    "bias_kv_zero_attn": (dict(embed_dim=8, num_heads=2, add_bias_kv=True, add_zero_attn=True), (5, 4, 3),
                          dict(attn_mask=2, key_padding_mask=bool)),
    "no_bias_3d_mask": (dict(embed_dim=4, num_heads=2, has_bias=False), (3, 4, 2),
                        dict(attn_mask=3, key_padding_mask=float)),
    "unbatched_bool_mask": (dict(embed_dim=6, num_heads=3), (5, 4, None),
                            dict(attn_mask=bool, need_weights=False)),
}


def mha_inputs(rng, net, lsn, call):
    length, src, n = lsn
    batch = () if n is None else (n,)
    lead = (lambda l: batch + (l,)) if net.batch_first else (lambda l: (l,) + batch)
    args = [array(rng, lead(length) + (net.embed_dim,)), array(rng, lead(src) + (net.kdim,)),
            array(rng, lead(src) + (net.vdim,))]
    kwargs = {}
    for name, kind in call.items():
        if name == "key_padding_mask":
            kpm = rng.random(batch + (src,)) < 0.3
            kpm[..., 0] = False                 # every query sees at least one key
            kwargs[name] = kpm if kind is bool else array(rng, batch + (src,))
        elif name == "attn_mask":
            if kind is bool:
                m = rng.random((length, src)) < 0.3
                m[:, 0] = False
                kwargs[name] = m
            else:
                kwargs[name] = array(rng, (length, src) if kind == 2 else ((n or 1) * net.num_heads, length, src))
        else:
            kwargs[name] = kind
    return args, kwargs


@pytest.mark.parametrize("case", sorted(MHA_CASES))
def test_multihead_attention(case):
    init, lsn, call = MHA_CASES[case]
    rng = seeded(case)
    ms.set_seed(len(case))
    net = nn.MultiheadAttention(**init)
    args, kwargs = mha_inputs(rng, net, lsn, call)
    masks = {k: v for k, v in kwargs.items() if isinstance(v, np.ndarray)}
    flags = {k: v for k, v in kwargs.items() if k not in masks}

    def attention(q, k, v, *mask_values):
        return net(q, k, v, **dict(zip(masks, mask_values)), **flags)

    check_api(attention, args + list(masks.values()), as_input(lambda *a: mha_ref(net, *a[:3], **dict(
        zip(masks, a[3:])), **flags)), rtol=1e-4, atol=1e-5)


def test_multihead_attention_grad():
    rng = seeded("mha grad")
    net = nn.MultiheadAttention(4, 2, dtype=ms.float64)
    q, k, v = (array(rng, (3, 2, 4)) for _ in range(3))
    check_grad(lambda q, k, v: net(q, k, v)[0], [q, k, v], rtol=1e-4, atol=1e-6)


def test_multihead_attention_like_mindspore(mode):
    """MindSpore's own check: (L, N, E) = (10, 8, 128), 8 heads; the parameter names; errors."""
    net = nn.MultiheadAttention(128, 8)
    q, k, v = (Tensor(np.random.default_rng(i).standard_normal((10, 8, 128)).astype(np.float32)) for i in range(3))
    out, weights = net(q, k, v)
    assert out.shape == (10, 8, 128) and weights.shape == (8, 10, 10)
    np.testing.assert_allclose(weights.asnumpy().sum(-1), 1.0, rtol=1e-5)
    assert sorted(p.name for p in net.get_parameters()) == ["in_proj_bias", "in_proj_weight", "out_proj.bias",
                                                             "out_proj.weight"]
    with pytest.raises(ValueError, match="divisible"):
        nn.MultiheadAttention(10, 3)


# ---- single-step recurrent Cells ---------------------------------------------------------------
def sig(x):
    return 1 / (1 + np.exp(-x))


def cell_ref(net, x, *state):
    h = state[0][0] if isinstance(state[0], tuple) else state[0]
    gi = x @ w(net.weight_ih).T + (w(net.bias_ih) if net.has_bias else 0)
    gh = h @ w(net.weight_hh).T + (w(net.bias_hh) if net.has_bias else 0)
    if isinstance(net, nn.RNNCell):
        return np.tanh(gi + gh) if net.nonlinearity == "tanh" else np.maximum(gi + gh, 0)
    if isinstance(net, nn.GRUCell):
        (ir, iz, i_n), (hr, hz, hn) = np.split(gi, 3, -1), np.split(gh, 3, -1)
        r, z = sig(ir + hr), sig(iz + hz)
        n = np.tanh(i_n + r * hn)
        return (1 - z) * n + z * h
    i, f, g, o = np.split(gi + gh, 4, -1)
    c = sig(f) * state[0][1] + sig(i) * np.tanh(g)
    return sig(o) * np.tanh(c), c


# name: (Cell, constructor kwargs, batch)
CELL_CASES = {
    "RNNCell": (nn.RNNCell, {}, 3),
    "RNNCell_relu_nobias": (nn.RNNCell, dict(nonlinearity="relu", has_bias=False), 2),
    "GRUCell": (nn.GRUCell, {}, 4),
    "LSTMCell": (nn.LSTMCell, {}, 3),
    "LSTMCell_nobias": (nn.LSTMCell, dict(has_bias=False), 2),
}


@pytest.mark.parametrize("case", sorted(CELL_CASES))
def test_rnn_cell(case):
    cls, kwargs, batch = CELL_CASES[case]
    rng = seeded(case)
    n_in, hidden = int(rng.integers(2, 6)), int(rng.integers(2, 6))
    net = cls(n_in, hidden, **kwargs)
    x, h = array(rng, (batch, n_in)), array(rng, (batch, hidden))
    if cls is nn.LSTMCell:
        c = array(rng, (batch, hidden))
        def lstm_cell(x, h, c):
            return net(x, (h, c))
        check_api(lstm_cell, [x, h, c], as_input(lambda x, h, c: cell_ref(net, x, (h, c))), rtol=1e-4, atol=1e-5)
    else:
        check_api(net, [x, h], as_input(lambda x, h: cell_ref(net, x, h)), rtol=1e-4, atol=1e-5)
    assert sorted(p.name for p in net.get_parameters()) == sorted(
        ["weight_ih", "weight_hh"] + (["bias_ih", "bias_hh"] if net.has_bias else []))


@pytest.mark.parametrize("cls, layer", [(nn.RNNCell, nn.RNN), (nn.GRUCell, nn.GRU), (nn.LSTMCell, nn.LSTM)])
def test_rnn_cell_grad_matches_one_layer_step(cls, layer):
    """The Cell and a one-step layer with the same weights: same output and input gradient."""
    rng = seeded(cls.__name__)
    cell, rnn = cls(3, 4), layer(3, 4)
    for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
        getattr(rnn, name + "_l0").set_data(Tensor(getattr(cell, name).asnumpy()))
    x, h, c = (Tensor(array(rng, (2, k))) for k in (3, 4, 4))
    lstm = cls is nn.LSTMCell

    def by_cell(x, h):
        out = cell(x, (h, c)) if lstm else cell(x, h)
        return (out[0] if lstm else out).sum()

    def by_layer(x, h):
        out, _ = rnn(x[None], (h[None], c[None]) if lstm else h[None])
        return out.sum()
    for fn in (ms.grad(by_cell, (0, 1)), ms.jit(ms.grad(by_cell, (0, 1)), fullgraph=True)):
        for got, want in zip(fn(x, h), ms.grad(by_layer, (0, 1))(x, h)):
            np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)


def test_rnn_cell_errors():
    with pytest.raises(TypeError):
        nn.LSTMCell(3, 4)(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 4), np.float32)))
    with pytest.raises(ValueError):
        nn.RNNCell(3, 4, nonlinearity="gelu")
    with pytest.raises(TypeError):
        nn.GRUCell(3, 4)(Tensor(np.ones((2, 3), np.float64)), Tensor(np.ones((2, 4), np.float64)))
    with pytest.raises(ValueError):     # MindSpore's Cells take (batch, features) only
        nn.GRUCell(3, 4)(Tensor(np.ones(3, np.float32)), Tensor(np.ones(4, np.float32)))


# ---- dynamic weight decay ----------------------------------------------------------------------
class Schedule(nn.Cell):
    """Weight decay by step, read from a table."""

    def __init__(self, table):
        super().__init__()
        self.table = Tensor(np.asarray(table, np.float32))

    def construct(self, global_step):
        return self.table[global_step]


def momentum_ref(params, grads, lr, momentum, decays, loss_scale=1.0):
    """Numpy Momentum steps (``decays[t]``: each parameter's weight decay at step t)."""
    params, moments = [p.copy() for p in params], [np.zeros_like(p) for p in params]
    for t, wd in enumerate(decays):
        for i, g in enumerate(grads):
            moments[i] = moments[i] * momentum + g / loss_scale + wd[i] * params[i]
            params[i] = params[i] - lr * moments[i]
    return params


def adamw_ref(params, grads, lr, decays, beta1=0.9, beta2=0.999, eps=1e-6):
    params = [p.copy() for p in params]
    m, v = [np.zeros_like(p) for p in params], [np.zeros_like(p) for p in params]
    for wd in decays:
        for i, g in enumerate(grads):
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g * g
            params[i] = params[i] - lr * (m[i] / (np.sqrt(v[i]) + eps) + wd[i] * params[i])
    return params


TABLE = [0.3, 0.05, 0.2]


@pytest.mark.parametrize("group", [False, True])
@pytest.mark.parametrize("opt", ["Momentum", "AdamWeightDecay"])
def test_dynamic_weight_decay(mode, opt, group):
    rng = seeded(opt + str(group))
    values = [array(rng, (3, 2)), array(rng, (2,))]
    grads = [array(rng, (3, 2)), array(rng, (2,))]
    params = [ms.Parameter(Tensor(v), f"p{i}") for i, v in enumerate(values)]
    loss_scale = 2.0 if opt == "Momentum" else 1.0
    if group:   # the first parameter a fixed decay, the second the schedule
        spec = [{"params": params[:1], "weight_decay": 0.1}, {"params": params[1:], "weight_decay": Schedule(TABLE)}]
        decays = [(0.1, t) for t in TABLE]
    else:
        spec, decays = params, [(t, t) for t in TABLE]
    if opt == "Momentum":
        optimizer = nn.Momentum(spec, 0.1, 0.9, weight_decay=0.0 if group else Schedule(TABLE), loss_scale=loss_scale)
        want = momentum_ref(values, grads, 0.1, 0.9, decays, loss_scale)
    else:
        optimizer = nn.AdamWeightDecay(spec, 0.1, weight_decay=0.0 if group else Schedule(TABLE))
        want = adamw_ref(values, grads, 0.1, decays)
    for _ in TABLE:
        optimizer(tuple(Tensor(g) for g in grads))
    for p, ref in zip(params, want):
        np.testing.assert_allclose(p.asnumpy(), ref, rtol=1e-5, atol=1e-6)
    assert int(optimizer.global_step.asnumpy()[0]) == len(TABLE)


def test_dynamic_weight_decay_sgd_refused():
    with pytest.raises(TypeError, match="dynamic weight decay"):
        nn.SGD([ms.Parameter(Tensor(np.ones(2, np.float32)), "p")], weight_decay=Schedule(TABLE))


# ---- TrainOneStepCell(return_grad=True), module paths, Cell methods ----------------------------
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(6, 5, activation="relu")
        self.fc2 = nn.Dense(5, 3)

    def construct(self, x):
        return self.fc2(self.fc1(x))


def test_train_one_step_return_grad(mode):
    rng = seeded("return_grad")
    ms.set_seed(3)
    net = Net()
    loss_net = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    x, y = Tensor(array(rng, (4, 6))), Tensor(rng.integers(0, 3, 4).astype(np.int32))
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    want_loss, want_grads = ms.value_and_grad(loss_net, None, net.trainable_params())(x, y)
    step = nn.TrainOneStepCell(loss_net, nn.SGD(net.trainable_params(), 0.5), return_grad=True)
    loss, grads = step(x, y)
    assert isinstance(grads, dict)
    assert list(grads) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    np.testing.assert_allclose(loss.asnumpy(), want_loss.asnumpy(), rtol=1e-5)
    for (name, g), want, p, old in zip(grads.items(), want_grads, net.trainable_params(), before):
        np.testing.assert_allclose(g.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-7, err_msg=name)
        np.testing.assert_allclose(p.asnumpy(), old - 0.5 * want.asnumpy(), rtol=1e-5, atol=1e-6, err_msg=name)


def test_module_paths_and_cell_methods():
    import importlib
    for path, names in (("mindspore.nn.wrap.loss_scale", ["TrainOneStepWithLossScaleCell",
                                                           "DynamicLossScaleUpdateCell"]),
                        ("mindspore.nn.wrap.cell_wrapper", ["TrainOneStepCell"]),
                        ("mindspore.nn", ["MultiheadAttention", "LSTMCell", "GRUCell", "RNNCell"])):
        module = importlib.import_module(path)
        assert all(hasattr(module, n) for n in names), path
    import mindspore
    assert mindspore.nn.LSTMCell is nn.LSTMCell
    net = Net()
    params = net.init_parameters_data()      # {original Parameter: initialized Parameter}
    assert [p.name for p in params] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert all(k is v for k, v in params.items())


class WithBuffer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)
        self.register_buffer("shift", Tensor(np.array([1.0, -2.0], np.float32)))
        self.register_buffer("scratch", Tensor(np.zeros(1, np.float32)), persistent=False)

    def construct(self, x):
        return self.fc(x) + self.shift


def test_buffers_and_state_dict(mode):
    rng = seeded("state_dict")
    src, dst = WithBuffer(), WithBuffer()
    src.shift = Tensor(array(rng, (2,)))          # a buffer stays one when given a Tensor
    assert list(src.state_dict()) == ["shift", "fc.weight", "fc.bias"]
    assert [n for n, _ in src.named_buffers()] == ["shift", "scratch"]
    assert src.get_buffer("shift") is src.shift and src.get_sub_cell("fc") is src.fc
    x = Tensor(array(rng, (4, 3)))
    before = dst(x).asnumpy()
    keys = dst.load_state_dict(src.state_dict())
    assert (keys.missing_keys, keys.unexpected_keys) == ([], [])
    np.testing.assert_allclose(dst(x).asnumpy(), src(x).asnumpy(), rtol=1e-6)   # the graph sees the new state
    assert not np.allclose(before, dst(x).asnumpy())
    with pytest.raises(RuntimeError, match="Unexpected key"):
        dst.load_state_dict({"nope": Tensor(np.ones(1, np.float32))})
    keys = dst.load_state_dict({"shift": src.shift}, strict=False)
    assert keys.missing_keys == ["fc.weight", "fc.bias"]
    with pytest.raises(KeyError):
        dst.register_buffer("fc", Tensor(np.ones(1, np.float32)))
    want = src(x).asnumpy().astype(np.float64)
    weight = src.fc.weight
    src.to(ms.float64)
    assert src.fc.weight is weight and weight.dtype == ms.float64 and src.shift.dtype == ms.float64
    np.testing.assert_allclose(src(Tensor(x.asnumpy().astype(np.float64))).asnumpy(), want, rtol=1e-6)
    src.add_flags_recursive(marked=True)
    assert src.fc.get_flags()["marked"] and src.fc.param_prefix == "fc"

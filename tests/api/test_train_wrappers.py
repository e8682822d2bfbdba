"""Training wrappers: WithLossCell, WithEvalCell, ForwardValueAndGrad, TrainOneStepCell.

A training loop ``TrainOneStepCell(WithLossCell(net, loss), optimizer)`` lowers the loss, and
gives the same losses and weights eagerly, in GRAPH_MODE (forward, backward and update as one
graph, compiled once) and inside ``ms.jit``; the first step is checked against a numpy
forward/backward of the same network."""
import numpy as np
import pytest

import msjit as ms
from msjit import Tensor, nn, ops
from mindspore.ops import functional as F

pytestmark = pytest.mark.usefixtures("module_daemon_home")
STEPS = 4


class MLP(nn.Cell):
    def __init__(self, n_in=5, hidden=7, n_out=3):
        super().__init__()
        self.fc1 = nn.Dense(n_in, hidden, activation="tanh")
        self.fc2 = nn.Dense(hidden, n_out)

    def construct(self, x):
        return self.fc2(self.fc1(x))


def data(seed=0, n=6):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 5)).astype(np.float32), rng.integers(0, 3, n).astype(np.int32)


def make_step(optimizer_cls=nn.Momentum, seed=0, **kwargs):
    ms.set_seed(seed)
    net = MLP()
    opt_kwargs = {"learning_rate": 0.1, "momentum": 0.9} if optimizer_cls is nn.Momentum else {"learning_rate": 0.05}
    opt = optimizer_cls(net.trainable_params(), **opt_kwargs)
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(True, "mean")), opt,
                                    **kwargs)


def run(step, x, y, steps=STEPS):
    return [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(steps)]


def numpy_loss_and_grads(net, x, y):
    """Mean softmax cross entropy of the MLP and its gradients (W1, b1, W2, b2), in float64."""
    w1, b1, w2, b2 = (p.asnumpy().astype(np.float64) for p in net.trainable_params())
    h = np.tanh(x @ w1.T + b1)
    z = h @ w2.T + b2
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    n = len(x)
    loss = -np.log(p[np.arange(n), y]).mean()
    dz = p.copy()
    dz[np.arange(n), y] -= 1
    dz /= n
    dh = dz @ w2 * (1 - h ** 2)
    return loss, [dh.T @ x, dh.sum(0), dz.T @ h, dz.sum(0)]


@pytest.mark.parametrize("optimizer_cls", [nn.Momentum, nn.SGD, nn.Adam, nn.AdamWeightDecay])
def test_train_one_step_eager_lowers_loss_and_matches_numpy(optimizer_cls):
    x, y = data()
    net, step = make_step(optimizer_cls)
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    want_loss, want_grads = numpy_loss_and_grads(net, x, y)
    losses = run(step, x, y)
    np.testing.assert_allclose(losses[0], want_loss, rtol=1e-5)
    assert losses[-1] < losses[0]
    assert int(step.optimizer.global_step.asnumpy()[0]) == STEPS
    if optimizer_cls is nn.SGD:   # plain SGD: after one step p = p0 - lr * g (check a fresh step)
        net, step = make_step(optimizer_cls)
        run(step, x, y, steps=1)
        for p, p0, g in zip(net.trainable_params(), before, want_grads):
            np.testing.assert_allclose(p.asnumpy(), p0 - 0.05 * g, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("optimizer_cls", [nn.Momentum, nn.Adam])
def test_train_one_step_graph_mode_equals_eager(graph_mode, optimizer_cls):
    x, y = data(1)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager_net, eager_step = make_step(optimizer_cls, seed=5)
    eager = run(eager_step, x, y)
    ms.set_context(mode=ms.GRAPH_MODE)
    graph_net, graph_step = make_step(optimizer_cls, seed=5)
    compiled = run(graph_step, x, y)
    np.testing.assert_allclose(compiled, eager, rtol=1e-4, atol=1e-6)
    assert compiled[-1] < compiled[0]
    assert (graph_step._graph[1].stats.compiles, graph_step._graph[1].stats.fallbacks) == (1, 0)
    for p, q in zip(graph_net.trainable_params(), eager_net.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-4, atol=1e-6, err_msg=p.name)
    assert int(graph_step.optimizer.global_step.asnumpy()[0]) == STEPS


def test_train_step_inside_jit_equals_eager():
    x, y = data(2)
    _, eager_step = make_step(nn.SGD, seed=3)
    eager = run(eager_step, x, y)
    _, step = make_step(nn.SGD, seed=3)

    @ms.jit
    def train(data, label):
        return step(data, label)
    compiled = [float(train(Tensor(x), Tensor(y)).asnumpy()) for _ in range(STEPS)]
    np.testing.assert_allclose(compiled, eager, rtol=1e-4, atol=1e-6)
    assert (train.stats.compiles, train.stats.fallbacks) == (1, 0)


def test_value_and_grad_with_optimizer_inside_jit():
    """The tutorial's loop: value_and_grad over a forward function, then optimizer(grads)."""
    x, y = data(3)
    results = []
    for jitted in (False, True):
        ms.set_seed(4)
        net = MLP()
        loss_fn = nn.CrossEntropyLoss()
        opt = nn.Adam(net.trainable_params(), 0.02)

        def forward(data, label):
            return loss_fn(net(data), label)
        grad_fn = ms.value_and_grad(forward, None, opt.parameters)

        def train(data, label):
            loss, grads = grad_fn(data, label)
            opt(grads)
            return loss
        train = ms.jit(train) if jitted else train
        results.append([float(train(Tensor(x), Tensor(y)).asnumpy()) for _ in range(STEPS)])
        if jitted:
            assert (train.stats.compiles, train.stats.fallbacks) == (1, 0)
    np.testing.assert_allclose(results[1], results[0], rtol=1e-4, atol=1e-6)
    assert results[0][-1] < results[0][0]


def test_sens_and_return_grad():
    x, y = data(4)
    net, step = make_step(nn.SGD, sens=2.0, return_grad=True)
    want_loss, want_grads = numpy_loss_and_grads(net, x, y)
    loss, grads = step(Tensor(x), Tensor(y))
    np.testing.assert_allclose(loss.asnumpy(), want_loss, rtol=1e-5)
    assert list(grads) == [p.name for p in net.trainable_params()]   # {name: grad}, as MindSpore
    for g, w in zip(grads.values(), want_grads):
        np.testing.assert_allclose(g.asnumpy(), 2.0 * w, rtol=1e-4, atol=1e-6)


def test_with_loss_and_eval_cells():
    x, y = data(5)
    ms.set_seed(0)
    net = MLP()
    want, _ = numpy_loss_and_grads(net, x, y)
    loss_net = nn.WithLossCell(net, nn.CrossEntropyLoss())
    assert loss_net.backbone_network is net
    np.testing.assert_allclose(loss_net(Tensor(x), Tensor(y)).asnumpy(), want, rtol=1e-5)
    loss, out, label = nn.WithEvalCell(net, nn.CrossEntropyLoss())(Tensor(x), Tensor(y))
    np.testing.assert_allclose(loss.asnumpy(), want, rtol=1e-5)
    assert out.shape == (6, 3) and label.dtype == ms.int32
    target = np.ones((6, 3), np.float16)
    loss, out, label = nn.WithEvalCell(net, nn.MSELoss(), add_cast_fp32=True)(Tensor(x), Tensor(target))
    assert label.dtype == ms.float32
    np.testing.assert_allclose(loss.asnumpy(), ((out.asnumpy() - 1) ** 2).mean(), rtol=1e-5)
    # the wrappers do not rename the network's parameters
    assert [p.name for p in loss_net.trainable_params()] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


@pytest.mark.parametrize("get_all, get_by_list", [(False, False), (True, False), (False, True), (True, True)])
def test_forward_value_and_grad(get_all, get_by_list):
    x, y = data(6)
    ms.set_seed(0)
    net = MLP()
    loss_net = nn.WithLossCell(net, nn.CrossEntropyLoss())
    want_loss, want_grads = numpy_loss_and_grads(net, x, y)
    weights = net.trainable_params()
    cell = nn.ForwardValueAndGrad(loss_net, weights if get_by_list else None, get_all, get_by_list)
    loss, grads = cell(Tensor(x), Tensor(y))
    np.testing.assert_allclose(loss.asnumpy(), want_loss, rtol=1e-5)
    if get_by_list:
        weight_grads = grads[1] if get_all else grads
        for g, w in zip(weight_grads, want_grads):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-4, atol=1e-6)
    input_grads = grads[0] if get_by_list and get_all else grads
    if get_all:
        assert input_grads[0].shape == x.shape
    elif not get_by_list:
        assert input_grads.shape == x.shape


def test_forward_value_and_grad_sens_param():
    x, y = data(7)
    ms.set_seed(0)
    loss_net = nn.WithLossCell(MLP(), nn.CrossEntropyLoss())
    plain = nn.ForwardValueAndGrad(loss_net)(Tensor(x), Tensor(y))[1]
    loss, scaled = nn.ForwardValueAndGrad(loss_net, sens_param=True)(Tensor(x), Tensor(y), Tensor(np.float32(3.0)))
    np.testing.assert_allclose(scaled.asnumpy(), 3.0 * plain.asnumpy(), rtol=1e-5, atol=1e-7)


def test_batchnorm_training_step_graph_mode_updates_statistics(graph_mode):
    """A train step over BatchNorm: the moving statistics and the weights are written back by the graph."""
    rng = np.random.default_rng(8)
    x, y = rng.standard_normal((8, 4)).astype(np.float32), rng.integers(0, 2, 8).astype(np.int32)
    nets = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(1)
        net = nn.SequentialCell([nn.Dense(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Dense(6, 2)])
        net.set_train()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()),
                                   nn.Momentum(net.trainable_params(), 0.1, 0.9))
        nets.append((net, run(step, x, y, steps=3)))
    (eager_net, eager), (graph_net, compiled) = nets
    np.testing.assert_allclose(compiled, eager, rtol=1e-4, atol=1e-6)
    for (name, p), (_, q) in zip(graph_net.parameters_and_names(), eager_net.parameters_and_names()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-4, atol=1e-6, err_msg=name)
    assert not np.allclose(graph_net[1].moving_mean.asnumpy(), 0)


def test_train_one_step_errors():
    net = MLP()
    with pytest.raises(ValueError, match="gradients"):
        nn.SGD(net.trainable_params())((ops.ones((2,)),))


class MindSporeStyleStep(nn.TrainOneStepCell):
    """MindSpore's own TrainOneStepCell.construct, as user subclasses write it."""

    def construct(self, *inputs):
        loss = self.network(*inputs)
        sens = F.fill(loss.dtype, loss.shape, self.sens)
        grads = self.grad(self.network, self.weights)(*inputs, sens)
        grads = self.grad_reducer(grads)
        return F.depend(loss, self.optimizer(grads))


def test_user_train_step_subclass_eager_and_graph_mode(graph_mode):
    x, y = data(9)
    results = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(2)
        net = MLP()
        step = MindSporeStyleStep(nn.WithLossCell(net, nn.CrossEntropyLoss()), nn.SGD(net.trainable_params(), 0.1))
        results.append(run(step, x, y))
    np.testing.assert_allclose(results[1], results[0], rtol=1e-4, atol=1e-6)
    assert results[0][-1] < results[0][0]
    assert (step._graph[1].stats.compiles, step._graph[1].stats.fallbacks) == (1, 0)


def loss_scale_run(mode, scale_sense, steps=3, seed=6, poison=False):
    ms.set_context(mode=mode)
    ms.set_seed(seed)
    net = MLP()
    step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.CrossEntropyLoss()),
                                            nn.Momentum(net.trainable_params(), 0.1, 0.9), scale_sense())
    x, y = data(10)
    if poison:   # an infinite input: non-finite gradients, as an overflow gives
        x[0, 0] = np.inf
    outs = [step(Tensor(x), Tensor(y)) for _ in range(steps)]
    return net, step, [(float(l.asnumpy()), bool(c.asnumpy()), float(np.asarray(s.asnumpy()).ravel()[0]))
                       for l, c, s in outs]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_loss_scale_without_overflow_equals_plain_step(graph_mode, mode):
    """A power-of-two scale cancels exactly: the same losses as TrainOneStepCell; the dynamic
    scale doubles after scale_window steps without overflow."""
    net, step, outs = loss_scale_run(mode, lambda: nn.DynamicLossScaleUpdateCell(2.0 ** 10, 2.0, 2))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    _, plain = make_step(nn.Momentum, seed=6)
    want = run(plain, *data(10), steps=3)
    np.testing.assert_allclose([o[0] for o in outs], want, rtol=1e-5, atol=1e-6)
    assert [o[1] for o in outs] == [False] * 3
    assert float(step.scale_sense.asnumpy()) == 2.0 ** 11
    if mode == ms.GRAPH_MODE:
        assert (step._graph[1].stats.compiles, step._graph[1].stats.fallbacks) == (1, 0)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_loss_scale_overflow_skips_the_update(graph_mode, mode):
    ms.set_context(mode=mode)
    ms.set_seed(6)
    before = [p.asnumpy().copy() for p in MLP().trainable_params()]
    net, step, outs = loss_scale_run(mode, lambda: nn.DynamicLossScaleUpdateCell(2.0 ** 10, 4.0, 100), steps=2,
                                     poison=True)
    assert [o[1] for o in outs] == [True, True]
    assert [o[2] for o in outs] == [2.0 ** 10, 2.0 ** 8]    # the scale each step used
    assert float(step.scale_sense.asnumpy()) == 2.0 ** 6
    for p, b in zip(net.trainable_params(), before):
        np.testing.assert_array_equal(p.asnumpy(), b)
    assert int(step.optimizer.global_step.asnumpy()[0]) == 0
    assert not step.optimizer.moments[0].asnumpy().any()


def test_fixed_loss_scale_tensor():
    _, step, outs = loss_scale_run(ms.PYNATIVE_MODE, lambda: Tensor(np.float32(8.0)))
    assert [o[2] for o in outs] == [8.0] * 3 and not any(o[1] for o in outs)
    assert outs[-1][0] < outs[0][0]
    with pytest.raises(TypeError):
        nn.TrainOneStepWithLossScaleCell(step.network, step.optimizer, 8.0)
    fixed = nn.FixedLossScaleUpdateCell(16.0)
    assert fixed.get_loss_scale() == 16.0

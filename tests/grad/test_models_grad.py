"""Gradients of the tutorial's models at small sizes, and one SGD step of each.

Gradients (inputs and every trainable Parameter) are checked three ways: PyNative (the tape)
against compiled (msjitd's autodiff, jit O0 and O1), and both against directional finite
differences of the float64 numpy references in tests/models, per tensor.
"""
import numpy as np
import pytest

import msjit as ms
from msjit import ops

from models import basic_block, llama_attention

pytestmark = pytest.mark.usefixtures("module_daemon_home")


def basic_block_case(rng):
    block = basic_block.BasicBlock(in_channels=4, channels=6, stride=2).set_train()
    for name, p in block.parameters_and_names():
        if name.endswith(("gamma", "beta")):
            p.set_data(ms.Tensor(rng.uniform(0.5, 1.5, p.shape).astype(np.float32)))
    x = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    return block, x, lambda net, x: basic_block.reference(net, x, training=True)


def llama_case(rng):
    ms.set_seed(3)
    attn = llama_attention.LlamaAttention(hidden_size=16, num_heads=4, num_kv_heads=2, head_dim=4,
                                          max_positions=8)
    x = rng.standard_normal((2, 5, 16)).astype(np.float32)
    return attn, x, llama_attention.reference


MODELS = {"basic_block": basic_block_case, "llama_attention": llama_case}


def loss_of(net, ct):
    def loss(x):
        return (net(x) * ct).sum()
    return loss


def reference_loss(reference, net, x, ct, params, values):
    """The numpy reference's loss with each Parameter's array replaced by ``values`` (float64)."""
    saved = [p._array for p in params]
    try:
        for p, v in zip(params, values):
            p._array = v        # (the references read Parameters through asnumpy())
        return float(np.sum(reference(net, x) * ct))
    finally:
        for p, a in zip(params, saved):
            p._array = a


def directional_fd(reference, net, x, ct, params, which, direction, eps=1e-6):
    """d/dt loss(theta + t * direction) at 0, where ``which`` is -1 (the input) or a Parameter index."""
    base = [p._array.astype(np.float64) for p in params]
    x = x.astype(np.float64)
    values = []
    for sign in (1, -1):
        vals, xs = list(base), x
        if which < 0:
            xs = x + sign * eps * direction
        else:
            vals[which] = base[which] + sign * eps * direction
        values.append(reference_loss(reference, net, xs, ct, params, vals))
    return (values[0] - values[1]) / (2 * eps)


def compiled(level, fn):
    return ms.jit(fn, jit_level=level)


@pytest.mark.parametrize("model", MODELS)
def test_model_gradients(model):
    rng = np.random.default_rng(11)
    net, x, reference = MODELS[model](rng)
    params = net.trainable_params()
    ct = rng.standard_normal(np.asarray(reference(net, x)).shape).astype(np.float32)
    grad_fn = ms.grad(loss_of(net, ms.Tensor(ct)), 0, params)
    eager_dx, eager_dw = grad_fn(ms.Tensor(x))
    for level in ("O0", "O1"):
        dx, dw = ms.jit(grad_fn, jit_level=level)(ms.Tensor(x))
        for e, c in zip((eager_dx, *eager_dw), (dx, *dw)):
            np.testing.assert_allclose(c.asnumpy(), e.asnumpy(), rtol=2e-4, atol=2e-5)
    grads = [eager_dx] + list(eager_dw)
    for which, g in enumerate(grads, start=-1):
        direction = rng.standard_normal(g.shape)
        expected = directional_fd(reference, net, x, ct, params, which, direction)
        name = "x" if which < 0 else params[which].name
        np.testing.assert_allclose(np.sum(g.asnumpy() * direction), expected, rtol=2e-3, atol=1e-4,
                                   err_msg=f"{model}: gradient of {name}")


def sgd_step(net, loss_fn, x, target, lr):
    params = net.trainable_params()
    loss, grads = ms.value_and_grad(loss_fn, None, params)(x, target)
    for p, g in zip(params, grads):
        p.set_data(p - lr * g)
    return float(loss.asnumpy())


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("model", MODELS)
def test_one_training_step_decreases_the_loss(model, mode):
    rng = np.random.default_rng(5)
    net, x, _ = MODELS[model](rng)
    x = ms.Tensor(x)
    target = ms.Tensor(rng.standard_normal(net(x).shape).astype(np.float32))

    def loss_fn(x, target):
        return ((net(x) - target) ** 2).mean()
    ms.set_context(mode=mode)
    try:
        before = sgd_step(net, loss_fn, x, target, lr=0.05)
        after = sgd_step(net, loss_fn, x, target, lr=0.0)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert after < before, (before, after)


def test_jitted_train_step_updates_parameters_in_the_graph():
    """grad + SGD inside one jitted function: the Parameter updates are graph outputs."""
    rng = np.random.default_rng(6)
    net, x, _ = llama_case(rng)
    x = ms.Tensor(x)
    target = ms.Tensor(rng.standard_normal(net(x).shape).astype(np.float32))
    params = net.trainable_params()

    def loss_fn(x, target):
        return ((net(x) - target) ** 2).mean()
    grad_fn = ms.value_and_grad(loss_fn, None, params)

    @ms.jit(jit_level="O1")
    def train_step(x, target):
        loss, grads = grad_fn(x, target)
        for p, g in zip(params, grads):
            ops.assign(p, p - 0.05 * g)
        return loss
    losses = [float(train_step(x, target).asnumpy()) for _ in range(3)]
    assert losses[0] > losses[1] > losses[2], losses
    assert train_step.stats.compiles == 1

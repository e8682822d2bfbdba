"""The tutorial-style programs (tests/models/tutorial_style.py, basic_block.py) driven the way the tutorial's
benchmark scripts drive theirs: ``fp`` and ``fp_and_bp`` over ``mindspore.value_and_grad``, run
eagerly, as ``mindspore.jit(f)`` and ``mindspore.jit(f, jit_level="O1")``, called with ``None``
and keyword arguments and with ``x * (i / n)`` in a loop. Results against float64 numpy
references; gradients against eager and a directional finite difference of the reference; each
jitted function compiles once and never falls back."""
import numpy as np
import pytest

import mindspore
from mindspore import Tensor

from models import basic_block
from models.tutorial_style import AttentionSettings, GroupedAttention, attention_reference

pytestmark = pytest.mark.usefixtures("module_daemon_home")
CALLS = 3


def drive(block, call_args):
    """fp, fp_and_bp and their jitted forms; each is run CALLS times on x * (i / CALLS)."""
    grad_fn = mindspore.value_and_grad(block, None, block.trainable_params(), has_aux=False)

    def fp(*args, **kwargs):
        out = block(*args, **kwargs)
        return out

    def fp_and_bp(*args, **kwargs):
        out, grads = grad_fn(*args, **kwargs)
        return out, grads

    results = {}
    for name, f in (("fp", fp), ("fp_and_bp", fp_and_bp)):
        for level, fn in (("eager", f), ("O0", mindspore.jit(f)), ("O1", mindspore.jit(f, jit_level="O1"))):
            args, kwargs = call_args
            outs = [fn(args[0] * (i / CALLS), *args[1:], **kwargs) for i in range(1, CALLS + 1)]
            if level != "eager":
                assert (fn.stats.compiles, fn.stats.fallbacks) == (1, 0), (name, level, fn.stats)
            results[name, level] = outs
    return results


def directional_fd(reference, param, eps=1e-4, seed=0):
    """d/dt sum(reference()) along a random direction of ``param`` (central differences, float64)."""
    direction = np.random.default_rng(seed).standard_normal(param.shape).astype(np.float32)
    saved = param.asnumpy().copy()
    totals = []
    for sign in (1, -1):
        param.set_data(Tensor(saved + sign * eps * direction))
        totals.append(reference().sum())
    param.set_data(Tensor(saved))
    return (totals[0] - totals[1]) / (2 * eps), direction


def check(results, reference, params):
    want = reference()
    for (name, level), outs in results.items():
        out = outs[-1][0] if name == "fp_and_bp" else outs[-1]
        assert isinstance(out, Tensor)
        np.testing.assert_allclose(out.asnumpy(), want, rtol=2e-4, atol=2e-4, err_msg=f"{name} {level}")
    eager_grads = results["fp_and_bp", "eager"][-1][1]
    assert len(eager_grads) == len(params)
    for level in ("O0", "O1"):
        for p, g, e in zip(params, results["fp_and_bp", level][-1][1], eager_grads):
            np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-3, atol=1e-4, err_msg=f"{p.name} {level}")
    for p, g in zip(params, eager_grads):
        slope, direction = directional_fd(reference, p)
        np.testing.assert_allclose(np.sum(g.asnumpy() * direction), slope, rtol=2e-3, atol=2e-3, err_msg=p.name)


@pytest.mark.parametrize("with_mask", [False, True])
def test_attention_program(with_mask):
    rng = np.random.default_rng(3)
    mindspore.set_seed(3)
    block = GroupedAttention(AttentionSettings())
    length = 8
    x = Tensor(rng.standard_normal((1, length, AttentionSettings.hidden)), mindspore.float32)
    position_ids = Tensor(np.arange(length).reshape(1, -1), mindspore.float32)
    mask = np.triu(np.full((length, length), -1e4, np.float32), 1)[None, None] if with_mask else None
    call_args = ((x, Tensor(mask)), {"position_ids": position_ids}) if with_mask else ((x, None, position_ids), {})
    results = drive(block, call_args)
    last = x.asnumpy() * (CALLS / CALLS)
    reference = lambda: attention_reference(block, last, position_ids.asnumpy(), mask)  # noqa: E731
    check(results, reference, block.trainable_params())


def test_residual_program():
    rng = np.random.default_rng(4)
    mindspore.set_seed(4)
    block = basic_block.BasicBlock(4, 4, 1)
    x = Tensor(rng.standard_normal((2, 4, 8, 8)), mindspore.float32)
    results = drive(block, ((x,), {}))
    check(results, lambda: basic_block.reference(block, x.asnumpy()), block.trainable_params())

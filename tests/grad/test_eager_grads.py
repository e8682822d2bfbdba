"""PyNative reverse-mode autodiff (msjit.autodiff.tape): every primitive's rule against finite
differences and closed forms (tests/grad/cases.py), plus the tape's own behavior. No daemon."""
import os
import sys

import numpy as np
import pytest

sys.path[:0] = [p for p in (os.path.join(os.path.dirname(__file__), "..", "..", "client_py"),
                            os.path.dirname(__file__)) if p not in sys.path]

import msjit as ms  # noqa: E402
from msjit import nn, ops  # noqa: E402
from msjit.autodiff import rules, tape  # noqa: E402
from msjit.autodiff.tape import is_recording, vjp  # noqa: E402
from msjit import core  # noqa: E402

from cases import CASES, GRAD_OP_CASES, cotangent, numeric_grad  # noqa: E402


def eager_grads(case):
    """(output array, gradients for case.wrt) through the tape, with the case's cotangent."""
    tensors = [ms.Tensor(a) for a in case.inputs]
    out, backward = vjp(case.fn, tensors, {}, [tensors[i] for i in case.wrt])
    ct = cotangent(out.shape, out.asnumpy().dtype)
    return out.asnumpy(), ct, backward([(out, ms.Tensor(ct))])


@pytest.mark.parametrize("case", [c for c in CASES + GRAD_OP_CASES if c.fd], ids=repr)
def test_against_finite_differences(case):
    out, ct, grads = eager_grads(case)
    for i, g in zip(case.wrt, grads):
        x = case.inputs[i]
        assert g.shape == x.shape and g.asnumpy().dtype == x.dtype, (i, g.shape, g.dtype)
        np.testing.assert_allclose(g.asnumpy(), numeric_grad(case.fn, case.inputs, i, ct, case.eps),
                                   rtol=case.rtol, atol=case.atol, err_msg=f"input {i}")


@pytest.mark.parametrize("case", [c for c in CASES if c.expected], ids=repr)
def test_closed_form(case):
    out, ct, grads = eager_grads(case)
    expected = case.expected(*case.inputs, ct)
    assert len(expected) == len(case.wrt)
    for i, g, e in zip(case.wrt, grads, expected):
        tight = case.inputs[i].dtype == np.float64
        np.testing.assert_allclose(g.asnumpy(), e, rtol=1e-7 if tight else 1e-5, atol=1e-9 if tight else 1e-5,
                                   err_msg=f"input {i}")


def test_cases_cover_every_rule():
    """Every primitive with a rule is differentiated by some case."""
    seen = set()
    for case in CASES + GRAD_OP_CASES:
        tensors = [ms.Tensor(a) for a in case.inputs]
        t = tape.Tape([tensors[i] for i in case.wrt])
        core.TAPES.append(t)
        try:
            case.fn(*tensors)
        finally:
            core.TAPES.remove(t)
        seen.update(e[0].name for e in t.entries)
    assert set(rules.RULES) - seen == set()


def grad(fn, *args, wrt=None):
    tensors = [a if isinstance(a, ms.Tensor) else ms.Tensor(a) for a in args]
    out, backward = vjp(fn, tensors, {}, tensors if wrt is None else [tensors[i] for i in wrt])
    return backward([(out, None)])


def test_sum_exp_closed_form():
    x = np.linspace(-2, 2, 7)
    (g,) = grad(lambda x: ops.sum(ops.exp(x)), x)
    np.testing.assert_allclose(g.asnumpy(), np.exp(x), rtol=1e-12)


def test_stop_gradient_blocks_and_is_identity():
    x = ms.Tensor(np.array([1.0, -2.0, 3.0]))
    y = ops.stop_gradient(x)
    assert y is not x and np.array_equal(y.asnumpy(), x.asnumpy())
    (g,) = grad(lambda x: ops.sum(ops.stop_gradient(x * 3.0)) + ops.sum(x), x)
    np.testing.assert_array_equal(g.asnumpy(), np.ones(3))
    (g,) = grad(lambda x: ops.sum(ops.stop_gradient(x)), x)
    np.testing.assert_array_equal(g.asnumpy(), np.zeros(3))


def test_unused_and_non_float_wrt_get_zeros():
    x, y, i = ms.Tensor(np.ones((2, 3))), ms.Tensor(np.ones(4, np.float32)), ms.Tensor(np.array([1, 2]))
    out, backward = vjp(lambda x, y, i: ops.sum(x * ops.cast(i, ms.float64)[:, None]), (x, y, i), {}, [x, y, i])
    gx, gy, gi = backward([(out, None)])
    np.testing.assert_array_equal(gx.asnumpy(), np.array([[1.0] * 3, [2.0] * 3]))
    assert gy.shape == (4,) and gy.dtype == ms.float32 and not gy.asnumpy().any()
    assert gi.shape == (2,) and gi.dtype == ms.int64 and not gi.asnumpy().any()


def test_parameters_as_wrt():
    net = nn.Dense(3, 2)
    x = ms.Tensor(np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32))
    params = [net.weight, net.bias]
    out, backward = vjp(net, (x,), {}, params)
    gw, gb = backward([(out, None)])
    np.testing.assert_allclose(gw.asnumpy(), np.ones((4, 2)).T @ x.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), np.full(2, 4.0))
    assert gw.dtype == ms.float32 and gw.shape == net.weight.shape


def test_batchnorm2d_training_closed_form():
    bn = nn.BatchNorm2d(3, dtype=ms.float64)
    bn.set_train()
    rng = np.random.default_rng(2)
    bn.gamma.set_data(rng.uniform(0.5, 2, 3))
    bn.beta.set_data(rng.standard_normal(3))
    x = ms.Tensor(rng.standard_normal((4, 3, 2, 2)))
    out, backward = vjp(bn, (x,), {}, [x, bn.gamma, bn.beta])
    ct = rng.standard_normal(out.shape)
    gx, gg, gb = backward([(out, ms.Tensor(ct))])
    xa, g = x.asnumpy(), bn.gamma.asnumpy()[None, :, None, None]
    axes, n = (0, 2, 3), 16
    xhat = (xa - xa.mean(axes, keepdims=True)) / np.sqrt(xa.var(axes, keepdims=True) + bn.eps)
    rstd = 1 / np.sqrt(xa.var(axes, keepdims=True) + bn.eps)
    dx = g * rstd / n * (n * ct - ct.sum(axes, keepdims=True) - xhat * (ct * xhat).sum(axes, keepdims=True))
    np.testing.assert_allclose(gx.asnumpy(), dx, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(gg.asnumpy(), (ct * xhat).sum(axes), rtol=1e-7)
    np.testing.assert_allclose(gb.asnumpy(), ct.sum(axes), rtol=1e-7)


def test_several_outputs_and_an_output_that_is_wrt():
    x = ms.Tensor(np.array([1.0, 2.0]))
    out, backward = vjp(lambda x: (x, x * x, ops.sum(x) > 0), (x,), {}, [x])
    (g,) = backward([(out[0], ms.Tensor(np.array([1.0, 10.0]))), (out[1], None), (out[2], None)])
    np.testing.assert_allclose(g.asnumpy(), [1.0 + 2.0, 10.0 + 4.0])
    (g,) = backward([(out[1], None)])        # backward can run again
    np.testing.assert_allclose(g.asnumpy(), [2.0, 4.0])


def test_duplicate_wrt_and_cotangent_cast():
    x = ms.Tensor(np.array([3.0], np.float32))
    out, backward = vjp(lambda x: x * x, (x,), {}, [x, x])
    g1, g2 = backward([(out, np.array([2.0]))])
    assert g1.dtype == ms.float32 and g1.asnumpy()[0] == 12.0 and g2.asnumpy()[0] == 12.0


def test_pruning_evaluates_only_needed_rules(monkeypatch):
    calls = []
    table = {k: (lambda k, r: lambda *a, **kw: calls.append(k) or r(*a, **kw))(k, r) for k, r in rules.RULES.items()}
    monkeypatch.setattr(tape, "RULES", table)
    x, y = ms.Tensor(np.ones(3)), ms.Tensor(np.ones(3))
    out, backward = vjp(lambda x, y: (ops.sum(ops.exp(x)), ops.sum(ops.sin(x * y)), ops.tanh(y)), (x, y), {}, [x])
    backward([(out[0], None)])
    assert sorted(calls) == ["Exp", "ReduceSum"]   # not the sin(x * y) branch, tanh(y) unrecorded
    calls.clear()
    backward([(out[1], None)])
    assert sorted(calls) == ["Mul", "ReduceSum", "Sin"]


def test_no_recording_without_tape():
    assert not is_recording() and core.TAPES == []
    seen = []
    x = ms.Tensor(np.ones(2))

    def fn(x):
        seen.append(is_recording())
        return x + 1.0
    vjp(fn, (x,), {}, [x])
    assert seen == [True] and not is_recording() and core.TAPES == []


def test_tape_is_popped_when_fn_raises():
    with pytest.raises(ZeroDivisionError):
        vjp(lambda x: 1 / 0, (ms.Tensor(1.0),), {}, [])
    assert core.TAPES == []


def test_nested_vjp_second_derivative():
    x = ms.Tensor(np.array([0.3, -1.2, 2.0]))

    def first(x):
        out, backward = vjp(lambda x: ops.sum(ops.sin(x) * x * x), (x,), {}, [x])
        return backward([(out, None)])[0]          # 2x sin x + x^2 cos x

    g1, backward = vjp(first, (x,), {}, [x])
    (g2,) = backward([(g1, None)])
    xa = x.asnumpy()
    np.testing.assert_allclose(g1.asnumpy(), 2 * xa * np.sin(xa) + xa ** 2 * np.cos(xa), rtol=1e-12)
    np.testing.assert_allclose(g2.asnumpy(), (2 - xa ** 2) * np.sin(xa) + 4 * xa * np.cos(xa), rtol=1e-12)


def test_nested_vjp_over_different_tensors():
    x, y = ms.Tensor(np.array([2.0])), ms.Tensor(np.array([3.0]))

    def inner_grad_y(x):
        out, backward = vjp(lambda y: x * y * y, (y,), {}, [y])   # d/dy = 2xy
        return backward([(out, None)])[0]

    g, backward = vjp(inner_grad_y, (x,), {}, [x, y])
    gx, gy = backward([(g, None)])
    assert g.asnumpy()[0] == 12.0 and gx.asnumpy()[0] == 6.0 and gy.asnumpy()[0] == 4.0


def test_parameter_updated_in_place_is_an_error():
    p = ms.Parameter(np.array([1.0, 2.0]), "p")
    out, backward = vjp(lambda p: ops.sum(p * p), (p,), {}, [p])
    p.set_data(np.array([5.0, 5.0]))
    with pytest.raises(RuntimeError, match="updated in place"):
        backward([(out, None)])


def test_stop_gradient_under_capture_records_a_node():
    from msjit.capture.trace import capture_trace
    c = capture_trace(lambda x: ops.stop_gradient(x) * 2.0, [ms.Tensor(np.ones(2, np.float32))])
    assert [n.op_type for n in c.graph.nodes][:1] == ["StopGradient"]


def test_alias_gives_a_new_identity_that_outer_tapes_follow():
    x = ms.Tensor(np.array([1.5, -2.0]))

    def first(x):
        a, b = tape.alias(x), tape.alias(x)          # two wrt entries for one argument
        out, backward = vjp(lambda a, b: ops.sum(a * a * b), (a, b), {}, [a, b])
        ga, gb = backward([(out, None)])             # 2ab, a^2
        return ga + gb

    g, backward = vjp(first, (x,), {}, [x])
    xa = x.asnumpy()
    np.testing.assert_allclose(g.asnumpy(), 3 * xa ** 2)
    np.testing.assert_allclose(backward([(g, None)])[0].asnumpy(), 6 * xa)


def test_second_order_through_max_pool_is_a_clear_error():
    x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))

    def first(x):
        out, backward = vjp(lambda x: ops.sum(ops.max_pool2d(x, 2) * x[:, :, :2, :2]), (x,), {}, [x])
        return backward([(out, None)])[0]

    g, backward = vjp(first, (x,), {}, [x])
    with pytest.raises(NotImplementedError, match="MaxPoolGrad"):
        backward([(g, None)])

"""``mindspore.ops.composite``: MultitypeFuncGraph dispatch on MindSpore type names and HyperMap /
Map over nested tuples and lists, eagerly and under jit (ast, bytecode); the semantics were
checked against MindSpore 2.10 (which tuple leaves reach the function, how numbers dispatch)."""
import numpy as np
import pytest

import mindspore as ms
import mindspore.ops.composite as C
from mindspore import Parameter, Tensor, ops

pytestmark = pytest.mark.usefixtures("module_daemon_home")
MODES = ("ast", "bytecode")
RNG = np.random.default_rng(5)

combine = C.MultitypeFuncGraph("combine")


@combine.register("Number", "Number")
def _(x, y):
    return x + y


@combine.register("Tensor", "Tensor")
def _(x, y):
    return ops.mul(x, y)


@combine.register("Tensor", "Number")
def _(x, y):
    return x - y


@combine.register("Tuple", "Tensor")
def _(x, y):
    return x[0] * y


kind = C.MultitypeFuncGraph("kind")
for _name in ("Bool", "Int", "Float", "Number", "Tensor", "Tuple", "List", "String", "None", "Function"):
    kind.register(_name)(lambda x, _n=_name: _n)


def test_dispatch_by_type_names():
    x = Tensor(RNG.standard_normal((2, 3)).astype(np.float32))
    assert combine(1, 2) == 3 and combine(2.5, 1) == 3.5 and combine(True, 2) == 3
    np.testing.assert_allclose(combine(x, x).asnumpy(), x.asnumpy() ** 2)
    np.testing.assert_allclose(combine(x, 2).asnumpy(), x.asnumpy() - 2)
    np.testing.assert_allclose(combine((x,), x).asnumpy(), x.asnumpy() ** 2)
    assert [kind(v) for v in (True, 3, 2.0, x, (1,), [1], "s", None, len)] == \
        ["Bool", "Int", "Float", "Tensor", "Tuple", "List", "String", "None", "Function"]
    assert kind(Parameter(x, name="p")) == "Tensor"
    with pytest.raises(ValueError, match=r"MultitypeFuncGraph 'combine': no registration matches .*String, Int"):
        combine("a", 1)


add_or_scale = C.MultitypeFuncGraph("add_or_scale")


@add_or_scale.register("Tensor", "Tensor")
def _(g, p):
    return g * 0.5 + p


@add_or_scale.register("Number", "Tensor")
def _(lr, p):
    return p * lr


def grads_update(g1, g2, p1, p2):
    """An optimizer-style update: HyperMap over tuples of gradients and parameters."""
    return C.HyperMap(add_or_scale)((g1, g2), (p1, p2)), C.HyperMap()(add_or_scale, (0.1, 0.2), (p1, p2))


sq = C.MultitypeFuncGraph("sq")


@sq.register("Tensor")
def _(t):
    return t * t


def nested(x, y):
    return C.HyperMap(sq)(((x, y), [x]))


@pytest.mark.parametrize("mode", ("eager",) + MODES)
def test_hypermap(mode):
    g1, g2, p1, p2 = (RNG.standard_normal(s).astype(np.float32) for s in ((2, 3), (4,), (2, 3), (4,)))
    fn = grads_update if mode == "eager" else ms.jit(grads_update, capture_mode=mode, fullgraph=True)
    added, scaled = fn(*(Tensor(a) for a in (g1, g2, p1, p2)))
    assert isinstance(added, tuple) and len(added) == 2
    np.testing.assert_allclose(added[0].asnumpy(), g1 * 0.5 + p1, rtol=1e-6)
    np.testing.assert_allclose(added[1].asnumpy(), g2 * 0.5 + p2, rtol=1e-6)
    np.testing.assert_allclose(scaled[1].asnumpy(), p2 * np.float32(0.2), rtol=1e-6)
    x, y = RNG.standard_normal((3,)).astype(np.float32), RNG.standard_normal((2,)).astype(np.float32)
    fn = nested if mode == "eager" else ms.jit(nested, capture_mode=mode, fullgraph=True)
    (sx, sy), (sx2,) = fn(Tensor(x), Tensor(y))
    for got, want in ((sx, x * x), (sy, y * y), (sx2, x * x)):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)


def test_hypermap_keeps_structure_and_numbers():
    x = Tensor(np.arange(3, dtype=np.float32))
    out = C.HyperMap(combine)([x, 1], [x, 2])
    assert isinstance(out, list) and out[1] == 3
    np.testing.assert_allclose(out[0].asnumpy(), np.arange(3) ** 2)
    with pytest.raises(ValueError, match="tuples or lists of one length"):
        C.HyperMap(combine)((x, x), (x,))
    order = []
    C.HyperMap(lambda a: order.append(a), reverse=True)((1, 2, 3))
    assert order == [3, 2, 1]


def test_map_is_one_level():
    x = Tensor(np.ones(2, np.float32))
    out = C.Map()(lambda a, b: (a, b), ((x, x), 1), (2, 3))
    assert out[1] == (1, 3) and out[0][1] == 2


def test_composite_grad_and_like():
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    g = C.GradOperation()(lambda t: (t * t).sum())(Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), 2 * x, rtol=1e-6)
    np.testing.assert_array_equal(C.zeros_like(Tensor(x)).asnumpy(), np.zeros_like(x))
    np.testing.assert_array_equal(C.ones_like(Tensor(x)).asnumpy(), np.ones_like(x))
    assert ms.ops.depend(Tensor(x), None).shape == (2, 3)


momentum_opt = C.MultitypeFuncGraph("momentum_opt")


@momentum_opt.register("Function", "Tensor", "Tensor", "Tensor", "Tensor", "Tensor")
def _(opt, momentum, learning_rate, gradient, weight, moment):
    return ms.ops.functional.depend(True, opt(weight, moment, learning_rate, gradient, momentum))


class MomentumIdiom(ms.nn.Cell):
    """MindSpore's optimizer idiom: HyperMap over F.partial(MultitypeFuncGraph, ApplyMomentum, ...)."""

    def __init__(self, params):
        super().__init__()
        self.params = ms.ParameterTuple(params)
        self.moments = self.params.clone(prefix="moments", init="zeros")
        self.lr, self.momentum = Tensor(np.float32(0.1)), Tensor(np.float32(0.9))
        self.hyper_map = C.HyperMap()
        self.opt = ms.ops.operations.ApplyMomentum()

    def construct(self, g1, g2):
        partial = ms.ops.functional.partial(momentum_opt, self.opt, self.momentum, self.lr)
        return self.hyper_map(partial, (g1, g2), self.params, self.moments)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_optimizer_idiom(mode):
    w1 = Parameter(Tensor(np.ones(3, np.float32)), name="w1")
    w2 = Parameter(Tensor(np.zeros((2, 2), np.float32)), name="w2")
    g1, g2 = RNG.standard_normal(3).astype(np.float32), RNG.standard_normal((2, 2)).astype(np.float32)
    opt = MomentumIdiom([w1, w2])
    ms.set_context(mode=mode)
    try:
        assert opt(Tensor(g1), Tensor(g2)) == (True, True)
        opt(Tensor(g1), Tensor(g2))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    # accum: g, then 1.9 g; w: w0 - 0.1 g - 0.19 g
    np.testing.assert_allclose(w1.asnumpy(), 1 - 0.29 * g1, rtol=1e-5)
    np.testing.assert_allclose(w2.asnumpy(), -0.29 * g2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(opt.moments[1].asnumpy(), 1.9 * g2, rtol=1e-5)

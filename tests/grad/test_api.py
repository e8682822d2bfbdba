"""grad / value_and_grad / GradOperation: MindSpore's return structures, in PyNative, inside jit
and in GRAPH_MODE, each against numpy closed forms; compiled gradients come from msjitd's
msjit-autodiff pass (a real daemon)."""
import numpy as np
import pytest

import msjit as ms
from msjit import nn, ops
from msjit.errors import CompileError

pytestmark = pytest.mark.usefixtures("module_daemon_home")

RUNS = ["pynative", "jit", "graph"]


def run(mode, make, *args):
    """``make()`` is a gradient function; call it eagerly, through ``jit``, or in GRAPH_MODE."""
    if mode == "pynative":
        return make()(*args)
    if mode == "jit":
        return ms.jit(make())(*args)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return make()(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def close(actual, expected, rtol=1e-6):
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected), (actual, expected)
        for a, e in zip(actual, expected):
            close(a, e, rtol)
    else:
        assert isinstance(actual, ms.Tensor), type(actual)
        np.testing.assert_allclose(actual.asnumpy(), expected, rtol=rtol, atol=1e-6)


# ---- the notebook's GradNetWrtX -------------------------------------------------------------------

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matmul = ops.MatMul()
        self.z = ms.Parameter(ms.Tensor(np.array([2.0], np.float32)), name="z")

    def construct(self, x, y):
        x = x * self.z
        return self.matmul(x, y)


class GradNetWrtX(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x, y):
        gradient_function = ms.grad(self.net)
        return gradient_function(x, y)


class GradOpNetWrtX(GradNetWrtX):
    def construct(self, x, y):
        return ops.GradOperation()(self.net)(x, y)


NOTEBOOK_X = np.array([[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]], np.float32)
NOTEBOOK_Y = np.array([[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]], np.float32)
NOTEBOOK_GRAD = [[9.02, 5.4, 7.2], [9.02, 5.4, 7.2]]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("cell", [GradNetWrtX, GradOpNetWrtX])
def test_notebook_grad_net_wrt_x(mode, cell):
    ms.set_context(mode=mode)
    try:
        out = cell(Net())(ms.Tensor(NOTEBOOK_X), ms.Tensor(NOTEBOOK_Y))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(out.asnumpy(), NOTEBOOK_GRAD, rtol=1e-6)


def test_notebook_graph_mode_compiles_one_grad_graph():
    net = GradNetWrtX(Net())
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        for _ in range(3):
            net(ms.Tensor(NOTEBOOK_X), ms.Tensor(NOTEBOOK_Y))
        stats = net.__dict__["_graph"][1].stats
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert (stats.captures, stats.compiles) == (1, 1)


# ---- argument selection and return structures -----------------------------------------------------

X = np.array([[0.5, -1.0, 2.0]])
Y = np.array([[1.5, 0.25, -0.5]])


def f(x, y):
    return (ops.exp(x) * y * y).sum()


def df(x, y):
    return np.exp(x) * y * y, 2 * np.exp(x) * y


@pytest.mark.parametrize("mode", RUNS)
def test_positions(mode):
    x, y = ms.Tensor(X), ms.Tensor(Y)
    dx, dy = df(X, Y)
    close(run(mode, lambda: ms.grad(f), x, y), dx)
    close(run(mode, lambda: ms.grad(f, 1), x, y), dy)
    close(run(mode, lambda: ms.grad(f, (0, 1)), x, y), (dx, dy))
    close(run(mode, lambda: ms.grad(f, (1,)), x, y), dy)   # a single gradient alone, as MindSpore


@pytest.mark.parametrize("mode", RUNS)
def test_same_tensor_at_two_positions_gets_two_gradients(mode):
    x = ms.Tensor(X)
    dx, dy = df(X, X)
    close(run(mode, lambda: ms.grad(f, (0, 1)), x, x), (dx, dy))


class Linear(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array([[1.0], [-2.0], [0.5]])), name="w")
        self.b = ms.Parameter(ms.Tensor(np.array([0.25])), name="b")

    def construct(self, x):
        out = ops.matmul(x, self.w) + self.b
        return (out * out).sum(), out


def linear_setup():
    """A Linear net, its Parameters, the input X, and the closed-form dw, db, dx of its loss and
    its second output."""
    net = Linear()
    out = X @ net.w.asnumpy() + net.b.asnumpy()
    dw, db, dx = X.T @ (2 * out), (2 * out).sum(0), 2 * out @ net.w.asnumpy().T
    return net, net.trainable_params(), ms.Tensor(X), dw, db, dx, out


@pytest.mark.parametrize("mode", RUNS)
def test_weights_has_aux_and_value(mode):
    net, params, x, dw, db, dx, out = linear_setup()
    loss = (out * out).sum()
    close(run(mode, lambda: ms.grad(net, None, params, has_aux=True), x), ((dw, db), (out,)))
    close(run(mode, lambda: ms.grad(net, 0, params, has_aux=True), x), ((dx, (dw, db)), (out,)))
    close(run(mode, lambda: ms.grad(net, None, net.w, has_aux=True), x), (dw, (out,)))
    close(run(mode, lambda: ms.value_and_grad(net, None, params, has_aux=True), x), ((loss, out), (dw, db)))
    # Without has_aux every output is differentiated (their sum).
    dw_all = X.T @ (2 * out + 1)
    close(run(mode, lambda: ms.grad(net, None, [net.w]), x), (dw_all,))


@pytest.mark.parametrize("mode", RUNS)
def test_grad_operation(mode):
    net, params, x, dw, db, dx, out = linear_setup()
    sens_loss, sens_out = np.array(2.0), np.full_like(out, 3.0)
    close(run(mode, lambda: ops.GradOperation(get_all=True, get_by_list=True)(net, params), x),
          ((dx + net.w.asnumpy().T,), (dw + X.T @ np.ones_like(out), db + 1)))
    grad_fn = ops.GradOperation(get_by_list=True, sens_param=True)(net, params)

    def sensed_fn(x, s1, s2):   # (jit takes Tensors as positional arguments, not inside a tuple)
        return grad_fn(x, (s1, s2))
    sensed = run(mode, lambda: sensed_fn, x, ms.Tensor(sens_loss), ms.Tensor(sens_out))
    close(sensed, (2 * dw + X.T @ sens_out, 2 * db + sens_out.sum(0)))


# ---- stop_gradient, control flow, nesting ----------------------------------------------------------

def with_stop(x):
    return (x * ops.stop_gradient(x * x)).sum()


@pytest.mark.parametrize("mode", RUNS)
def test_stop_gradient(mode):
    close(run(mode, lambda: ms.grad(with_stop), ms.Tensor(X)), X * X)


def branchy(x, n):
    y = x
    for _ in range(n):
        y = ops.sin(y)
    if x.sum() > 0:
        y = y * 3.0
    else:
        y = y - 1.0
    return y.sum()


@pytest.mark.parametrize("mode", RUNS)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_grad_through_control_flow(mode, sign):
    x = sign * np.abs(X)
    expected = np.cos(np.sin(x)) * np.cos(x) * (3.0 if x.sum() > 0 else 1.0)
    close(run(mode, lambda: ms.grad(branchy), ms.Tensor(x), 2), expected)


@ms.jit
def jitted_inner(x):
    return ops.tanh(x) * x


def calls_jitted(x):
    return jitted_inner(x * 2.0).sum()


@pytest.mark.parametrize("mode", RUNS)
def test_nested_jitted_call(mode):
    u = 2 * X
    expected = 2 * ((1 - np.tanh(u) ** 2) * u + np.tanh(u))
    close(run(mode, lambda: ms.grad(calls_jitted), ms.Tensor(X)), expected)
    close(run(mode, lambda: ms.grad(lambda x: jitted_inner(x).sum()), ms.Tensor(X)),
          (1 - np.tanh(X) ** 2) * X + np.tanh(X))


def cube_sum(x):
    return (x * x * x).sum()


@pytest.mark.parametrize("mode", RUNS)
def test_second_derivative(mode):
    def d2():
        first = ms.grad(cube_sum)
        return ms.grad(lambda x: first(x).sum())
    close(run(mode, d2, ms.Tensor(X)), 6 * X)


def test_grad_of_a_jitted_function_compiles_forward_and_backward_once():
    @ms.jit(jit_level="O1")
    def loss(x, y):
        return (ops.sigmoid(x) * y).sum()
    g = ms.grad(loss, (0, 1))
    for _ in range(3):
        dx, dy = g(ms.Tensor(X), ms.Tensor(Y))
    s = 1 / (1 + np.exp(-X))
    close((dx, dy), (s * (1 - s) * Y, s))
    stats = g._compiled[1].stats
    assert (stats.captures, stats.compiles) == (1, 1)


# ---- errors ---------------------------------------------------------------------------------------

def test_errors():
    x = ms.Tensor(X)
    with pytest.raises(ValueError, match="cannot both be None"):
        ms.grad(f, None)
    with pytest.raises(IndexError, match="grad_position 5"):
        ms.grad(f, 5)(x, x)
    # (a Python number at a grad position gets no gradient, and integer outputs contribute none:
    # MindSpore's forms, tests/api/test_grad_forms.py)
    with pytest.raises(TypeError, match="weights must be Parameters"):
        ms.grad(f, None, [x])


def test_daemon_rejects_a_bad_grad_node_with_its_location():
    from msjit.autodiff import body
    from msjit.capture.graph import GraphBuilder
    builder = GraphBuilder("bad")
    builder.location = (__file__, 1)
    (t,) = builder.bind_args([ms.Tensor(X)])
    _, grads = body.record_grad(builder, f, [t, t], {}, (0,), (), False, None)
    node = builder.nodes[-1]
    builder.nodes[-1] = type(node)(node.name, node.op_type, node.inputs, dict(node.attrs, wrt=(7,)),
                                   node.location, node.aval, node.outputs)
    captured = builder.finish(grads[0])
    with pytest.raises(CompileError, match=r"test_api.py:1.*wrt position 7 is out of range"):
        ms.jit(f)._load_graph(captured.graph)


class NeedsValue(nn.Cell):
    """A construct that needs a tensor's value: GRAPH_MODE falls back to Python for it."""

    def construct(self, x):
        if float(x.sum()) > 0:
            return x * x
        return -x


class ReturnsNumpy(nn.Cell):
    def construct(self, a, b):
        return np.exp(a.asnumpy() + b.asnumpy())


def test_graph_mode_gradient_of_a_cell_that_falls_back_runs_on_the_tape():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        x = ms.Tensor(X)
        with pytest.warns(ms.JitFallbackWarning):
            close(ms.grad(NeedsValue())(x), 2 * X)
        close(ms.grad(NeedsValue())(-x), -np.ones_like(X))
        a, b = ms.Tensor(np.array(4, np.int32)), ms.Tensor(np.array(5, np.int32))
        assert ms.grad(ReturnsNumpy())(a, b).asnumpy() == 0   # no tensor output: zero, as MindSpore
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class Square(nn.Cell):
    def construct(self, x):
        return x * x * x


@pytest.mark.parametrize("mode", RUNS)
def test_grad_of_grad_after_first_order_is_second_order(mode):
    """The outer gradient differentiates the inner gradient, not the inner one's function."""
    x = ms.Tensor(np.array([1.5, -2.0]))
    for fn in (Square(), lambda t: t * t * t):
        close(run(mode, lambda: ms.grad(fn), x), 3 * x.asnumpy() ** 2)
        close(run(mode, lambda: ms.grad(ms.grad(fn)), x), 6 * x.asnumpy())

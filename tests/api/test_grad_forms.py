"""The forms of ``grad`` / ``value_and_grad`` / ``GradOperation`` as MindSpore 2.10 returns them
(checked against the oracle when written): grad_position int / tuple / None, non-Tensor
arguments, weights as Parameter / list / ParameterTuple, return_ids, has_aux, sens_param and
integer outputs. Every gradient is compared with central finite differences, eagerly (tape),
through ``jit`` and in GRAPH_MODE (a Grad node compiled by msjitd)."""
import numpy as np
import pytest

import mindspore as ms
from mindspore import Parameter, ParameterTuple, Tensor, ops

pytestmark = pytest.mark.usefixtures("module_daemon_home")

RUNS = ["pynative", "jit", "graph"]
RNG = np.random.default_rng(7)
X = RNG.uniform(0.5, 2.0, (2, 3))
Y = RNG.uniform(0.5, 2.0, (2, 3))
W = RNG.uniform(0.5, 2.0, (2, 3))
w = Parameter(Tensor(W), name="w")


def run(mode, grad_fn, *args):
    if mode == "pynative":
        return grad_fn(*args)
    if mode == "jit":
        return ms.jit(grad_fn)(*args)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return grad_fn(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def fd(f, arrays, i, eps=1e-6):
    """d sum(f(*arrays)) / d arrays[i] by central differences (float64 numpy)."""
    x = arrays[i]
    g = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        for sign in (1, -1):
            xs = [a.copy() for a in arrays]
            xs[i][idx] += sign * eps
            g[idx] += sign * np.sum(f(*xs)) / (2 * eps)
    return g


def same(actual, expected):
    """``actual`` has ``expected``'s structure (tuples, (id, grad) pairs) and values."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, tuple) and len(actual) == len(expected), (actual, expected)
        for a, e in zip(actual, expected):
            same(a, e)
    elif isinstance(expected, (int, str)):
        assert actual == expected
    else:
        assert isinstance(actual, Tensor), type(actual)
        np.testing.assert_allclose(actual.asnumpy(), expected, rtol=1e-5, atol=1e-6)


def f(x, y):
    return (ops.sin(x) * y * w).sum()


def f_np(x, y, wv=W):
    return np.sin(x) * y * wv


DX, DY, DW = fd(f_np, [X, Y, W], 0), fd(f_np, [X, Y, W], 1), fd(f_np, [X, Y, W], 2)

FORMS = {   # name -> (gradient function, arguments, expected structure)
    "position_int": (lambda: ms.grad(f, 0), (X, Y), DX),
    "position_1": (lambda: ms.grad(f, 1), (X, Y), DY),
    "position_tuple": (lambda: ms.grad(f, (0, 1)), (X, Y), (DX, DY)),
    "position_tuple_of_one": (lambda: ms.grad(f, (1,)), (X, Y), DY),
    "weights_only_param": (lambda: ms.grad(f, None, w), (X, Y), DW),
    "weights_only_list": (lambda: ms.grad(f, None, [w]), (X, Y), (DW,)),
    "weights_parameter_tuple": (lambda: ms.grad(f, 0, ParameterTuple([w])), (X, Y), (DX, (DW,))),
    "return_ids": (lambda: ms.grad(f, (0, 1), [w], return_ids=True), (X, Y),
                   (((0, DX), (1, DY)), (("w", DW),))),
    "value_and_grad": (lambda: ms.value_and_grad(f, 1), (X, Y), (np.sum(f_np(X, Y)), DY)),
    "get_all": (lambda: ops.GradOperation(get_all=True)(f), (X, Y), (DX, DY)),
    "get_by_list": (lambda: ops.GradOperation(get_by_list=True)(f, ParameterTuple([w])), (X, Y), (DW,)),
    "get_all_and_by_list": (lambda: ops.GradOperation(get_all=True, get_by_list=True)(f, ParameterTuple([w])),
                            (X, Y), ((DX, DY), (DW,))),
    "get_all_sens": (lambda: ops.GradOperation(get_all=True, sens_param=True)(f), (X, Y, np.array(2.0)),
                     (2 * DX, 2 * DY)),
}


@pytest.mark.parametrize("mode", RUNS)
@pytest.mark.parametrize("name", FORMS)
def test_forms_against_finite_differences(name, mode):
    make, args, expected = FORMS[name]
    same(run(mode, make(), *(Tensor(a) for a in args)), expected)


def with_aux(x):
    return (x * x * w).sum(), ops.exp(x)


@pytest.mark.parametrize("mode", RUNS)
def test_has_aux_differentiates_the_first_output_only(mode):
    x = Tensor(X)
    dx = fd(lambda x: x * x * W, [X], 0)
    same(run(mode, ms.grad(with_aux, 0, has_aux=True), x), (dx, (np.exp(X),)))
    same(run(mode, ms.value_and_grad(with_aux, 0, w, has_aux=True), x),
         ((np.sum(X * X * W), np.exp(X)), (dx, fd(lambda x, wv: x * x * wv, [X, W], 1))))


def tuple_arg(t, z):
    return (t[0] * t[1] * z).sum()


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_non_tensor_positions_have_no_gradient(mode):
    """MindSpore 2.10: a tuple or number at grad_position gives no gradient (``()`` alone; left
    out of a tuple of gradients, one remaining gradient returned alone). (GRAPH_MODE: a call
    with tensors in a tuple runs on the tape, jit taking no tuples of tensors.)"""
    t, z = (Tensor(X), Tensor(Y)), Tensor(W)
    assert run(mode, ms.grad(tuple_arg, 0), t, z) == ()
    same(run(mode, ms.grad(tuple_arg, (0, 1)), t, z), X * Y)
    same(run(mode, ops.GradOperation(get_all=True)(tuple_arg), t, z), (X * Y,))


@pytest.mark.parametrize("capture_mode", ["ast", "bytecode"])
def test_non_tensor_positions_under_jit(capture_mode):
    def g(x, y, z):
        t = (x, y)
        return ms.grad(tuple_arg, (0, 1))(t, z), ms.grad(tuple_arg, 0)(t, z)
    got, empty = ms.jit(g, capture_mode=capture_mode, fullgraph=True)(Tensor(X), Tensor(Y), Tensor(W))
    same(got, X * Y)
    assert empty == ()


def test_number_argument_at_grad_position_eager():
    x = Tensor(X)
    assert ms.grad(lambda a, s: (a * s).sum(), 1)(x, 3.0) == ()
    same(ms.grad(lambda a, s: (a * s).sum(), (0, 1))(x, 3.0), np.full(X.shape, 3.0))


def loss_and_index(x):
    return (x * x).sum(), ops.cast(x > 1.0, ms.int32)


@pytest.mark.parametrize("mode", RUNS)
def test_integer_outputs_contribute_no_gradient(mode):
    same(run(mode, ms.grad(loss_and_index), Tensor(X)), 2 * X)
    value, grad = run(mode, ms.value_and_grad(loss_and_index), Tensor(X))
    same(grad, 2 * X)
    np.testing.assert_array_equal(value[1].asnumpy(), (X > 1.0).astype(np.int32))


def two_outputs(x):
    return ops.sin(x), x * x


@pytest.mark.parametrize("mode", RUNS)
def test_sens_param_weights_every_output(mode):
    s1, s2 = RNG.standard_normal(X.shape), RNG.standard_normal(X.shape)
    grad_fn = ops.GradOperation(sens_param=True)(two_outputs)

    def sens_as_tuple(x, s1, s2):   # (jit takes no tuple of Tensors as an argument)
        return grad_fn(x, (s1, s2))
    got = run(mode, sens_as_tuple, Tensor(X), Tensor(s1), Tensor(s2))
    same(got, np.cos(X) * s1 + 2 * X * s2)
    single = ops.GradOperation(sens_param=True)(lambda x: x * x)
    same(run(mode, single, Tensor(X), Tensor(s1)), 2 * X * s1)


def test_weights_must_be_parameters_and_positions_in_range():
    with pytest.raises(TypeError, match="weights must be Parameters"):
        ms.grad(f, None, [Tensor(X)])
    with pytest.raises(IndexError, match="grad_position 5"):
        ms.grad(f, 5)(Tensor(X), Tensor(Y))
    with pytest.raises(ValueError, match="cannot both be None"):
        ms.grad(f, None)


def only_integer(x):
    return ops.cast(x, ms.int32)


@pytest.mark.parametrize("mode", RUNS)
def test_only_integer_outputs_give_zero_gradients(mode):
    """(MindSpore passes the ones sensitivity back through Cast and returns ones here; msjit
    differentiates floating-point outputs only, see autodiff/outputs.py.)"""
    same(run(mode, ms.grad(only_integer), Tensor(X)), np.zeros_like(X))
    value, grad = run(mode, ms.value_and_grad(only_integer), Tensor(X))
    np.testing.assert_array_equal(value.asnumpy(), X.astype(np.int32))
    same(grad, np.zeros_like(X))

"""API gaps found by running MindSpore's own tests: ``ops.get_grad``, ``Tensor.from_numpy``, the
``Tensor(shape=, dtype=, init=)`` and dynamic-shape ``Tensor(shape=[None, 3])`` forms,
``init_data`` / ``has_init`` / ``set_const_arg``, and the primitive classes those tests import.
Expected values come from numpy (or from what MindSpore 2.10 prints for the same program)."""
import copy
import pickle

import numpy as np
import pytest

import mindspore as ms
from harness import MODES, array, check_api, seeded, shape
from mindspore import Parameter, Tensor, nn, ops
from mindspore.common.initializer import Constant, Normal, One, Zero
from mindspore.ops import functional as F
from mindspore.ops import operations as P

pytestmark = pytest.mark.usefixtures("module_daemon_home")


# ---- get_grad ----------------------------------------------------------------------------------

def _product(x, y, z):
    return (ops.sin(x) * y * z).sum()


def _grad_of(position):
    """``get_grad(grad(_product, (0, 1, 2), return_ids=True)(x, y, z), position)``."""
    def pick(x, y, z):
        return ops.get_grad(ops.grad(_product, (0, 1, 2), return_ids=True)(x, y, z), position)
    return pick


_GRAD_REFS = {0: lambda x, y, z: (np.cos(x) * y * z).astype(x.dtype),
              1: lambda x, y, z: (np.sin(x) * z).astype(x.dtype),
              2: lambda x, y, z: (np.sin(x) * y).astype(x.dtype)}


@pytest.mark.parametrize("position", sorted(_GRAD_REFS))
def test_get_grad_by_position(position):
    rng = seeded(f"get_grad{position}")
    shp = shape(rng)
    args = [array(rng, shp) for _ in range(3)]
    check_api(_grad_of(position), args, _GRAD_REFS[position], rtol=1e-5, atol=1e-5)


class _Scaled(nn.Cell):
    def __init__(self, w, b):
        super().__init__()
        self.w = Parameter(Tensor(w), name="w")
        self.b = Parameter(Tensor(b), name="b")

    def construct(self, x):
        return (x * self.w + self.b * self.b).sum()


def test_get_grad_by_parameter_and_errors():
    rng = seeded("get_grad_param")
    shp = shape(rng)
    x, w, b = (array(rng, shp) for _ in range(3))
    net = _Scaled(w, b)
    grads = ops.grad(net, 0, net.trainable_params(), return_ids=True)(Tensor(x))
    np.testing.assert_allclose(F.get_grad(grads, net.w).asnumpy(), x, rtol=1e-6)
    np.testing.assert_allclose(ms.get_grad(grads, net.b).asnumpy(), 2 * b, rtol=1e-6)
    np.testing.assert_allclose(ops.get_grad(grads, 0).asnumpy(), w, rtol=1e-6)
    with pytest.raises(RuntimeError, match="position or Parameter 1"):
        ops.get_grad(grads, 1)
    with pytest.raises(TypeError, match="get_grad"):
        ops.get_grad(grads, "w")
    with pytest.raises(TypeError, match="get_grad"):
        ops.get_grad(grads, 1.0)
    np.testing.assert_allclose(ops.get_grad(grads, False).asnumpy(), w, rtol=1e-6)   # as MindSpore
    other = Parameter(Tensor(w), name="other")
    with pytest.raises(RuntimeError, match="other"):
        ops.get_grad(grads, other)
    # a single position: grad returns one (position, gradient) pair
    single = ops.grad(net, 0, return_ids=True)(Tensor(x))
    np.testing.assert_allclose(ops.get_grad(single, 0).asnumpy(), w, rtol=1e-6)


def test_get_grad_parameter_under_jit():
    rng = seeded("get_grad_jit")
    shp = shape(rng)
    x, w, b = (array(rng, shp) for _ in range(3))
    net = _Scaled(w, b)
    grad_fn = ops.grad(net, None, net.trainable_params(), return_ids=True)

    for mode in MODES:
        @ms.jit(capture_mode=mode, fullgraph=True)
        def pick(x):
            return ops.get_grad(grad_fn(x), net.w) + ops.get_grad(grad_fn(x), net.b)
        np.testing.assert_allclose(pick(Tensor(x)).asnumpy(), x + 2 * b, rtol=1e-5, err_msg=mode)


# ---- Tensor constructors and from_numpy ------------------------------------------------------

def test_from_numpy_shares_memory():
    rng = seeded("from_numpy")
    for dtype in (np.float32, np.float64, np.int32, np.int64, np.bool_):
        a = array(rng, shape(rng), dtype)
        t = Tensor.from_numpy(a)
        assert t.asnumpy().dtype == a.dtype and t.shape == a.shape
        a.flat[0] = not a.flat[0] if dtype is np.bool_ else a.flat[0] + 7
        assert t.asnumpy().flat[0] == a.flat[0], "from_numpy must share the array's memory"
    strided = np.arange(12, dtype=np.float32).reshape(3, 4)[:, 1]
    np.testing.assert_array_equal(Tensor.from_numpy(strided).asnumpy(), strided)
    with pytest.raises(TypeError, match="NumPy array"):
        Tensor.from_numpy([1.0, 2.0])
    with pytest.raises(TypeError):
        Tensor.from_numpy(np.array(["a"]))


def _ones_plus(x):
    return x + Tensor(shape=x.shape, dtype=x.dtype, init=One())


def test_tensor_from_init_inside_jit():
    rng = seeded("init_jit")
    check_api(_ones_plus, [array(rng, shape(rng))], lambda x: x + np.float32(1), grad=True)


_INITS = {"One": (One(), lambda s: np.ones(s)), "Zero": (Zero(), lambda s: np.zeros(s)),
          "Constant": (Constant(2.5), lambda s: np.full(s, 2.5)), "ones": ("ones", lambda s: np.ones(s)),
          "zeros": ("zeros", lambda s: np.zeros(s))}


@pytest.mark.parametrize("name", sorted(_INITS))
@pytest.mark.parametrize("dtype", [ms.float32, ms.float16, ms.int32])
def test_tensor_shape_dtype_init(name, dtype):
    init, ref = _INITS[name]
    shp = shape(seeded(name))
    t = Tensor(shape=shp, dtype=dtype, init=init)
    assert t.has_init and t.init is init
    assert t.shape == shp and t.dtype == dtype
    assert t.init_data() is t and not t.has_init and t.init is None
    np.testing.assert_array_equal(t.asnumpy(), ref(shp).astype(ms.dtype_to_nptype(dtype)))
    with pytest.raises(TypeError, match="init_data"):
        t.init_data()   # already applied, as MindSpore


def test_tensor_random_init_and_parameter():
    ms.set_seed(3)
    t = Tensor(shape=(64, 32), dtype=ms.float32, init=Normal(sigma=0.5)).init_data()
    values = t.asnumpy()
    assert values.dtype == np.float32 and values.shape == (64, 32)
    assert 0.4 < values.std() < 0.6 and abs(values.mean()) < 0.05
    p = Parameter(Tensor(shape=(2, 3), dtype=ms.float32, init=One()), name="p")
    np.testing.assert_array_equal(p.asnumpy(), np.ones((2, 3), np.float32))


def test_tensor_shape_dtype_without_init_is_zeros():
    t = Tensor(shape=(2, 3), dtype=ms.int32)
    assert not t.has_init and t.dtype == ms.int32
    np.testing.assert_array_equal(t.asnumpy(), np.zeros((2, 3), np.int32))
    with pytest.raises(TypeError, match="init_data"):
        t.init_data()


@pytest.mark.parametrize("kwargs, error", [
    ({}, TypeError), ({"shape": (2,)}, TypeError), ({"shape": (2,), "init": One()}, ValueError),
    ({"dtype": ms.float32, "init": One()}, ValueError), ({"input_data": [1.0], "shape": (1,)}, ValueError),
    ({"input_data": [1.0], "const_arg": 1}, TypeError),
    ({"shape": (None, 2), "dtype": ms.float32, "init": One()}, ValueError)])
def test_tensor_constructor_errors(kwargs, error):
    with pytest.raises(error, match="Tensor"):
        Tensor(**kwargs)


class _Double(nn.Cell):
    def construct(self, x):
        return x * 2


def test_dynamic_shape_declaration():
    spec = Tensor(shape=[None, 3], dtype=ms.float32)
    assert isinstance(spec, Tensor) and spec.shape == (-1, 3) and spec.dtype == ms.float32
    assert "shape=[-1, 3]" in repr(spec) and not spec.has_init
    assert Tensor(None, ms.int32, (2, -1)).shape == (2, -1)
    for twin in (copy.deepcopy(spec), pickle.loads(pickle.dumps(spec))):   # (Cells holding it are copied)
        assert type(twin) is type(spec) and twin.shape == (-1, 3) and twin.dtype == ms.float32
    for use in (lambda: spec + 1, lambda: spec.asnumpy(), lambda: ops.exp(spec), lambda: np.asarray(spec)):
        with pytest.raises(ValueError, match="dynamic shape"):
            use()
    net = _Double()
    net.set_inputs(spec)
    rng = seeded("dyn")
    for rows in (2, 5):
        x = array(rng, (rows, 3))
        np.testing.assert_allclose(net(Tensor(x)).asnumpy(), 2 * x)


def test_const_arg():
    x = Tensor(np.ones(2, np.float32))
    assert x.const_arg is False and not x.has_init
    assert x.set_const_arg() is x and x.const_arg is True
    assert x.set_const_arg(False).const_arg is False
    assert Tensor([1.0], const_arg=True).const_arg is True
    with pytest.raises(TypeError, match="set_const_arg"):
        x.set_const_arg(1)
    with pytest.raises(TypeError, match="init_data"):
        x.init_data()


# ---- primitive classes MindSpore's tests import ----------------------------------------------

def _gelu_tanh(x):
    return (0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))).astype(x.dtype)


def _selu(x):
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    return (scale * np.where(x > 0, x, alpha * (np.exp(x) - 1))).astype(x.dtype)


def _celu(x, alpha=1.5):
    return (np.maximum(x, 0) + np.minimum(0, alpha * (np.exp(x / alpha) - 1))).astype(x.dtype)


def _glu(x, axis=0):
    a, b = np.split(x, 2, axis)
    return (a / (1 + np.exp(-b))).astype(x.dtype)


def _index_fill(x, dim, index, value):
    out = x.copy()
    out[(slice(None),) * dim + (index,)] = value
    return out


def _inplace_update(x, indices, v):
    out = x.copy()
    out[indices] = v
    return out


def _topk(x, k):
    order = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, -1), order.astype(np.int32)


def _pool(x):   # AdaptiveAvgPool2D to (1, 2) of an (n, c, h, 2w) input: mean of each half
    n, c, h, w = x.shape
    return x.reshape(n, c, h, 2, w // 2).mean(axis=(2, 4)).reshape(n, c, 1, 2).astype(x.dtype)


def _log_sigmoid(x):
    return -np.logaddexp(0, -x)


def _bce_logits(x, y, w=1.0, pw=1.0):
    return -w * (pw * y * _log_sigmoid(x) + (1 - y) * _log_sigmoid(-x))


def _nll(x, t, w):
    picked = w[t] * x[np.arange(len(t)), t]
    return (-picked.sum() / w[t].sum()).astype(x.dtype), w[t].sum().astype(x.dtype)


def _layer_norm(x, g, b):
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (((x - mean) / np.sqrt(var + 1e-7) * g + b).astype(x.dtype), mean.astype(x.dtype), var.astype(x.dtype))


def _scatter_sub(x, idx, upd):
    out = x.copy()
    np.subtract.at(out, tuple(idx.T), upd)
    return out


def _rows_op(rows, fn):
    def ref(x, v):
        out = x.copy()
        out[list(rows)] = fn(out[list(rows)], v)
        return out
    return ref


def _same_shape(rng, second_range):
    s = shape(rng, 2, 2, 4)
    return [array(rng, s), array(rng, s, low=second_range[0], high=second_range[1])]


def _with_zeros(rng):
    x, y = _pair(rng)
    y[..., ::2] = 0
    return [x, y]


def _real(rng):
    return array(rng, shape(rng, 2, 2, 4))


def _pair(rng):
    """Two arrays, the second of the first's trailing shape (broadcast)."""
    s = shape(rng, 2, 2, 4)
    return [array(rng, s), array(rng, s[1:])]


def _even(rng):
    s = shape(rng, 2, 2, 4)
    return array(rng, (2 * s[0], s[1]))


# class -> (attrs, args from rng, numpy reference, differentiable, capture modes)
CLASSES = {
    "TensorAdd": ({}, _pair, lambda x, y: x + y, True, MODES),
    "ACos": ({}, lambda r: [array(r, shape(r), low=-0.9, high=0.9)], np.arccos, True, MODES),
    "SeLU": ({}, lambda r: [_real(r)], _selu, True, MODES),
    "GeLU": ({}, lambda r: [_real(r)], _gelu_tanh, True, MODES),
    "Gelu": ({}, lambda r: [_real(r)], _gelu_tanh, True, MODES),
    "CeLU": ({"alpha": 1.5}, lambda r: [_real(r)], _celu, True, MODES),
    "GLU": ({"axis": 0}, lambda r: [_even(r)], _glu, True, MODES),
    "HShrink": ({"lambd": 0.6}, lambda r: [_real(r)], lambda x: np.where(np.abs(x) > 0.6, x, 0).astype(x.dtype),
                False, MODES),
    "SoftShrink": ({"lambd": 0.6}, lambda r: [_real(r)],
                   lambda x: (np.sign(x) * np.maximum(np.abs(x) - 0.6, 0)).astype(x.dtype), True, MODES),
    "PReLU": ({}, lambda r: [array(r, (3, 4)), array(r, (4,), low=0.1, high=0.5)],
              lambda x, w: np.where(x > 0, x, w * x), True, MODES),
    "IsClose": ({"rtol": 1e-3, "atol": 0.1}, _pair,
                lambda x, y: np.isclose(x, y, rtol=1e-3, atol=0.1), False, MODES),
    "ReduceStd": ({"axis": 1, "unbiased": True, "keep_dims": True}, lambda r: [_real(r)],
                  lambda x: (x.std(1, ddof=1, keepdims=True), x.mean(1, keepdims=True)), False, MODES),
    "TopK": ({"sorted": True}, lambda r: [_real(r), 2], _topk, False, MODES),
    "AdaptiveAvgPool2D": ({"output_size": (1, 2)}, lambda r: [array(r, (1, 2, 3, 4))], _pool, True, MODES),
    "Pad": ({"paddings": ((1, 0), (0, 2))}, lambda r: [_real(r)], lambda x: np.pad(x, ((1, 0), (0, 2))), True,
            MODES),
    "IndexFill": ({}, lambda r: [_real(r), 1, np.array([0, 1], np.int32), np.array(9.0, np.float32)],
                  _index_fill, False, MODES),
    "InplaceUpdateV2": ({}, lambda r: [array(r, (4, 3)), np.array([2, 0], np.int32), array(r, (2, 3))],
                        _inplace_update, False, MODES),
    "FillV2": ({}, lambda r: [(2, 3), np.array(2.5, np.float32)], lambda s, v: np.full(s, v), False, MODES),
    "LinSpace": ({}, lambda r: [np.array(-1.0, np.float32), np.array(3.0, np.float32), 5],
                 lambda a, b, n: np.linspace(a, b, n).astype(np.float32), False, ()),
    "Range": ({}, lambda r: [np.array(1, np.int32), np.array(8, np.int32), np.array(3, np.int32)],
              lambda a, b, d: np.arange(1, 8, 3, dtype=np.int64), False, ()),
    "NonZero": ({}, lambda r: [array(r, (3, 4), bool)], lambda x: np.argwhere(x).astype(np.int64), False, ()),
    "KLDivLoss": ({}, lambda r: _same_shape(r, (0.1, 1)), lambda x, y: np.mean(y * (np.log(y) - x)).astype(x.dtype),
                  True, MODES),
    "BCEWithLogitsLoss": ({"reduction": "sum"}, lambda r: [array(r, (3, 4)), array(r, (3, 4), low=0, high=1),
                                                             array(r, (4,), low=0.5, high=1.5),
                                                             array(r, (4,), low=0.5, high=2)],
                          lambda x, y, w, pw: _bce_logits(x, y, w, pw).sum().astype(np.float32), True, MODES),
    "SigmoidCrossEntropyWithLogits": ({}, lambda r: [array(r, (3, 4)), array(r, (3, 4), low=0, high=1)],
                                      lambda x, y: _bce_logits(x, y).astype(np.float32), True, MODES),
    "NLLLoss": ({}, lambda r: [array(r, (4, 3)), np.array([2, 0, 1, 2], np.int32), array(r, (3,), low=0.5, high=2)],
                _nll, False, MODES),
    "LayerNorm": ({"begin_norm_axis": -1, "begin_params_axis": -1},
                  lambda r: [array(r, (3, 5)), array(r, (5,)), array(r, (5,))], _layer_norm, False, MODES),
    "InplaceUpdate": ({"indices": (0, 2)}, lambda r: [array(r, (4, 3)), array(r, (2, 3))],
                      _rows_op((0, 2), lambda a, v: v), False, MODES),
    "InplaceAdd": ({"indices": (0, 2)}, lambda r: [array(r, (4, 3)), array(r, (2, 3))],
                   _rows_op((0, 2), lambda a, v: a + v), True, MODES),
    "InplaceSub": ({"indices": 1}, lambda r: [array(r, (4, 3)), array(r, (1, 3))],
                   _rows_op((1,), lambda a, v: a - v), True, MODES),
    "TensorScatterSub": ({}, lambda r: [array(r, (3, 4)), np.array([[0, 1], [2, 3], [0, 1]], np.int32),
                                        array(r, (3,))], _scatter_sub, True, MODES),
    "DivNoNan": ({}, _with_zeros, lambda x, y: np.where(y == 0, 0, x / np.where(y == 0, 1, y)).astype(x.dtype),
                 False, MODES),
    "MulNoNan": ({}, _with_zeros, lambda x, y: (x * y).astype(x.dtype), False, MODES),
    "L2Loss": ({}, lambda r: [_real(r)], lambda x: (np.square(x).sum() / 2).astype(x.dtype), True, MODES),
    "DiagPart": ({}, lambda r: [array(r, (4, 4))], np.diagonal, True, MODES),
    "EqualCount": ({}, lambda r: [array(r, (3, 4), np.int32, 0, 2), array(r, (3, 4), np.int32, 0, 2)],
                   lambda x, y: np.array([np.sum(x == y)], np.int32), False, MODES),
    "Rint": ({}, lambda r: [np.array([0.5, 1.5, -2.5, 2.6, -0.4], np.float32)], np.rint, False, MODES),
    "TensorShape": ({}, lambda r: [_real(r)], lambda x: np.array(x.shape, np.int64), False, MODES),
    "ScalarToTensor": ({}, lambda r: [3.5, ms.float32], lambda v, t: np.array(v, np.float32), False, ()),
    "TupleToArray": ({}, lambda r: [(1.0, 2.5)], lambda v: np.array(v, np.float32), False, ()),
    "Pack": ({"axis": 1}, lambda r: _same_shape(r, (-2, 2)), lambda x, y: np.stack((x, y), 1), True, MODES),
    "SquareSumAll": ({}, lambda r: _same_shape(r, (-2, 2)), lambda x, y: (np.square(x).sum(), np.square(y).sum()),
                     False, MODES),
    "ApproximateEqual": ({"tolerance": 0.6}, _pair, lambda x, y: np.abs(x - y) < 0.6, False, MODES),
    "EmbeddingLookup": ({}, lambda r: [array(r, (4, 3)), np.array([[5, 2], [8, 6], [4, 7]], np.int32), 3],
                        lambda p, i, off: np.where(((i - off >= 0) & (i - off < 4))[..., None],
                                                   p[np.clip(i - off, 0, 3)], 0).astype(p.dtype), True, MODES),
    "InvertPermutation": ({}, lambda r: [(3, 0, 2, 1)], lambda p: tuple(int(i) for i in np.argsort(p)), False, ()),
    "IdentityN": ({}, lambda r: _same_shape(r, (-2, 2)), lambda x, y: (x, y), False, MODES),
    "Eps": ({}, lambda r: [_real(r)], lambda x: np.full_like(x, np.finfo(x.dtype).eps), False, MODES),
    "FastGelu": ({}, lambda r: [array(r, shape(r), low=-6, high=6)],
                 lambda x: (x / (1 + np.exp(-1.702 * x))).astype(x.dtype), True, MODES),
    "Unpack": ({"axis": 1}, lambda r: [_real(r)], lambda x: tuple(np.moveaxis(x, 1, 0)), False, MODES),
}
PACKED = {"Pack", "IdentityN"}   # called with the tensors as one tuple


@pytest.mark.parametrize("cls", sorted(CLASSES))
def test_primitive_class(cls):
    attrs, make, ref, grad, modes = CLASSES[cls]
    op = getattr(P, cls)(**attrs)

    def call(*xs):
        return op(xs) if cls in PACKED else op(*xs)
    args = make(seeded(cls))
    check_api(call, args, ref, modes=modes, grad=grad, rtol=1e-5, atol=1e-6)


def _set_at(out, index, updates):
    out[index] = updates


_ROWS = np.array([0, 3, 0], np.int32)
_PAIRS = np.array([[0, 1], [3, 2], [0, 1]], np.int32)
# class -> (indices, updates shape for a (4, 3) Parameter, numpy in-place update of (out, index, updates))
PARAMETER_SCATTERS = {
    "ScatterAdd": (_ROWS, (3, 3), np.add.at), "ScatterSub": (_ROWS, (3, 3), np.subtract.at),
    "ScatterUpdate": (np.array([2, 0], np.int32), (2, 3), _set_at),
    "ScatterNdAdd": (_PAIRS, (3,), np.add.at), "ScatterNdSub": (_PAIRS, (3,), np.subtract.at),
    "ScatterNdUpdate": (np.array([[1], [3]], np.int32), (2, 3), _set_at),
}


@pytest.mark.parametrize("cls", sorted(PARAMETER_SCATTERS))
def test_parameter_scatter(cls):
    indices, upd_shape, update = PARAMETER_SCATTERS[cls]
    rng = seeded(cls)
    base, updates = array(rng, (4, 3)), array(rng, upd_shape)
    p = Parameter(Tensor(base), name="p")
    out = getattr(P, cls)()(p, Tensor(indices), Tensor(updates))
    want = base.copy()
    update(want, tuple(indices.T) if indices.ndim == 2 else indices, updates)
    np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)

"""The Tensor surface: data/dtype methods, shape methods, operators and in-place methods, each
eager vs numpy, jit under ast/bytecode/trace vs eager and gradients for the differentiable ones;
the value-reading ones (item, tolist, len, int...) eagerly and refused under capture."""
import linecache

import numpy as np
import pytest

import msjit as ms
from msjit import Tensor
from harness import array, check_api, shape

pytestmark = pytest.mark.usefixtures("module_daemon_home")


def _with_source(name, body, scope):
    """A function ``call(x, *xs)`` returning ``body``, defined from source that ast capture can
    read back (registered in linecache under a file name of its own)."""
    src = f"def call_{name}(x, *xs):\n    return {body}\n"
    file = f"<tensor method {name}>"
    linecache.cache[file] = (len(src), None, src.splitlines(True), file)
    exec(compile(src, file, "exec"), scope)
    return scope[f"call_{name}"]


def _method(name, *args, **kw):
    """``x.name(*args, *more_tensors, **kw)``."""
    return _with_source(name, f"x.{name}(*ARGS, *xs, **KW)", {"ARGS": args, "KW": kw})


def _attr(name):
    return _with_source(name, f"x.{name}", {})


def _put(a, index, v):
    out = a.copy()
    out[index] = v
    return out


def _filled_diagonal(a, v):
    out = a.copy()
    np.fill_diagonal(out, v)
    return out


def mod(a, b):
    return a % b


def floordiv(a, b):
    return a // b


def xor(a, b):
    return a ^ b


def pos(a):
    return +a


def seven_floordiv(a):
    return 7 // a


def two_mod(a):
    return 2 % a


def _cases(rng):
    """name -> (fn, args, numpy reference, grad?)."""
    x = array(rng, shape(rng, 3, 2, 4))
    m = array(rng, (x.shape[1], x.shape[1] + 1))
    n0, n1, n2 = x.shape
    mask = rng.random(x.shape) < 0.5
    idx = rng.integers(0, n1, size=(n0, 2, n2)).astype(np.int64)
    return {
        # data and dtype
        "astype": (_method("astype", ms.int32), [x], lambda a: a.astype(np.int32), False),
        "to_dtype": (_method("to", ms.float64), [x], lambda a: a.astype(np.float64), True),
        "to_kw": (_method("to", dtype=ms.float16), [x], lambda a: a.astype(np.float16), False),
        "to_device": (_method("to", "cpu"), [x], lambda a: a, True),
        "to_other": (_method("to"), [x, np.zeros(1, np.int64)], lambda a, b: a.astype(np.int64), False),
        "float": (_method("float"), [x.astype(np.float16)], lambda a: a.astype(np.float32), False),
        "half": (_method("half"), [x], lambda a: a.astype(np.float16), False),
        "double": (_method("double"), [x], lambda a: a.astype(np.float64), True),
        "int": (_method("int"), [x], lambda a: a.astype(np.int32), False),
        "long": (_method("long"), [x], lambda a: a.astype(np.int64), False),
        "bool": (_method("bool"), [x], lambda a: a.astype(bool), False),
        "type": (_method("type", ms.int64), [x], lambda a: a.astype(np.int64), False),
        "type_as": (_method("type_as"), [x, np.zeros(1, np.float16)], lambda a, b: a.astype(np.float16), False),
        "clone": (_method("clone"), [x], lambda a: a, True),
        "copy": (_method("copy"), [x], lambda a: a, True),
        "contiguous": (_method("contiguous"), [x], lambda a: a, True),
        # operators
        "mod": (mod, [x, np.float32(0.7)], np.mod, False),
        "floordiv": (floordiv, [x, np.float32(0.7)], np.floor_divide, False),
        "mod_int": (mod, [(x * 4).astype(np.int64), np.int64(3)], np.mod, False),
        "rfloordiv_int": (seven_floordiv, [np.array([-3, 2, 5], np.int64)], lambda a: 7 // a, False),
        "rmod": (two_mod, [np.array([-3.0, 1.5], np.float32)], lambda a: np.float32(2) % a, False),
        "xor": (xor, [mask, ~mask[::-1]], np.logical_xor, False),
        "pos": (pos, [x], lambda a: a, True),
        # shape
        "T": (_attr("T"), [x], lambda a: a.T, True),
        "mT": (_attr("mT"), [x], lambda a: np.swapaxes(a, -1, -2), True),
        "swapdims": (_method("swapdims", 0, 2), [x], lambda a: np.swapaxes(a, 0, 2), True),
        "swapaxes": (_method("swapaxes", -1, 1), [x], lambda a: np.swapaxes(a, -1, 1), True),
        "permute": (_method("permute", 2, 0, 1), [x], lambda a: a.transpose(2, 0, 1), True),
        "permute_tuple": (_method("permute", (1, 2, 0)), [x], lambda a: a.transpose(1, 2, 0), True),
        "transpose": (_method("transpose"), [x], lambda a: a.transpose(), True),
        "transpose_axes": (_method("transpose", 1, 0, 2), [x], lambda a: a.transpose(1, 0, 2), True),
        "transpose_pair": (_method("transpose", -1, 0), [x], lambda a: np.swapaxes(a, -1, 0), True),
        "gather_dim": (_method("gather", 1), [x, idx], lambda a, i: np.take_along_axis(a, i, 1), True),
        "gather_dim_kw": (_method("gather", dim=1, index=Tensor(idx)), [x], lambda a: np.take_along_axis(a, idx, 1),
                          True),
        "split_kw": (_method("split", split_size=1, dim=0), [x], lambda a: tuple(np.split(a, n0, 0)), False),
        "flatten_start": (_method("flatten", 1), [x], lambda a: a.reshape(n0, -1), True),
        "chunk_kw": (_method("chunk", 2, dim=2), [x],
                     lambda a: tuple(np.split(a, range(-(-n2 // 2), n2, -(-n2 // 2)), 2)), False),
        "broadcast_to_ints": (_method("broadcast_to", 2, n0, n1, n2), [x], lambda a: np.broadcast_to(a, (2,) + a.shape),
                              True),
        "repeat_interleave_dim": (_method("repeat_interleave", 3, dim=2), [x], lambda a: np.repeat(a, 3, 2), True),
        "diagonal_kw": (_method("diagonal", axis1=1, axis2=2), [x], lambda a: np.diagonal(a, 0, 1, 2), True),
        "index_select_kw": (_method("index_select", dim=1, index=Tensor(np.array([n1 - 1, 0]))), [x],
                            lambda a: a[:, [n1 - 1, 0]], True),
        "view": (_method("view", n0 * n1, -1), [x], lambda a: a.reshape(n0 * n1, -1), True),
        "view_tuple": (_method("view", (-1,)), [x], lambda a: a.reshape(-1), True),
        "view_as": (_method("view_as"), [x, np.zeros((n2, n0 * n1))], lambda a, b: a.reshape(b.shape), True),
        "reshape": (_method("reshape", n0, -1), [x], lambda a: a.reshape(n0, -1), True),
        "reshape_as": (_method("reshape_as"), [x, np.zeros((n0 * n1 * n2,))], lambda a, b: a.reshape(-1), True),
        "expand_dims": (_method("expand_dims", 1), [x], lambda a: a[:, None], True),
        "unsqueeze": (_method("unsqueeze", -1), [x], lambda a: a[..., None], True),
        "squeeze": (_method("squeeze"), [x[:, :1]], np.squeeze, True),
        "squeeze_axis": (_method("squeeze", 1), [x[:, :1]], lambda a: a[:, 0], True),
        "flatten": (_method("flatten"), [x], lambda a: a.reshape(-1), True),
        "flatten_dims": (_method("flatten", start_dim=1), [x], lambda a: a.reshape(n0, -1), True),
        "ravel": (_method("ravel"), [x], np.ravel, True),
        "broadcast_to": (_method("broadcast_to", (2, n0, n1, n2)), [x],
                         lambda a: np.broadcast_to(a, (2,) + a.shape), True),
        "expand": (_method("expand", 3, -1, -1, -1), [x], lambda a: np.broadcast_to(a, (3,) + a.shape), True),
        "expand_as": (_method("expand_as"), [x[:1], np.zeros(x.shape)], lambda a, b: np.broadcast_to(a, b.shape), True),
        "repeat": (_method("repeat", 2, 1, 1, 3), [x], lambda a: np.tile(a, (2, 1, 1, 3)), True),
        "repeat_interleave": (_method("repeat_interleave", 2, 1), [x], lambda a: np.repeat(a, 2, 1), True),
        "tile": (_method("tile", (2, 1)), [x], lambda a: np.tile(a, (2, 1)), True),
        "narrow": (_method("narrow", 1, 1, n1 - 1), [x], lambda a: a[:, 1:], True),
        "chunk": (_method("chunk", 2, 0), [x], lambda a: tuple(np.array_split(a, 2, 0)) if n0 % 2 == 0 else
                  (a[:-(-n0 // 2)], a[-(-n0 // 2):]), False),
        "split": (_method("split", 1, 2), [x], lambda a: tuple(np.split(a, n2, 2)), False),
        "unbind": (_method("unbind", 2), [x], lambda a: tuple(np.moveaxis(a, 2, 0)), False),
        "flip": (_method("flip", (1,)), [x], lambda a: a[:, ::-1], True),
        "roll": (_method("roll", 1, 0), [x], lambda a: np.roll(a, 1, 0), True),
        "movedim": (_method("movedim", 0, -1), [x], lambda a: np.moveaxis(a, 0, -1), True),
        "moveaxis": (_method("moveaxis", (0, 1), (1, 0)), [x], lambda a: np.moveaxis(a, (0, 1), (1, 0)), True),
        "diagonal": (_method("diagonal", 0, 1, 2), [x], lambda a: np.diagonal(a, 0, 1, 2), True),
        "tril": (_method("tril"), [m], np.tril, True),
        "triu": (_method("triu", 1), [m], lambda a: np.triu(a, 1), True),
        "gather": (_method("gather", np.array([1, 0, 1]), 1), [x], lambda a: a[:, [1, 0, 1]], True),
        "gather_elements": (_method("gather_elements", 1), [x, idx], lambda a, i: np.take_along_axis(a, i, 1), True),
        "index_select": (_method("index_select", 2, Tensor(np.array([0, n2 - 1]))), [x],
                         lambda a: a[..., [0, -1]], True),
        "masked_fill": (_method("masked_fill"), [x, mask, np.float32(3)], lambda a, b, v: np.where(b, v, a), True),
        "index_fill": (_method("index_fill", 0, Tensor(np.array([0]))), [x, np.float32(-1)],
                       lambda a, v: np.concatenate([np.full_like(a[:1], v), a[1:]]), True),
        "where": (_method("where"), [x, mask, x * 2], lambda a, c, y: np.where(c, a, y), True),
        "scatter": (_method("scatter", 1, Tensor(idx[:, :1])), [x, x[:, :1] * 5], None, True),
        "scatter_add": (_method("scatter_add", 1, Tensor(idx)), [x, x[:, :2] * 5], None, True),
        "t": (_method("t"), [m], lambda a: a.T, True),
        "index_put": (_method("index_put", (Tensor(np.array([0, n0 - 1])), Tensor(np.array([1, 0])))),
                      [x, np.float32(7)],
                      lambda a, v: _put(a, ([0, n0 - 1], [1, 0]), v), True),
        "index_put_acc": (_method("index_put", (Tensor(np.array([0, 0])),), accumulate=True), [x, x[:1]],
                          lambda a, v: _put(a, 0, a[0] + 2 * v[0]), True),
        "fill_diagonal": (_method("fill_diagonal", -1.0), [m], lambda a: _filled_diagonal(a, -1.0), True),
        "sum_to_size": (_method("sum_to_size", n1, 1), [x], lambda a: a.sum((0, 2)).reshape(n1, 1), True),
        "take": (_method("take", np.array([[0, 5], [-1, 2]])), [x],
                 lambda a: np.take(a, np.clip([[0, 5], [-1, 2]], 0, None)), True),
        "take_wrap": (_method("take", Tensor(np.array([-1, n1])), 1, mode="wrap"), [x],
                      lambda a: np.take(a, [-1, n1], 1, mode="wrap"), True),
        "index_add": (_method("index_add", Tensor(np.array([1, 1], np.int32)), axis=1), [x, x[:, :2] * 2],
                      lambda a, y: _put(a, np.s_[:, 1], a[:, 1] + y.sum(1)), True),
        "index_add_dim": (_method("index_add", 2, Tensor(np.array([0, 0])), alpha=2), [x, x[..., :2]],
                          lambda a, y: _put(a, np.s_[..., 0], a[..., 0] + 2 * y.sum(-1)), True),
        "scatter_add_rows": (_method("scatter_add", Tensor(np.array([0, 0]))), [x, x[:2] * 3],
                             lambda a, u: _put(a, 0, a[0] + 3 * (a[0] + a[1])), True),
        "rot90": (_method("rot90", 1, (1, 2)), [x], lambda a: np.rot90(a, 1, (1, 2)), True),
        "fill": (_method("fill", 1.5), [x], lambda a: np.full_like(a, 1.5), False),
        "new_zeros": (_method("new_zeros", (2, 3)), [x], lambda a: np.zeros((2, 3), a.dtype), False),
        "new_ones": (_method("new_ones", 2), [x], lambda a: np.ones(2, a.dtype), False),
        "new_full": (_method("new_full", (2,), 4), [x], lambda a: np.full(2, 4, a.dtype), False),
    }


@pytest.mark.parametrize("name", sorted(_cases(np.random.default_rng(0))))
def test_method(name):
    fn, args, ref, grad = _cases(np.random.default_rng(sum(map(ord, name))))[name]
    check_api(fn, args, ref, grad=grad)   # ref None (the scatters): test_scatter_methods


def test_scatter_methods():
    a = np.zeros((2, 4), np.float32)
    idx = np.array([[3, 1], [0, 0]])
    src = np.array([[1, 2], [3, 4]], np.float32)
    got = Tensor(a).scatter(1, Tensor(idx), Tensor(src)).asnumpy()
    np.testing.assert_array_equal(got, [[0, 2, 0, 1], [4, 0, 0, 0]])   # repeated index: last wins
    got = Tensor(a).scatter_add(1, Tensor(idx), Tensor(src)).asnumpy()
    np.testing.assert_array_equal(got, [[0, 2, 0, 1], [7, 0, 0, 0]])


# ---- in place ---------------------------------------------------------------------------------------

def fill_rows(x, v):
    y = x * 1
    y.fill_(v)
    return y


def zero_then_add(x):
    y = x * 1
    y.zero_()
    return y + 1


def copy_into(x, s):
    y = x * 1
    y.copy_(s)
    return y * 2


def add_in_place(x, y):
    z = x * 1
    z.add_(y, alpha=2)
    z.mul_(y)
    return z


def clamp_in_place(x):
    z = x * 1
    z.clamp_(-0.5, 0.5)
    return z


def masked_fill_in_place(x, m):
    y = x * 1
    y.masked_fill_(m, -1.0)
    return y


IN_PLACE = {
    "fill_": (fill_rows, lambda rng: [array(rng, (3, 4)), np.float32(2)], lambda a, v: np.full_like(a, v)),
    "zero_": (zero_then_add, lambda rng: [array(rng, (3, 4))], lambda a: np.ones_like(a)),
    "copy_": (copy_into, lambda rng: [array(rng, (3, 4)), array(rng, (4,))],
              lambda a, s: np.broadcast_to(s * 2, a.shape)),
    "add_mul_": (add_in_place, lambda rng: [array(rng, (3, 4)), array(rng, (4,))], lambda a, y: (a + 2 * y) * y),
    "clamp_": (clamp_in_place, lambda rng: [array(rng, (3, 4))], lambda a: np.clip(a, -0.5, 0.5)),
    "masked_fill_": (masked_fill_in_place, lambda rng: [array(rng, (3, 4)), rng.random((3, 4)) < 0.5],
                     lambda a, m: np.where(m, np.float32(-1), a)),
}


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_in_place(name):
    fn, make, ref = IN_PLACE[name]
    args = make(np.random.default_rng(len(name)))
    check_api(fn, args, ref, grad=name in ("copy_", "add_mul_"))


def test_in_place_returns_self_and_updates_parameter():
    t = Tensor(np.ones(3, np.float32))
    assert t.fill_(4) is t and t.zero_() is t
    np.testing.assert_array_equal(t.asnumpy(), 0)
    p = ms.Parameter(Tensor(np.ones((2, 2), np.float32)), "p")
    version = p._version
    p.masked_fill_(Tensor(np.eye(2, dtype=bool)), 0.0)
    np.testing.assert_array_equal(p.asnumpy(), 1 - np.eye(2))
    assert p._version > version


# ---- value-reading methods: eager, refused under capture --------------------------------------------

def test_eager_value_methods():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = Tensor(a)
    assert Tensor(3.5).item() == 3.5 and isinstance(Tensor(np.int64(2)).item(), int)
    assert x.tolist() == a.tolist() and x.numpy() is x.asnumpy()
    assert (x.dim(), x.ndimension(), x.numel(), x.nelement(), x.size, x.ndim) == (2, 2, 6, 6, 6, 2)
    assert x.is_contiguous() and x.is_floating_point() and not Tensor(np.array([1])).is_floating_point()
    assert (x.element_size(), x.itemsize, x.nbytes, x.strides) == (4, 4, 24, (12, 4))
    assert x.shape == (2, 3) and x.dtype == ms.float32 and x.type() == "Float32"
    assert len(x) == 2 and [r.asnumpy().tolist() for r in x] == a.tolist()
    assert bool(Tensor(1)) and int(Tensor(2.7)) == 2 and float(Tensor(1.5)) == 1.5
    assert [10, 11, 12][Tensor(np.int32(2))] == 12 and list(range(Tensor(3))) == [0, 1, 2]
    assert hash(x) != hash(Tensor(a)) and {x: 1}[x] == 1
    assert "shape=[2, 3]" in repr(x)
    assert x.data is x and x.stride() == [3, 1] and x.stride(0) == 3 and x.storage_offset() == 0
    assert x.is_signed() and not Tensor(np.array([1], np.uint8)).is_signed() and x.requires_grad_() is x
    assert x.byte().dtype == ms.uint8 and x.char().dtype == ms.int8 and x.short().dtype == ms.int16
    np.testing.assert_array_equal(x.view(ms.int32).asnumpy(), a.view(np.int32))
    with pytest.raises(ValueError):
        x.item()
    with pytest.raises(TypeError):
        [1][Tensor(1.0)]
    with pytest.raises(TypeError):
        len(Tensor(1.0))
    with pytest.raises(TypeError):
        iter(Tensor(1.0))


def test_eager_selection_methods():
    a = np.array([[3, 1, 0], [3, 0, 2]], np.int64)
    x = Tensor(a)
    np.testing.assert_array_equal(x.nonzero().asnumpy(), np.argwhere(a))
    np.testing.assert_array_equal(x.masked_select(x > 1).asnumpy(), a[a > 1])
    np.testing.assert_array_equal(x.argwhere().asnumpy(), np.argwhere(a))
    runs = x.reshape(-1).unique_consecutive(return_inverse=True, return_counts=True)
    for g, w in zip(runs, ([3, 1, 0, 3, 0, 2], [0, 1, 2, 3, 4, 5], [1] * 6)):
        np.testing.assert_array_equal(g.asnumpy(), w)
    values, inverse, counts = Tensor(np.array([1, 1, 2, 1])).unique_consecutive(True, True)
    np.testing.assert_array_equal(values.asnumpy(), [1, 2, 1])
    np.testing.assert_array_equal(inverse.asnumpy(), [0, 0, 1, 2])
    np.testing.assert_array_equal(counts.asnumpy(), [2, 1, 1])
    values, inverse, counts = x.unique(return_inverse=True, return_counts=True)
    want = np.unique(a, return_inverse=True, return_counts=True)
    for g, w in zip((values, inverse, counts), want):
        np.testing.assert_array_equal(g.asnumpy(), w.reshape(g.shape))


def read_item(x):
    return x.sum().item() + 1


def read_len(x):
    return x * len(x.tolist())


@pytest.mark.parametrize("fn", [read_item, read_len])
@pytest.mark.parametrize("mode", ["ast", "trace"])
def test_value_methods_refused_under_capture(fn, mode):
    with pytest.raises(ms.errors.ConcreteValueNeeded):
        ms.jit(capture_mode=mode, fullgraph=True)(fn)(Tensor(np.ones(3, np.float32)))


@pytest.mark.parametrize("call, error", [
    (lambda x: x.repeat(2), RuntimeError),
    (lambda x: x ^ x, TypeError),
    (lambda x: x.view(5, -1), ValueError),
    (lambda x: x.narrow(0, 1, 5), ValueError),
])
def test_errors(call, error):
    with pytest.raises(error):
        call(Tensor(np.zeros((2, 3), np.float32)))


def test_augmented_assignment_rebinds():
    """``x += y`` is ``x = x + y`` (no __iadd__), for Tensors and Parameters, as in MindSpore."""
    t = Tensor(np.zeros(2, np.float32))
    alias = t
    t += 1
    assert alias is not t
    np.testing.assert_array_equal(alias.asnumpy(), [0, 0])
    np.testing.assert_array_equal(t.asnumpy(), [1, 1])
    p = ms.Parameter(Tensor(np.zeros(2, np.float32)), "p")
    q = p
    p *= 3
    assert q is not p and not isinstance(p, ms.Parameter)
    np.testing.assert_array_equal(q.asnumpy(), [0, 0])

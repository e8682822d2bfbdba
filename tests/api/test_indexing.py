"""Tensor indexing with numpy semantics: ``x[index]`` for every index kind (eager vs numpy, jit
under ast/bytecode/trace vs eager, gradients), ``x[index] = value`` (eager in place, a Tracer
rebound under capture, a Parameter assigned), boolean masks (eager only) and the errors."""
import numpy as np
import pytest

import msjit as ms
from harness import MODES, array, check_api, check_grad, tensors

pytestmark = pytest.mark.usefixtures("module_daemon_home")

RNG_SHAPE = (3, 4, 5)

# name -> index (constants: ints, slices, None, Ellipsis, lists, numpy arrays, boolean masks)
INDICES = {
    "int": 1,
    "negative_ints": (-1, 2),
    "slices": (np.s_[1:], np.s_[::2]),
    "negative_step": (np.s_[::-1], 1, np.s_[4:0:-2]),
    "ellipsis_none": (Ellipsis, None, 0),
    "none_between": (0, None, np.s_[1:3]),
    "empty_tuple": (),
    "list": [0, 2, 0],
    "negative_list": ([-1, 0],),
    "list_middle": (np.s_[:], [1, 0, 3]),
    "arrays_adjacent": (np.s_[:], [0, 1], [1, 2]),
    "arrays_apart": ([0, 1], np.s_[:], [1, 0]),
    "int_and_array_apart": (0, np.s_[:], [1, 2]),
    "int_and_array_adjacent": (np.s_[:], 1, [4, 0]),
    "broadcast_arrays": (np.array([[0], [2]]), np.array([1, 3])),
    "array_2d": np.array([[0, 1], [2, 2]]),
    "three_arrays": ([0, 2], [1, 3], [4, 0]),
    "mask_rows": np.array([True, False, True]),
    "mask_2d": (np.s_[:], np.arange(20).reshape(4, 5) % 3 == 0),
    "mask_and_ellipsis": (Ellipsis, np.array([True, False, True, True, False])),
    "empty_list": ([],),
}


def _getter(index):
    def get(x):
        return x[index]
    return get


@pytest.mark.parametrize("name", sorted(INDICES))
def test_getitem(name):
    index = INDICES[name]
    x = array(np.random.default_rng(len(name)), RNG_SHAPE)
    check_api(_getter(index), [x], lambda a: a[index], grad=np.asarray(x[index]).size > 0)


def get_one(x, i):
    return x[i]


def get_cols(x, i):
    return x[:, i]


def get_pair(x, i, j):
    return x[i, :, j]


def get_with_int(x, i):
    return x[1, i]


# Tensor indices that are graph inputs (values unknown under capture; negative ones wrap).
TENSOR_INDICES = {
    "rows": (get_one, [np.array([2, -1, 0], np.int64)]),
    "rows_int32": (get_one, [np.array([[1, 0], [2, -3]], np.int32)]),
    "cols": (get_cols, [np.array([3, -4], np.int64)]),
    "pair_apart": (get_pair, [np.array([0, 2], np.int64), np.array([[-1], [1]], np.int64)]),
    "with_int": (get_with_int, [np.array([0, 3], np.int64)]),
}


@pytest.mark.parametrize("name", sorted(TENSOR_INDICES))
def test_getitem_tensor_index(name):
    fn, idx = TENSOR_INDICES[name]
    x = array(np.random.default_rng(len(name)), RNG_SHAPE)
    eager = check_api(fn, [x] + idx, lambda a, *i: fn(a, *i))
    assert eager.shape == fn(x, *idx).shape
    check_grad(lambda a: fn(a, *map(ms.Tensor, idx)), [x], compiled=False)


def test_getitem_bool_tensor_eager_and_refused_under_capture():
    x = array(np.random.default_rng(0), (3, 4))
    m = x > 0
    np.testing.assert_array_equal(ms.Tensor(x)[ms.Tensor(m)].asnumpy(), x[m])
    np.testing.assert_array_equal(ms.Tensor(x)[:, ms.Tensor(m[0])].asnumpy(), x[:, m[0]])

    def f(a):
        return a[a > 0]
    for mode in ("ast", "trace"):
        with pytest.raises(ms.errors.ConcreteValueNeeded, match="boolean mask indexing"):
            ms.jit(capture_mode=mode, fullgraph=True)(f)(ms.Tensor(x))


@pytest.mark.parametrize("index, error", [
    (3, IndexError), ((0, 5), IndexError), ([0, 3], IndexError), ((0, 0, 0), IndexError),
    (np.array([0.5]), IndexError), (np.array([True, False]), IndexError), ((Ellipsis, Ellipsis), IndexError),
    ("a", TypeError),
])
def test_getitem_errors(index, error):
    x = ms.Tensor(np.zeros((3, 4), np.float32))
    with pytest.raises(error):
        x[index]


# ---- setitem ---------------------------------------------------------------------------------------

SET_MODES = ("trace", "ast", "bytecode")

# name -> (index, value shape or None for a Python scalar)
SETS = {
    "int_scalar": (1, None),
    "slice_row": ((np.s_[:], 2), (5,)),
    "slice_broadcast": ((np.s_[1:], np.s_[::2]), (1, 1, 5)),
    "negative_step": ((np.s_[::-1], 0), (3, 5)),
    "ellipsis": ((Ellipsis, 1), (4,)),
    "all": (Ellipsis, ()),
    "list_repeated": ([2, 0, 2], (3, 4, 5)),
    "arrays": ((np.s_[:], [0, 3], [4, 1]), (2,)),
    "mask": (np.arange(60).reshape(3, 4, 5) % 4 == 1, None),
    "mask_rows": (np.array([True, False, True]), (4, 5)),
    "leading_one": (0, (1, 1, 4, 5)),
}


def _setter(index):
    def put(x, v):
        y = x * 1
        y[index] = v
        return y
    return put


def _set_ref(index):
    def ref(a, v):
        out = a.copy()
        out[index] = v
        return out
    return ref


def _value(rng, shp):
    return 2.5 if shp is None else array(rng, shp)


@pytest.mark.parametrize("mode", SET_MODES)
@pytest.mark.parametrize("name", sorted(SETS))
def test_setitem(name, mode):
    index, shp = SETS[name]
    rng = np.random.default_rng(len(name))
    x, v = array(rng, RNG_SHAPE), _value(rng, shp)
    check_api(_setter(index), [x, v], _set_ref(index), modes=(mode,))


@pytest.mark.parametrize("name", sorted(SETS))
def test_setitem_grad(name):
    """Eager tape: the update is recorded in place of the tensor (x and the value get gradients)."""
    index, shp = SETS[name]
    rng = np.random.default_rng(len(name))
    x, v = array(rng, RNG_SHAPE), _value(rng, shp)
    check_grad(_setter(index), [x, v], wrt=(0,) if shp is None else None, compiled=False)


def test_setitem_compiled_grad():
    rng = np.random.default_rng(1)
    _compiled_grad_matches_eager(_setter((np.s_[:], [0, 3])), [array(rng, RNG_SHAPE), array(rng, (3, 2, 5))])


def _compiled_grad_matches_eager(fn, args):
    def loss(*xs):
        return (fn(*xs) * fn(*xs)).sum()
    wrt = tuple(i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype.kind == "f")
    eager = ms.grad(loss, wrt)(*tensors(args))
    compiled = ms.jit(capture_mode="trace", fullgraph=True)(ms.grad(loss, wrt))(*tensors(args))
    as_tuple = (lambda g: g if isinstance(g, tuple) else (g,))
    for e, c in zip(as_tuple(eager), as_tuple(compiled)):
        np.testing.assert_allclose(c.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)


def put_at(x, i, v):
    y = x * 1
    y[i] = v
    return y


def put_cols(x, i, v):
    y = x * 1
    y[:, i] = v
    return y


@pytest.mark.parametrize("fn, idx, vshape, dtype", [
    (put_at, np.array([2, -3, 2], np.int64), (3, 4, 5), np.float32),   # repeated index: the last value wins
    (put_at, np.array([[0], [2]], np.int32), (1, 5), np.int32),        # rows of an integer tensor
    (put_cols, np.array([[1], [-1]], np.int64), (5,), np.float32),      # an element-wise one-hot
])
def test_setitem_tensor_index_under_capture(fn, idx, vshape, dtype):
    """An index tensor that is a graph input: a one-hot scatter in the graph (by rows when it
    indexes the leading axis)."""
    rng = np.random.default_rng(3)
    x, v = array(rng, RNG_SHAPE, dtype), array(rng, vshape, dtype)

    def ref(a, i, w):
        out = a.copy()
        if fn is put_at:
            out[i] = w
        else:
            out[:, i] = w
        return out
    check_api(fn, [x, idx, v], ref, modes=("trace",))
    if dtype == np.float32:
        check_grad(fn, [x, idx, v], compiled=False)


def test_setitem_eager_in_place_and_dtype():
    t = ms.Tensor(np.zeros((3, 4), np.float32))
    alias = t
    t[t > -1] = 2
    t[ms.Tensor(np.array([0, 2])), 1:3] = 7
    assert alias is t
    np.testing.assert_array_equal(t.asnumpy(), [[2, 7, 7, 2], [2, 2, 2, 2], [2, 7, 7, 2]])
    i = ms.Tensor(np.zeros(3, np.int32))
    i[0] = 2.7        # cast to the tensor's dtype, as MindSpore
    np.testing.assert_array_equal(i.asnumpy(), [2, 0, 0])
    assert i.dtype == ms.int32


def test_setitem_view_does_not_write_through():
    x = ms.Tensor(np.arange(6, dtype=np.float32))
    y = x.reshape(2, 3)
    y[0, 0] = 100
    assert x.asnumpy()[0] == 0 and y.asnumpy()[0, 0] == 100


P = ms.Parameter(ms.Tensor(np.zeros((2, 3), np.float32)), "P")


def write_param(x):
    P[1] = x
    P[0, ::2] = 5.0
    return P * 2


def test_setitem_parameter():
    p = ms.Parameter(ms.Tensor(np.zeros((2, 3), np.float32)), "p")
    version = p._version
    p[0] = 5
    p[:, 1] = ms.Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(p.asnumpy(), [[5, 1, 5], [0, 2, 0]])
    assert p._version == version + 2

    P.set_data(ms.Tensor(np.zeros((2, 3), np.float32)))
    f = ms.jit(capture_mode="trace", fullgraph=True)(write_param)
    out = f(ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)))
    want = np.array([[5, 0, 5], [1, 2, 3]], np.float32)
    np.testing.assert_array_equal(out.asnumpy(), want * 2)   # later reads see the write
    np.testing.assert_array_equal(P.asnumpy(), want)         # and it is written back (assign)


@pytest.mark.parametrize("index, value, error", [
    (5, 1.0, IndexError), ((0, slice(None)), np.ones(3, np.float32), ValueError),
])
def test_setitem_errors(index, value, error):
    x = ms.Tensor(np.zeros((3, 4), np.float32))
    with pytest.raises(error):
        x[index] = value


def test_setitem_parameter_read_on_tape():
    """A Parameter read by a recorded op, then written: the op keeps the value it read (no
    'updated in place' error) and the Parameter keeps its array."""
    p = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), "p")
    array_before = p._array

    def f(x):
        y = x * p
        p[0] = 5.0
        return (y * p).sum()
    g = ms.grad(f, 0)(ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)))
    np.testing.assert_allclose(g.asnumpy(), [5.0, 1.0, 1.0])
    np.testing.assert_array_equal(p.asnumpy(), [5.0, 1.0, 1.0])
    assert p._array is array_before

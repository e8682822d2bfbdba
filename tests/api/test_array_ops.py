"""The array ops of msjit.ops (shape, data movement, gathers/scatters, creation): eager vs numpy,
jit(fullgraph) under ast/bytecode/trace vs eager, gradients vs finite differences."""
import numpy as np
import pytest

import msjit as ms
from msjit import ops
from harness import MODES, array, check_api, seeded, shape

pytestmark = pytest.mark.usefixtures("module_daemon_home")


def _kw(op, **kw):
    """``op`` with keyword arguments bound, as a named function (ast capture parses defs, not lambdas)."""
    def call(*xs):
        return op(*xs, **kw)
    return call


def _listed(op, **kw):
    """``op([x, y, ...], **kw)`` called with the tensors as separate arguments."""
    def call(*xs):
        return op(list(xs), **kw)
    return call


def _with(op, pos, value):
    """``op`` with the non-tensor argument ``value`` inserted at ``pos`` (the tensors stay
    positional and contiguous, as check_grad's compiled path counts them)."""
    def call(*xs):
        return op(*xs[:pos], value, *xs[pos:])
    return call


def _take_along(a, dim, idx):
    return np.take_along_axis(a, idx, dim)


def _scatter_ref(a, dim, idx, src, add=False):
    out = a.copy()
    for pos in np.ndindex(idx.shape):
        target = list(pos)
        target[dim] = idx[pos]
        if add:
            out[tuple(target)] += src[pos]
        else:
            out[tuple(target)] = src[pos]
    return out


def _set(a, index, v):
    out = a.copy()
    out[index] = v
    return out


def _chunk_ref(a, chunks, axis):
    size = -(-a.shape[axis] // chunks)
    return tuple(np.split(a, range(size, a.shape[axis], size), axis))


def _diag_ref(a):
    out = np.zeros(a.shape * 2, a.dtype)
    for pos in np.ndindex(a.shape):
        out[pos + pos] = a[pos]
    return out


def _one_hot_ref(idx, depth, on, off):
    return np.where(idx[..., None] == np.arange(depth), np.float32(on), np.float32(off))


def _unique_ref(a):
    flat = a.reshape(-1)
    _, first = np.unique(flat, return_index=True)
    values = flat[np.sort(first)]
    inverse = np.array([list(values).index(v) for v in flat], np.int64).reshape(a.shape)
    return values, inverse


def _cases(rng):
    """name -> (fn, args, numpy reference, grad?, kwargs)."""
    x3 = array(rng, shape(rng, 3, 2, 4))
    x2 = array(rng, shape(rng, 2, 2, 5))
    n = x3.shape
    idx = rng.integers(0, n[1], size=(n[0], 3, n[2])).astype(np.int64)
    src = array(rng, idx.shape)
    ints = array(rng, (7,), np.int64, 0, 3)
    mask = rng.random(x2.shape) < 0.5
    nd_idx = np.array([[1], [0]], np.int64) if x2.shape[0] > 1 else np.array([[0]], np.int64)
    upd = array(rng, (len(nd_idx), x2.shape[1]))
    return {
        "permute": (ops.permute, [x3, (2, 0, 1)], lambda a, p: a.transpose(p), True),
        "swapaxes": (ops.swapaxes, [x3, 0, -1], np.swapaxes, True),
        "swapdims": (ops.swapdims, [x3, 1, 2], np.swapaxes, True),
        "movedim": (ops.movedim, [x3, 0, 2], np.moveaxis, True),
        "moveaxis": (ops.moveaxis, [x3, (0, 1), (2, 0)], np.moveaxis, True),
        "narrow": (ops.narrow, [x3, 2, 1, n[2] - 1], lambda a, ax, s, ln: a[:, :, s:s + ln], True),
        "chunk": (ops.chunk, [x3, 2, 2], _chunk_ref, False),
        "unbind": (ops.unbind, [x3, 1], lambda a, d: tuple(np.moveaxis(a, d, 0)), False),
        "flip": (ops.flip, [x3, (0, 2)], np.flip, True),
        "fliplr": (ops.fliplr, [x2], np.fliplr, True),
        "flipud": (ops.flipud, [x2], np.flipud, True),
        "reverse": (ops.reverse, [x3, [1]], lambda a, ax: np.flip(a, tuple(ax)), True),
        "roll": (ops.roll, [x3, (1, -2), (2, 0)], np.roll, True),
        "roll_flat": (ops.roll, [x3, 3], np.roll, True),
        "hstack": (_listed(ops.hstack), [x2, x2 * 2], lambda a, b: np.hstack([a, b]), True),
        "vstack": (_listed(ops.vstack), [x2[0], x2], lambda a, b: np.vstack([a, b]), True),
        "tensor_split": (ops.tensor_split, [x3, 3, 2], lambda a, k, ax: tuple(np.array_split(a, k, ax)), False),
        "tensor_split_idx": (ops.tensor_split, [x3, [1, 3], 2],
                             lambda a, k, ax: tuple(np.array_split(a, k, ax)), False),
        "meshgrid": (ops.meshgrid, [x2[0], x2[:, 0]], lambda a, b: tuple(np.meshgrid(a, b)), False),
        "meshgrid_ij": (_kw(ops.meshgrid, indexing="ij"), [x2[0], x2[:, 0]],
                        lambda a, b: tuple(np.meshgrid(a, b, indexing="ij")), False),
        "diag": (ops.diag, [x2[0]], _diag_ref, True),
        "diag_2d": (ops.diag, [x2[:2, :2]], _diag_ref, False),
        "diagonal": (ops.diagonal, [x3, 1, 2, 1], lambda a, o, d1, d2: np.diagonal(a, o, d1, d2), True),
        "one_hot": (ops.one_hot, [ints, 4, 1.0, 0.0], _one_hot_ref, False),
        "gather_elements": (ops.gather_elements, [x3, 1, idx], _take_along, True),
        "gather_d": (ops.gather_d, [x3, 1, idx], _take_along, True),
        "scatter": (_with(ops.scatter, 1, 1), [x3, idx[:, :1], src[:, :1]],
                    lambda a, i, s: _scatter_ref(a, 1, i, s), True),
        "tensor_scatter_update": (ops.tensor_scatter_update, [x2, nd_idx, upd],
                                  lambda a, i, u: _scatter_ref(a, 0, np.broadcast_to(i, u.shape), u), True),
        "tensor_scatter_add": (ops.tensor_scatter_add, [x2, np.zeros_like(nd_idx), upd],
                               lambda a, i, u: _scatter_ref(a, 0, np.broadcast_to(i, u.shape), u, True), True),
        "masked_fill": (ops.masked_fill, [x2, mask, 0.5], lambda a, m, v: np.where(m, np.float32(v), a), True),
        "index_fill": (ops.index_fill, [x2, 1, np.array([0, 1]), -1.0],
                       lambda a, ax, i, v: np.where(np.isin(np.arange(a.shape[1]), i), np.float32(v), a), True),
        "select": (ops.select, [mask, x2, x2 * 3], np.where, True),
        "stack": (_listed(ops.stack, axis=1), [x2, x2 + 1], lambda a, b: np.stack([a, b], 1), True),
        "tril": (ops.tril, [x3, 1], np.tril, True),
        "triu": (ops.triu, [x3, -1], np.triu, True),
        "unsqueeze": (ops.unsqueeze, [x2, -1], np.expand_dims, True),
        "expand_dims": (ops.expand_dims, [x2, 1], np.expand_dims, True),
        "squeeze": (ops.squeeze, [x2[:, None]], np.squeeze, True),
        "cat": (_listed(ops.cat, axis=-1), [x3, x3], lambda a, b: np.concatenate([a, b], -1), True),
        "concat": (_listed(ops.concat), [x3, x3], lambda a, b: np.concatenate([a, b]), True),
        "split": (ops.split, [x3, 1, 1], lambda a, s, ax: tuple(np.split(a, a.shape[1], 1)), False),
        "hsplit": (ops.hsplit, [x3, [1]], lambda a, k: tuple(np.split(a, k, 1)), False),
        "vsplit": (ops.vsplit, [x3, [1]], lambda a, k: tuple(np.split(a, k, 0)), False),
        "dsplit": (ops.dsplit, [x3, [1, 2]], lambda a, k: tuple(np.split(a, k, 2)), False),
        "rot90": (ops.rot90, [x3, 1, (0, 2)], np.rot90, True),
        "rot90_back": (ops.rot90, [x3, -1, (2, 1)], np.rot90, True),
        "take": (ops.take, [x3, idx[:1, :2]], lambda a, i: np.take(a, i), True),
        "gather_nd": (ops.gather_nd, [x3, np.stack([idx[0, 0] % n[0], idx[0, 1]], -1)],
                      lambda a, i: a[i[..., 0], i[..., 1]], True),
        "diagflat": (ops.diagflat, [x2, 1], np.diagflat, True),
        "index_add": (ops.index_add, [x3, np.array([0, n[1] - 1, 0], np.int32), array(rng, (n[0], 3, n[2])), 1],
                      lambda a, i, y, ax: _scatter_ref(a, 1, np.broadcast_to(i[None, :, None], y.shape), y, True),
                      True),
        "select_scatter": (ops.select_scatter, [x3, array(rng, (n[0], n[2])), 1, n[1] - 1],
                           lambda a, s, ax, i: np.concatenate([a[:, :i], s[:, None]], 1), True),
        "slice_scatter": (ops.slice_scatter, [x3, array(rng, (n[0], n[1], len(range(0, min(4, n[2]), 2)))), 2, 0, 4, 2],
                          lambda a, s, ax, b, e, st: _set(a, np.s_[:, :, b:e:st], s), True),
        "inplace_update": (ops.inplace_update, [x3, array(rng, (1, n[1], n[2])), np.array([n[0] - 1])],
                           lambda a, v, i: _set(a, i, v), True),
        "zeros_like": (ops.zeros_like, [x2], np.zeros_like, False),
        "ones_like": (ops.ones_like, [x2], np.ones_like, False),
        "full_like": (ops.full_like, [x2, 2.5], np.full_like, False),
        "empty_like": (ops.empty_like, [x2], np.zeros_like, False),
    }


@pytest.mark.parametrize("name", sorted(_cases(seeded("x"))))
def test_array_op(name):
    fn, args, ref, grad = _cases(seeded(name))[name]
    check_api(fn, args, ref, grad=grad)


# ---- creation and value-dependent ops: concrete results (eager; no graph inputs) ---------------------

CREATION = {
    "eye": (lambda: ops.eye(3, 4), lambda: np.eye(3, 4, dtype=np.float32)),
    "eye_int": (lambda: ops.eye(2, dtype=ms.int32), lambda: np.eye(2, dtype=np.int32)),
    "linspace": (lambda: ops.linspace(0.0, 1.0, 5), lambda: np.linspace(0, 1, 5).astype(np.float32)),
    "range": (lambda: ops.range(1, 9, 3), lambda: np.arange(1, 9, 3)),
    "range_float": (lambda: ops.range(0.5, 2.0, 0.5), lambda: np.arange(0.5, 2.0, 0.5).astype(np.float32)),
    "arange": (lambda: ops.arange(5), lambda: np.arange(5)),
    "empty": (lambda: ops.empty(2, 3).shape, lambda: (2, 3)),
    "shape": (lambda: ops.shape(ms.Tensor(np.zeros((2, 5)))), lambda: (2, 5)),
    "rank": (lambda: ops.rank(ms.Tensor(np.zeros((2, 5)))), lambda: 2),
    "size": (lambda: ops.size(ms.Tensor(np.zeros((2, 5)))), lambda: 10),
    "numel": (lambda: ops.numel(ms.Tensor(np.zeros((3,)))), lambda: 3),
    "is_tensor": (lambda: (ops.is_tensor(ms.Tensor(1)), ops.is_tensor(1)), lambda: (True, False)),
}


@pytest.mark.parametrize("name", sorted(CREATION))
def test_creation(name):
    fn, ref = CREATION[name]
    got, want = fn(), ref()
    if isinstance(want, np.ndarray):
        assert got.asnumpy().dtype == want.dtype, name
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    else:
        assert got == want, name


def test_linspace_with_tensor_bounds():
    check_api(ops.linspace, [np.array(-1.5, np.float32), np.array(2.0, np.float32), 6],
              lambda a, b, n: np.linspace(a, b, n).astype(np.float32), rtol=1e-6)


def test_shape_ops_under_jit_are_static():
    @ms.jit(fullgraph=True)
    def f(x):
        return x * ops.size(x) + ops.rank(x) + ops.shape(x)[0]
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(f(ms.Tensor(x)).asnumpy(), x * 6 + 2 + 2)


RANDOM = {
    "rand": (lambda: ops.rand(2, 3), (2, 3), np.float32),
    "randn": (lambda: ops.randn((4,)), (4,), np.float32),
    "randint": (lambda: ops.randint(0, 5, (3, 2)), (3, 2), np.int64),
    "rand_like": (lambda: ops.rand_like(ms.Tensor(np.zeros((2,), np.float64))), (2,), np.float64),
    "randn_like": (lambda: ops.randn_like(ms.Tensor(np.zeros((3,), np.float32))), (3,), np.float32),
    "uniform": (lambda: ops.uniform((5,), ms.Tensor(1.0), ms.Tensor(2.0)), (5,), np.float32),
    "normal": (lambda: ops.normal((2, 2), 0.0, 1.0), (2, 2), np.float32),
}


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_random(name):
    fn, shp, dt = RANDOM[name]
    ms.set_seed(7)
    a = fn().asnumpy()
    ms.set_seed(7)
    b = fn().asnumpy()
    c = fn().asnumpy()
    assert a.shape == shp and a.dtype == dt
    np.testing.assert_array_equal(a, b)     # set_seed makes draws reproducible
    assert not np.array_equal(b, c)          # and successive draws differ
    if name in ("rand", "uniform"):
        lo = 1.0 if name == "uniform" else 0.0
        assert ((a >= lo) & (a < lo + 1)).all()


@pytest.mark.parametrize("mode", MODES)
def test_random_refused_under_capture(mode):
    def f(x):
        return x + ops.rand(2)
    with pytest.raises(ms.errors.ConcreteValueNeeded, match="random op rand"):
        ms.jit(capture_mode=mode, fullgraph=True)(f)(ms.Tensor(np.zeros(2, np.float32)))


def _small_ints(a, m):
    return m.astype(np.int64) * 3 + (a > 0)


VALUE_DEPENDENT = {   # name -> (msjit call on numpy (a, m), numpy reference)
    "masked_select": (lambda a, m: ops.masked_select(ms.Tensor(a), ms.Tensor(m)), lambda a, m: a[m]),
    "masked_select_bcast": (lambda a, m: ops.masked_select(ms.Tensor(a), ms.Tensor(m[0])),
                            lambda a, m: a[np.broadcast_to(m[0], a.shape)]),
    "nonzero": (lambda a, m: ops.nonzero(ms.Tensor(m)), lambda a, m: np.argwhere(m)),
    "argwhere": (lambda a, m: ops.argwhere(ms.Tensor(a > 0)), lambda a, m: np.argwhere(a > 0)),
    "nonzero_tuple": (lambda a, m: ops.nonzero(ms.Tensor(a > 0), as_tuple=True), lambda a, m: np.nonzero(a > 0)),
    "unique": (lambda a, m: ops.unique(ms.Tensor(_small_ints(a, m))), lambda a, m: _unique_ref(_small_ints(a, m))),
}


@pytest.mark.parametrize("name", sorted(VALUE_DEPENDENT))
def test_value_dependent_eager(name):
    rng = seeded(name)
    a = array(rng, (3, 4))
    m = rng.random((3, 4)) < 0.5
    fn, ref = VALUE_DEPENDENT[name]
    got, want = fn(a, m), ref(a, m)
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.asnumpy().dtype == w.dtype, name
        np.testing.assert_array_equal(g.asnumpy(), w)


@pytest.mark.parametrize("mode", ("ast", "trace"))
def test_value_dependent_refused_under_capture(mode):
    def f(x):
        return ops.masked_select(x, x > 0)
    with pytest.raises(ms.errors.ConcreteValueNeeded, match="MaskedSelect"):
        ms.jit(capture_mode=mode, fullgraph=True)(f)(ms.Tensor(np.ones(3, np.float32)))


def test_scatter_add_updates_a_parameter():
    p = ms.Parameter(ms.Tensor(np.zeros((3, 2), np.float32)), "p")
    out = ops.scatter_add(p, ms.Tensor(np.array([0, 0, 2])), ms.Tensor(np.ones((3, 2), np.float32)))
    assert out is p
    np.testing.assert_array_equal(p.asnumpy(), [[2, 2], [0, 0], [1, 1]])


def test_scatter_with_tensor_index_under_capture():
    """Index values known only at run time: the one-hot scatter path (repeated indices: last wins)."""
    x = np.zeros((2, 4), np.float32)
    idx = np.array([[3, 3], [0, 1]], np.int64)
    src = np.arange(1, 5, dtype=np.float32).reshape(2, 2)
    want = _scatter_ref(x, 1, idx, src)
    check_api(_with(ops.scatter, 1, 1), [x, idx, src], lambda a, i, s: want, grad=True)
    check_api(ops.tensor_scatter_add, [x, np.array([[1], [1]]), np.ones((2, 4), np.float32)],
              lambda a, i, u: a + np.array([[0] * 4, [2] * 4], np.float32), grad=True)


def test_scatter_add_many_repeats():
    """A position repeated more often than rounds of distinct positions are worth: the values are
    summed per position first (and the other path, rounds, on few repeats)."""
    rng = np.random.default_rng(5)
    for idx in (np.array([1] * 6 + [2]), np.array([0, 3, 0, 4])):
        x, y = array(rng, (5, 3)), array(rng, (len(idx), 3))

        def ref(a, i, b):
            out = a.copy()
            np.add.at(out, i, b)
            return out
        check_api(_with(ops.index_add, 3, 0), [x, idx, y], ref, grad=True)


@pytest.mark.parametrize("call, error", [
    (lambda: ops.narrow(ms.Tensor(np.zeros((2, 3))), 1, 2, 3), ValueError),
    (lambda: ops.movedim(ms.Tensor(np.zeros((2, 3))), 0, 5), ValueError),
    (lambda: ops.chunk(ms.Tensor(np.zeros((2, 3))), 0), ValueError),
    (lambda: ops.gather_elements(ms.Tensor(np.zeros((2, 3))), 1, ms.Tensor(np.array([[3]]))), IndexError),
    (lambda: ops.masked_fill(ms.Tensor(np.zeros(2)), ms.Tensor(np.ones(2)), 1.0), TypeError),
    (lambda: ops.randint(3, 3, (2,)), ValueError),
])
def test_errors(call, error):
    with pytest.raises(error):
        call()

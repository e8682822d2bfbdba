"""The gradient kernels of Conv2D and pooling (proto/OPS.md, "Gradients"): eager (vendor kernels
and the numpy fallback) against float64 references written here, the adjoint identities
<forward(x), dy> == <x, dx>, jit (O0, O1) against eager, and bad shapes rejected eagerly, under
jit and by the daemon's own type rules."""
import numpy as np
import pytest

from msjit import Tensor, jit
from msjit.errors import CompileError
from msjit.ops import kernels
from msjit.ops import prims as P

GRAD_KERNELS = ("conv2d_backprop_input", "conv2d_backprop_filter", "max_pool2d_grad", "avg_pool2d_grad")

# x shape, w shape, stride, dilation, pad (top, bottom, left, right), group
CONV_CASES = [
    ((2, 3, 6, 6), (4, 3, 3, 3), (1, 1), (1, 1), (0, 0, 0, 0), 1),
    ((2, 4, 9, 8), (6, 4, 3, 3), (2, 2), (1, 1), (1, 1, 1, 1), 1),   # W does not divide: last column unused
    ((1, 3, 10, 9), (5, 3, 3, 2), (1, 1), (2, 2), (2, 1, 0, 3), 1),  # dilation 2, uneven padding
    ((2, 4, 7, 6), (6, 2, 3, 2), (2, 1), (1, 2), (1, 0, 2, 1), 2),   # group 2, non-square kernel
    ((1, 4, 8, 8), (8, 1, 3, 3), (2, 2), (1, 1), (1, 1, 1, 1), 4),   # depthwise
    ((1, 2, 9, 9), (3, 2, 2, 2), (3, 3), (1, 1), (0, 0, 0, 0), 1),   # stride > kernel: gaps get 0
    ((2, 8, 5, 5), (4, 8, 1, 1), (2, 2), (1, 1), (0, 0, 0, 0), 1),
    ((2, 16, 14, 14), (32, 16, 3, 3), (1, 1), (1, 1), (1, 1, 1, 1), 1),  # blocked layouts
    ((1, 32, 10, 10), (32, 16, 3, 3), (2, 2), (1, 1), (1, 1, 1, 1), 2),
]
# x shape, kernel, stride, pad
POOL_CASES = [
    ((2, 3, 8, 8), (2, 2), (2, 2), (0, 0, 0, 0)),
    ((2, 3, 7, 6), (3, 2), (2, 1), (1, 1, 0, 1)),     # overlapping windows, non-square
    ((1, 4, 9, 9), (3, 3), (1, 1), (1, 1, 1, 1)),     # every element in up to 9 windows
    ((1, 2, 10, 7), (2, 3), (3, 2), (1, 0, 1, 2)),    # stride > kernel along H: gaps get 0
    ((2, 16, 12, 12), (3, 3), (2, 2), (1, 1, 1, 1)),
]


def f32(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def with_ties(shape, seed):
    """Few distinct values: most windows hold their maximum more than once."""
    return np.random.default_rng(seed).integers(-2, 3, shape).astype(np.float32)


@pytest.fixture(params=["vendor", "numpy"])
def path(request, monkeypatch):
    """Eager kernels through the runtime extension, or through the numpy fallback."""
    if request.param == "vendor":
        pytest.importorskip("msjit._msjit_rt")
        if kernels.vendor("max_pool2d_grad") is None:
            pytest.skip("the runtime extension has no gradient kernels")
    else:
        monkeypatch.setattr(kernels, "_vendor_cache", {name: None for name in GRAD_KERNELS})
    return request.param


# ---- float64 references --------------------------------------------------------------------------

def selection(size, kernel, stride, dilation, pad_before, out):
    """S[i, p, h] = 1 when tap i of window p reads input position h (never a padding position)."""
    s = np.zeros((kernel, out, size))
    for i in range(kernel):
        for p in range(out):
            h = p * stride + i * dilation - pad_before
            if 0 <= h < size:
                s[i, p, h] = 1
    return s


def out_size(size, kernel, stride, dilation, lo, hi):
    return (size + lo + hi - dilation * (kernel - 1) - 1) // stride + 1


def window_selections(x_shape, kernel, stride, dilation, pad):
    (h, w), (kh, kw) = x_shape[2:], kernel
    oh = out_size(h, kh, stride[0], dilation[0], pad[0], pad[1])
    ow = out_size(w, kw, stride[1], dilation[1], pad[2], pad[3])
    return (selection(h, kh, stride[0], dilation[0], pad[0], oh),
            selection(w, kw, stride[1], dilation[1], pad[2], ow))


class ConvRef:
    """Conv2D and its two gradients as einsums over the tap selections, per group."""

    def __init__(self, x_shape, w_shape, stride, dilation, pad, group):
        self.s, self.t = window_selections(x_shape, w_shape[2:], stride, dilation, pad)
        self.x_shape, self.w_shape, self.g = x_shape, w_shape, group

    def grouped(self, x=None, w=None, dy=None):
        (n, c, h, wd), (o, cg, kh, kw), g = self.x_shape, self.w_shape, self.g
        oh, ow = self.s.shape[1], self.t.shape[1]
        return (None if x is None else x.astype(np.float64).reshape(n, g, cg, h, wd),
                None if w is None else w.astype(np.float64).reshape(g, o // g, cg, kh, kw),
                None if dy is None else dy.astype(np.float64).reshape(n, g, o // g, oh, ow))

    def forward(self, x, w):
        x, w, _ = self.grouped(x=x, w=w)
        y = np.einsum("gocij,iph,jqw,ngchw->ngopq", w, self.s, self.t, x, optimize=True)
        return y.reshape(y.shape[0], -1, *y.shape[3:])

    def input_grad(self, dy, w):
        _, w, dy = self.grouped(w=w, dy=dy)
        return np.einsum("gocij,iph,jqw,ngopq->ngchw", w, self.s, self.t, dy, optimize=True).reshape(self.x_shape)

    def filter_grad(self, dy, x):
        x, _, dy = self.grouped(x=x, dy=dy)
        return np.einsum("ngopq,iph,jqw,ngchw->gocij", dy, self.s, self.t, x, optimize=True).reshape(self.w_shape)


def avg_pool_ref(x_shape, kernel, stride, pad, include):
    """(forward(x), grad(dy)) of AvgPool: the divisor is the kernel size or the real taps' count."""
    s, t = window_selections(x_shape, kernel, stride, (1, 1), pad)
    divisor = kernel[0] * kernel[1] if include else np.einsum("iph,jqw->pq", s, t)
    forward = lambda x: np.einsum("iph,jqw,nchw->ncpq", s, t, x.astype(np.float64)) / divisor
    grad = lambda dy: np.einsum("iph,jqw,ncpq->nchw", s, t, dy.astype(np.float64) / divisor)
    return forward, grad


def max_pool_ref(x, dy, kernel, stride, pad):
    """(forward, grad) of MaxPool by plain loops: dy goes to the first real maximum in row-major order."""
    n, c, h, w = x.shape
    y, dx = np.empty(dy.shape), np.zeros(x.shape)
    for a, b, p, q in np.ndindex(*dy.shape):
        best = None
        for i in range(kernel[0]):
            for j in range(kernel[1]):
                r, col = p * stride[0] + i - pad[0], q * stride[1] + j - pad[2]
                if 0 <= r < h and 0 <= col < w and (best is None or x[a, b, r, col] > x[a, b, best[0], best[1]]):
                    best = (r, col)
        y[a, b, p, q] = x[a, b, best[0], best[1]]
        dx[a, b, best[0], best[1]] += dy[a, b, p, q]
    return y, dx


def inner(a, b):
    return float(np.dot(np.ravel(a).astype(np.float64), np.ravel(b).astype(np.float64)))


def close(got, want, rtol=1e-4, atol=1e-4):
    got = got.asnumpy() if isinstance(got, Tensor) else got
    assert got.dtype == np.float32 and got.shape == np.shape(want), (got.dtype, got.shape, np.shape(want))
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=atol)


def conv_attrs(stride, dilation, pad, group):
    return dict(stride=stride, dilation=dilation, pad=pad, group=group)


# ---- (a) eager against the references ------------------------------------------------------------

@pytest.mark.parametrize("xs, ws, stride, dilation, pad, group", CONV_CASES)
def test_conv2d_gradients_eager(path, xs, ws, stride, dilation, pad, group):
    ref = ConvRef(xs, ws, stride, dilation, pad, group)
    x, w = f32(xs, 0), f32(ws, 1)
    y = ref.forward(x, w)
    dy = f32(y.shape, 2)
    attrs = conv_attrs(stride, dilation, pad, group)
    dx = P.Conv2DBackpropInput(Tensor(dy), Tensor(w), input_shape=xs, **attrs)
    dw = P.Conv2DBackpropFilter(Tensor(dy), Tensor(x), filter_shape=ws, **attrs)
    close(dx, ref.input_grad(dy, w))
    close(dw, ref.filter_grad(dy, x), rtol=1e-4, atol=3e-4)
    # The adjoint identities: both gradients are Conv2D's transposes.
    forward = inner(y, dy)
    assert inner(x, dx.asnumpy()) == pytest.approx(forward, rel=1e-4, abs=1e-3)
    assert inner(w, dw.asnumpy()) == pytest.approx(forward, rel=1e-4, abs=1e-3)


@pytest.mark.parametrize("include", [True, False], ids=["count_include_pad", "exclude_pad"])
@pytest.mark.parametrize("xs, kernel, stride, pad", POOL_CASES)
def test_avg_pool_grad_eager(path, xs, kernel, stride, pad, include):
    forward, grad = avg_pool_ref(xs, kernel, stride, pad, include)
    x = f32(xs, 3)
    y = forward(x)
    dy = f32(y.shape, 4)
    dx = P.AvgPoolGrad(Tensor(dy), kernel=kernel, stride=stride, pad=pad, count_include_pad=include, input_shape=xs)
    close(dx, grad(dy), rtol=1e-5, atol=1e-6)
    assert inner(x, dx.asnumpy()) == pytest.approx(inner(y, dy), rel=1e-5, abs=1e-4)
    eager_forward = P.AvgPool(Tensor(x), kernel=kernel, stride=stride, pad=pad, count_include_pad=include)
    close(eager_forward, y, rtol=1e-5, atol=1e-6)  # the reference's divisor is the forward op's


@pytest.mark.parametrize("values", [f32, with_ties], ids=["distinct", "ties"])
@pytest.mark.parametrize("xs, kernel, stride, pad", POOL_CASES)
def test_max_pool_grad_eager(path, xs, kernel, stride, pad, values):
    x = values(xs, 5)
    dy = f32(P.MaxPool(Tensor(x), kernel=kernel, stride=stride, pad=pad).shape, 6)
    y, want = max_pool_ref(x, dy, kernel, stride, pad)
    dx = P.MaxPoolGrad(Tensor(x), Tensor(dy), kernel=kernel, stride=stride, pad=pad)
    close(dx, want, rtol=1e-5, atol=1e-5)
    assert inner(x, dx.asnumpy()) == pytest.approx(inner(y, dy), rel=1e-5, abs=1e-4)


@pytest.mark.parametrize("fill", [-5.0, -np.finfo(np.float32).max, -np.inf])
def test_max_pool_grad_padding_never_wins(path, fill):
    """Windows whose real elements all equal a very negative value still route dy to their first
    real element, never to the padding (oneDNN's own backward would drop dy at -FLT_MAX)."""
    xs, kernel, stride, pad = (1, 2, 5, 5), (3, 3), (2, 2), (2, 2, 2, 2)
    x = np.full(xs, fill, np.float32)
    dy = f32((1, 2, 4, 4), 7)
    _, want = max_pool_ref(x, dy, kernel, stride, pad)
    close(P.MaxPoolGrad(Tensor(x), Tensor(dy), kernel=kernel, stride=stride, pad=pad), want, rtol=1e-6, atol=1e-6)
    assert np.isclose(want.sum(), dy.astype(np.float64).sum())  # nothing lost


def test_strided_operands_are_read_densely(path):
    """Non-contiguous operands (a transposed dy, a sliced x) give the same gradients."""
    xs, ws, stride, dilation, pad, group = CONV_CASES[3]
    ref = ConvRef(xs, ws, stride, dilation, pad, group)
    x, w = f32(xs, 0), f32(ws, 1)
    dy = np.ascontiguousarray(f32(ref.forward(x, w).shape, 2).transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    x_view = np.concatenate([x, x], axis=3)[:, :, :, ::2]
    x_view[...] = x
    attrs = conv_attrs(stride, dilation, pad, group)
    close(P.Conv2DBackpropInput(Tensor._wrap(dy), Tensor(w), input_shape=xs, **attrs), ref.input_grad(dy, w))
    close(P.Conv2DBackpropFilter(Tensor._wrap(dy), Tensor._wrap(x_view), filter_shape=ws, **attrs),
          ref.filter_grad(dy, x), atol=3e-4)


# ---- (b) inside msjit.jit: the daemon's kernels equal eager ----------------------------------------

def run_jit(level, fn, *args):
    eager = fn(*args)
    jitted = jit(fn, jit_level=level, fullgraph=True)
    out = jitted(*args)
    assert jitted.stats.compiles == 1 and jitted.stats.fallbacks == 0
    return eager, out, jitted


@pytest.mark.parametrize("level", ["O0", "O1"])
@pytest.mark.parametrize("xs, ws, stride, dilation, pad, group", CONV_CASES[1:5] + CONV_CASES[-1:])
def test_conv2d_gradients_jit(module_daemon_home, level, xs, ws, stride, dilation, pad, group):
    pytest.importorskip("msjit._msjit_rt")
    x, w = Tensor(f32(xs, 0)), Tensor(f32(ws, 1))
    dy = Tensor(f32(ConvRef(xs, ws, stride, dilation, pad, group).forward(x.asnumpy(), w.asnumpy()).shape, 2))

    def grads(dy, x, w):
        dx = P.Conv2DBackpropInput(dy, w, stride=stride, dilation=dilation, pad=pad, group=group, input_shape=xs)
        dw = P.Conv2DBackpropFilter(dy, x, stride=stride, dilation=dilation, pad=pad, group=group, filter_shape=ws)
        return dx, dw

    (dx, dw), (jdx, jdw), _ = run_jit(level, grads, dy, x, w)
    close(jdx, dx.asnumpy(), rtol=1e-5, atol=1e-5)
    close(jdw, dw.asnumpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("level", ["O0", "O1"])
@pytest.mark.parametrize("xs, kernel, stride, pad", POOL_CASES[1:4])
def test_pool_gradients_jit(module_daemon_home, level, xs, kernel, stride, pad):
    pytest.importorskip("msjit._msjit_rt")
    x = Tensor(with_ties(xs, 5))
    dy = Tensor(f32(P.MaxPool(x, kernel=kernel, stride=stride, pad=pad).shape, 6))

    def grads(x, dy):
        dmax = P.MaxPoolGrad(x, dy, kernel=kernel, stride=stride, pad=pad)
        davg = P.AvgPoolGrad(dy, kernel=kernel, stride=stride, pad=pad, count_include_pad=True, input_shape=xs)
        dexcl = P.AvgPoolGrad(dy, kernel=kernel, stride=stride, pad=pad, count_include_pad=False, input_shape=xs)
        return dmax, davg, dexcl

    eager, out, _ = run_jit(level, grads, x, dy)
    for got, want in zip(out, eager):
        close(got, want.asnumpy(), rtol=1e-6, atol=1e-6)


def test_gradients_between_generated_ops_jit(module_daemon_home):
    """Gradient kernels fed by and feeding generated (fused) code: a conv layer's backward."""
    pytest.importorskip("msjit._msjit_rt")
    attrs = conv_attrs((1, 1), (1, 1), (1, 1, 1, 1), 1)
    pool = dict(kernel=(2, 2), stride=(2, 2), pad=(0, 0, 0, 0))

    def backward(x, w, dout):
        y = P.ReLU(P.Conv2D(x, w, **attrs))
        dy = P.MaxPoolGrad(y, dout, **pool)
        zero = np.zeros((), np.float32)
        dy = P.Select(P.Greater(y, zero), dy, zero)   # ReLU's backward
        dx = P.Conv2DBackpropInput(dy, w, input_shape=(2, 4, 8, 8), **attrs)
        dw = P.Conv2DBackpropFilter(dy, x, filter_shape=(6, 4, 3, 3), **attrs)
        return P.Add(dx, dx), dw

    x, w, dout = Tensor(f32((2, 4, 8, 8), 0)), Tensor(f32((6, 4, 3, 3), 1)), Tensor(f32((2, 6, 4, 4), 2))
    (dx, dw), (jdx, jdw), jitted = run_jit("O1", backward, x, w, dout)
    close(jdx, dx.asnumpy(), rtol=1e-5, atol=1e-5)
    close(jdw, dw.asnumpy(), rtol=1e-5, atol=1e-5)
    jdx2, _ = jitted(x, w, dout)  # the cached call
    close(jdx2, dx.asnumpy(), rtol=1e-5, atol=1e-5)


# ---- (c) bad shapes: clear errors eagerly, under jit, and from the daemon ----------------------------

CONV_ATTRS = conv_attrs((2, 1), (1, 2), (1, 0, 2, 1), 2)   # x (2, 4, 7, 6), w (6, 2, 3, 2) -> y (2, 6, 3, 7)
POOL_ATTRS = dict(kernel=(3, 2), stride=(2, 1), pad=(1, 1, 0, 1))  # x (2, 3, 7, 6) -> y (2, 3, 4, 6)
BAD = [  # id, primitive, operand shapes, attributes, error, message
    ("input dy", P.Conv2DBackpropInput, [(2, 6, 3, 6), (6, 2, 3, 2)], dict(CONV_ATTRS, input_shape=(2, 4, 7, 6)),
     ValueError, r"Conv2DBackpropInput: dy of shape \(2, 6, 3, 6\) does not match the result shape \(2, 6, 3, 7\)"),
    ("input group", P.Conv2DBackpropInput, [(2, 6, 3, 7), (6, 2, 3, 2)], dict(CONV_ATTRS, input_shape=(2, 6, 7, 6)),
     ValueError, r"Conv2DBackpropInput: input of shape \(2, 6, 7, 6\) and weight of shape \(6, 2, 3, 2\).*group=2"),
    ("input_shape rank", P.Conv2DBackpropInput, [(2, 6, 3, 7), (6, 2, 3, 2)], dict(CONV_ATTRS, input_shape=(4, 7, 6)),
     ValueError, r"Conv2DBackpropInput: input_shape must be 4 non-negative ints \(N, C, H, W\), got \(4, 7, 6\)"),
    ("filter dy", P.Conv2DBackpropFilter, [(2, 6, 3, 4), (2, 4, 7, 6)], dict(CONV_ATTRS, filter_shape=(6, 2, 3, 2)),
     ValueError, r"Conv2DBackpropFilter: dy of shape \(2, 6, 3, 4\) does not match.*\(2, 6, 3, 7\)"),
    ("filter dtype", P.Conv2DBackpropFilter, [((2, 6, 3, 7), np.float64), (2, 4, 7, 6)],
     dict(CONV_ATTRS, filter_shape=(6, 2, 3, 2)), TypeError, "Conv2DBackpropFilter: expected float32 operands, got Float64"),
    ("filter kernel", P.Conv2DBackpropFilter, [(2, 6, 3, 7), (2, 4, 7, 6)], dict(CONV_ATTRS, filter_shape=(6, 2, 9, 2)),
     ValueError, r"Conv2DBackpropFilter: kernel \(9, 2\).*does not fit the input of shape \(2, 4, 7, 6\)"),
    ("maxpool dy", P.MaxPoolGrad, [(2, 3, 7, 6), (2, 3, 5, 5)], POOL_ATTRS,
     ValueError, r"MaxPoolGrad: dy of shape \(2, 3, 5, 5\) does not match the result shape \(2, 3, 4, 6\)"),
    ("maxpool rank", P.MaxPoolGrad, [(3, 7, 6), (2, 3, 4, 6)], POOL_ATTRS,
     ValueError, r"MaxPoolGrad: expected a 4-D input \(N, C, H, W\), got shape \(3, 7, 6\)"),
    ("avgpool dy", P.AvgPoolGrad, [(2, 3, 4, 4)], dict(POOL_ATTRS, count_include_pad=False, input_shape=(2, 3, 7, 6)),
     ValueError, r"AvgPoolGrad: dy of shape \(2, 3, 4, 4\) does not match.*\(2, 3, 4, 6\)"),
    ("avgpool padding", P.AvgPoolGrad, [(2, 3, 4, 6)],
     dict(POOL_ATTRS, pad=(1, 1, 0, 2), count_include_pad=True, input_shape=(2, 3, 7, 6)),
     ValueError, r"AvgPoolGrad: padding \(1, 1, 0, 2\) must be smaller than the kernel \(3, 2\)"),
]


def operands(specs):
    """Tensors of the given shapes (float32 unless a spec is (shape, dtype))."""
    return [Tensor(f32(*spec[:1], i).astype(spec[1]) if isinstance(spec[0], tuple) else f32(spec, i))
            for i, spec in enumerate(specs)]


def jit_call(prim, attrs, tensors):
    def call(*ts):
        return prim(*ts, **attrs)
    return jit(call, fullgraph=True)(*tensors)


@pytest.mark.parametrize("name, prim, shapes, attrs, exc, pattern", BAD, ids=[b[0] for b in BAD])
def test_bad_shapes_raise_eagerly(name, prim, shapes, attrs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        prim(*operands(shapes), **attrs)


@pytest.mark.parametrize("name, prim, shapes, attrs, exc, pattern", BAD, ids=[b[0] for b in BAD])
def test_bad_shapes_raise_under_jit(no_daemon, name, prim, shapes, attrs, exc, pattern):
    """The rule runs while tracing, so the graph is never sent (no daemon is reachable here)."""
    with pytest.raises(exc, match=pattern):
        jit_call(prim, attrs, operands(shapes))


@pytest.mark.parametrize("name, prim, shapes, attrs, pattern", [
    ("Conv2DBackpropInput dy", P.Conv2DBackpropInput, [(2, 6, 3, 6), (6, 2, 3, 2)],
     dict(CONV_ATTRS, input_shape=(2, 4, 7, 6)),
     r"Conv2DBackpropInput.*dy of type tensor<2x6x3x6xf32> does not match the forward result tensor<2x6x3x7xf32>"),
    ("Conv2DBackpropFilter group", P.Conv2DBackpropFilter, [(2, 6, 3, 7), (2, 4, 7, 6)],
     dict(CONV_ATTRS, filter_shape=(6, 4, 3, 2)), r"Conv2DBackpropFilter.*do not match group 2"),
    ("MaxPoolGrad window", P.MaxPoolGrad, [(2, 3, 2, 6), (2, 3, 1, 5)], dict(POOL_ATTRS, pad=(0, 0, 0, 0)),
     r"MaxPoolGrad.*window does not fit the input of shape \(2, 3, 2, 6\)"),
    ("AvgPoolGrad input_shape", P.AvgPoolGrad, [(2, 3, 4, 6)],
     dict(POOL_ATTRS, count_include_pad=True, input_shape=(2, 3, 7, -6)), r"AvgPoolGrad.*'input_shape' has a negative"),
])
def test_daemon_rejects_bad_graphs(module_daemon_home, name, prim, shapes, attrs, pattern):
    """The daemon's own type rules (ir/GradKernelOps.cpp) reject what the client rule would have:
    here the client's rule is bypassed to send the graph anyway."""
    pytest.importorskip("msjit._msjit_rt")
    unchecked = type(prim)(prim.name, prim.impl, lambda *avals, **_: avals[0])
    with pytest.raises(CompileError, match=pattern):
        jit_call(unchecked, attrs, operands(shapes))

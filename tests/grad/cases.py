"""Gradient cases shared by the eager (tape) tests and, later, the compiled ones.

A ``Case`` is a function of msjit Tensors returning one float Tensor, its input arrays and the
positions of the inputs to differentiate. The checked quantity is the gradient of
``sum(ct * fn(*inputs))`` for a fixed random cotangent ``ct`` (``cotangent``), against central
finite differences (``numeric_grad``) and, where given, a closed form ``expected``. Cases at
kinks (ties, stop_gradient) have ``fd=False`` and a closed form only. Float64 unless the op is
float32-only (Conv2D, pools: looser tolerances).
"""
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

import msjit as ms
from msjit import ops
from msjit.ops import prims as P
from support import central_difference, cotangent


@dataclass(frozen=True)
class Case:
    name: str
    fn: Callable                        # Tensors -> one float Tensor
    inputs: tuple                       # numpy arrays
    wrt: tuple = (0,)                   # positions of the inputs to differentiate
    fd: bool = True                     # compare with central finite differences
    expected: Optional[Callable] = None  # (*inputs, ct) -> one gradient per wrt position
    eps: float = 1e-6
    rtol: float = 1e-5
    atol: float = 1e-7

    def __repr__(self):
        return self.name


def evaluate(fn, arrays):
    """``fn`` applied eagerly to ``arrays`` as Tensors; the output as a numpy array."""
    return np.asarray(fn(*[ms.Tensor(a) for a in arrays]).asnumpy())


def numeric_grad(fn, arrays, i, ct=None, eps=1e-6):
    """Central finite differences of ``sum(ct * fn(*arrays))`` with respect to ``arrays[i]``
    (``ct`` defaults to ``cotangent`` of the output), in ``arrays[i]``'s dtype."""
    arrays = [np.array(a) for a in arrays]
    if ct is None:
        out = evaluate(fn, arrays)
        ct = cotangent(out.shape, out.dtype)
    return central_difference(arrays[i], lambda: evaluate(fn, arrays), ct, eps).astype(arrays[i].dtype)


# ---- inputs ---------------------------------------------------------------------------------------

_rng = np.random.default_rng(0)


def normal(*shape, dtype=np.float64):
    return _rng.standard_normal(shape).astype(dtype)


def positive(*shape, dtype=np.float64):
    return _rng.uniform(0.5, 2.0, shape).astype(dtype)


def distinct(*shape, dtype=np.float64, gap=0.1):
    """Values at least ``gap`` apart (no ties, so max/min/relu stay differentiable under FD)."""
    n = int(np.prod(shape))
    return ((_rng.permutation(n) - n / 2 + 0.5) * gap).reshape(shape).astype(dtype)


def mm(ta=False, tb=False):
    flags = {k: True for k, v in (("transpose_a", ta), ("transpose_b", tb)) if v}
    return lambda x, y: ops.bind(P.MatMul, x, y, **flags)


def rotate_half(x):
    half = x.shape[-1] // 2
    return ops.concat([-x[..., half:], x[..., :half]], -1)


# ---- closed forms ---------------------------------------------------------------------------------

def _ties_max(x, ct):      # x (2, 3) reduced over axis 1: the gradient is split between ties
    hit = (x == x.max(1, keepdims=True)).astype(x.dtype)
    return (hit / hit.sum(1, keepdims=True) * ct[:, None],)


def _ties_min(x, ct):      # x (2, 3) reduced over all axes
    hit = (x == x.min()).astype(x.dtype)
    return (hit / hit.sum() * ct,)


def _pow_dy(x, y, ct):
    out = np.power(x, y)
    return (np.where(x > 0, np.log(np.where(x > 0, x, 1)) * out, 0) * ct,)


def _softmax_dx(x, ct):
    s = np.exp(x - x.max(-1, keepdims=True))
    s /= s.sum(-1, keepdims=True)
    return (s * (ct - (ct * s).sum(-1, keepdims=True)),)


def _rms_norm_dx(x, g, ct):    # y = x * r * g, r = (mean(x^2) + eps)^-1/2 over the last axis
    r = 1 / np.sqrt(np.mean(x * x, -1, keepdims=True) + 1e-6)
    gy = ct * g
    dx = r * gy - x * r ** 3 * np.mean(gy * x, -1, keepdims=True)
    dg = (ct * x * r).reshape(-1, x.shape[-1]).sum(0)
    return dx, dg


def _rotary_dx(x, cos, sin, ct):
    half = x.shape[-1] // 2
    g = ct * sin
    return (ct * cos + np.concatenate([g[..., half:], -g[..., :half]], -1),)


def _window(xp, i, j, kernel, stride, dilation):
    """Index of the (i, j) window's taps in a padded (N, C, H, W) array, as two slices."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    return (slice(i * sh, i * sh + dh * (kh - 1) + 1, dh), slice(j * sw, j * sw + dw * (kw - 1) + 1, dw))


def _unpad(xp, pad):
    return xp[:, :, pad[0]:xp.shape[2] - pad[1], pad[2]:xp.shape[3] - pad[3]]


def conv2d_adjoint(stride=(1, 1), dilation=(1, 1), pad=(0, 0, 0, 0), group=1, bias=False):
    """Closed form of Conv2D's gradients by loops over the output (float64)."""
    def expected(x, w, *rest):
        ct = rest[-1].astype(np.float64)
        xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pad[:2], pad[2:]))
        dxp, dw = np.zeros_like(xp), np.zeros(w.shape)
        og, cg = w.shape[0] // group, w.shape[1]
        for n, o, i, j in np.ndindex(ct.shape):
            c = slice(o // og * cg, (o // og + 1) * cg)
            hs, ws = _window(xp, i, j, w.shape[2:], stride, dilation)
            dw[o] += ct[n, o, i, j] * xp[n, c, hs, ws]
            dxp[n, c, hs, ws] += ct[n, o, i, j] * w[o]
        grads = (_unpad(dxp, pad), dw)
        return grads + ((ct.sum((0, 2, 3)),) if bias else ())
    return expected


def max_pool_adjoint(kernel, stride, pad=(0, 0, 0, 0)):
    """Each cotangent goes to the first maximum of its window (row-major scan)."""
    def expected(x, ct):
        xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pad[:2], pad[2:]), constant_values=-np.inf)
        dxp = np.zeros_like(xp)
        for n, c, i, j in np.ndindex(ct.shape):
            hs, ws = _window(xp, i, j, kernel, stride, (1, 1))
            win = xp[n, c, hs, ws]
            a, b = np.unravel_index(np.argmax(win), win.shape)
            dxp[n, c, hs.start + a, ws.start + b] += ct[n, c, i, j]
        return (_unpad(dxp, pad),)
    return expected


def avg_pool_adjoint(kernel, stride, pad=(0, 0, 0, 0), count_include_pad=True):
    """Each cotangent spread evenly over its window's divisor."""
    def expected(x, ct):
        xp = np.zeros((x.shape[0], x.shape[1], x.shape[2] + pad[0] + pad[1], x.shape[3] + pad[2] + pad[3]))
        inside = np.pad(np.ones(x.shape[2:]), (pad[:2], pad[2:]))
        for n, c, i, j in np.ndindex(ct.shape):
            hs, ws = _window(xp, i, j, kernel, stride, (1, 1))
            divisor = kernel[0] * kernel[1] if count_include_pad else inside[hs, ws].sum()
            xp[n, c, hs, ws] += ct[n, c, i, j] / divisor
        return (_unpad(xp, pad),)
    return expected


_X34 = normal(3, 4)
_TIES = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
_COND = np.array([[True], [False], [True]])
_IDX = np.array([2, 0, 2, -1, 2], np.int64)
_COS, _SIN = np.cos(normal(2, 3, 6)), np.sin(normal(2, 3, 6))
_CONV = dict(stride=(2, 2), dilation=(1, 2), pad=(1, 0, 0, 1), group=2)
_BN = dict(running_mean=np.zeros(3), running_var=np.ones(3))

CASES = [
    # elementwise binary, broadcast both ways, scalars, the same tensor twice
    Case("add", lambda x, y: x + y, (normal(3, 4), normal(4)), (0, 1)),
    Case("add_broadcast_both", lambda x, y: x + y, (normal(2, 1, 3), normal(4, 1)), (0, 1)),
    Case("add_scalar", lambda x: 2.0 + x, (normal(3),)),
    Case("sub", lambda x, y: x - y, (normal(3, 1), normal(1, 4)), (0, 1)),
    Case("rsub_scalar", lambda x: 1.0 - x, (normal(3),)),
    Case("mul", lambda x, y: x * y, (normal(2, 3, 4), normal(3, 1)), (0, 1)),
    Case("mul_self", lambda x: x * x * x, (normal(5),)),
    Case("div", lambda x, y: x / y, (normal(3, 4), positive(4)), (0, 1)),
    Case("rdiv_scalar", lambda x: 1.0 / x, (positive(5),)),
    Case("pow", lambda x, y: x ** y, (positive(3, 4), normal(4)), (0, 1)),
    Case("pow_scalar_exponent", lambda x: x ** 3.0, (normal(5),)),
    Case("pow_negative_base", lambda x, y: ops.pow(x, y), (normal(6), np.array([2., 3., 1., 2., 4., 3.])), (0,)),
    Case("pow_dy_nonpositive_base", lambda x, y: ops.pow(x, y), (np.array([-1.5, 0.0, 0.5, 2.0]), np.array([2., 3., 0.5, 1.5])),
         (1,), fd=False, expected=_pow_dy),
    Case("maximum", lambda x, y: ops.maximum(x, y), (distinct(3, 4), distinct(4, gap=0.13)), (0, 1)),
    Case("minimum", lambda x, y: ops.minimum(x, y), (distinct(3, 1), distinct(3, 4, gap=0.07)), (0, 1)),
    Case("maximum_ties", lambda x, y: ops.maximum(x, y), (np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0, 3.0])), (0, 1),
         fd=False, expected=lambda x, y, ct: (np.where(x >= y, ct, 0), np.where(x >= y, 0, ct))),
    Case("minimum_ties", lambda x, y: ops.minimum(x, y), (np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0, 0.0])), (0, 1),
         fd=False, expected=lambda x, y, ct: (np.where(x <= y, ct, 0), np.where(x <= y, 0, ct))),
    Case("select", lambda c, x, y: ops.where(c, x, y), (_COND, normal(3, 4), normal(4)), (1, 2)),
    # elementwise unary
    Case("neg", lambda x: -x, (normal(4),)),
    Case("relu", lambda x: ops.relu(x), (distinct(3, 4),)),
    Case("abs", lambda x: ops.abs(x), (distinct(3, 4),)),
    Case("exp", lambda x: ops.exp(x), (normal(3, 4),), expected=lambda x, ct: (np.exp(x) * ct,)),
    Case("log", lambda x: ops.log(x), (positive(3, 4),)),
    Case("sqrt", lambda x: ops.sqrt(x), (positive(3, 4),)),
    Case("rsqrt", lambda x: ops.rsqrt(x), (positive(3, 4),)),
    Case("sigmoid", lambda x: ops.sigmoid(x), (normal(3, 4),)),
    Case("tanh", lambda x: ops.tanh(x), (normal(3, 4),)),
    Case("sin", lambda x: ops.sin(x), (normal(3, 4),)),
    Case("cos", lambda x: ops.cos(x), (normal(3, 4),)),
    Case("erf", lambda x: ops.erf(x), (normal(3, 4),)),
    Case("cast_f32_roundtrip", lambda x: ops.cast(ops.square(ops.cast(x, ms.float32)), ms.float64), (normal(5),),
         eps=1e-3, rtol=1e-3, atol=1e-4),
    Case("cast_f32", lambda x: ops.cast(x, ms.float32), (normal(5),), fd=False,
         expected=lambda x, ct: (ct.astype(np.float64),)),
    Case("stop_gradient", lambda x: x * ops.stop_gradient(x), (normal(5),), fd=False,
         expected=lambda x, ct: (x * ct,)),
    # reductions: axes, keep_dims, all axes, ties
    Case("sum_axis", lambda x: ops.sum(x, 1), (normal(3, 4),)),
    Case("sum_axis_keepdims", lambda x: ops.sum(x, -1, keepdim=True), (normal(3, 4),)),
    Case("sum_all", lambda x: ops.sum(x), (normal(3, 4),)),
    Case("sum_axes_keepdims", lambda x: ops.sum(x, (0, 2), keepdim=True), (normal(2, 3, 4),)),
    Case("mean_axis", lambda x: ops.mean(x, 0), (normal(3, 4),)),
    Case("mean_axes_keepdims", lambda x: ops.mean(x, (0, 2), keep_dims=True), (normal(2, 3, 4),)),
    Case("mean_all", lambda x: ops.mean(x), (normal(3, 4),)),
    Case("amax_axis", lambda x: ops.amax(x, 1), (distinct(3, 4),)),
    Case("amax_all_keepdims", lambda x: ops.amax(x, keepdims=True), (distinct(3, 4),)),
    Case("amin_axes", lambda x: ops.amin(x, (0, 2)), (distinct(2, 3, 4),)),
    Case("amax_ties", lambda x: ops.amax(x, 1), (_TIES,), fd=False, expected=_ties_max),
    Case("amin_ties", lambda x: ops.amin(x), (np.array([[0.0, 3.0, 0.0], [2.0, 0.0, 5.0]]),), fd=False,
         expected=_ties_min),
    # MatMul: transpose flags, batches, numpy matmul's 1-D and broadcast forms
    Case("matmul", mm(), (normal(3, 4), normal(4, 5)), (0, 1)),
    Case("matmul_ta", mm(ta=True), (normal(4, 3), normal(4, 5)), (0, 1)),
    Case("matmul_tb", mm(tb=True), (normal(3, 4), normal(5, 4)), (0, 1)),
    Case("matmul_ta_tb", mm(True, True), (normal(4, 3), normal(5, 4)), (0, 1)),
    Case("matmul_batched_tb", mm(tb=True), (normal(2, 3, 4), normal(2, 5, 4)), (0, 1)),
    Case("matmul_batched_ta", mm(ta=True), (normal(2, 4, 3), normal(2, 4, 5)), (0, 1)),
    Case("matmul_vector", lambda x, y: ops.matmul(x, y), (normal(4), normal(4, 3)), (0, 1)),
    Case("matmul_broadcast_batch", lambda x, y: ops.matmul(x, y), (normal(2, 1, 3, 4), normal(5, 4, 2)), (0, 1)),
    Case("matmul_batch_times_2d", lambda x, y: ops.matmul(x, y), (normal(2, 3, 4), normal(4, 2)), (0, 1)),
    # data movement
    Case("reshape", lambda x: ops.reshape(x, (2, -1)), (normal(3, 4),)),
    Case("transpose", lambda x: ops.transpose(x, (2, 0, 1)), (normal(2, 3, 4),)),
    Case("broadcast_to", lambda x: ops.broadcast_to(x, (2, 3, 4)), (normal(3, 1),)),
    Case("tile", lambda x: ops.tile(x, (2, 1, 3)), (normal(2, 3),)),
    Case("expand_squeeze", lambda x: ops.squeeze(ops.expand_dims(x, 1) * 2.0, 1), (normal(3, 4),)),
    Case("slice_step_reverse", lambda x: x[1:5:2, ::-1], (normal(6, 4),)),
    Case("slice_negative_stride3", lambda x: x[::-3, 2:], (normal(7, 5),)),
    Case("slice_negative_partial", lambda x: x[5:0:-2, 1], (normal(7, 3),)),
    Case("slice_stride_uneven", lambda x: x[1::3], (normal(8, 2),)),
    Case("slice_newaxis_ellipsis", lambda x: x[..., None, 1:] * 1.0, (normal(2, 3),)),
    Case("index_last", lambda x: x[-1], (normal(3, 4),)),
    Case("strided_slice", lambda x: ops.strided_slice(x, (0, 3), (4, 0), (2, -1)), (normal(5, 4),)),
    Case("concat", lambda x, y, z: ops.concat([x, y, z], 1), (normal(2, 1), normal(2, 3), normal(2, 2)), (0, 1, 2)),
    Case("stack_split", lambda x, y: ops.split(ops.stack([x, y], 0), [1, 1], 0)[1] * ops.stack([x, y])[0],
         (normal(3), normal(3)), (0, 1)),
    Case("gather_duplicates", lambda x, i: ops.gather(x, i, 0), (normal(4, 3), _IDX)),
    Case("gather_axis1_2d_indices", lambda x, i: ops.gather(x, i, 1),
         (normal(2, 4, 3), np.array([[1, 1], [-4, 3]], np.int64))),
    Case("getitem_tensor_index", lambda x: x[:, [0, 2, 2]], (normal(3, 4),)),
    Case("embedding", lambda w, i: ops.embedding(i, w), (normal(5, 3), np.array([[1, 4], [1, 1]], np.int32))),
    Case("triu", lambda x: ops.triu(x, 1), (normal(2, 4, 4),)),
    Case("tril", lambda x: ops.tril(x, -1), (normal(4, 3),)),
    # windowed NN ops (float32 only)
    Case("conv2d", lambda x, w: ops.conv2d(x, w, padding=1, pad_mode="pad"),
         (normal(2, 3, 5, 5, dtype=np.float32), normal(4, 3, 3, 3, dtype=np.float32)), (0, 1),
         expected=conv2d_adjoint(pad=(1, 1, 1, 1)), eps=1e-2, rtol=1e-2, atol=1e-2),
    Case("conv2d_stride_dilation_group_bias", lambda x, w, b: ops.conv2d(x, w, b, stride=2, dilation=2, groups=2),
         (normal(1, 4, 9, 8, dtype=np.float32), normal(6, 2, 2, 3, dtype=np.float32), normal(6, dtype=np.float32)),
         (0, 1, 2), expected=conv2d_adjoint((2, 2), (2, 2), group=2, bias=True), eps=1e-2, rtol=1e-2, atol=1e-2),
    Case("conv2d_same", lambda x, w: ops.conv2d(x, w, stride=2, pad_mode="same"),
         (normal(1, 2, 6, 7, dtype=np.float32), normal(3, 2, 2, 2, dtype=np.float32)), (0, 1),
         expected=conv2d_adjoint((2, 2), pad=(0, 0, 0, 1)), eps=1e-2, rtol=1e-2, atol=1e-2),
    Case("max_pool", lambda x: ops.max_pool2d(x, 2), (distinct(2, 2, 4, 6, dtype=np.float32),),
         expected=max_pool_adjoint((2, 2), (2, 2)), eps=1e-2, rtol=1e-2, atol=1e-2),
    Case("max_pool_overlap_pad", lambda x: ops.max_pool2d(x, 3, 2, padding=1), (distinct(1, 2, 5, 6, dtype=np.float32),),
         expected=max_pool_adjoint((3, 3), (2, 2), (1, 1, 1, 1)), eps=1e-2, rtol=1e-2, atol=1e-2),
    Case("avg_pool", lambda x: ops.avg_pool2d(x, 2, 2), (normal(2, 2, 4, 6, dtype=np.float32),),
         expected=avg_pool_adjoint((2, 2), (2, 2)), eps=1e-2, rtol=1e-2, atol=1e-2),
    Case("avg_pool_pad_include", lambda x: ops.avg_pool2d(x, 3, 2, padding=1), (normal(1, 2, 5, 6, dtype=np.float32),),
         expected=avg_pool_adjoint((3, 3), (2, 2), (1, 1, 1, 1)), eps=1e-2, rtol=1e-2, atol=1e-2),
    Case("avg_pool_pad_exclude", lambda x: ops.avg_pool2d(x, 3, 1, padding=1, count_include_pad=False),
         (normal(1, 2, 4, 5, dtype=np.float32),),
         expected=avg_pool_adjoint((3, 3), (1, 1), (1, 1, 1, 1), False), eps=1e-2, rtol=1e-2, atol=1e-2),
    # composites (covered by the primitive rules)
    Case("softmax", lambda x: ops.softmax(x), (normal(3, 5),), expected=_softmax_dx),
    Case("log_softmax", lambda x: ops.log_softmax(x, 0), (normal(3, 5),)),
    Case("layer_norm", lambda x, w, b: ops.layer_norm(x, (4,), w, b), (normal(3, 4), normal(4), normal(4)), (0, 1, 2)),
    Case("rms_norm", lambda x, g: ops.rms_norm(x, g)[0], (normal(2, 3, 4), normal(4)), (0, 1), expected=_rms_norm_dx),
    Case("batch_norm_training", lambda x, w, b: ops.batch_norm(x, _BN["running_mean"], _BN["running_var"], w, b, True),
         (normal(4, 3, 2, 2), positive(3), normal(3)), (0, 1, 2)),
    Case("rotary", lambda x, c, s: x * c + rotate_half(x) * s, (normal(2, 3, 6), _COS, _SIN), (0,), expected=_rotary_dx),
    Case("gelu", lambda x: ops.gelu(x), (normal(3, 4),)),
    Case("gelu_tanh", lambda x: ops.gelu(x, "tanh"), (normal(3, 4),)),
    Case("silu", lambda x: ops.silu(x), (normal(3, 4),)),
    Case("dense", lambda x, w, b: ops.dense(x, w, b), (normal(2, 3, 4), normal(5, 4), normal(5)), (0, 1, 2)),
    Case("attention_scores", lambda q, k: ops.softmax(ops.BatchMatMul(transpose_b=True)(q, k) * 0.5
                                                       + ops.triu(ops.full((3, 3), -1e9, dtype=ms.float64), 1), -1),
         (normal(2, 3, 4), normal(2, 3, 4)), (0, 1)),
]

# The gradient primitives, linear in dy (second derivatives through Conv2D and AvgPool): rules
# on the eager tape only so far (msjitd's autodiff has none for them), so kept out of CASES.
GRAD_OP_CASES = [
    Case("conv2d_backprop_input", lambda dy, w: ops.bind(P.Conv2DBackpropInput, dy, w, input_shape=(1, 4, 5, 6), **_CONV),
         (normal(1, 6, 3, 2, dtype=np.float32), normal(6, 2, 2, 3, dtype=np.float32)), (0, 1),
         eps=1e-2, rtol=1e-2, atol=1e-2),
    Case("conv2d_backprop_filter", lambda dy, x: ops.bind(P.Conv2DBackpropFilter, dy, x, filter_shape=(6, 2, 2, 3), **_CONV),
         (normal(1, 6, 3, 2, dtype=np.float32), normal(1, 4, 5, 6, dtype=np.float32)), (0, 1),
         eps=1e-2, rtol=1e-2, atol=1e-2),
    Case("avg_pool_grad", lambda dy: ops.bind(P.AvgPoolGrad, dy, kernel=(3, 3), stride=(2, 2), pad=(1, 1, 1, 1),
                                              count_include_pad=False, input_shape=(1, 2, 5, 6)),
         (normal(1, 2, 3, 3, dtype=np.float32),), eps=1e-2, rtol=1e-2, atol=1e-2),
]

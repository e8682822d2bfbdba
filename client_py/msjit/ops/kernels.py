"""Eager kernels of the windowed NN primitives (Conv2D, MaxPool, AvgPool) and their gradients.

They run on the runtime extension's vendor kernels (``_msjit_rt.conv2d`` ...), the very kernels
compiled graphs call, when the extension provides them; otherwise on numpy (im2col windows and
``np.matmul``, i.e. OpenBLAS). Both take float32 NCHW arrays and explicit attributes:
``pad`` is (top, bottom, left, right).
"""
import logging

import numpy as np

logger = logging.getLogger(__name__)

_MISSING = object()
_vendor_cache = {}


def vendor(name):
    """``_msjit_rt.<name>`` or None (logged once at debug level)."""
    fn = _vendor_cache.get(name, _MISSING)
    if fn is _MISSING:
        try:
            from .. import _msjit_rt
            fn = getattr(_msjit_rt, name)
        except (ImportError, AttributeError) as e:
            logger.debug("eager %s runs on numpy: no vendor kernel in msjit._msjit_rt (%s)", name, e)
            fn = None
        _vendor_cache[name] = fn
    return fn


def window_size(size, k, s, d, lo, hi):
    """Output length of a window of ``k`` taps (dilation ``d``) moved by ``s`` over a padded axis."""
    return (size + lo + hi - d * (k - 1) - 1) // s + 1


def _windows(x, kernel, stride, dilation, pad, fill):
    """(N, C, KH, KW, OH, OW) strided view of the padded input (no copy of the windows)."""
    xp = np.pad(x, ((0, 0), (0, 0), pad[:2], pad[2:]), constant_values=fill)
    n, c, h, w = xp.shape
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    oh, ow = (h - dh * (kh - 1) - 1) // sh + 1, (w - dw * (kw - 1) - 1) // sw + 1
    s0, s1, s2, s3 = xp.strides
    return np.lib.stride_tricks.as_strided(xp, (n, c, kh, kw, oh, ow),
                                           (s0, s1, s2 * dh, s3 * dw, s2 * sh, s3 * sw), writeable=False)


def _scatter_windows(parts, shape, stride, dilation, pad):
    """The adjoint of ``_windows``: sums ``parts`` (N, C, KH, KW, OH, OW) into the input positions
    each window tap reads, and returns the (N, C, H, W) result without the padding."""
    n, c, kh, kw, oh, ow = parts.shape
    (sh, sw), (dh, dw) = stride, dilation
    h, w = shape[2] + pad[0] + pad[1], shape[3] + pad[2] + pad[3]
    out = np.zeros((n, c, h, w), np.float32)
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh: i * dh + sh * (oh - 1) + 1: sh, j * dw: j * dw + sw * (ow - 1) + 1: sw] += parts[:, :, i, j]
    return np.ascontiguousarray(out[:, :, pad[0]: h - pad[1], pad[2]: w - pad[3]])


def conv2d(x, w, *, stride, dilation, pad, group):
    fn = vendor("conv2d")
    x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
    if fn is not None:
        return fn(x, w, tuple(stride), tuple(dilation), tuple(pad), group)
    n, o, cg, kh, kw = x.shape[0], w.shape[0], w.shape[1], w.shape[2], w.shape[3]
    cols = _windows(x, (kh, kw), stride, dilation, pad, 0)
    oh, ow = cols.shape[-2:]
    cols = cols.reshape(n, group, cg * kh * kw, oh * ow)               # im2col (copies)
    out = np.matmul(w.reshape(group, o // group, cg * kh * kw), cols)  # (n, group, o/g, oh*ow)
    return out.reshape(n, o, oh, ow)


def conv2d_backprop_input(dy, w, *, stride, dilation, pad, group, input_shape):
    fn = vendor("conv2d_backprop_input")
    dy, w = np.ascontiguousarray(dy), np.ascontiguousarray(w)
    if fn is not None:
        return fn(dy, w, tuple(stride), tuple(dilation), tuple(pad), group, tuple(input_shape))
    (n, o, oh, ow), (_, cg, kh, kw) = dy.shape, w.shape
    wt = w.reshape(group, o // group, cg * kh * kw).transpose(0, 2, 1)
    cols = np.matmul(wt, dy.reshape(n, group, o // group, oh * ow))  # (n, group, cg*kh*kw, oh*ow)
    return _scatter_windows(cols.reshape(n, group * cg, kh, kw, oh, ow), input_shape, stride, dilation, pad)


def conv2d_backprop_filter(dy, x, *, stride, dilation, pad, group, filter_shape):
    fn = vendor("conv2d_backprop_filter")
    dy, x = np.ascontiguousarray(dy), np.ascontiguousarray(x)
    if fn is not None:
        return fn(dy, x, tuple(stride), tuple(dilation), tuple(pad), group, tuple(filter_shape))
    (n, o, oh, ow), (_, cg, kh, kw) = dy.shape, filter_shape
    cols = _windows(x, (kh, kw), stride, dilation, pad, 0).reshape(n, group, cg * kh * kw, oh * ow)
    dw = np.matmul(dy.reshape(n, group, o // group, oh * ow), cols.transpose(0, 1, 3, 2)).sum(axis=0)
    return dw.reshape(filter_shape)


def max_pool(x, *, kernel, stride, pad):
    fn = vendor("max_pool2d")
    x = np.ascontiguousarray(x)
    if fn is not None:
        return fn(x, tuple(kernel), tuple(stride), tuple(pad))
    return _windows(x, kernel, stride, (1, 1), pad, -np.inf).max(axis=(2, 3))


def max_pool_grad(x, dy, *, kernel, stride, pad):
    fn = vendor("max_pool2d_grad")
    x, dy = np.ascontiguousarray(x), np.ascontiguousarray(dy)
    if fn is not None:
        return fn(x, dy, tuple(kernel), tuple(stride), tuple(pad))
    taps = kernel[0] * kernel[1]
    n, c, oh, ow = dy.shape
    win = _windows(x, kernel, stride, (1, 1), pad, -np.inf).reshape(n, c, taps, oh, ow)
    real = _windows(np.ones((1, 1) + x.shape[2:], bool), kernel, stride, (1, 1), pad, False).reshape(1, 1, taps, oh, ow)
    top = np.where(real, win, -np.inf).max(axis=2, keepdims=True)
    first = np.argmax(real & (win == top), axis=2)  # the first real maximum: padding never wins
    parts = (np.arange(taps)[:, None, None] == first[:, :, None]) * dy[:, :, None]
    return _scatter_windows(parts.reshape(n, c, *kernel, oh, ow), x.shape, stride, (1, 1), pad)


def _avg_divisor(shape, kernel, stride, pad, count_include_pad):
    """Each window's element count: the kernel's, or only the non-padding ones (1, 1, OH, OW)."""
    if count_include_pad:
        return np.float32(kernel[0] * kernel[1])
    ones = np.ones((1, 1) + tuple(shape[2:]), np.float32)
    return _windows(ones, kernel, stride, (1, 1), pad, 0).sum(axis=(2, 3))


def avg_pool(x, *, kernel, stride, pad, count_include_pad):
    fn = vendor("avg_pool2d")
    x = np.ascontiguousarray(x)
    if fn is not None:
        return fn(x, tuple(kernel), tuple(stride), tuple(pad), bool(count_include_pad))
    total = _windows(x, kernel, stride, (1, 1), pad, 0).sum(axis=(2, 3))
    return total / _avg_divisor(x.shape, kernel, stride, pad, count_include_pad)


def avg_pool_grad(dy, *, kernel, stride, pad, count_include_pad, input_shape):
    fn = vendor("avg_pool2d_grad")
    dy = np.ascontiguousarray(dy)
    if fn is not None:
        return fn(dy, tuple(kernel), tuple(stride), tuple(pad), bool(count_include_pad), tuple(input_shape))
    share = dy / _avg_divisor(input_shape, kernel, stride, pad, count_include_pad)
    parts = np.broadcast_to(share[:, :, None, None], dy.shape[:2] + tuple(kernel) + dy.shape[2:])
    return _scatter_windows(parts, input_shape, stride, (1, 1), pad)

"""Eager kernels of the windowed NN primitives (Conv2D, MaxPool, AvgPool).

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


def max_pool(x, *, kernel, stride, pad):
    fn = vendor("max_pool2d")
    x = np.ascontiguousarray(x)
    if fn is not None:
        return fn(x, tuple(kernel), tuple(stride), tuple(pad))
    return _windows(x, kernel, stride, (1, 1), pad, -np.inf).max(axis=(2, 3))


def avg_pool(x, *, kernel, stride, pad, count_include_pad):
    fn = vendor("avg_pool2d")
    x = np.ascontiguousarray(x)
    if fn is not None:
        return fn(x, tuple(kernel), tuple(stride), tuple(pad), bool(count_include_pad))
    total = _windows(x, kernel, stride, (1, 1), pad, 0).sum(axis=(2, 3))
    if count_include_pad:
        return total / np.float32(kernel[0] * kernel[1])
    ones = np.ones((1, 1) + x.shape[2:], x.dtype)
    return total / _windows(ones, kernel, stride, (1, 1), pad, 0).sum(axis=(2, 3))

"""Straightforward numpy references for the NN ops, written independently of msjit's kernels
(direct loops over kernel taps and windows, float64 accumulation) for differential tests."""
import math

import numpy as np


def pad_nchw(x, pad, value=0.0):
    top, bottom, left, right = pad
    return np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=value)


def conv2d(x, w, stride=(1, 1), dilation=(1, 1), pad=(0, 0, 0, 0), group=1):
    """Sum over kernel taps of shifted input slices times the weight tap (per group)."""
    x = pad_nchw(x.astype(np.float64), pad)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    oh, ow = (h - dh * (kh - 1) - 1) // sh + 1, (wd - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, oh, ow))
    og = o // group
    for g in range(group):
        xs = x[:, g * cg:(g + 1) * cg]
        ws = w[g * og:(g + 1) * og].astype(np.float64)
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dh: i * dh + sh * (oh - 1) + 1: sh, j * dw: j * dw + sw * (ow - 1) + 1: sw]
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, ws[:, :, i, j])
    return out


def same_padding(size, kernel, stride, dilation=(1, 1)):
    pads = []
    for n, k, s, d in zip(size, kernel, stride, dilation):
        out = math.ceil(n / s)
        total = max((out - 1) * s + d * (k - 1) + 1 - n, 0)
        pads += [total // 2, total - total // 2]
    return tuple(pads)


def _pool(x, kernel, stride, pad, reduce, value):
    xp = pad_nchw(x.astype(np.float64), pad, value)
    n, c, h, w = xp.shape
    oh, ow = (h - kernel[0]) // stride[0] + 1, (w - kernel[1]) // stride[1] + 1
    out = np.empty((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * stride[0]: i * stride[0] + kernel[0], j * stride[1]: j * stride[1] + kernel[1]]
            out[:, :, i, j] = reduce(win, i, j)
    return out


def max_pool(x, kernel, stride, pad=(0, 0, 0, 0)):
    return _pool(x, kernel, stride, pad, lambda win, i, j: win.max(axis=(2, 3)), -np.inf)


def avg_pool(x, kernel, stride, pad=(0, 0, 0, 0), count_include_pad=True):
    ones = pad_nchw(np.ones((1, 1) + x.shape[2:]), pad)
    def mean(win, i, j):
        if count_include_pad:
            return win.mean(axis=(2, 3))
        valid = ones[0, 0, i * stride[0]: i * stride[0] + kernel[0], j * stride[1]: j * stride[1] + kernel[1]]
        return win.sum(axis=(2, 3)) / valid.sum()
    return _pool(x, kernel, stride, pad, mean, 0.0)


def batch_norm(x, mean, var, gamma, beta, eps):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * gamma.reshape(shape) + beta.reshape(shape)


def batch_stats(x):
    axes = (0,) + tuple(range(2, x.ndim))
    return x.mean(axis=axes, dtype=np.float64), x.var(axis=axes, dtype=np.float64)


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def layer_norm(x, ndims, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - ndims, x.ndim))
    y = (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


def rms_norm(x, g, eps=1e-6):
    axes = tuple(range(x.ndim - g.ndim, x.ndim))
    return x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=axes, keepdims=True) + eps) * g


def erf(x):
    return np.vectorize(math.erf)(np.asarray(x, np.float64))


def gelu(x, approximate="none"):
    x = np.asarray(x, np.float64)
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def silu(x):
    return x / (1 + np.exp(-x))

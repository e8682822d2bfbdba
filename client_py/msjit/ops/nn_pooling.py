"""1-D and adaptive pooling, padding and nearest interpolation, composed from primitives.

1-D pools combine one strided slice per window offset (Maximum / Add), for any float dtype.
Adaptive average pooling is linear: a constant averaging matrix per spatial axis (a MatMul), or
AvgPool when the output size divides the input. Non-constant padding and nearest interpolation are Gathers
with constant indices, so every shape is known at capture and gradients flow through Gather.
"""
import functools

import numpy as np

from .. import dtype as D
from . import prims as P
from ..core import bind
from .array_ops import concat, full, gather, getitem
from .functional import add, div, matmul, maximum, mul, reshape, sub, transpose
from .operands import floating_operand, operand

__all__ = ["max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "pad", "interpolate"]


def _single(name, what, value, lo=1):
    v = value[0] if isinstance(value, (tuple, list)) and len(value) == 1 else value
    if not isinstance(v, (int, np.integer)) or v < lo:
        raise ValueError(f"{name}: {what} must be an int >= {lo}, got {value!r}")
    return int(v)


def _check_ndim(name, x, ndims):
    if x.ndim not in ndims:
        raise ValueError(f"{name}: expected an input of rank {' or '.join(map(str, ndims))}, got shape {x.shape}")


def _windows(name, x, k, s, pad, fill):
    """The ``k`` strided windows (stride ``s``) of the last axis of (N, C, L) or (C, L) padded by
    ``pad`` = (left, right) with ``fill``: one StridedSlice per window offset (any float dtype)."""
    x = floating_operand(name, x)
    _check_ndim(name, x, (2, 3))
    n = (x.shape[-1] + pad[0] + pad[1] - k) // s + 1
    if n < 1:
        raise ValueError(f"{name}: kernel_size {k} is larger than the padded length {x.shape[-1] + sum(pad)}")
    pieces = [full(x.shape[:-1] + (p,), fill, dtype=x.dtype) for p in pad]
    if any(pad):
        x = concat([t for t, p in zip((pieces[0], x, pieces[1]), (pad[0], 1, pad[1])) if p], -1)
    return [getitem(x, (Ellipsis, slice(j, j + s * (n - 1) + 1, s))) for j in range(k)], n


def max_pool1d_windows(x, k, s, pad, name="MaxPool1d"):
    """Max over windows of the last axis; padding never wins the max."""
    windows, _ = _windows(name, x, k, s, pad, -np.inf)
    return functools.reduce(maximum, windows)


def avg_pool1d_windows(x, k, s, pad, count_include_pad=True, name="AvgPool1d"):
    """Mean over windows of the last axis: divided by ``k``, or by the count of unpadded elements."""
    windows, n = _windows(name, x, k, s, pad, 0)
    total = functools.reduce(add, windows)
    if count_include_pad or not any(pad):
        return div(total, k)
    starts = np.arange(n) * s - pad[0]
    counts = np.minimum(starts + k, x.shape[-1]) - np.maximum(starts, 0)
    return div(total, counts.astype(total.dtype.np))


def _pool1d_args(name, kernel_size, stride, padding):
    k = _single(name, "kernel_size", kernel_size)
    s = k if stride is None else _single(name, "stride", stride)
    p = _single(name, "padding", padding, lo=0)
    if 2 * p > k:
        raise ValueError(f"{name}: padding {p} must be at most half of kernel_size {k}")
    return k, s, (p, p)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    """Max over ``kernel_size`` windows of the last axis; padding never wins the max."""
    if dilation != 1 or return_indices or ceil_mode:
        raise ValueError("MaxPool1d: dilation, return_indices and ceil_mode are not supported")
    return max_pool1d_windows(input, *_pool1d_args("MaxPool1d", kernel_size, stride, padding))


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True):
    """Average over ``kernel_size`` windows of the last axis (padding counted unless
    ``count_include_pad=False``)."""
    if ceil_mode:
        raise ValueError("AvgPool1d: ceil_mode is not supported")
    return avg_pool1d_windows(input_x, *_pool1d_args("AvgPool1d", kernel_size, stride, padding),
                              count_include_pad=count_include_pad)


def _averaging_matrix(n, out):
    """(out, n): row i averages input bins floor(i n / out) .. ceil((i + 1) n / out)."""
    m = np.zeros((out, n))
    for i in range(out):
        lo, hi = (i * n) // out, -((-(i + 1) * n) // out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


def _adaptive_axis(x, out):
    """Adaptive average over the last axis of ``x`` to ``out`` bins."""
    n = x.shape[-1]
    if out == n:
        return x
    return matmul(x, _averaging_matrix(n, out).T.astype(x.dtype.np))


def _sizes(name, output_size, spatial):
    sizes = (output_size,) * len(spatial) if isinstance(output_size, (int, np.integer)) or output_size is None \
        else tuple(output_size)
    if len(sizes) != len(spatial):
        raise ValueError(f"{name}: output_size {output_size!r} must have {len(spatial)} entries")
    sizes = tuple(n if s is None else int(s) for s, n in zip(sizes, spatial))
    if any(s < 1 for s in sizes):
        raise ValueError(f"{name}: output_size must be positive, got {output_size!r}")
    return sizes


def adaptive_avg_pool1d(input, output_size):
    """Average of (N, C, L) over ``output_size`` adaptive bins of the last axis."""
    x = floating_operand("AdaptiveAvgPool1d", input)
    _check_ndim("AdaptiveAvgPool1d", x, (2, 3))
    return _adaptive_axis(x, _sizes("AdaptiveAvgPool1d", output_size, x.shape[-1:])[0])


def adaptive_avg_pool2d(input, output_size):
    """Average of (N, C, H, W) or (C, H, W) over ``output_size`` (int, pair, None keeps a dim)
    adaptive bins: AvgPool when the sizes divide, else averaging matrices."""
    x = floating_operand("AdaptiveAvgPool2d", input)
    _check_ndim("AdaptiveAvgPool2d", x, (3, 4))
    (h, w), (oh, ow) = x.shape[-2:], _sizes("AdaptiveAvgPool2d", output_size, x.shape[-2:])
    if h % oh == 0 and w % ow == 0 and x.dtype is D.float32:   # (the pool kernels are float32)
        k = (h // oh, w // ow)
        y = bind(P.AvgPool, reshape(x, (-1, 1, h, w)), kernel=k, stride=k, pad=(0, 0, 0, 0), count_include_pad=True)
        return reshape(y, x.shape[:-2] + (oh, ow))
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    y = _adaptive_axis(transpose(_adaptive_axis(x, ow), perm), oh)
    return transpose(y, perm)


_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _pad_index(n, lo, hi, mode):
    """Source indices of an axis of size ``n`` padded by ``lo``/``hi`` in ``mode``."""
    i = np.arange(-lo, n + hi)
    if mode == "replicate":
        return np.clip(i, 0, n - 1)
    if mode == "circular":
        return i % n
    if mode == "symmetric":  # the edge is repeated
        i = i % (2 * n)
        return np.where(i >= n, 2 * n - 1 - i, i)
    period = 2 * (n - 1)     # reflect (the edge is not repeated)
    i = np.abs(i) % period if period else np.zeros_like(i)
    return np.where(i >= n, period - i, i)


def pad(input_x, padding, mode="constant", value=None):
    """Pad the trailing ``len(padding) // 2`` axes: ``padding`` lists (before, after) from the
    last axis backwards; negative amounts crop. "constant" concatenates ``value`` (0 by
    default); "reflect", "replicate" and "circular" gather with constant indices."""
    x = operand("Pad", input_x)
    padding = tuple(int(p) for p in padding)
    if len(padding) % 2 or len(padding) // 2 > x.ndim:
        raise ValueError(f"Pad: padding {padding} must have an even length of at most 2 * rank "
                         f"for an input of shape {x.shape}")
    if mode not in _PAD_MODES:
        raise ValueError(f"Pad: mode must be one of {', '.join(map(repr, _PAD_MODES))}, got {mode!r}")
    if mode != "constant" and value is not None:
        raise ValueError(f"Pad: value is only allowed with mode 'constant', got mode {mode!r}")
    return pad_axes(x, {x.ndim - 1 - k: padding[2 * k:2 * k + 2] for k in range(len(padding) // 2)}, mode, value)


def pad_axes(x, widths, mode="constant", value=None):
    """``x`` padded by ``widths`` {axis: (before, after)} in ``mode`` ("constant", "reflect",
    "replicate", "circular", "symmetric"); negative widths crop (constant mode)."""
    for axis, (lo, hi) in widths.items():
        n = x.shape[axis]
        if mode == "constant":
            x = getitem(x, (slice(None),) * axis + (slice(max(-lo, 0), n - max(-hi, 0)),))
            parts = [full(x.shape[:axis] + (p,) + x.shape[axis + 1:], 0 if value is None else value,
                          dtype=x.dtype) for p in (max(lo, 0), max(hi, 0))]
            pieces = [t for t, p in ((parts[0], lo), (x, 1), (parts[1], hi)) if p > 0]
            x = concat(pieces, axis) if len(pieces) > 1 else x
        elif lo or hi:
            limit = n - 1 if mode == "reflect" else n
            if mode in ("reflect", "symmetric") and max(lo, hi) > limit:
                raise ValueError(f"Pad: {mode} padding {max(lo, hi)} is too large for size {n} of axis {axis}")
            x = gather(x, _pad_index(n, lo, hi, mode), axis)
    return x


_LINEAR_MODES = {"linear": 3, "bilinear": 4, "trilinear": 5}


def _linear_axis(x, axis, out, scale, align_corners):
    """Linear interpolation of ``axis`` to ``out`` samples: two Gathers and a lerp with
    constant weights (source ``(i + 0.5) * scale - 0.5``, or the corners aligned)."""
    n = x.shape[axis]
    dst = np.arange(out, dtype=np.float64)
    if align_corners:
        src = dst * ((n - 1) / (out - 1)) if out > 1 else np.zeros(out)
    else:
        src = np.maximum((dst + 0.5) * scale - 0.5, 0.0)
    lo = np.minimum(np.floor(src).astype(np.int64), n - 1)
    hi = np.minimum(lo + 1, n - 1)
    weight = (src - lo).astype(x.dtype.np).reshape([-1 if i == axis else 1 for i in range(x.ndim)])
    a = gather(x, lo, axis)
    return add(a, mul(sub(gather(x, hi, axis), a), weight))


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None):
    """Resize the spatial axes (all but N, C). "nearest": output index ``i`` reads input index
    ``floor(i * scale)``; "linear" / "bilinear" / "trilinear" (3-, 4-, 5-D input) interpolate
    each axis linearly (``align_corners``: the corner samples coincide). ``scale`` is
    ``in / out``, or ``1 / scale_factor`` unless ``recompute_scale_factor``."""
    if mode != "nearest" and mode not in _LINEAR_MODES:
        raise ValueError(f"interpolate: mode must be 'nearest' or one of {', '.join(_LINEAR_MODES)}, got {mode!r}")
    if align_corners and mode == "nearest":
        raise ValueError("interpolate: align_corners is not supported for mode 'nearest'")
    x = operand("interpolate", input)
    _check_ndim("interpolate", x, (_LINEAR_MODES[mode],) if mode in _LINEAR_MODES else (3, 4, 5))
    spatial = x.shape[2:]
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: exactly one of size and scale_factor must be given")
    if size is not None:
        out = (size,) * len(spatial) if isinstance(size, (int, np.integer)) else tuple(size)
        scales = [n / o for n, o in zip(spatial, out)]
    else:
        factors = (scale_factor,) * len(spatial) if isinstance(scale_factor, (int, float)) else tuple(scale_factor)
        out = tuple(int(np.floor(n * f)) for n, f in zip(spatial, factors))
        scales = [n / o if recompute_scale_factor else 1.0 / f for n, o, f in zip(spatial, out, factors)]
    if len(out) != len(spatial):
        raise ValueError(f"interpolate: size {out} must have {len(spatial)} entries for input shape {x.shape}")
    if mode != "nearest":
        x = floating_operand("interpolate", x)
    for k, (n, o, s) in enumerate(zip(spatial, out, scales)):
        if mode != "nearest":
            x = _linear_axis(x, 2 + k, o, s, bool(align_corners)) if (o != n or align_corners) else x
        elif o != n:
            x = gather(x, np.minimum(np.floor(np.arange(o) * s).astype(np.int64), n - 1), 2 + k)
    return x

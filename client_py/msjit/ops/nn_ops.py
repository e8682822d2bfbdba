"""Neural-network ops with MindSpore's names and signatures, composed from primitives.

Convolution and pooling resolve ``pad_mode`` / ``padding`` into the explicit (top, bottom,
left, right) padding of the Conv2D / MaxPool / AvgPool primitives; normalizations and
activations are compositions, so eager and compiled code compute them the same way.
"""
import math

import numpy as np

from .. import dtype as D
from . import prims as P
from .array_ops import gather
from ..core import bind
from .operands import assign, floating_operand, is_tracer, normalize_axes, operand
from .functional import (abs, add, amax, batch_matmul, cast, div, erf, exp, log, maximum, mean, minimum, mul, pow,
                         reshape_if_needed as reshape, rsqrt, sigmoid, sqrt, square, sub, sum, tanh)

__all__ = ["conv2d", "max_pool2d", "avg_pool2d", "batch_norm", "softmax", "log_softmax",
           "layer_norm", "rms_norm", "group_norm", "normalize", "cosine_similarity", "dense", "embedding",
           "silu", "gelu", "dropout", "clip_by_global_norm", "clip_by_norm"]

PAD_MODES = ("same", "valid", "pad")


def _pair(name, what, value, lo=1):
    v = (value, value) if isinstance(value, (int, np.integer)) else tuple(value)
    if len(v) != 2 or any(not isinstance(i, (int, np.integer)) or i < lo for i in v):
        raise ValueError(f"{name}: {what} must be an int >= {lo} or a tuple of two, got {value!r}")
    return tuple(int(i) for i in v)


def _padding(name, padding):
    """(top, bottom, left, right) from an int, a pair (h, w) or a 4-tuple."""
    p = (padding,) * 4 if isinstance(padding, (int, np.integer)) else tuple(padding)
    if len(p) == 2:
        p = (p[0], p[0], p[1], p[1])
    if len(p) != 4 or any(not isinstance(i, (int, np.integer)) or i < 0 for i in p):
        raise ValueError(f"{name}: padding must be a non-negative int or a tuple of 2 or 4, got {padding!r}")
    return tuple(int(i) for i in p)


def resolve_padding(name, pad_mode, padding, size, kernel, stride, dilation):
    """Explicit (top, bottom, left, right) padding for ``pad_mode`` "same", "valid" or "pad"."""
    if pad_mode not in PAD_MODES:
        raise ValueError(f"{name}: pad_mode must be one of {', '.join(map(repr, PAD_MODES))}; got {pad_mode!r}")
    pad = _padding(name, padding)
    if pad_mode == "pad":
        return pad
    if any(pad):
        raise ValueError(f"{name}: padding must be 0 when pad_mode is {pad_mode!r}, got {padding!r}")
    if pad_mode == "valid":
        return pad
    out = []
    for n, k, s, d in zip(size, kernel, stride, dilation):   # "same": ceil(n / s) outputs
        total = max((-(-n // s) - 1) * s + d * (k - 1) + 1 - n, 0)
        out += [total // 2, total - total // 2]
    return tuple(out)


def _check_4d(name, x, what=""):
    if x.ndim != 4:
        raise ValueError(f"{name}: expected a 4-D input (N, C, H, W){what}, got shape {x.shape}")


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """2-D convolution of NCHW ``input`` with ``weight`` (O, C/groups, KH, KW), plus ``bias`` (O,)."""
    x, w = operand("Conv2D", input), operand("Conv2D", weight)
    if w.ndim != 4:
        raise ValueError(f"Conv2D: expected a 4-D weight (O, C/group, KH, KW), got shape {w.shape} "
                         f"for input shape {x.shape}")
    _check_4d("Conv2D", x, f" for weight shape {w.shape}")
    stride, dilation = _pair("Conv2D", "stride", stride), _pair("Conv2D", "dilation", dilation)
    pad = resolve_padding("Conv2D", pad_mode, padding, x.shape[2:], w.shape[2:], stride, dilation)
    y = bind(P.Conv2D, x, w, stride=stride, dilation=dilation, pad=pad, group=int(groups))
    if bias is not None:
        b = operand("Conv2D", bias)
        if b.shape != (w.shape[0],):
            raise ValueError(f"Conv2D: bias of shape {b.shape} does not match {w.shape[0]} output channels")
        y = add(y, reshape(b, (1, -1, 1, 1)))
    return y


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    """Max over ``kernel_size`` windows of an NCHW input; padding never wins the max."""
    if dilation not in (1, (1, 1)) or return_indices or ceil_mode:
        raise ValueError("MaxPool: dilation, return_indices and ceil_mode are not supported")
    x = floating_operand("MaxPool", x)
    kernel = _pair("MaxPool", "kernel_size", kernel_size)
    stride = kernel if stride is None else _pair("MaxPool", "stride", stride)
    return bind(P.MaxPool, x, kernel=kernel, stride=stride, pad=_padding("MaxPool", padding))


def avg_pool2d(input, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Average over ``kernel_size`` windows of an NCHW input."""
    if ceil_mode or divisor_override:
        raise ValueError("AvgPool: ceil_mode and divisor_override are not supported")
    x = floating_operand("AvgPool", input)
    kernel = _pair("AvgPool", "kernel_size", kernel_size)
    stride = _pair("AvgPool", "stride", stride)
    return bind(P.AvgPool, x, kernel=kernel, stride=stride, pad=_padding("AvgPool", padding),
                count_include_pad=bool(count_include_pad))


def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1, eps=1e-05):
    """Batch normalization over axis 1 (N, C, ...). Training uses the batch statistics and
    updates ``running_* = running_* * (1 - momentum) + batch * momentum`` in place (biased
    variance); inference uses the running statistics."""
    x = floating_operand("BatchNorm", input_x)
    if x.ndim < 2:
        raise ValueError(f"BatchNorm: expected an input of rank >= 2 (N, C, ...), got shape {x.shape}")
    c = x.shape[1]
    stats = [operand("BatchNorm", v) for v in (running_mean, running_var, weight, bias)]
    for v, what in zip(stats, ("running_mean", "running_var", "weight", "bias")):
        if v.shape != (c,):
            raise ValueError(f"BatchNorm: {what} of shape {v.shape} does not match {c} channels "
                             f"of the input of shape {x.shape}")
    axes = (0,) + tuple(range(2, x.ndim))
    channel = (1, c) + (1,) * (x.ndim - 2)
    if training:
        m = mean(x, axes, keep_dims=True)
        centered = sub(x, m)
        var = mean(square(centered), axes)
        m = reshape(m, (c,))
        for stat, batch in ((running_mean, m), (running_var, var)):
            if hasattr(stat, "set_data"):   # Parameters are updated in place
                assign(stat, add(mul(stat, 1.0 - momentum), mul(cast(batch, stat.dtype), momentum)))
    else:
        m, var = (cast(v, x.dtype) for v in stats[:2])
        centered = sub(x, reshape(m, channel))
    scale = mul(cast(stats[2], x.dtype), rsqrt(add(var, eps)))
    return add(mul(centered, reshape(scale, channel)), reshape(cast(stats[3], x.dtype), channel))


def softmax(input, axis=-1, *, dtype=None):
    """``exp(x - max) / sum(exp(x - max))`` over ``axis`` (an int or a tuple)."""
    x = floating_operand("Softmax", input if dtype is None else cast(input, dtype))
    axes = normalize_axes("Softmax", axis, x.ndim)
    e = exp(sub(x, amax(x, axes, keepdims=True)))
    return div(e, sum(e, axes, keepdim=True))


def log_softmax(logits, axis=-1):
    """``x - max - log(sum(exp(x - max)))`` over ``axis``."""
    x = floating_operand("LogSoftmax", logits)
    axes = normalize_axes("LogSoftmax", axis, x.ndim)
    shifted = sub(x, amax(x, axes, keepdims=True))
    return sub(shifted, log(sum(exp(shifted), axes, keepdim=True)))


def normalize_over(x, axes, eps):
    """``(x - mean) / sqrt(var + eps)`` over ``axes`` (biased variance)."""
    x = floating_operand("LayerNorm", x)
    m = mean(x, axes, keep_dims=True)
    centered = sub(x, m)
    return mul(centered, rsqrt(add(mean(square(centered), axes, keep_dims=True), eps)))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the trailing ``normalized_shape`` dims, then ``* weight + bias``."""
    x = floating_operand("LayerNorm", input)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape or x.shape[x.ndim - len(shape):] != shape:
        raise ValueError(f"LayerNorm: normalized_shape {shape} does not match the trailing dims of "
                         f"the input of shape {x.shape}")
    y = normalize_over(x, tuple(range(x.ndim - len(shape), x.ndim)), eps)
    if weight is not None:
        y = mul(y, cast(weight, x.dtype))
    return y if bias is None else add(y, cast(bias, x.dtype))


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Normalize (N, C, ...) over each of ``num_groups`` groups of channels (and all spatial
    positions), then ``* weight + bias`` per channel."""
    x = floating_operand("GroupNorm", input)
    if x.ndim < 2 or x.shape[1] % num_groups:
        raise ValueError(f"GroupNorm: the channels (axis 1) of the input of shape {x.shape} must be "
                         f"divisible by num_groups {num_groups}")
    y = reshape(normalize_over(reshape(x, (x.shape[0], num_groups, -1)), (2,), eps), x.shape)
    channel = (1, -1) + (1,) * (x.ndim - 2)
    if weight is not None:
        y = mul(y, reshape(cast(weight, x.dtype), channel))
    return y if bias is None else add(y, reshape(cast(bias, x.dtype), channel))


def _norm(x, axis, keepdims):
    return sqrt(sum(square(x), axis, keepdim=keepdims))


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """``input / max(||input||_p, eps)`` along ``dim`` (p = 1 or 2)."""
    x = floating_operand("normalize", input)
    if p not in (1, 2):
        raise ValueError(f"normalize: only p=1 and p=2 are supported, got {p}")
    norm = sum(abs(x), dim, keepdim=True) if p == 1 else _norm(x, dim, True)
    return div(x, maximum(norm, eps))


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """``sum(x1 * x2) / max(||x1|| * ||x2||, eps)`` along ``dim`` (operands broadcast)."""
    a, b = floating_operand("cosine_similarity", x1), floating_operand("cosine_similarity", x2)
    return div(sum(mul(a, b), dim), maximum(mul(_norm(a, dim, False), _norm(b, dim, False)), eps))


def _tensors(name, x):
    """(tuple of float operands, whether ``x`` was a single tensor)."""
    single = not isinstance(x, (tuple, list))
    return tuple(floating_operand(name, t) for t in ((x,) if single else x)), single


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """Tensors scaled by ``clip_norm / max(global_norm, clip_norm)``, ``global_norm`` the L2
    norm of all of them together (a tuple in, a tuple out)."""
    if use_norm is not None:
        raise ValueError(f"For 'clip_by_global_norm', 'use_norm' only supports None currently, got {use_norm!r}")
    xs, single = _tensors("clip_by_global_norm", x)
    total = sqrt(_sum_all([sum(square(cast(t, "float32") if t.dtype is D.float16 else t)) for t in xs]))
    scale = div(clip_norm, maximum(total, clip_norm))
    out = tuple(mul(t, cast(scale, t.dtype)) for t in xs)
    return out[0] if single else out


def _sum_all(values):
    total = values[0]
    for v in values[1:]:
        total = add(total, v)
    return total


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Tensors scaled by ``min(max_norm / (norm + 1e-6), 1)``, ``norm`` the ``norm_type``-norm
    of all of them together (``inf``: the largest magnitude)."""
    xs, single = _tensors("clip_by_norm", x)
    if norm_type == float("inf"):
        total = amax(_stack_scalars([amax(abs(t)) for t in xs]))
    else:
        p = float(norm_type)
        total = pow(_sum_all([sum(pow(abs(t), p)) for t in xs]), 1.0 / p)
    if error_if_nonfinite and not is_tracer(total) and not np.isfinite(total.asnumpy()).all():
        raise RuntimeError(f"For 'clip_by_norm', the total norm of order {norm_type} is non-finite")
    coef = minimum(div(max_norm, add(total, 1e-6)), 1.0)
    out = tuple(mul(t, cast(coef, t.dtype)) for t in xs)
    return out[0] if single else out


def _stack_scalars(values):
    from .array_ops import stack
    return stack(values)


def rms_norm(x, gamma, epsilon=1e-6):
    """RMS normalization over the trailing ``gamma.ndim`` dims. Returns ``(y, rstd)`` as MindSpore."""
    x, g = floating_operand("RmsNorm", x), operand("RmsNorm", gamma)
    if not g.ndim or x.shape[x.ndim - g.ndim:] != g.shape:
        raise ValueError(f"RmsNorm: gamma of shape {g.shape} does not match the trailing dims of "
                         f"the input of shape {x.shape}")
    axes = tuple(range(x.ndim - g.ndim, x.ndim))
    rstd = rsqrt(add(mean(square(x), axes, keep_dims=True), epsilon))
    return mul(mul(x, rstd), cast(g, x.dtype)), rstd


def dense(input, weight, bias=None):
    """``input @ weight.T + bias`` with ``weight`` (out, in): one MatMul with transpose_b."""
    x, w = operand("Dense", input), operand("Dense", weight)
    if w.ndim != 2 or x.ndim < 1 or x.shape[-1] != w.shape[1]:
        raise ValueError(f"Dense: input of shape {x.shape} does not match weight of shape {w.shape} "
                         "(expected input (..., in) and weight (out, in))")
    y = batch_matmul(reshape(x, (1, -1)) if x.ndim == 1 else x, w, transpose_b=True, name="Dense")
    y = reshape(y, (w.shape[0],)) if x.ndim == 1 else y
    return y if bias is None else add(y, bias)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False):
    """Rows of ``weight`` (vocab, dim) at the integer ``input`` ids."""
    if max_norm is not None:
        raise ValueError("Embedding: max_norm is not supported")
    return gather(weight, input, 0)


def silu(input):
    """``x * sigmoid(x)``."""
    x = floating_operand("SiLU", input)
    return mul(x, sigmoid(x))


def gelu(input_x, approximate="none"):
    """GELU: ``approximate="none"`` uses Erf, ``"tanh"`` the tanh approximation."""
    x = floating_operand("GeLU", input_x)
    if approximate == "none":
        inner = add(erf(mul(x, 1 / math.sqrt(2.0))), 1.0)
    elif approximate == "tanh":
        cube = mul(mul(x, x), x)
        inner = add(tanh(mul(add(x, mul(cube, 0.044715)), math.sqrt(2 / math.pi))), 1.0)
    else:
        raise ValueError(f"GeLU: approximate must be 'none' or 'tanh'; got {approximate!r}")
    return mul(mul(x, 0.5), inner)


_rng = np.random.default_rng()


def set_dropout_seed(seed):
    global _rng
    _rng = np.random.default_rng(seed)


def dropout(input, p=0.5, training=True, seed=None):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` when
    ``training``; identity otherwise. Random masks run eagerly only."""
    if not 0 <= p < 1:
        raise ValueError(f"Dropout: p must be in [0, 1), got {p}")
    x = operand("Dropout", input)
    if not training or p == 0:
        return x
    if is_tracer(x):
        x._concrete("dropout in training mode")
    rng = _rng if seed is None else np.random.default_rng(seed)
    keep = rng.random(x.shape) >= p
    return mul(x, (keep / (1 - p)).astype(x.dtype.np))



# The activation, loss and pooling families live in their own modules and are re-exported
# here, so ``ops`` (and capture's op table) sees them through ``nn_ops.__all__``.
from . import nn_activations, nn_losses, nn_pooling  # noqa: E402
from .nn_activations import *  # noqa: E402,F401,F403
from .nn_losses import *  # noqa: E402,F401,F403
from .nn_pooling import *  # noqa: E402,F401,F403

__all__ += nn_activations.__all__ + nn_losses.__all__ + nn_pooling.__all__

# Tensor methods that are these functions with the tensor first: {method name: function}.
TENSOR_METHODS = {"softmax": softmax, "hardshrink": nn_activations.hardshrink}

"""Loss functions with MindSpore's names, signatures and reductions, composed from primitives.

Class-index targets become one-hot masks (``Equal`` against a constant ``arange`` of the class
axis) so that gathers along the class axis are elementwise products: the same graph eagerly and
compiled, differentiable with respect to the inputs.
"""
import numpy as np

from .. import dtype as D
from .functional import (abs, add, cast, div, equal, greater, less, log, maximum, mul, neg, not_equal, reshape,
                         square, sub, sum, where)
from .nn_activations import logsigmoid
from .operands import floating_operand, operand
from .array_ops import expand_dims

__all__ = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
           "softmax_cross_entropy_with_logits", "margin_ranking_loss", "cosine_embedding_loss"]

REDUCTIONS = ("mean", "sum", "none")


def check_reduction(name, reduction, allowed=REDUCTIONS):
    if reduction not in allowed:
        raise ValueError(f"For {name}, `reduction` must be one of {', '.join(map(repr, allowed))}, "
                         f"but got {reduction!r}")


def reduce_loss(loss, reduction):
    """``loss`` averaged ("mean"), summed ("sum") or as it is ("none")."""
    if reduction == "mean":
        return div(sum(loss), loss.size) if loss.ndim else loss
    return sum(loss) if reduction == "sum" else loss


def _pointwise(name, fn, input, target, reduction):
    check_reduction(name, reduction)
    x, t = floating_operand(name, input), operand(name, target)
    return reduce_loss(fn(sub(x, t)), reduction)


def mse_loss(input, target, reduction="mean"):
    """``(input - target) ** 2``, reduced."""
    return _pointwise("mse_loss", square, input, target, reduction)


def l1_loss(input, target, reduction="mean"):
    """``|input - target|``, reduced."""
    return _pointwise("l1_loss", abs, input, target, reduction)


def _smooth_l1(d, beta):
    """``0.5 d² / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``."""
    a = abs(d)
    return where(less(a, beta), mul(square(d), 0.5 / beta), sub(a, 0.5 * beta))


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):
    """``0.5 d² / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = input - target``)."""
    if beta <= 0:
        raise ValueError(f"For smooth_l1_loss, beta must be positive, got {beta}")
    return _pointwise("smooth_l1_loss", lambda d: _smooth_l1(d, beta), input, target, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """``0.5 d²`` where ``|d| < delta``, else ``delta * (|d| - 0.5 delta)``: delta * smooth L1."""
    if delta <= 0:
        raise ValueError(f"For huber_loss, delta must be positive, got {delta}")
    return _pointwise("huber_loss", lambda d: mul(_smooth_l1(d, delta), delta), input, target, reduction)


def _class_axis(x):
    return 0 if x.ndim == 1 else 1


def _channel_view(v, x, axis):
    """A per-class vector shaped to broadcast along ``axis`` of ``x``."""
    return reshape(cast(v, x.dtype), tuple(-1 if i == axis else 1 for i in range(x.ndim)))


def one_hot_mask(target, x, axis):
    """float mask of ``x``'s shape, 1 where the class index along ``axis`` equals ``target``."""
    t = operand("one_hot", target)
    if t.dtype not in (D.int32, D.int64):
        raise TypeError(f"For nll_loss, class-index targets must be int32 or int64, got {t.dtype}")
    if t.shape != x.shape[:axis] + x.shape[axis + 1:]:
        raise ValueError(f"For nll_loss, target of shape {t.shape} does not match input of shape {x.shape} "
                         f"(class axis {axis})")
    classes = np.arange(x.shape[axis], dtype=t.dtype.np).reshape(
        tuple(-1 if i == axis else 1 for i in range(x.ndim)))
    return cast(equal(expand_dims(t, axis), classes), x.dtype)


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """Negative log likelihood of log-probabilities ``inputs`` (N, C, ...) or (C,) at the class
    indices ``target``: ``-w[t] * x[t]``; "mean" divides by the summed weights of the targets
    that are not ``ignore_index``; ``label_smoothing`` mixes in ``-sum_c w_c x_c / C``."""
    check_reduction("nll_loss", reduction)
    x = floating_operand("nll_loss", inputs)
    axis = _class_axis(x)
    t = operand("nll_loss", target)
    keep = cast(not_equal(t, ignore_index), x.dtype)
    onehot = one_hot_mask(where(not_equal(t, ignore_index), t, np.zeros((), t.dtype.np)), x, axis)
    weighted = x if weight is None else mul(x, _channel_view(weight, x, axis))
    loss = mul(neg(sum(mul(weighted, onehot), axis)), keep)
    smooth = mul(neg(sum(weighted, axis)), keep) if label_smoothing else None
    if reduction != "none":
        wsum = keep if weight is None else mul(sum(mul(onehot, _channel_view(weight, x, axis)), axis), keep)
        loss = sum(loss)
        smooth = None if smooth is None else sum(smooth)
        if reduction == "mean":
            total = sum(wsum)
            loss = div(loss, total)
            smooth = None if smooth is None else div(smooth, total)
    if smooth is None:
        return loss
    return add(mul(loss, 1.0 - label_smoothing), mul(smooth, label_smoothing / x.shape[axis]))


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """Cross entropy of unnormalized ``input`` logits (N, C, ...) or (C,): with class indices
    (integer ``target``) ``nll_loss(log_softmax(input))``; with class probabilities (float
    ``target`` of the input's shape) ``-sum_c w_c t_c log_softmax(input)_c``, smoothed as
    ``t (1 - s) + s / C``; "mean" divides that by the number of samples."""
    from .nn_ops import log_softmax
    check_reduction("cross_entropy", reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"For cross_entropy, label_smoothing must be in [0, 1], got {label_smoothing}")
    x = floating_operand("cross_entropy", input)
    axis = _class_axis(x)
    logp = log_softmax(x, axis)
    t = operand("cross_entropy", target)
    if not t.dtype.is_floating:
        return nll_loss(logp, t, weight, ignore_index, reduction, label_smoothing)
    if t.shape != x.shape:
        raise ValueError(f"For cross_entropy, probability targets must have the input's shape {x.shape}, "
                         f"got {t.shape}")
    n = x.shape[axis]
    t = cast(t, x.dtype)
    if label_smoothing > 0:
        t = add(mul(t, 1 - label_smoothing), label_smoothing / n)
    prod = mul(logp, t) if weight is None else mul(mul(logp, t), _channel_view(weight, x, axis))
    if reduction == "mean":
        return div(neg(sum(prod)), x.size // n)
    return neg(sum(prod)) if reduction == "sum" else neg(sum(prod, axis))


def _weighted(loss, weight):
    return loss if weight is None else mul(loss, weight)


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """``-w (y log x + (1 - y) log(1 - x))`` of probabilities ``logits``; logs clamped at 1e-12."""
    check_reduction("binary_cross_entropy", reduction)
    x, y = floating_operand("BinaryCrossEntropy", logits), operand("BinaryCrossEntropy", labels)
    if x.shape != y.shape:
        raise ValueError(f"For BinaryCrossEntropy, logits of shape {x.shape} and labels of shape {y.shape} "
                         "must have the same shape")
    y = cast(y, x.dtype)
    loss = neg(add(mul(y, log(maximum(x, 1e-12))), mul(sub(1, y), log(maximum(sub(1, x), 1e-12)))))
    return reduce_loss(_weighted(loss, weight), reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction="mean"):
    """``-w (p y log sigmoid(x) + (1 - y) log sigmoid(-x))`` (p: ``pos_weight``), stable in ``x``."""
    check_reduction("binary_cross_entropy_with_logits", reduction)
    x = floating_operand("BCEWithLogitsLoss", input)
    y = cast(operand("BCEWithLogitsLoss", target), x.dtype)
    positive = mul(y, logsigmoid(x))
    if pos_weight is not None:
        positive = mul(positive, pos_weight)
    loss = neg(add(positive, mul(sub(1, y), logsigmoid(neg(x)))))
    return reduce_loss(_weighted(loss, weight), reduction)


def kl_div(logits, labels, reduction="mean"):
    """``y (log y - x)`` where ``y > 0`` (else 0), for log-probabilities ``logits``; reductions
    "mean" (over all elements), "batchmean" (over the first axis), "sum", "none"."""
    check_reduction("kl_div", reduction, REDUCTIONS + ("batchmean",))
    x = floating_operand("KLDivLoss", logits)
    y = cast(operand("KLDivLoss", labels), x.dtype)
    positive = greater(y, 0)
    loss = where(positive, mul(y, sub(log(where(positive, y, 1.0)), x)), 0.0)
    if reduction == "batchmean":
        return div(sum(loss), x.shape[0] if x.ndim else 1)
    return reduce_loss(loss, reduction)


def softmax_cross_entropy_with_logits(logits, labels, sparse=False, reduction="none"):
    """Per-sample ``-sum(labels * log_softmax(logits), -1)`` of (N, C) logits; ``sparse``:
    ``labels`` are class indices. Reduced as ``reduction``."""
    from .nn_ops import log_softmax
    check_reduction("SoftmaxCrossEntropyWithLogits", reduction)
    x = floating_operand("SoftmaxCrossEntropyWithLogits", logits)
    logp = log_softmax(x, -1)
    y = one_hot_mask(labels, x, x.ndim - 1) if sparse else cast(operand("SoftmaxCrossEntropyWithLogits", labels),
                                                                  x.dtype)
    return reduce_loss(neg(sum(mul(logp, y), -1)), reduction)



def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``, reduced."""
    check_reduction("margin_ranking_loss", reduction)
    x1, x2 = floating_operand("MarginRankingLoss", input1), floating_operand("MarginRankingLoss", input2)
    d = mul(sub(x1, x2), cast(operand("MarginRankingLoss", target), x1.dtype))
    return reduce_loss(maximum(add(neg(d), margin), 0.0), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """Per row (cosine along axis 1): ``1 - cos`` where ``target`` is 1, ``max(0, cos - margin)``
    where it is -1; reduced."""
    from .nn_ops import cosine_similarity
    check_reduction("cosine_embedding_loss", reduction)
    if not -1.0 <= margin <= 1.0:
        raise ValueError(f"For cosine_embedding_loss, margin must be in [-1, 1], got {margin}")
    cos = cosine_similarity(input1, input2, 1, 1e-8)
    positive = equal(operand("CosineEmbeddingLoss", target), 1)
    return reduce_loss(where(positive, sub(1.0, cos), maximum(sub(cos, margin), 0.0)), reduction)

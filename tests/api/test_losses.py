"""Loss functions (ops/nn_losses.py) and loss Cells (nn/loss.py) against numpy with every
reduction: eager, jit under ast/bytecode/trace, gradients against finite differences (float64);
each Cell computes what its function does."""
import numpy as np
import pytest

from msjit import nn, ops
from harness import array, as_input, check_api, seeded

pytestmark = pytest.mark.usefixtures("module_daemon_home")
REDUCTIONS = ("mean", "sum", "none")


def reduce(loss, reduction):
    return {"mean": np.mean, "sum": np.sum}.get(reduction, lambda v: v)(loss)


def smooth_l1(d, beta):
    a = np.abs(d)
    return np.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta)


def log_softmax(x, axis):
    z = x - x.max(axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis, keepdims=True))


def nll_ref(logp, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """MindSpore's nll_loss: class axis 1 (0 for 1-D); ignored targets weigh 0."""
    axis = 0 if logp.ndim == 1 else 1
    c = logp.shape[axis]
    w = np.ones(c) if weight is None else weight
    view = (-1,) + (1,) * (logp.ndim - 2) if logp.ndim > 1 else (-1,)
    keep = target != ignore_index
    safe = np.where(keep, target, 0)
    picked = np.take_along_axis(logp, np.expand_dims(safe, axis), axis).squeeze(axis)
    wt = w[safe] * keep
    loss = -picked * wt
    smooth = -(logp * w.reshape(view)).sum(axis) * keep
    if reduction == "mean":
        loss, smooth = loss.sum() / wt.sum(), smooth.sum() / wt.sum()
    elif reduction == "sum":
        loss, smooth = loss.sum(), smooth.sum()
    return (1 - label_smoothing) * loss + label_smoothing / c * smooth


def cross_entropy_ref(x, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    axis = 0 if x.ndim == 1 else 1
    logp = log_softmax(x, axis)
    if target.dtype.kind in "iu":
        return nll_ref(logp, target, weight, ignore_index, reduction, label_smoothing)
    c = x.shape[axis]
    t = target * (1 - label_smoothing) + label_smoothing / c
    w = np.ones(c) if weight is None else weight
    prod = logp * t * w.reshape((-1,) + (1,) * (x.ndim - 2) if x.ndim > 1 else (-1,))
    if reduction == "mean":
        return -prod.sum() / (x.size / c)
    return -prod.sum() if reduction == "sum" else -prod.sum(axis)


def bce_ref(x, y, weight=None, reduction="mean"):
    loss = -(y * np.log(np.maximum(x, 1e-12)) + (1 - y) * np.log(np.maximum(1 - x, 1e-12)))
    return reduce(loss if weight is None else loss * weight, reduction)


def bce_logits_ref(x, y, weight=None, pos_weight=None, reduction="mean"):
    log_sig = -np.log1p(np.exp(-x))
    log_sig_neg = -np.log1p(np.exp(x))
    pos = y * log_sig * (1 if pos_weight is None else pos_weight)
    loss = -(pos + (1 - y) * log_sig_neg)
    return reduce(loss if weight is None else loss * weight, reduction)


def kl_ref(x, y, reduction="mean"):
    loss = np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x), 0)
    return loss.sum() / x.shape[0] if reduction == "batchmean" else reduce(loss, reduction)


def softmax_ce_ref(x, y, sparse=False, reduction="none"):
    if sparse:
        y = np.eye(x.shape[-1])[y]
    return reduce(-(log_softmax(x, -1) * y).sum(-1), reduction)


def cosine(a, b):
    return (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def _indices(rng, shape, c, ignore=None):
    t = rng.integers(0, c, shape).astype(np.int32)
    if ignore is not None:
        t.flat[0] = ignore
    return t


def _probs(rng, shape):
    p = rng.uniform(0.1, 1.0, shape)
    return (p / p.sum(1, keepdims=True)).astype(np.float32)


# name: (function, Cell, args from rng, numpy reference, kwargs, reductions)
LOSSES = {
    "mse_loss": (ops.mse_loss, nn.MSELoss, lambda r: (array(r, (3, 4)), array(r, (3, 4))),
                 lambda x, y, reduction="mean": reduce((x - y) ** 2, reduction), {}),
    "mse_loss_broadcast": (ops.mse_loss, None, lambda r: (array(r, (3, 4)), array(r, (4,))),
                           lambda x, y, reduction="mean": reduce((x - y) ** 2, reduction), {}),
    "l1_loss": (ops.l1_loss, nn.L1Loss, lambda r: (array(r, (2, 3, 2)), array(r, (2, 3, 2))),
                lambda x, y, reduction="mean": reduce(np.abs(x - y), reduction), {}),
    "smooth_l1_loss": (ops.smooth_l1_loss, nn.SmoothL1Loss, lambda r: (array(r, (4, 3)), array(r, (4, 3))),
                       lambda x, y, beta=1.0, reduction="none": reduce(smooth_l1(x - y, beta), reduction),
                       {"beta": 0.7}),
    "huber_loss": (ops.huber_loss, nn.HuberLoss, lambda r: (array(r, (5,)), array(r, (5,))),
                   lambda x, y, reduction="mean", delta=1.0: reduce(delta * smooth_l1(x - y, delta), reduction),
                   {"delta": 0.6}),
    "cross_entropy": (ops.cross_entropy, nn.CrossEntropyLoss, lambda r: (array(r, (5, 4)), _indices(r, 5, 4)),
                      cross_entropy_ref, {}),
    "cross_entropy_weighted_ignored_smoothed": (
        ops.cross_entropy, nn.CrossEntropyLoss,
        lambda r: (array(r, (6, 3)), _indices(r, 6, 3, ignore=1), array(r, (3,), low=0.5, high=2.0)),
        lambda x, t, w, **kw: cross_entropy_ref(x, t, w, **kw), {"ignore_index": 1, "label_smoothing": 0.2}),
    "cross_entropy_spatial": (ops.cross_entropy, None, lambda r: (array(r, (2, 3, 4)), _indices(r, (2, 4), 3)),
                              cross_entropy_ref, {"label_smoothing": 0.1}),
    "cross_entropy_probabilities": (
        ops.cross_entropy, None, lambda r: (array(r, (4, 3)), _probs(r, (4, 3)), array(r, (3,), low=0.5, high=2.0)),
        lambda x, t, w, **kw: cross_entropy_ref(x, t, w, **kw), {"label_smoothing": 0.3}),
    "nll_loss": (ops.nll_loss, nn.NLLLoss,
                 lambda r: (array(r, (5, 4)), _indices(r, 5, 4, ignore=2), array(r, (4,), low=0.5, high=2.0)),
                 lambda x, t, w, **kw: nll_ref(x, t, w, **kw), {"ignore_index": 2}),
    "binary_cross_entropy": (ops.binary_cross_entropy, nn.BCELoss,
                             lambda r: (array(r, (3, 4), low=0.05, high=0.95), array(r, (3, 4), low=0.0, high=1.0)),
                             bce_ref, {}),
    "binary_cross_entropy_with_logits": (
        ops.binary_cross_entropy_with_logits, None,
        lambda r: (array(r, (3, 4)), array(r, (3, 4), low=0.0, high=1.0), array(r, (4,), low=0.5, high=2.0),
                   array(r, (4,), low=0.5, high=2.0)),
        bce_logits_ref, {}),
    "kl_div": (ops.kl_div, nn.KLDivLoss, lambda r: (array(r, (3, 5)), array(r, (3, 5), low=0.05, high=1.0)),
               kl_ref, {}),
    "softmax_cross_entropy_with_logits": (
        ops.softmax_cross_entropy_with_logits, None, lambda r: (array(r, (4, 5)), _probs(r, (4, 5))),
        softmax_ce_ref, {}),
    "margin_ranking_loss": (
        ops.margin_ranking_loss, None,
        lambda r: (array(r, (6,)), array(r, (6,)), np.where(r.random(6) < 0.5, -1.0, 1.0).astype(np.float32)),
        lambda a, b, t, margin=0.0, reduction="mean": reduce(np.maximum(0, -t * (a - b) + margin), reduction),
        {"margin": 0.3}),
    "cosine_embedding_loss": (
        ops.cosine_embedding_loss, None,
        lambda r: (array(r, (5, 3)), array(r, (5, 3)), np.where(r.random(5) < 0.5, -1, 1).astype(np.int32)),
        lambda a, b, t, margin=0.0, reduction="mean": reduce(np.where(
            t == 1, 1 - cosine(a, b), np.maximum(0, cosine(a, b) - margin)), reduction),
        {"margin": 0.1}),
    "softmax_cross_entropy_with_logits_sparse": (
        ops.softmax_cross_entropy_with_logits, None, lambda r: (array(r, (4, 5)), _indices(r, 4, 5)),
        softmax_ce_ref, {"sparse": True}),
}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_function(name, reduction):
    fn, _, make_args, ref, kwargs = LOSSES[name]
    args = list(make_args(seeded(name)))
    check_api(fn, args, as_input(ref), kwargs={**kwargs, "reduction": reduction}, grad=True, rtol=1e-4, atol=1e-5,
              modes=("ast", "bytecode", "trace") if reduction == "mean" else ("trace",))


def test_kl_div_batchmean():
    rng = seeded("batchmean")
    args = [array(rng, (4, 3)), array(rng, (4, 3), low=0.05, high=1.0)]
    check_api(ops.kl_div, args, as_input(kl_ref), kwargs={"reduction": "batchmean"}, grad=True, modes=("ast",))


def _cell_args(cell_cls, kwargs):
    """The Cell's options: the function's kwargs minus those only given positionally."""
    names = cell_cls.__init__.__code__.co_varnames
    return {k: v for k, v in kwargs.items() if k in names}


CELLS = sorted(n for n, case in LOSSES.items() if case[1] is not None)


@pytest.mark.parametrize("name", CELLS)
def test_loss_cell_matches_function(name):
    fn, cell_cls, make_args, _, kwargs = LOSSES[name]
    args = list(make_args(seeded(name)))
    logits, labels, *rest = args
    for reduction in REDUCTIONS:
        options = {**kwargs, "reduction": reduction}
        if rest:   # a class weight: a Cell option
            options["weight"] = ops.cast(rest[0], "float32")
        want = fn(logits, labels, *rest, **{**kwargs, "reduction": reduction})
        cell = cell_cls(**options)
        check_api(cell, [logits, labels], lambda *a: want.asnumpy(), modes=("ast",), rtol=1e-5, atol=1e-6)


def test_softmax_cross_entropy_cell_and_loss_base():
    rng = seeded("cell")
    x, t = array(rng, (4, 3)), _indices(rng, 4, 3)
    cell = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    check_api(cell, [x, t], as_input(lambda a, b: softmax_ce_ref(a, b, True, "mean")), modes=("ast",))
    assert nn.SoftmaxCrossEntropyWithLogits().reduction == "none"

    class Scaled(nn.LossBase):
        def construct(self, logits, labels):
            return self.get_loss(ops.abs(logits - labels), 2.0)
    for reduction in REDUCTIONS:
        y = array(rng, (4, 3))
        check_api(Scaled(reduction), [x, y], lambda a, b, r=reduction: reduce(2 * np.abs(a - b), r).astype(np.float32),
                  modes=("ast",))


def test_more_loss_cells():
    rng = seeded("more cells")
    a, b = array(rng, (4, 3)), array(rng, (4, 3))
    t = np.array([1, -1, 1, -1], np.int32)
    check_api(nn.MAELoss(), [a, b], as_input(lambda x, y: np.abs(x - y).mean()), modes=("ast",), grad=True)
    check_api(nn.RMSELoss(), [a, b], as_input(lambda x, y: np.sqrt(((x - y) ** 2).mean())), modes=("ast",),
              grad=True)
    check_api(nn.MarginRankingLoss(0.2, "sum"), [a[:, 0], b[:, 0], t.astype(np.float32)],
              as_input(lambda x, y, s: np.maximum(0, -s * (x - y) + 0.2).sum()), modes=("ast",))
    check_api(nn.CosineEmbeddingLoss(0.1, "none"), [a, b, t],
              as_input(lambda x, y, s: np.where(s == 1, 1 - cosine(x, y), np.maximum(0, cosine(x, y) - 0.1))),
              modes=("ast",))


def test_loss_errors():
    x = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match="reduction"):
        ops.mse_loss(x, x, reduction="avg")
    with pytest.raises(ValueError, match="reduction"):
        nn.L1Loss("batchmean")
    with pytest.raises(ValueError, match="shape"):
        ops.cross_entropy(x, np.ones((3, 4, 1), np.float32))
    with pytest.raises(ValueError, match="shape"):
        ops.binary_cross_entropy(x * 0.5, np.ones((4,), np.float32))
    with pytest.raises(TypeError, match="int32"):
        ops.nll_loss(x, np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="beta"):
        ops.smooth_l1_loss(x, x, beta=0.0)
    with pytest.raises(TypeError):
        nn.MSELoss(reduction="mean", beta=1.0)

"""Loss Cells: ``LossBase`` and one Cell per loss function of ``ops`` (built from a table).

Each Cell keeps its options as attributes and calls the functional loss in ``construct``, so a
Cell and its function compute the same graph.
"""
from ... import ops
from ...ops.nn_losses import REDUCTIONS, check_reduction, reduce_loss
from ..cell import Cell, library_method


class LossBase(Cell):
    """``LossBase(reduction="mean")``: subclass it and return ``self.get_loss(x)`` from construct."""

    _reductions = REDUCTIONS

    def __init__(self, reduction="mean"):
        super().__init__()
        check_reduction(type(self).__name__, reduction, self._reductions)
        self.reduction = reduction

    @library_method
    def get_axis(self, x):
        return tuple(range(x.ndim))

    @library_method
    def get_loss(self, x, weights=1.0):
        """``x * weights`` (as float32) reduced by ``self.reduction``."""
        x = ops.cast(x, "float32")
        if not (isinstance(weights, (int, float)) and weights == 1.0):
            x = ops.mul(x, ops.cast(weights, "float32"))
        return reduce_loss(x, self.reduction)

    def construct(self, logits, labels):
        raise NotImplementedError(f"{type(self).__name__} must define construct()")


def _loss_cell(name, fn, doc, options, reductions=REDUCTIONS):
    """A LossBase class ``name(**options)`` whose construct is ``fn(logits, labels, **options)``."""
    names = list(options)

    def __init__(self, *args, **kwargs):
        values = {**options, **dict(zip(names, args)), **kwargs}
        if len(args) > len(names) or set(values) != set(names):
            raise TypeError(f"{name}: takes arguments {', '.join(names)}, got {args} {kwargs}")
        LossBase.__init__(self, values.pop("reduction"))
        for k, v in values.items():
            setattr(self, k, v)

    def construct(self, logits, labels):
        return fn(logits, labels, **{k: getattr(self, k) for k in names})

    return type(name, (LossBase,), {"__init__": __init__, "construct": construct, "__doc__": doc,
                                    "_reductions": reductions, "__module__": __name__})


_TABLE = [   # (class name, function, options in MindSpore's order with defaults)
    ("MSELoss", ops.mse_loss, {"reduction": "mean"}),
    ("L1Loss", ops.l1_loss, {"reduction": "mean"}),
    ("SmoothL1Loss", ops.smooth_l1_loss, {"beta": 1.0, "reduction": "none"}),
    ("HuberLoss", ops.huber_loss, {"reduction": "mean", "delta": 1.0}),
    ("CrossEntropyLoss", ops.cross_entropy,
     {"weight": None, "ignore_index": -100, "reduction": "mean", "label_smoothing": 0.0}),
    ("NLLLoss", ops.nll_loss, {"weight": None, "ignore_index": -100, "reduction": "mean"}),
    ("BCELoss", ops.binary_cross_entropy, {"weight": None, "reduction": "mean"}),
    ("BCEWithLogitsLoss", ops.binary_cross_entropy_with_logits,
     {"reduction": "mean", "weight": None, "pos_weight": None}),
    ("KLDivLoss", ops.kl_div, {"reduction": "mean"}),
    ("SoftmaxCrossEntropyWithLogits", ops.softmax_cross_entropy_with_logits, {"sparse": False, "reduction": "none"}),
]

for _name, _fn, _options in _TABLE:
    globals()[_name] = _loss_cell(_name, _fn, f"Cell form of ``ops.{_fn.__name__}``.", _options,
                                  REDUCTIONS + (("batchmean",) if _name == "KLDivLoss" else ()))



class MAELoss(LossBase):
    """``MAELoss(reduction="mean")``: ``|logits - label|``, reduced."""

    def construct(self, logits, label):
        return ops.l1_loss(logits, label, self.reduction)


class RMSELoss(LossBase):
    """``RMSELoss()``: ``sqrt(mean((logits - label) ** 2))``."""

    def __init__(self):
        super().__init__()

    def construct(self, logits, label):
        return ops.sqrt(ops.mse_loss(logits, label))


class MarginRankingLoss(LossBase):
    """``MarginRankingLoss(margin=0.0, reduction="mean")``: ``ops.margin_ranking_loss``."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = float(margin)

    def construct(self, input1, input2, target):
        return ops.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class CosineEmbeddingLoss(LossBase):
    """``CosineEmbeddingLoss(margin=0.0, reduction="mean")``: ``ops.cosine_embedding_loss``."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = float(margin)

    def construct(self, logits_x1, logits_x2, labels):
        return ops.cosine_embedding_loss(logits_x1, logits_x2, labels, self.margin, self.reduction)


__all__ = ["LossBase", "MAELoss", "RMSELoss", "MarginRankingLoss", "CosineEmbeddingLoss"] + [n for n, *_ in _TABLE]

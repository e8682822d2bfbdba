"""MindSpore's learning-rate schedules: Cells mapping the optimizer's ``global_step`` to this
step's learning rate, computed with tensor ops (so inside the compiled training step too)."""
import math

from .. import ops
from .cell import Cell

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR", "CosineDecayLR",
           "PolynomialDecayLR", "WarmUpLR"]


def _positive(name, **values):
    for what, v in values.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
            raise ValueError(f"For '{name}', '{what}' must be positive, but got {v!r}")


class LearningRateSchedule(Cell):
    """Base: ``construct(global_step)`` returns the learning rate of that step."""

    def construct(self, global_step):
        raise NotImplementedError(f"{type(self).__name__} must define construct(global_step)")


def _step(global_step):
    return ops.cast(global_step, "float32")


class _Decay(LearningRateSchedule):
    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        _positive(type(self).__name__, learning_rate=learning_rate, decay_rate=decay_rate, decay_steps=decay_steps)
        if not isinstance(decay_steps, int):
            raise TypeError(f"For '{type(self).__name__}', 'decay_steps' must be an int, got {decay_steps!r}")
        self.learning_rate, self.decay_rate = float(learning_rate), float(decay_rate)
        self.decay_steps, self.is_stair = decay_steps, bool(is_stair)

    def _progress(self, global_step):
        p = ops.div(_step(global_step), float(self.decay_steps))
        return ops.floor(p) if self.is_stair else p


class ExponentialDecayLR(_Decay):
    """``learning_rate * decay_rate ** p``, ``p = step / decay_steps`` (floored if ``is_stair``)."""

    def construct(self, global_step):
        return ops.mul(ops.pow(self.decay_rate, self._progress(global_step)), self.learning_rate)


class NaturalExpDecayLR(_Decay):
    """``learning_rate * e ** (-decay_rate * step)`` (the step floored to a multiple of
    ``decay_steps`` if ``is_stair``)."""

    def construct(self, global_step):
        p = ops.mul(self._progress(global_step), float(self.decay_steps)) if self.is_stair else _step(global_step)
        return ops.mul(ops.exp(ops.mul(p, -self.decay_rate)), self.learning_rate)


class InverseDecayLR(_Decay):
    """``learning_rate / (1 + decay_rate * p)``, ``p = step / decay_steps`` (floored if ``is_stair``)."""

    def construct(self, global_step):
        return ops.div(self.learning_rate, ops.add(ops.mul(self._progress(global_step), self.decay_rate), 1.0))


class CosineDecayLR(LearningRateSchedule):
    """``min_lr + (max_lr - min_lr) (1 + cos(pi * min(step, decay_steps) / decay_steps)) / 2``."""

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        _positive("CosineDecayLR", max_lr=max_lr, decay_steps=decay_steps)
        if min_lr < 0 or min_lr >= max_lr:
            raise ValueError(f"For 'CosineDecayLR', 'min_lr' must be in [0, max_lr), but got {min_lr}")
        self.min_lr, self.max_lr, self.decay_steps = float(min_lr), float(max_lr), decay_steps

    def construct(self, global_step):
        p = ops.div(ops.minimum(_step(global_step), float(self.decay_steps)), float(self.decay_steps))
        cosine = ops.add(ops.cos(ops.mul(p, math.pi)), 1.0)
        return ops.add(ops.mul(cosine, 0.5 * (self.max_lr - self.min_lr)), self.min_lr)


class PolynomialDecayLR(LearningRateSchedule):
    """``(learning_rate - end) (1 - t / D) ** power + end``: ``t = min(step, decay_steps)``,
    ``D = decay_steps``; with ``update_decay_steps`` ``t = step`` and ``D`` the smallest
    multiple of ``decay_steps`` at least ``step`` (and at least ``decay_steps``)."""

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power, update_decay_steps=False):
        super().__init__()
        _positive("PolynomialDecayLR", learning_rate=learning_rate, decay_steps=decay_steps, power=power)
        if end_learning_rate < 0:
            raise ValueError(f"For 'PolynomialDecayLR', 'end_learning_rate' must be >= 0, got {end_learning_rate}")
        self.learning_rate, self.end_learning_rate = float(learning_rate), float(end_learning_rate)
        self.decay_steps, self.power, self.update_decay_steps = decay_steps, float(power), bool(update_decay_steps)

    def construct(self, global_step):
        t, d = _step(global_step), float(self.decay_steps)
        if self.update_decay_steps:
            d = ops.mul(ops.maximum(ops.ceil(ops.div(t, d)), 1.0), d)
        else:
            t = ops.minimum(t, d)
        decayed = ops.pow(ops.sub(1.0, ops.div(t, d)), self.power)
        return ops.add(ops.mul(decayed, self.learning_rate - self.end_learning_rate), self.end_learning_rate)


class WarmUpLR(LearningRateSchedule):
    """``learning_rate * min(step, warmup_steps) / warmup_steps``."""

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        _positive("WarmUpLR", learning_rate=learning_rate, warmup_steps=warmup_steps)
        self.learning_rate, self.warmup_steps = float(learning_rate), warmup_steps

    def construct(self, global_step):
        warm = ops.div(ops.minimum(_step(global_step), float(self.warmup_steps)), float(self.warmup_steps))
        return ops.mul(warm, self.learning_rate)

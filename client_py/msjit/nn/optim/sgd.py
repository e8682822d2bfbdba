"""``nn.SGD`` and ``nn.Momentum``: MindSpore's SGD and ApplyMomentum update rules."""
import numpy as np

from ... import ops
from ...parameter import Parameter
from .optimizer import Optimizer, clone_state


def _check_momentum(name, momentum):
    if isinstance(momentum, int) and not isinstance(momentum, bool):
        momentum = float(momentum)
    if not isinstance(momentum, float):
        raise TypeError(f"For '{name}', the argument 'momentum' must be a float, got {type(momentum).__name__}")
    if momentum < 0:
        raise ValueError(f"For '{name}', the argument 'momentum' must be at least 0.0, got {momentum}")
    return momentum


class SGD(Optimizer):
    """``SGD(params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
    nesterov=False, loss_scale=1.0)``. With ``g`` the (decayed, unscaled) gradient: the first
    step sets ``accum = g``, later ones ``accum = momentum * accum + (1 - dampening) * g``; the
    update is ``lr * (g + momentum * accum)`` (nesterov), ``lr * accum``, or ``lr * g`` without
    momentum."""

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
                 loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        momentum = _check_momentum("SGD", momentum)
        if isinstance(dampening, int) and not isinstance(dampening, bool):
            dampening = float(dampening)
        if not isinstance(dampening, float) or dampening < 0:
            raise ValueError(f"For 'SGD', the argument 'dampening' must be a float >= 0.0, got {dampening!r}")
        if not isinstance(nesterov, bool):
            raise TypeError(f"For 'SGD', the argument 'nesterov' must be a bool, got {type(nesterov).__name__}")
        if nesterov and (momentum <= 0.0 or dampening != 0.0):
            raise ValueError(f"For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and 'dampening' must "
                             f"equal to 0.0, but got 'momentum' {momentum}, 'dampening' {dampening}.")
        self.momentum_value, self.dampening, self.nesterov = momentum, dampening, nesterov
        self.momentum = Parameter(np.float32(momentum), "momentum")
        self.accum = clone_state(self._parameters, "accum", "zeros")
        self.stat = clone_state(self._parameters, "stat", "ones")

    def construct(self, gradients):
        gradients = self.scale_grad(self.decay_weight(self._check_gradients(gradients)))
        lrs = self._lrs()
        self._increase_step()
        d = self.dampening
        for p, g, accum, stat, lr in zip(self._parameters, gradients, self.accum, self.stat, lrs):
            step = g
            if self.momentum_value > 0:
                m = self.momentum
                first = ops.greater(stat, 0)
                new_accum = ops.where(first, g, ops.add(ops.mul(accum, m), ops.mul(g, 1.0 - d)))
                ops.assign(accum, new_accum)
                ops.assign(stat, ops.zeros_like(stat))
                step = ops.add(g, ops.mul(new_accum, m)) if self.nesterov else new_accum
            ops.assign(p, ops.sub(p, ops.mul(step, ops.cast(lr, p.dtype))))
        return tuple(True for _ in self._parameters)


class Momentum(Optimizer):
    """``Momentum(params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
    use_nesterov=False)``: ``moment = momentum * moment + g``; the update is ``lr * moment``.
    MindSpore 2.10's CPU kernel ignores ``use_nesterov`` (its documented nesterov update is
    ``lr * (g + momentum * moment)``); this follows the CPU results."""

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0, use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if not isinstance(momentum, float):
            raise TypeError(f"For 'Momentum', the argument 'momentum' must be a float, got {type(momentum).__name__}")
        self.momentum_value = _check_momentum("Momentum", momentum)
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"For 'Momentum', 'use_nesterov' must be a bool, got {type(use_nesterov).__name__}")
        self.use_nesterov = use_nesterov
        self.momentum = Parameter(np.float32(momentum), "momentum")
        self.params = self._parameters
        self.moments = clone_state(self._parameters, "moments", "zeros")

    def construct(self, gradients):
        gradients = self.scale_grad(self.decay_weight(self._check_gradients(gradients)))
        lrs = self._lrs()
        self._increase_step()
        m = self.momentum
        for p, g, moment, lr in zip(self._parameters, gradients, self.moments, lrs):
            new_moment = ops.add(ops.mul(moment, m), g)
            ops.assign(moment, new_moment)
            ops.assign(p, ops.sub(p, ops.mul(new_moment, ops.cast(lr, p.dtype))))
        return tuple(True for _ in self._parameters)

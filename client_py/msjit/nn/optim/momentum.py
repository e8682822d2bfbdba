"""``nn.Momentum``: MindSpore's ApplyMomentum update rule."""
import numpy as np

from ... import ops
from ...parameter import Parameter
from .optimizer import Optimizer, clone_state
from .sgd import check_momentum


class Momentum(Optimizer):
    """``Momentum(params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
    use_nesterov=False)``: ``moment = momentum * moment + g``; the update is ``lr * moment``.
    MindSpore 2.10's CPU kernel ignores ``use_nesterov`` (its documented nesterov update is
    ``lr * (g + momentum * moment)``); this follows the CPU results."""

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0, use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if not isinstance(momentum, float):
            raise TypeError(f"For 'Momentum', the argument 'momentum' must be a float, got {type(momentum).__name__}")
        self.momentum_value = check_momentum("Momentum", momentum)
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

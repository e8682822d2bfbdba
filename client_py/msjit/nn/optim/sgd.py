"""``nn.SGD``: MindSpore's SGD update rule."""
import numpy as np

from ... import ops
from ...parameter import Parameter
from .optimizer import Optimizer, clone_state


def check_momentum(name, momentum):
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
        if self.dynamic_weight_decay:
            raise TypeError("For 'SGD', dynamic weight decay is currently not supported, the argument 'weight_decay' "
                            "or 'weight_decay' set in grouped 'params' must be float or int type.")
        momentum = check_momentum("SGD", momentum)
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

"""``nn.Adam`` and ``nn.AdamWeightDecay``: MindSpore's Adam and AdamWeightDecay update rules."""
import numpy as np

from ... import ops
from ...parameter import Parameter
from .optimizer import Optimizer, clone_state


def _check_betas(name, beta1, beta2, eps):
    for what, v, lo in (("beta1", beta1, 0.0), ("beta2", beta2, 0.0)):
        if not isinstance(v, float):
            raise TypeError(f"For '{name}', the argument '{what}' must be a float, got {type(v).__name__}")
        if not lo < v < 1.0:
            raise ValueError(f"For '{name}', the argument '{what}' must be in (0.0, 1.0), got {v}")
    if not isinstance(eps, float):
        raise TypeError(f"For '{name}', the argument 'eps' must be a float, got {type(eps).__name__}")
    if eps <= 0:
        raise ValueError(f"For '{name}', the argument 'eps' must be > 0, got {eps}")


def _moments(m, v, g, beta1, beta2):
    """``m + (g - m)(1 - beta1)`` and ``v + (g² - v)(1 - beta2)``, assigned; returns both."""
    new_m = ops.add(ops.mul(m, beta1), ops.mul(g, 1.0 - beta1))
    new_v = ops.add(ops.mul(v, beta2), ops.mul(ops.square(g), 1.0 - beta2))
    ops.assign(m, new_m)
    ops.assign(v, new_v)
    return new_m, new_v


class Adam(Optimizer):
    """``Adam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
    use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False)``. Each step
    ``beta_power *= beta``, ``lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)`` and the
    update is ``lr_t * m / (eps + sqrt(v))`` (``m * beta1 + (1 - beta1) * g`` for ``m`` with
    ``use_nesterov``; ``max`` of all ``v`` so far with ``use_amsgrad``)."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False, **kwargs):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        bad = set(kwargs) - {"use_lazy", "use_offload"}
        if bad:
            raise KeyError(f"For 'Adam', invalid keys are passed as kwargs: {sorted(bad)}; supported keys are "
                           "'use_lazy' and 'use_offload'")
        _check_betas("Adam", beta1, beta2, eps)
        for what, v in (("use_locking", use_locking), ("use_nesterov", use_nesterov), ("use_amsgrad", use_amsgrad)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'Adam', the argument '{what}' must be a bool, got {type(v).__name__}")
        if use_amsgrad and use_nesterov:
            raise ValueError("For 'Adam', use_amsgrad and use_nesterov cannot both be True")
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.use_nesterov, self.use_locking, self.use_amsgrad = use_nesterov, use_locking, use_amsgrad
        self.beta1_power = Parameter(np.float32(1.0), "beta1_power")
        self.beta2_power = Parameter(np.float32(1.0), "beta2_power")
        self.moment1 = clone_state(self._parameters, "moment1")
        self.moment2 = clone_state(self._parameters, "moment2")
        if use_amsgrad:
            self.vhat = clone_state(self._parameters, "vhat")

    def construct(self, gradients):
        gradients = self.scale_grad(self.decay_weight(self._check_gradients(gradients)))
        lrs = self._lrs()
        self._increase_step()
        b1p = ops.mul(self.beta1_power, self.beta1)
        b2p = ops.mul(self.beta2_power, self.beta2)
        ops.assign(self.beta1_power, b1p)
        ops.assign(self.beta2_power, b2p)
        correction = ops.div(ops.sqrt(ops.sub(1.0, b2p)), ops.sub(1.0, b1p))
        vhats = self.vhat if self.use_amsgrad else (None,) * len(gradients)
        for p, g, m, v, vhat, lr in zip(self._parameters, gradients, self.moment1, self.moment2, vhats, lrs):
            new_m, new_v = _moments(m, v, g, self.beta1, self.beta2)
            if vhat is not None:
                new_v = ops.maximum(vhat, new_v)
                ops.assign(vhat, new_v)
            if self.use_nesterov:
                new_m = ops.add(ops.mul(new_m, self.beta1), ops.mul(g, 1.0 - self.beta1))
            step = ops.div(new_m, ops.add(ops.sqrt(new_v), self.eps))
            ops.assign(p, ops.sub(p, ops.mul(step, ops.cast(ops.mul(lr, correction), p.dtype))))
        return tuple(True for _ in self._parameters)


class AdamWeightDecay(Optimizer):
    """``AdamWeightDecay(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
    weight_decay=0.0)``: no bias correction, decoupled decay: the update is
    ``lr * (m / (sqrt(v) + eps) + weight_decay * param)``."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        _check_betas("AdamWeightDecay", beta1, beta2, eps)
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.moments1 = clone_state(self._parameters, "adam_m")
        self.moments2 = clone_state(self._parameters, "adam_v")

    def construct(self, gradients):
        gradients = self._check_gradients(gradients)
        decays = self._decays()
        lrs = self._lrs()
        self._increase_step()
        for p, g, m, v, lr, wd in zip(self._parameters, gradients, self.moments1, self.moments2, lrs, decays):
            new_m, new_v = _moments(m, v, g, self.beta1, self.beta2)
            step = ops.div(new_m, ops.add(ops.sqrt(new_v), self.eps))
            if wd is not None:
                step = ops.add(step, ops.mul(p, wd))
            ops.assign(p, ops.sub(p, ops.mul(step, ops.cast(lr, p.dtype))))
        return tuple(True for _ in self._parameters)

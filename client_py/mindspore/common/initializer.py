"""``mindspore.common.initializer``: ``initializer`` and the Initializer classes of
msjit.initializer, plus the two MindSpore classes it lacks (TruncatedNormal, XavierNormal),
defined here over its generator until msjit.initializer has them."""
import math

import msjit.initializer as _impl

from .._reexport import reexport

__all__ = reexport(globals(), _impl)


class TruncatedNormal(_impl.Initializer):
    """N(mean, sigma) redrawn until every value lies in [a, b]."""

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def __call__(self, shape):
        values = _impl._rng.normal(self.mean, self.sigma, shape)
        bad = (values < self.a) | (values > self.b)
        while bad.any():
            values[bad] = _impl._rng.normal(self.mean, self.sigma, int(bad.sum()))
            bad = (values < self.a) | (values > self.b)
        return values


class XavierNormal(_impl.Initializer):
    """N(0, gain * sqrt(2 / (fan_in + fan_out)))."""

    def __init__(self, gain=1):
        self.gain = gain

    def __call__(self, shape):
        fan_in, fan_out = _impl._fans(shape)
        return _impl._rng.normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape)


for _name, _cls in (("TruncatedNormal", TruncatedNormal), ("XavierNormal", XavierNormal)):
    if hasattr(_impl, _name):           # msjit.initializer's own wins once it has one
        globals()[_name] = getattr(_impl, _name)
    __all__.append(_name)

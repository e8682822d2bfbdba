"""Weight initializers: ``initializer(init, shape, dtype)`` and MindSpore's initializer classes.

``init`` is a name ("ones", "zeros", "normal", "uniform", "he_uniform", "he_normal",
"xavier_uniform"), a number, a Tensor/array (used as is) or an Initializer instance. Random
initializers draw from numpy's global generator, as MindSpore's do (``np.random.seed`` and
``set_seed`` make them reproducible); ``_rng`` is the generator of the random creation ops.
"""
import math

import numpy as np

from . import dtype as D
from .tensor import Tensor

_rng = np.random.default_rng()


def set_seed(seed):
    """Seed the generator random initializers and eager dropout draw from."""
    global _rng
    _rng = np.random.default_rng(seed)
    np.random.seed(seed)   # (MindSpore's set_seed seeds numpy too: initializers draw from it)
    from .ops import nn_ops
    nn_ops.set_dropout_seed(seed)


def _fans(shape):
    if len(shape) < 2:
        n = shape[0] if shape else 1
        return n, n
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


class Initializer:
    """Base: ``init(shape)`` returns a float64 numpy array of ``shape``."""

    def __call__(self, shape):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"


class Constant(Initializer):
    def __init__(self, value):
        self.value = value

    def __call__(self, shape):
        return np.full(shape, self.value, np.float64)


class One(Constant):
    def __init__(self):
        super().__init__(1.0)


class Zero(Constant):
    def __init__(self):
        super().__init__(0.0)


class Normal(Initializer):
    def __init__(self, sigma=0.01, mean=0.0):
        self.sigma, self.mean = sigma, mean

    def __call__(self, shape):
        return np.random.normal(self.mean, self.sigma, shape)


class Uniform(Initializer):
    def __init__(self, scale=0.07):
        self.scale = scale

    def __call__(self, shape):
        return np.random.uniform(-self.scale, self.scale, shape)


def _gain(negative_slope, nonlinearity):
    if nonlinearity == "leaky_relu":
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    return {"relu": math.sqrt(2.0), "tanh": 5.0 / 3}.get(nonlinearity, 1.0)


class HeUniform(Initializer):
    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def __call__(self, shape):
        fan = _fans(shape)[0 if self.mode == "fan_in" else 1]
        bound = _gain(self.negative_slope, self.nonlinearity) * math.sqrt(3.0 / fan)
        return np.random.uniform(-bound, bound, shape)


class HeNormal(HeUniform):
    def __call__(self, shape):
        fan = _fans(shape)[0 if self.mode == "fan_in" else 1]
        return np.random.normal(0, _gain(self.negative_slope, self.nonlinearity) / math.sqrt(fan), shape)


class XavierUniform(Initializer):
    def __init__(self, gain=1):
        self.gain = gain

    def __call__(self, shape):
        fan_in, fan_out = _fans(shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return np.random.uniform(-bound, bound, shape)


class XavierNormal(Initializer):
    """N(0, gain * sqrt(2 / (fan_in + fan_out)))."""

    def __init__(self, gain=1):
        self.gain = gain

    def __call__(self, shape):
        fan_in, fan_out = _fans(shape)
        return np.random.normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape)


class TruncatedNormal(Initializer):
    """N(mean, sigma) redrawn until every value lies in [a, b]."""

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def __call__(self, shape):
        values = np.random.normal(self.mean, self.sigma, shape)
        bad = (values < self.a) | (values > self.b)
        while bad.any():
            values[bad] = np.random.normal(self.mean, self.sigma, int(bad.sum()))
            bad = (values < self.a) | (values > self.b)
        return values


# MindSpore's names for them (lowercase; the underscore-free spellings are its aliases too)
_BY_NAME = {"ones": One, "one": One, "zeros": Zero, "zero": Zero, "normal": Normal, "uniform": Uniform,
            "he_uniform": HeUniform, "heuniform": HeUniform, "he_normal": HeNormal, "henormal": HeNormal,
            "xavier_uniform": XavierUniform, "xavieruniform": XavierUniform, "xavier_normal": XavierNormal,
            "xaviernormal": XavierNormal, "truncatednormal": TruncatedNormal}


def initializer(init, shape=None, dtype=D.float32):
    """A Tensor of ``shape`` and ``dtype`` made by ``init``."""
    dt = D.as_dtype(dtype)
    if isinstance(init, (Tensor, np.ndarray)):
        t = Tensor(init, dt)
        if shape is not None and t.shape != tuple(shape):
            raise ValueError(f"initializer: a tensor of shape {t.shape} does not match shape {tuple(shape)}")
        return t
    shape = (shape,) if isinstance(shape, int) else tuple(shape or ())
    if isinstance(init, str):
        if init.lower() not in _BY_NAME:
            raise ValueError(f"initializer: unknown init {init!r}; valid names are {', '.join(map(repr, _BY_NAME))}")
        init = _BY_NAME[init.lower()]()
    elif isinstance(init, (int, float, bool)):
        init = Constant(init)
    if not isinstance(init, Initializer):
        raise TypeError(f"initializer: init must be a name, a number, a Tensor or an Initializer; "
                        f"got {type(init).__name__}")
    return Tensor(init(shape), dt)

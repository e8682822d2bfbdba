"""Tensor creation with MindSpore's names and signatures (re-exported by ``array_ops``).

Creation ops make concrete Tensors: under capture they are constants of the graph. Random ones
draw from the generator ``set_seed`` reseeds (``initializer``); under capture they are refused
(ConcreteValueNeeded: ast and trace raise, bytecode breaks the graph and runs them eagerly),
since a constant would repeat the same draw at every call of the compiled function.
"""
import numpy as np

from .. import dtype as D
from .. import initializer
from ..core import Tracer, current_builder
from ..errors import ConcreteValueNeeded
from ..tensor import Tensor
from .operands import operand

__all__ = ["arange", "range", "ones", "zeros", "full", "ones_like", "zeros_like", "full_like", "empty",
           "empty_like", "eye", "linspace", "rand", "randn", "randint", "rand_like", "randn_like",
           "uniform", "normal"]


def _shape(size):
    if len(size) == 1 and not isinstance(size[0], (int, np.integer)):
        size = size[0]   # f(2, 3) or f((2, 3))
    return (int(size),) if D.scalar_kind(size) == "int" else tuple(int(d) for d in size)


def _new(array, dtype):
    return Tensor(array, dtype)


def arange(start=0, end=None, step=1, *, dtype=None):
    """``[start, end)`` by ``step``; int64 for integer arguments, float32 otherwise."""
    if end is None:
        start, end = 0, start
    start, end, step = (_scalar("arange", v) for v in (start, end, step))
    ints = all(D.scalar_kind(v) == "int" for v in (start, end, step))
    if step == 0:
        raise ValueError("arange: step must not be zero")
    return _new(np.arange(start, end, step), dtype or (D.int64 if ints else D.float32))


def range(start, end, step, maxlen=1000000):  # noqa: A001  (MindSpore's name)
    """``ops.range``: ``[start, end)`` by ``step`` (at most ``maxlen`` entries)."""
    out = arange(start, end, step)
    if out.shape[0] > maxlen:
        raise ValueError(f"range: {out.shape[0]} elements exceed maxlen={maxlen}")
    return out


def _scalar(name, v):
    """A Python number from a number or a concrete 0-d tensor (a Tracer: its value is needed)."""
    if D.scalar_kind(v) is not None:
        return v
    return operand(name, v).asnumpy().item() if not hasattr(v, "builder") else v._concrete(f"{name}'s bounds")


def full(size, fill_value, *, dtype=None):
    """A tensor of ``size`` filled with ``fill_value`` (dtype from the value: bool, int64, float32)."""
    kind = D.scalar_kind(fill_value)
    if kind is None:
        fill_value = operand("Full", fill_value).asnumpy()
        kind = "float"
    return _new(np.full(_shape((size,)), fill_value), dtype or D.DEFAULT_FOR_KIND[kind])


def ones(shape, dtype=None):
    return full(shape, 1, dtype=dtype or D.float32)


def zeros(size, dtype=None):
    return full(size, 0, dtype=dtype or D.float32)


def empty(*size, dtype=None, device=None):
    """An uninitialized tensor (here: zeros) of ``size``."""
    return full(_shape(size), 0, dtype=dtype or D.float32)


def full_like(input, fill_value, *, dtype=None):
    x = operand("FullLike", input)
    return full(x.shape, fill_value, dtype=dtype or x.dtype)


def ones_like(input, *, dtype=None):
    return full_like(input, 1, dtype=dtype)


def zeros_like(input, *, dtype=None):
    return full_like(input, 0, dtype=dtype)


def empty_like(input, *, dtype=None, device=None):
    return full_like(input, 0, dtype=dtype)


def eye(n, m=None, dtype=None):
    """The ``n x m`` identity matrix (float32 unless ``dtype``)."""
    return _new(np.eye(int(n), None if m is None else int(m)), dtype or D.float32)


def linspace(start, end, steps):
    """``steps`` evenly spaced float32 values from ``start`` to ``end`` inclusive (0-d tensor
    bounds under capture: ``start + i * (end - start) / (steps - 1)`` in the graph)."""
    steps = int(steps)
    if steps < 1:
        raise ValueError(f"LinSpace: steps must be positive, got {steps}")
    if any(type(v) is Tracer for v in (start, end)):
        from .functional import add, cast, div, mul, sub
        lo, hi = (cast(operand("LinSpace", v), D.float32) for v in (start, end))
        step = div(sub(hi, lo), max(steps - 1, 1))
        return add(lo, mul(np.arange(steps, dtype=np.float32), step))
    start, end = (_scalar("LinSpace", v) for v in (start, end))
    return _new(np.linspace(start, end, steps), D.float32)


# ---- random ----------------------------------------------------------------------------------------

def _rng(name, seed):
    builder = current_builder()
    if builder is not None:
        file, line = builder.current_location() or ("<unknown>", 0)
        raise ConcreteValueNeeded(file, line, f"the random op {name} (a graph constant would repeat "
                                  "one draw at every call; draw outside the jitted function)")
    return initializer._rng if seed is None else np.random.default_rng(seed)


def rand(*size, dtype=None, seed=None):
    """Uniform [0, 1) samples of ``size`` (float32 unless ``dtype``)."""
    return _new(_rng("rand", seed).random(_shape(size)), dtype or D.float32)


def randn(*size, dtype=None, seed=None):
    """Standard normal samples of ``size`` (float32 unless ``dtype``)."""
    return _new(_rng("randn", seed).standard_normal(_shape(size)), dtype or D.float32)


def randint(low, high, size, seed=None, *, dtype=None):
    """Integers uniform in ``[low, high)`` of ``size`` (int64 unless ``dtype``)."""
    if int(low) >= int(high):
        raise ValueError(f"randint: low {low} must be less than high {high}")
    return _new(_rng("randint", seed).integers(int(low), int(high), _shape((size,))), dtype or D.int64)


def rand_like(input, seed=None, *, dtype=None):
    x = operand("rand_like", input)
    return rand(x.shape, dtype=dtype or x.dtype, seed=seed)


def randn_like(input, seed=None, *, dtype=None):
    x = operand("randn_like", input)
    return randn(x.shape, dtype=dtype or x.dtype, seed=seed)


def uniform(shape, minval, maxval, seed=None, dtype=D.float32):
    """Samples uniform in ``[minval, maxval)`` (ints: integers) of ``shape``."""
    lo, hi = (_scalar("uniform", v) for v in (minval, maxval))
    rng = _rng("uniform", seed)
    dt = D.as_dtype(dtype)
    if dt.is_floating:
        return _new(rng.uniform(lo, hi, _shape((shape,))), dt)
    return _new(rng.integers(int(lo), int(hi), _shape((shape,))), dt)


def normal(shape, mean, stddev, seed=None):
    """Normal samples of ``shape`` with ``mean`` and ``stddev`` (float32)."""
    mu, sigma = (_scalar("normal", v) for v in (mean, stddev))
    return _new(_rng("normal", seed).normal(mu, sigma, _shape((shape,))), D.float32)

"""Basic layers: Dense, Flatten, Identity, Dropout, Embedding, Pad, OneHot."""
import math

from .. import dtype as D
from .. import ops
from ..initializer import HeUniform, Uniform, initializer
from ..parameter import Parameter
from ..ops.nn_pooling import pad_axes
from .activation import get_activation
from .cell import Cell


def default_weight(init, shape, dtype):
    """MindSpore's defaults: HeUniform(sqrt(5)) for weights."""
    return Parameter(initializer(HeUniform(math.sqrt(5)) if init is None else init, shape, dtype))


def default_bias(init, shape, fan_in, dtype):
    """MindSpore's defaults: Uniform(1 / sqrt(fan_in)) for biases."""
    return Parameter(initializer(Uniform(1 / math.sqrt(fan_in)) if init is None else init, shape, dtype))


class Dense(Cell):
    """``Dense(in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
    activation=None)``: ``activation(x @ weight.T + bias)`` with weight (out, in)."""

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 activation=None, dtype=D.float32):
        super().__init__()
        self.in_channels, self.out_channels, self.has_bias = int(in_channels), int(out_channels), has_bias
        self.weight = default_weight(weight_init, (self.out_channels, self.in_channels), dtype)
        self.bias = default_bias(bias_init, (self.out_channels,), self.in_channels, dtype) if has_bias else None
        self.activation = get_activation(activation) if isinstance(activation, str) else activation

    def construct(self, x):
        x = ops.dense(x, self.weight, self.bias)
        return x if self.activation is None else self.activation(x)

    def extend_repr(self):
        return f"input_channels={self.in_channels}, output_channels={self.out_channels}, has_bias={self.has_bias}"


class Flatten(Cell):
    """Flatten axes ``start_dim..end_dim`` (default: all but the batch axis)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x):
        return ops.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)


class Identity(Cell):
    """``Identity()``: returns its input."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def construct(self, x):
        return x


class Dropout(Cell):
    """``Dropout(keep_prob=0.5, p=None)``: identity unless training (``p`` wins over keep_prob)."""

    def __init__(self, keep_prob=0.5, p=None, dtype=D.float32):
        super().__init__()
        self.p = 1.0 - keep_prob if p is None else p
        if not 0 <= self.p < 1:
            raise ValueError(f"Dropout: p must be in [0, 1), got {self.p}")
        self.keep_prob = 1.0 - self.p

    def construct(self, x):
        return ops.dropout(x, self.p, self.training)


class Embedding(Cell):
    """``Embedding(vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
    dtype=int32, padding_idx=None)``: rows of ``embedding_table`` at the ids (the row of
    ``padding_idx`` starts as zeros)."""

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=D.int32, padding_idx=None):
        super().__init__()
        self.vocab_size, self.embedding_size = int(vocab_size), int(embedding_size)
        self.use_one_hot, self.padding_idx = use_one_hot, padding_idx
        table = initializer(embedding_table, (self.vocab_size, self.embedding_size))
        if padding_idx is not None:
            if not -self.vocab_size <= padding_idx < self.vocab_size:
                raise ValueError(f"Embedding: padding_idx {padding_idx} is out of range for vocab_size {vocab_size}")
            table = table.asnumpy().copy()
            table[padding_idx] = 0
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids):
        return ops.gather(self.embedding_table, ids, 0)


class Pad(Cell):
    """``Pad(paddings, mode="CONSTANT")``: ``paddings`` gives (before, after) for the leading
    axes in order; modes "CONSTANT" (zeros), "REFLECT" and "SYMMETRIC" (edge repeated)."""

    _MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        if not isinstance(mode, str) or mode.upper() not in self._MODES:
            raise ValueError(f"Pad: mode must be one of {', '.join(self._MODES)}, got {mode!r}")
        if not isinstance(paddings, (tuple, list)) or any(
                not isinstance(p, (tuple, list)) or len(p) != 2 or any(not isinstance(i, int) or i < 0 for i in p)
                for p in paddings):
            raise ValueError(f"Pad: paddings must be a tuple of (before, after) pairs of non-negative ints, "
                             f"got {paddings!r}")
        self.paddings = tuple(tuple(p) for p in paddings)
        self.mode = mode.upper()

    def construct(self, x):
        if len(self.paddings) > x.ndim:
            raise ValueError(f"Pad: {len(self.paddings)} paddings for an input of shape {x.shape}")
        widths = {axis: p for axis, p in enumerate(self.paddings) if any(p)}
        return pad_axes(x, widths, self.mode.lower())


class OneHot(Cell):
    """``OneHot(axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=float32)``: ``ops.one_hot``
    of integer indices (out-of-range indices give rows of ``off_value``)."""

    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=D.float32):
        super().__init__()
        if not isinstance(depth, int) or depth < 0:
            raise ValueError(f"OneHot: depth must be a non-negative int, got {depth!r}")
        self.axis, self.depth, self.on_value, self.off_value, self.dtype = axis, depth, on_value, off_value, dtype

    def construct(self, indices):
        return ops.cast(ops.one_hot(indices, self.depth, self.on_value, self.off_value, self.axis), self.dtype)

"""Joining and splitting (re-exported by ``array_ops``): Concat of promoted operands, and
splits as StridedSlices of the pieces."""
import builtins

import numpy as np

from .. import dtype as D
from . import prims as P
from ..core import bind
from .functional import reshape_if_needed as reshape
from .indexing import getitem
from .operands import convert, normalize_axes, operand

__all__ = ["concat", "cat", "stack", "hstack", "vstack", "split", "tensor_split", "hsplit", "vsplit", "dsplit",
           "chunk", "unbind"]


def _axis(name, axis, ndim):
    return normalize_axes(name, axis, ndim)[0]


def concat(tensors, axis=0):
    """Join tensors along ``axis`` (dtypes promoted to one)."""
    xs = [operand("Concat", t) for t in tensors]
    if not xs:
        raise ValueError("Concat: needs at least one input")
    dt = xs[0].dtype
    for t in xs[1:]:
        dt = D.promote_types(dt, t.dtype)
    return bind(P.Concat, *(convert(t, dt) for t in xs), axis=_axis("Concat", axis, xs[0].ndim))


cat = concat


def stack(tensors, axis=0):
    """Join tensors of one shape along a new ``axis``."""
    xs = [operand("Stack", t) for t in tensors]
    if not xs:
        raise ValueError("Stack: needs at least one input")
    if any(t.shape != xs[0].shape for t in xs):
        raise ValueError(f"Stack: inputs must have the same shape, got {[t.shape for t in xs]}")
    a = _axis("Stack", axis, xs[0].ndim + 1)
    return concat([reshape(t, t.shape[:a] + (1,) + t.shape[a:]) for t in xs], a)


def split(tensor, split_size_or_sections, axis=0):
    """Split along ``axis`` into chunks of ``split_size_or_sections`` (int: that size, the last
    one smaller; list: those sizes). Returns a tuple."""
    x = operand("Split", tensor)
    a = _axis("Split", axis, x.ndim)
    n = x.shape[a]
    if isinstance(split_size_or_sections, (int, np.integer)):
        size = int(split_size_or_sections)
        if size <= 0:
            raise ValueError(f"Split: split size must be positive, got {size}")
        sizes = [min(size, n - i) for i in builtins.range(0, n, size)] or [0]
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != n or min(sizes, default=0) < 0:
            raise ValueError(f"Split: sections {sizes} do not add up to {n}, axis {a} of shape {x.shape}")
    out, start = [], 0
    for s in sizes:
        out.append(getitem(x, (np.s_[:],) * a + (np.s_[start:start + s],)))
        start += s
    return tuple(out)


def chunk(input, chunks, axis=0):
    """At most ``chunks`` pieces of equal size (the last one smaller) along ``axis``."""
    x = operand("Chunk", input)
    if not isinstance(chunks, (int, np.integer)) or chunks <= 0:
        raise ValueError(f"Chunk: chunks must be a positive int, got {chunks!r}")
    a = _axis("Chunk", axis, x.ndim)
    return split(x, max(1, -(-x.shape[a] // int(chunks))), a)


def unbind(input, dim=0):
    """The slices of ``input`` along ``dim``, each without that axis."""
    x = operand("Unbind", input)
    a = _axis("Unbind", dim, x.ndim)
    return tuple(getitem(x, (np.s_[:],) * a + (i,)) for i in builtins.range(x.shape[a]))


def hstack(tensors):
    """Concatenate along axis 1 (axis 0 for 1-D tensors)."""
    xs = [operand("HStack", t) for t in tensors]
    return concat(xs, 0 if xs and xs[0].ndim == 1 else 1)


def vstack(inputs):
    """Concatenate along axis 0, 1-D tensors as rows."""
    xs = [operand("VStack", t) for t in inputs]
    return concat([reshape(t, (1, -1)) if t.ndim < 2 else t for t in xs], 0)


def tensor_split(input, indices_or_sections, axis=0):
    """numpy ``array_split``: ``n`` near-equal pieces (the first ones one larger) or cuts at the
    given indices."""
    x = operand("TensorSplit", input)
    a = _axis("TensorSplit", axis, x.ndim)
    n = x.shape[a]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError(f"TensorSplit: sections must be positive, got {k}")
        q, r = divmod(n, k)
        cuts = np.cumsum([q + 1] * r + [q] * (k - r))[:-1].tolist()
    else:
        cuts = [int(i) for i in indices_or_sections]
    bounds = [0] + [min(max(c + n if c < 0 else c, 0), n) for c in cuts] + [n]
    pre = (np.s_[:],) * a
    return tuple(getitem(x, pre + (np.s_[b:max(b, e)],)) for b, e in zip(bounds, bounds[1:]))


def _split_at(name, axis, min_rank):
    def op(input, indices_or_sections):
        x = operand(name, input)
        if x.ndim < min_rank:
            raise ValueError(f"{name}: the input must have rank >= {min_rank}, got shape {x.shape}")
        return tensor_split(x, indices_or_sections, 0 if name == "HSplit" and x.ndim == 1 else axis)
    op.__name__ = op.__qualname__ = name.lower()
    op.__doc__ = f"``tensor_split`` along axis {axis}" + (" (axis 0 for 1-D input)." if name == "HSplit" else ".")
    return op


hsplit = _split_at("HSplit", 1, 1)
vsplit = _split_at("VSplit", 0, 2)
dsplit = _split_at("DSplit", 2, 3)

"""Matrix-shaped constructions (re-exported by ``array_ops``): ``diag`` and ``one_hot`` as a Select
over a constant pattern, ``diagonal`` as one Gather of the flattened planes, ``meshgrid`` as
BroadcastTo of reshaped vectors."""
import numpy as np

from . import prims as P
from ..core import bind
from .functional import reshape_if_needed as reshape, where
from .operands import normalize_axes, operand
from .scatter_ops import _int_index

__all__ = ["meshgrid", "diag", "diagflat", "diagonal", "one_hot"]


def _axis(name, axis, ndim):
    return normalize_axes(name, axis, ndim)[0]


def meshgrid(*inputs, indexing="xy"):
    """Coordinate grids of 1-D tensors ('xy': the first two axes swapped, as numpy)."""
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [operand("Meshgrid", t) for t in inputs]
    if any(t.ndim != 1 for t in xs):
        raise ValueError(f"Meshgrid: inputs must be 1-D, got shapes {[t.shape for t in xs]}")
    sizes = [t.shape[0] for t in xs]
    if indexing == "xy" and len(xs) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, t in enumerate(xs):
        axis = (1 - i if i < 2 else i) if indexing == "xy" and len(xs) > 1 else i
        view = [1] * len(xs)
        view[axis] = t.shape[0]
        out.append(bind(P.BroadcastTo, reshape(t, tuple(view)), shape=tuple(sizes)))
    return tuple(out)


def diag(input):
    """A tensor of rank 2k with ``input`` (rank k) on its diagonal: out[i..., i...] = input[i...]."""
    x = operand("Diag", input)
    if x.ndim == 0:
        raise ValueError("Diag: the input must have rank >= 1")
    n = x.size
    full = bind(P.BroadcastTo, reshape(x, x.shape + (1,) * x.ndim), shape=x.shape * 2)
    return bind(P.Select, np.eye(n, dtype=bool).reshape(x.shape * 2), full, np.zeros((), x.dtype.np))


def diagflat(input, offset=0):
    """A square matrix with the flattened ``input`` on its ``offset`` diagonal."""
    x = reshape(operand("Diagflat", input), (-1,))
    n, k = x.shape[0], abs(int(offset))
    size = n + k
    rows, cols = (np.arange(n), np.arange(n) + k) if offset >= 0 else (np.arange(n) + k, np.arange(n))
    pattern = np.zeros((size, size), bool)
    pattern[rows, cols] = True
    source = np.zeros((size, size), np.int64)
    source[rows, cols] = np.arange(n)
    picked = bind(P.Gather, x, source, axis=0)
    return bind(P.Select, pattern, picked, np.zeros((), x.dtype.np))


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of the (dim1, dim2) planes, as a last axis (numpy semantics)."""
    x = operand("Diagonal", input)
    a, b = _axis("Diagonal", dim1, x.ndim), _axis("Diagonal", dim2, x.ndim)
    if a == b:
        raise ValueError(f"Diagonal: dim1 and dim2 must differ, got {dim1} and {dim2}")
    rest = [i for i in range(x.ndim) if i not in (a, b)]
    x = bind(P.Transpose, x, perm=tuple(rest + [a, b]))
    n, m = x.shape[-2:]
    rows = np.arange(max(0, -offset), min(n, m - offset)) if -n < offset < m else np.arange(0)
    flat = reshape(x, x.shape[:-2] + (n * m,))
    return bind(P.Gather, flat, rows * m + rows + offset, axis=x.ndim - 2)


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """``on_value`` where ``indices`` equals the position along a new ``axis`` of size ``depth``."""
    idx = operand("OneHot", _int_index("OneHot", indices))
    a = _axis("OneHot", axis, idx.ndim + 1)
    shape = [1] * (idx.ndim + 1)
    shape[a] = int(depth)
    positions = np.arange(int(depth), dtype=idx.dtype.np).reshape(shape)
    hot = bind(P.Equal, reshape(idx, idx.shape[:a] + (1,) + idx.shape[a:]), positions)
    return where(hot, on_value, off_value)

"""Data movement and shape ops with MindSpore's names and signatures.

Every op is a decomposition over the core primitives (Reshape, Transpose, StridedSlice, Concat,
Gather, BroadcastTo, Tile, Select...). Indexing lives in ``indexing``, creation in ``creation``,
joining and splitting in ``array_join``, diagonals, one-hot and grids in ``array_matrix``,
element-wise gathers and scatters in ``scatter_ops``; their functions are re-exported here.
"""
import builtins
import math

import numpy as np

from .. import dtype as D
from . import prims as P
from ..core import bind
from .operands import assign, is_tensor, is_tracer, normalize_axes, operand
from .functional import reshape_if_needed as reshape, transpose, where
from .indexing import getitem
from . import array_join, array_matrix, creation, scatter_ops
from .array_join import *  # noqa: F401,F403
from .array_matrix import *  # noqa: F401,F403
from .creation import *  # noqa: F401,F403
from .scatter_ops import *  # noqa: F401,F403

__all__ = ["expand_dims", "unsqueeze", "squeeze", "flatten", "tile", "broadcast_to", "slice", "strided_slice",
           "gather", "getitem", "triu", "tril", "repeat_interleave", "assign", "index_select", "permute",
           "swapaxes", "swapdims", "movedim", "moveaxis", "narrow", "flip", "fliplr", "flipud", "reverse", "roll",
           "rot90", "take", "gather_nd", "shape", "rank", "size", "numel", "is_tensor", "select"] \
    + array_join.__all__ + array_matrix.__all__ + creation.__all__ + scatter_ops.__all__


def _axis(name, axis, ndim):
    return normalize_axes(name, axis, ndim)[0]


def expand_dims(input_x, axis):
    """Insert a size-1 axis at ``axis`` (in [-ndim-1, ndim])."""
    x = operand("ExpandDims", input_x)
    a = _axis("ExpandDims", axis, x.ndim + 1)
    return reshape(x, x.shape[:a] + (1,) + x.shape[a:])


unsqueeze = expand_dims


def squeeze(input, axis=None):
    """Remove size-1 axes: all of them, or those in ``axis`` (each must have size 1)."""
    x = operand("Squeeze", input)
    axes = tuple(i for i, d in enumerate(x.shape) if d == 1) if axis is None else \
        normalize_axes("Squeeze", axis, x.ndim)
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"Squeeze: axis {a} of shape {x.shape} has size {x.shape[a]}, not 1")
    return reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in axes))


def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    """Merge axes ``start_dim..end_dim`` into one (a 0-d input becomes 1-d)."""
    if order != "C":
        raise ValueError(f"Flatten: only order='C' is supported, got {order!r}")
    x = operand("Flatten", input)
    if x.ndim == 0:
        return reshape(x, (1,))
    s, e = (_axis("Flatten", a, x.ndim) for a in (start_dim, end_dim))
    if s > e:
        raise ValueError(f"Flatten: start_dim {start_dim} is after end_dim {end_dim} for shape {x.shape}")
    return reshape(x, x.shape[:s] + (-1,) + x.shape[e + 1:])


def tile(input, dims):
    """Repeat ``input`` ``dims[i]`` times along each axis (shorter ``dims`` get leading 1s,
    a lower-rank input gets leading size-1 axes)."""
    x = operand("Tile", input)
    dims = tuple(int(d) for d in dims)
    if len(dims) > x.ndim:
        x = reshape(x, (1,) * (len(dims) - x.ndim) + x.shape)
    dims = (1,) * (x.ndim - len(dims)) + dims
    return x if all(d == 1 for d in dims) and is_tracer(x) else bind(P.Tile, x, multiples=dims)


def broadcast_to(input, shape):
    """numpy broadcast to ``shape``; -1 keeps the input's size of that (right-aligned) axis."""
    x = operand("BroadcastTo", input)
    shape = tuple(int(d) for d in shape)
    lead = len(shape) - x.ndim
    if lead < 0:
        raise ValueError(f"BroadcastTo: cannot broadcast a tensor of shape {x.shape} to shape {shape}")
    shape = tuple(x.shape[i - lead] if d == -1 and i >= lead else d for i, d in enumerate(shape))
    return x if shape == x.shape and is_tracer(x) else bind(P.BroadcastTo, x, shape=shape)


def slice(input_x, begin, size):  # noqa: A001  (MindSpore's name)
    """``input_x[begin[i] : begin[i] + size[i]]`` per axis; size -1 means through the end."""
    x = operand("Slice", input_x)
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise ValueError(f"Slice: begin {tuple(begin)} and size {tuple(size)} need one entry per dim "
                         f"of shape {x.shape}")
    index = []
    for d, b, s in zip(x.shape, begin, size):
        e = d if s == -1 else b + s
        if not 0 <= b <= e <= d:
            raise ValueError(f"Slice: begin {tuple(begin)} and size {tuple(size)} are out of range "
                             f"for shape {x.shape}")
        index.append(np.s_[b:e])
    return getitem(x, tuple(index))


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0):
    """TensorFlow-style strided slice: the masks' bit i modifies entry i (see MindSpore)."""
    if not len(begin) == len(end) == len(strides):
        raise ValueError(f"StridedSlice: begin {tuple(begin)}, end {tuple(end)} and strides "
                         f"{tuple(strides)} must have the same length")
    index = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        if ellipsis_mask >> i & 1:
            index.append(Ellipsis)
        elif new_axis_mask >> i & 1:
            index.append(None)
        elif shrink_axis_mask >> i & 1:
            index.append(int(b))
        else:
            index.append(np.s_[None if begin_mask >> i & 1 else b: None if end_mask >> i & 1 else e: s])
    return getitem(input_x, tuple(index))


def gather(input_params, input_indices, axis, batch_dims=0):
    """``params.shape[:axis] + indices.shape + params.shape[axis+1:]``; negative indices count
    from the end; out-of-range indices raise IndexError eagerly."""
    if batch_dims:
        raise ValueError(f"Gather: batch_dims={batch_dims} is not supported")
    x = operand("Gather", input_params)
    idx = _index_tensor("Gather", input_indices)
    return bind(P.Gather, x, idx, axis=_axis("Gather", axis, x.ndim))


def index_select(input, axis, index):
    """Entries of ``input`` at the 1-D ``index`` along ``axis``."""
    return gather(input, index, axis)


def _index_tensor(name, index):
    if isinstance(index, (list, tuple, np.ndarray)) or D.scalar_kind(index) == "int":
        index = np.asarray(index)
        if index.dtype.kind not in "iu":
            raise TypeError(f"{name}: indices must be integers, got {index.dtype}")
        index = index.astype(np.int64)
    idx = operand(name, index)
    if idx.dtype not in (D.int32, D.int64):
        raise TypeError(f"{name}: indices must be an int32 or int64 tensor, got {idx.dtype} "
                        "(boolean masks are not supported: their result shape depends on values)")
    return idx


def _triangle(name, prim):
    def op(input, diagonal=0):
        x = operand(prim.name, input)
        return bind(prim, x, diagonal=int(diagonal))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"{prim.name}: keep the {'upper' if name == 'triu' else 'lower'} triangle of the last two dims."
    return op


triu = _triangle("triu", P.Triu)
tril = _triangle("tril", P.Tril)


def repeat_interleave(input, repeats, axis=None):
    """Repeat each element ``repeats`` times along ``axis`` (None: of the flattened input).
    An int repeat is a BroadcastTo of a new axis; per-element repeats a Gather."""
    x = operand("RepeatInterleave", input)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    a = _axis("RepeatInterleave", axis, x.ndim)
    if is_tensor(repeats):
        repeats = np.asarray(repeats)   # (a tensor under capture: its values are unknown, an error)
    if isinstance(repeats, (list, tuple, np.ndarray)) and np.ndim(repeats) == 1 and len(repeats) != 1:
        return gather(x, np.repeat(np.arange(x.shape[a]), repeats), a)
    r = int(np.asarray(repeats).reshape(()))
    y = broadcast_to(expand_dims(x, a + 1), x.shape[:a + 1] + (r,) + x.shape[a + 1:])
    return reshape(y, x.shape[:a] + (x.shape[a] * r,) + x.shape[a + 1:])


def permute(input, axis):
    """Output axis i is input axis ``axis[i]`` (Transpose)."""
    return transpose(input, axis)


def swapaxes(input, axis0, axis1):
    """Exchange two axes (Transpose)."""
    x = operand("Swapaxes", input)
    a, b = (_axis("Swapaxes", v, x.ndim) for v in (axis0, axis1)) if x.ndim else (0, 0)
    perm = list(builtins.range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return x if a == b and is_tracer(x) else bind(P.Transpose, x, perm=tuple(perm))


def swapdims(input, dim0, dim1):
    return swapaxes(input, dim0, dim1)


def movedim(x, source, destination):
    """Move axes ``source`` (int or tuple) to positions ``destination``; the others keep their order."""
    x = operand("Movedim", x)
    src = (source,) if isinstance(source, (int, np.integer)) else tuple(source)
    dst = (destination,) if isinstance(destination, (int, np.integer)) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError(f"Movedim: source {source} and destination {destination} differ in length")
    src = [_axis("Movedim", a, x.ndim) for a in src]
    dst = [_axis("Movedim", a, x.ndim) for a in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError(f"Movedim: repeated axis in source {source} or destination {destination}")
    rest = iter(a for a in builtins.range(x.ndim) if a not in src)
    where_to = dict(zip(dst, src))
    perm = tuple(where_to[i] if i in where_to else next(rest) for i in builtins.range(x.ndim))
    return bind(P.Transpose, x, perm=perm)


moveaxis = movedim


def narrow(input, axis, start, length):
    """``length`` entries of ``axis`` from ``start`` (StridedSlice)."""
    x = operand("Narrow", input)
    a = _axis("Narrow", axis, x.ndim)
    n = x.shape[a]
    start = int(start) + (n if int(start) < 0 else 0)
    if not 0 <= start <= n or not 0 <= int(length) <= n - start:
        raise ValueError(f"Narrow: start {start} and length {length} are out of range for axis {a} "
                         f"of shape {x.shape}")
    return getitem(x, (np.s_[:],) * a + (np.s_[start:start + int(length)],))


def flip(input, dims):
    """Reverse the order of entries along ``dims`` (a StridedSlice with stride -1)."""
    x = operand("Flip", input)
    axes = normalize_axes("Flip", dims, x.ndim)
    return getitem(x, tuple(np.s_[::-1] if i in axes else np.s_[:] for i in builtins.range(x.ndim)))


def fliplr(input):
    return flip(input, 1)


def flipud(input):
    return flip(input, 0)


def reverse(x, axis):
    return flip(x, axis)


def roll(input, shifts, dims=None):
    """Shift entries cyclically by ``shifts`` along ``dims`` (None: over the flattened input)."""
    x = operand("Roll", input)
    if dims is None:
        return reshape(roll(reshape(x, (-1,)), shifts, 0), x.shape)
    shifts = (shifts,) if isinstance(shifts, (int, np.integer)) else tuple(shifts)
    dims = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
    if len(shifts) != len(dims):
        raise ValueError(f"Roll: shifts {shifts} and dims {dims} differ in length")
    for s, d in zip(shifts, dims):
        a = _axis("Roll", d, x.ndim)
        n = x.shape[a]
        s = int(s) % n if n else 0
        if s:
            pre = (np.s_[:],) * a
            x = bind(P.Concat, getitem(x, pre + (np.s_[n - s:],)), getitem(x, pre + (np.s_[:n - s],)), axis=a)
    return x


def rot90(input, k, dims):
    """Rotate by 90 degrees ``k`` times in the plane ``dims`` (from the first axis towards the second)."""
    x = operand("Rot90", input)
    a, b = (_axis("Rot90", d, x.ndim) for d in dims)
    if a == b or len(dims) != 2:
        raise ValueError(f"Rot90: dims must be two different axes, got {dims}")
    k = int(k) % 4
    if k == 2:
        return flip(x, (a, b))
    if k == 0:
        return x
    return swapaxes(flip(x, b), a, b) if k == 1 else flip(swapaxes(x, a, b), b)


def take(input, index):
    """Entries of the flattened ``input`` at ``index`` (shaped as ``index``)."""
    return gather(reshape(operand("Take", input), (-1,)), index, 0)


def gather_nd(input_x, indices):
    """``input_x[indices[..., 0], ..., indices[..., k-1]]`` (the last index axis addresses the leading dims)."""
    x = operand("GatherNd", input_x)
    idx = _index_tensor("GatherNd", indices)
    k = idx.shape[-1] if idx.ndim else 0
    if not idx.ndim or k > x.ndim:
        raise ValueError(f"GatherNd: indices of shape {idx.shape} need a last axis of at most {x.ndim} entries")
    return getitem(x, tuple(getitem(idx, (Ellipsis, j)) for j in builtins.range(k)))


def shape(input_x):
    """The static shape, a tuple of ints."""
    return tuple(operand("Shape", input_x).shape)


def rank(input_x):
    return operand("Rank", input_x).ndim


def size(input_x):
    """The number of elements."""
    return math.prod(operand("Size", input_x).shape)


numel = size


def select(condition, input, other):
    """``ops.select``: ``input`` where ``condition`` else ``other`` (Select)."""
    return where(condition, input, other)


# Tensor methods that are these functions with the tensor first: {method name: function}.
TENSOR_METHODS = {n: globals()[n] for n in (
    "expand_dims", "tile", "swapaxes", "swapdims", "narrow", "unbind", "flip", "fliplr", "flipud", "roll",
    "movedim", "moveaxis", "tril", "triu", "gather_elements", "masked_fill", "scatter", "index_fill", "nonzero",
    "masked_select", "tensor_split", "hsplit", "vsplit", "dsplit", "rot90", "gather_nd", "diagflat", "argwhere",
    "select_scatter", "slice_scatter", "inplace_update")}

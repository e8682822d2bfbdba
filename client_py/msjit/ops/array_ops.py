"""Data movement, indexing and tensor creation with MindSpore's names and signatures.

Indexing (``x[1]``, ``x[:, 1:3]``, ``x[..., None]``, ``x[::2]``, ``x[idx]``) is one StridedSlice
for the basic part, a Reshape that drops integer-indexed axes and inserts new ones, and a
Gather for a tensor index. Creation ops (arange, ones, full, ...) make concrete Tensors: under
capture they are constants of the graph.
"""
import builtins

import numpy as np

from .. import dtype as D
from . import prims as P
from ..core import bind
from .operands import assign, convert, is_tensor, is_tracer, normalize_axes, operand
from .functional import reshape_if_needed as reshape

__all__ = ["expand_dims", "unsqueeze", "squeeze", "flatten", "tile", "broadcast_to", "concat", "cat",
           "stack", "split", "slice", "strided_slice", "gather", "getitem", "triu", "tril", "arange",
           "ones", "zeros", "full", "ones_like", "zeros_like", "full_like", "repeat_interleave",
           "assign", "index_select"]


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
    return concat([expand_dims(t, a) for t in xs], a)


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
        sizes = [min(size, n - i) for i in range(0, n, size)] or [0]
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != n or min(sizes, default=0) < 0:
            raise ValueError(f"Split: sections {sizes} do not add up to {n}, axis {a} of shape {x.shape}")
    out, start = [], 0
    for s in sizes:
        out.append(getitem(x, (np.s_[:],) * a + (np.s_[start:start + s],)))
        start += s
    return tuple(out)


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


def getitem(x, index):
    """``x[index]`` with numpy semantics for ints, slices, None, Ellipsis and one tensor index."""
    x = operand("StridedSlice", x)
    items = list(index) if type(index) is tuple else [index]
    tensors = [i for i, it in enumerate(items) if _is_array_index(it)]
    if len(tensors) > 1:
        raise IndexError(f"StridedSlice: at most one tensor index is supported, got {len(tensors)} "
                         f"for shape {x.shape}")
    used = sum(1 for it in items if it is not None and it is not Ellipsis)
    if used > x.ndim:
        raise IndexError(f"StridedSlice: too many indices ({used}) for a tensor of shape {x.shape}")
    if sum(1 for it in items if it is Ellipsis) > 1:
        raise IndexError("StridedSlice: an index can only have a single ellipsis ('...')")
    fill = [np.s_[:]] * (x.ndim - used)
    at = next((i for i, it in enumerate(items) if it is Ellipsis), len(items))
    items = items[:at] + fill + items[at + 1:]
    if tensors:
        _check_adjacent(items, x.shape)
    begin, end, strides, shape, gather_axis, dim = [], [], [], [], None, 0
    for it in items:
        if it is None:
            shape.append(1)
            continue
        d = x.shape[dim]
        dim += 1
        if _is_array_index(it):
            gather_axis, it = (len(shape), it), np.s_[:]
        if isinstance(it, builtins.slice):
            b, e, s = it.indices(d)
            e = max(e, b) if s > 0 else min(e, b)
            begin.append(b), end.append(e), strides.append(s)
            shape.append(len(range(b, e, s)))
        elif D.scalar_kind(it) == "int":
            if not -d <= it < d:
                raise IndexError(f"StridedSlice: index {it} is out of range for axis {dim - 1} of shape {x.shape}")
            begin.append(int(it) % d), end.append(int(it) % d + 1), strides.append(1)
        else:
            raise TypeError(f"StridedSlice: unsupported index of type {type(it).__name__} for shape {x.shape}")
    if begin != [0] * x.ndim or end != list(x.shape) or strides != [1] * x.ndim:
        x = bind(P.StridedSlice, x, begin=tuple(begin), end=tuple(end), strides=tuple(strides))
    x = reshape(x, tuple(shape))
    if gather_axis is not None:
        x = gather(x, gather_axis[1], gather_axis[0])
    return x


def _is_array_index(it):
    return is_tensor(it) or isinstance(it, (list, np.ndarray))


def _check_adjacent(items, shape):
    """numpy moves the result axes of advanced indices (a tensor and ints) that are not next to
    each other to the front; that case is not supported."""
    advanced = [i for i, it in enumerate(items) if _is_array_index(it) or D.scalar_kind(it) == "int"]
    if advanced and advanced[-1] - advanced[0] + 1 != len(advanced):
        raise IndexError(f"StridedSlice: a tensor index combined with integer indices that are not "
                         f"adjacent to it is not supported (shape {shape})")


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


# ---- creation: concrete Tensors (constants under capture) -----------------------------------------

def _shape(size):
    return (int(size),) if D.scalar_kind(size) == "int" else tuple(int(d) for d in size)


def _new(array, dtype):
    from ..tensor import Tensor
    return Tensor(array, dtype)


def arange(start=0, end=None, step=1, *, dtype=None):
    """``[start, end)`` by ``step``; int64 for integer arguments, float32 otherwise."""
    if end is None:
        start, end = 0, start
    ints = all(D.scalar_kind(v) == "int" for v in (start, end, step))
    if step == 0:
        raise ValueError("arange: step must not be zero")
    return _new(np.arange(start, end, step), dtype or (D.int64 if ints else D.float32))


def full(size, fill_value, *, dtype=None):
    """A tensor of ``size`` filled with ``fill_value`` (dtype from the value: bool, int64, float32)."""
    kind = D.scalar_kind(fill_value)
    if kind is None:
        fill_value = operand("Full", fill_value).asnumpy()
        kind = "float"
    return _new(np.full(_shape(size), fill_value), dtype or D.DEFAULT_FOR_KIND[kind])


def ones(shape, dtype=None):
    return full(shape, 1, dtype=dtype or D.float32)


def zeros(size, dtype=None):
    return full(size, 0, dtype=dtype or D.float32)


def full_like(input, fill_value, *, dtype=None):
    x = operand("FullLike", input)
    return full(x.shape, fill_value, dtype=dtype or x.dtype)


def ones_like(input, *, dtype=None):
    return full_like(input, 1, dtype=dtype)


def zeros_like(input, *, dtype=None):
    return full_like(input, 0, dtype=dtype)

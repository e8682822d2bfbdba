"""Element-wise gathers and scatters, masked fills and the value-dependent selections
(re-exported by ``array_ops``).

A dim-wise op (``gather_elements``, ``scatter``) turns its index tensor into flat positions of
the input (index * stride of ``dim`` + the constant offset of every other coordinate): a gather
is then one Gather of the flattened input and a scatter ``indexing.scatter_flat``.
``masked_select``, ``nonzero`` and ``unique`` have value-dependent shapes: eager only.
"""
import numpy as np

from .. import dtype as D
from ..core import Tracer, bind
from ..parameter import Parameter
from . import prims as P
from .functional import reshape_if_needed as reshape, where
from .index_update import positions, scatter_flat
from .indexing import getitem
from .operands import assign, convert, is_tensor, normalize_axes, operand

__all__ = ["gather_elements", "gather_d", "scatter", "scatter_add", "tensor_scatter_update",
           "tensor_scatter_add", "masked_fill", "index_fill", "index_add", "select_scatter", "slice_scatter",
           "inplace_update", "masked_select", "nonzero", "argwhere", "unique"]


def _int_index(name, index):
    if not is_tensor(index):
        index = np.asarray(index)
        if index.dtype.kind not in "iu":
            raise TypeError(f"{name}: index must be integers, got {index.dtype}")
        return index.astype(np.int64)
    if index.dtype not in (D.int32, D.int64):
        raise TypeError(f"{name}: index must be an int32 or int64 tensor, got {index.dtype}")
    return index


def _dim_positions(name, x, dim, index):
    """Flat positions in ``x`` of ``x[..., index[i...], ...]`` along ``dim`` (dim-wise indexing)."""
    index = _int_index(name, index)
    if len(index.shape) != x.ndim:
        raise ValueError(f"{name}: index of shape {tuple(index.shape)} must have the rank of the input "
                         f"of shape {x.shape}")
    d = normalize_axes(name, dim, x.ndim)[0] if x.ndim else 0
    if any(i > s for a, (i, s) in enumerate(zip(index.shape, x.shape)) if a != d):
        raise ValueError(f"{name}: index of shape {tuple(index.shape)} is larger than the input of "
                         f"shape {x.shape} outside dim {d}")
    strides = np.cumprod((x.shape[1:] + (1,))[::-1])[::-1].astype(np.int64)
    grid = np.indices(tuple(index.shape), np.int64)
    offset = sum(grid[a] * strides[a] for a in range(x.ndim) if a != d) + np.zeros(index.shape, np.int64)
    n = x.shape[d]
    if type(index) is Tracer:
        index = convert(index, D.int64)
        index = bind(P.Select, bind(P.Less, index, np.zeros((), np.int64)),
                     bind(P.Add, index, np.asarray(n, np.int64)), index)
        return bind(P.Add, bind(P.Mul, index, np.asarray(strides[d], np.int64)), offset)
    index = index._array if is_tensor(index) else index
    if index.size and (index.min() < -n or index.max() >= n):
        raise IndexError(f"{name}: index {index[(index < -n) | (index >= n)].flat[0]} is out of range "
                         f"for dim {d} of size {n}")
    return np.where(index < 0, index + n, index) * strides[d] + offset


def gather_elements(input, dim, index):
    """``out[i][j] = input[index[i][j]][j]`` for dim 0 (and so on): numpy take_along_axis."""
    x = operand("GatherD", input)
    pos = _dim_positions("GatherD", x, dim, index)
    return bind(P.Gather, reshape(x, (-1,)), pos, axis=0)


def gather_d(x, dim, index):
    return gather_elements(x, dim, index)


def _dim_scatter(name, input, axis, index, src, add):
    x = operand(name, input)
    pos = _dim_positions(name, x, axis, index)
    if is_tensor(src) and src.ndim and src.shape != tuple(pos.shape):
        src = getitem(src, tuple(np.s_[:n] for n in pos.shape))   # src may be larger than index
    return scatter_flat(x, pos, src, add)


def scatter(input, axis, index, src):
    """``input`` with ``out[index[i][j]][j] = src[i][j]`` for axis 0 (and so on)."""
    return _dim_scatter("Scatter", input, axis, index, src, add=False)


def scatter_add(input_x, indices, updates):
    """``input_x[indices[i...]] += updates[i...]`` along axis 0 (repeated indices add up). A
    Parameter is updated (assign) and returned, as MindSpore's ScatterAdd does."""
    x = operand("ScatterAdd", input_x)
    new = scatter_flat(x, positions(x, _int_index("ScatterAdd", indices)), updates, add=True)
    return assign(x, new) if isinstance(x, Parameter) else new


def _nd_positions(name, x, indices):
    """Flat positions of ``x[indices[..., 0], ..., indices[..., k-1]]`` (k = indices.shape[-1])."""
    idx = _int_index(name, indices)
    k = idx.shape[-1] if len(idx.shape) else 0
    if not len(idx.shape) or k > x.ndim:
        raise ValueError(f"{name}: indices of shape {tuple(idx.shape)} need a last axis of at most "
                         f"rank {x.ndim} entries")
    cols = tuple(getitem(idx, (Ellipsis, j)) if is_tensor(idx) else idx[..., j] for j in range(k))
    return positions(x, cols)


def tensor_scatter_update(input_x, indices, updates):
    """``input_x`` with ``input_x[indices[i, :]] = updates[i]`` (the last index axis addresses
    the leading dims)."""
    x = operand("TensorScatterUpdate", input_x)
    return scatter_flat(x, _nd_positions("TensorScatterUpdate", x, indices), updates)


def tensor_scatter_add(input_x, indices, updates):
    """``input_x`` with ``updates[i]`` added at ``indices[i, :]`` (repeated indices add up)."""
    x = operand("TensorScatterAdd", input_x)
    return scatter_flat(x, _nd_positions("TensorScatterAdd", x, indices), updates, add=True)


def masked_fill(input_x, mask, value):
    """``value`` where ``mask`` (broadcast) is True, else ``input_x``; keeps the input dtype."""
    x = operand("MaskedFill", input_x)
    m = operand("MaskedFill", mask)
    if m.dtype is not D.bool_:
        raise TypeError(f"MaskedFill: mask must be a bool tensor, got {m.dtype}")
    v = convert(value, x.dtype) if is_tensor(value) else np.asarray(value, x.dtype.np)
    return where(m, v, x)


def index_fill(x, axis, index, value):
    """``value`` at the entries ``index`` of ``axis``, elsewhere ``x``."""
    x = operand("IndexFill", x)
    a = normalize_axes("IndexFill", axis, x.ndim)[0] if x.ndim else 0
    idx = reshape(operand("IndexFill", _int_index("IndexFill", index)), (-1, 1))
    n = x.shape[a] if x.ndim else 1
    hot = bind(P.Equal, convert(idx, D.int64), np.arange(n, dtype=np.int64).reshape(1, n))
    hit = bind(P.ReduceMax, bind(P.Cast, hot, to=D.int32), axes=(0,), keep_dims=False)
    mask = bind(P.Greater, hit, np.zeros((), np.int32))
    mask = reshape(mask, tuple(n if i == a else 1 for i in range(x.ndim)))
    return masked_fill(x, mask, value)


def _along(axis, ndim, index):
    """The index tuple that selects ``index`` on ``axis`` (whole other axes)."""
    return (np.s_[:],) * axis + (index,)


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """``x`` with ``y``'s slices added at the entries ``indices`` of ``axis`` (repeats add up)."""
    x = operand("IndexAdd", x)
    a = normalize_axes("IndexAdd", axis, x.ndim)[0]
    return scatter_flat(x, positions(x, _along(a, x.ndim, _int_index("IndexAdd", indices))), y, add=True)


def select_scatter(input, src, axis, index):
    """``input`` with ``src`` written at entry ``index`` of ``axis``."""
    x = operand("SelectScatter", input)
    a = normalize_axes("SelectScatter", axis, x.ndim)[0]
    return scatter_flat(x, positions(x, _along(a, x.ndim, int(index))), src)


def slice_scatter(input, src, axis=0, start=None, end=None, step=1):
    """``input`` with ``src`` written at ``start:end:step`` of ``axis``."""
    x = operand("SliceScatter", input)
    a = normalize_axes("SliceScatter", axis, x.ndim)[0]
    return scatter_flat(x, positions(x, _along(a, x.ndim, np.s_[start:end:step])), src)


def inplace_update(x, v, indices):
    """``x`` with rows ``indices`` (axis 0) replaced by ``v``'s rows."""
    x = operand("InplaceUpdate", x)
    idx = [int(indices)] if isinstance(indices, (int, np.integer)) else _int_index("InplaceUpdate", indices)
    return scatter_flat(x, positions(x, idx), v)


def _eager(name, *xs):
    for x in xs:
        if type(x) is Tracer:
            x._concrete(f"{name} (its result shape depends on the values)")
    return [operand(name, x).asnumpy() for x in xs]


def masked_select(input, mask):
    """The entries of ``input`` where ``mask`` (broadcast) is True, as a 1-D tensor. Eager only."""
    x, m = _eager("MaskedSelect", input, mask)
    shape = np.broadcast_shapes(x.shape, m.shape)
    return getitem(operand("MaskedSelect", input) if x.shape == shape else np.broadcast_to(x, shape).copy(),
                   np.broadcast_to(m.astype(bool), shape).copy())


def nonzero(input, *, as_tuple=False):
    """Indices of the nonzero entries: an (n, ndim) int64 tensor, or one 1-D tensor per axis."""
    (x,) = _eager("NonZero", input)
    idx = np.nonzero(x)
    if as_tuple:
        return tuple(operand("NonZero", i.astype(np.int64)) for i in idx)
    return operand("NonZero", np.stack(idx, axis=-1).astype(np.int64).reshape(-1, x.ndim))


def argwhere(input):
    """``nonzero(input)``: the (n, ndim) int64 indices of the nonzero entries. Eager only."""
    return nonzero(input)


def unique(input):
    """``(values, inverse)``: the distinct entries in order of first occurrence and, per input
    entry, its position among them (``input``'s shape; int32 for int32 input, else int64). Eager only."""
    (x,) = _eager("Unique", input)
    _, first, inverse = np.unique(x.reshape(-1), return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return (operand("Unique", x.reshape(-1)[first[order]]),
            operand("Unique", rank[inverse.reshape(-1)].astype(x.dtype if x.dtype == np.int32 else np.int64)
                    .reshape(x.shape)))

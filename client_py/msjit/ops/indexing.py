"""Indexing: ``x[index]`` with numpy semantics, over the core primitives (writing: ``index_update``).

The basic part (ints, slices, None, Ellipsis) is one StridedSlice and a Reshape; advanced
indices (integer tensors, lists, arrays, boolean masks) become one Gather over the advanced
axes flattened into one, its result axes placed where numpy places them. Boolean masks need
values: eager only.
"""
import builtins

import numpy as np

from .. import dtype as D
from ..core import Tracer, bind
from ..tensor import Tensor
from . import prims as P
from .functional import reshape_if_needed as reshape
from .operands import convert, is_tensor, operand

_FULL = builtins.slice(None)


# ---- reading ---------------------------------------------------------------------------------------

def getitem(x, index):
    """``x[index]``: ints, slices, None, Ellipsis, integer tensors/lists/arrays and boolean masks
    (eager) in any position and number, as numpy indexes."""
    x = operand("StridedSlice", x)
    items = _normalize(x, list(index) if type(index) is tuple else [index])
    advanced = any(type(it) is not int and not isinstance(it, builtins.slice) and it is not None
                   for it in items)
    if advanced:   # numpy: with an array index present, ints are advanced indices too
        items = [np.asarray(it, np.int64) if type(it) is int else it for it in items]
    begin, end, strides, shape, adv, dim = [], [], [], [], [], 0
    for it in items:
        if it is None:
            shape.append(1)
            continue
        d = x.shape[dim]
        if isinstance(it, builtins.slice):
            b, e, s = it.indices(d)
            e = max(e, b) if s > 0 else min(e, b)
            begin.append(b), end.append(e), strides.append(s)
            shape.append(len(range(b, e, s)))
        elif type(it) is int:
            if not -d <= it < d:
                raise IndexError(f"StridedSlice: index {it} is out of range for axis {dim} of shape {x.shape}")
            begin.append(it % d), end.append(it % d + 1), strides.append(1)
        else:
            begin.append(0), end.append(d), strides.append(1)
            adv.append((len(shape), _bounded(it, d, dim, x.shape)))
            shape.append(d)
        dim += 1
    if begin != [0] * x.ndim or end != list(x.shape) or strides != [1] * x.ndim:
        x = bind(P.StridedSlice, x, begin=tuple(begin), end=tuple(end), strides=tuple(strides))
    x = reshape(x, tuple(shape))
    return _gather_advanced(x, adv) if adv else x


def _normalize(x, items):
    """The index items with Ellipsis expanded, masks turned into integer arrays and every other
    item one of: int, slice, None, an int64 numpy array, an integer Tracer."""
    out, ellipsis = [], None
    for it in items:
        if it is None or isinstance(it, builtins.slice):
            out.append(it)
        elif it is Ellipsis:
            if ellipsis is not None:
                raise IndexError("StridedSlice: an index can only have a single ellipsis ('...')")
            ellipsis = len(out)
        elif isinstance(it, (bool, np.bool_)):
            raise IndexError(f"StridedSlice: a Python bool is not a valid index (shape {x.shape})")
        elif isinstance(it, (int, np.integer)):
            out.append(int(it))
        else:
            out.extend(_array_index(it, x.shape))
    used = sum(1 if it is not None else 0 for it in out) + \
        sum(a.ndim - 1 for a in out if isinstance(a, _Mask))
    if used > x.ndim:
        raise IndexError(f"StridedSlice: too many indices ({used}) for a tensor of shape {x.shape}")
    fill = [_FULL] * (x.ndim - used)
    out = fill + out if ellipsis == 0 else (out[:ellipsis] + fill + out[ellipsis:] if ellipsis else out + fill)
    if not any(isinstance(a, _Mask) for a in out):
        return out
    expanded, dim = [], 0
    for it in out:   # a k-d mask stands for the k integer arrays of its nonzero()
        if isinstance(it, _Mask):
            if it.shape != x.shape[dim:dim + it.ndim]:
                raise IndexError(f"StridedSlice: boolean index of shape {it.shape} does not match the "
                                 f"indexed dims {x.shape[dim:dim + it.ndim]} of shape {x.shape}")
            expanded.extend(np.nonzero(it))
            dim += it.ndim
        else:
            expanded.append(it)
            dim += it is not None
    return expanded


class _Mask(np.ndarray):
    """A boolean index (kept apart from integer arrays until Ellipsis is placed)."""


def _array_index(it, shape):
    """One tensor/list/array index item as a list of normalized items (a mask: one _Mask)."""
    if type(it) is Tracer:
        if it.dtype is D.bool_:
            it._concrete("boolean mask indexing (its result shape depends on the mask's values)")
        if it.dtype not in (D.int32, D.int64):
            raise IndexError(f"StridedSlice: tensor indices must be integers or booleans, got {it.dtype}")
        return [it]
    a = np.asarray(it._array if isinstance(it, Tensor) else it)
    if a.dtype == bool:
        return [a.view(_Mask)]
    if a.size == 0 and a.dtype.kind == "f":
        a = a.astype(np.int64)
    if a.dtype.kind not in "iuf":
        raise TypeError(f"StridedSlice: unsupported index of type {type(it).__name__} (shape {shape})")
    if a.dtype.kind not in "iu":
        raise IndexError(f"StridedSlice: tensor indices must be integers or booleans, got {a.dtype} "
                         f"(shape {shape})")
    return [a.astype(np.int64)]


def _bounded(idx, d, axis, shape):
    """An index array with negative entries wrapped (IndexError when out of range)."""
    if type(idx) is Tracer:
        return bind(P.Select, bind(P.Less, idx, np.zeros((), idx.dtype.np)),
                    bind(P.Add, idx, np.asarray(d, idx.dtype.np)), idx)
    if idx.size and (idx.min() < -d or idx.max() >= d):
        bad = idx[(idx < -d) | (idx >= d)].flat[0]
        raise IndexError(f"StridedSlice: index {bad} is out of range for axis {axis} of shape {shape}")
    return np.where(idx < 0, idx + d, idx)


def _gather_advanced(x, adv):
    """Gather ``x`` at the advanced indices ``[(axis, index array), ...]``: numpy places the
    broadcast index shape at the first advanced axis when they are adjacent, else in front."""
    if len(adv) == 1:
        axis, idx = adv[0]
        return bind(P.Gather, x, idx, axis=axis)
    axes = [a for a, _ in adv]
    rest = [a for a in range(x.ndim) if a not in axes]
    if axes != list(range(len(axes))):
        x = bind(P.Transpose, x, perm=tuple(axes + rest))
    sizes = [x.shape[i] for i in range(len(axes))]
    x = reshape(x, (-1,) + x.shape[len(axes):])
    bshape = np.broadcast_shapes(*(i.shape for _, i in adv))
    flat, stride = None, 1
    for size, (_, idx) in reversed(list(zip(sizes, adv))):
        term = idx * stride if type(idx) is not Tracer else bind(P.Mul, idx, np.asarray(stride, idx.dtype.np))
        if flat is None:
            flat = term
        elif type(flat) is Tracer or type(term) is Tracer:
            flat, term = (convert(v, D.int64) if is_tensor(v) else np.asarray(v, np.int64) for v in (flat, term))
            flat = bind(P.Add, *_broadcast_pair(flat, term))
        else:
            flat = flat + term
        stride *= size
    if type(flat) is Tracer:
        if flat.shape != bshape:
            flat = bind(P.BroadcastTo, flat, shape=bshape)
    else:
        flat = np.broadcast_to(flat, bshape).copy()
    out = bind(P.Gather, x, flat, axis=0)
    first, nb = axes[0], len(bshape)
    if axes == list(range(first, first + len(axes))) and first:
        perm = list(range(nb, nb + first)) + list(range(nb)) + list(range(nb + first, out.ndim))
        out = bind(P.Transpose, out, perm=tuple(perm))
    return out


def _broadcast_pair(a, b):
    shape = np.broadcast_shapes(a.shape, b.shape)
    return tuple(v if v.shape == shape else (bind(P.BroadcastTo, v, shape=shape) if is_tensor(v)
                                             else np.broadcast_to(v, shape).copy()) for v in (a, b))

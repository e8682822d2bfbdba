"""Indexing: ``x[index]`` and ``x[index] = value`` with numpy semantics, over the core primitives.

Reading: the basic part (ints, slices, None, Ellipsis) is one StridedSlice and a Reshape;
advanced indices (integer tensors, lists, arrays, boolean masks) become one Gather over the
advanced axes flattened into one, its result axes placed where numpy places them.

Writing: the flat positions ``x[index]`` reads are found by indexing an arange of ``x``'s shape
with the same index. Known positions (constants, eager tensors) give a Select over a constant
mask of a Gather of the values; positions that are a tensor under capture give a one-hot
scatter (Equal against an arange, Select, ReduceSum). Boolean masks need values: eager only.
"""
import builtins

import numpy as np

from .. import dtype as D
from ..core import TAPES, Tracer, bind, current_builder
from ..errors import ConcreteValueNeeded
from ..parameter import Parameter
from ..tensor import Tensor
from . import prims as P
from .functional import reshape_if_needed as reshape
from .operands import assign, convert, is_tensor, operand

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


# ---- writing ---------------------------------------------------------------------------------------

def positions(x, index):
    """The flat positions of ``x`` that ``x[index]`` reads (numpy int64, or a Tracer under capture
    when the index holds one)."""
    size = 1
    for d in x.shape:
        size *= d
    pos = getitem(Tensor._wrap(np.arange(size, dtype=np.int64).reshape(x.shape)), index)
    return pos if type(pos) is Tracer else pos._array


def scatter_flat(x, pos, value, add=False):
    """``x`` with ``value`` (broadcast to ``pos``'s shape, cast to ``x``'s dtype) written at (or,
    ``add``, added to) its flat positions ``pos``; a repeated position takes its last value
    (``add``: the sum of them)."""
    x = operand("TensorScatterUpdate", x)
    v = convert(value, x.dtype) if is_tensor(value) else np.asarray(value, x.dtype.np)
    if v.ndim > len(pos.shape):   # numpy drops leading size-1 axes of the value
        extra = v.ndim - len(pos.shape)
        if any(d != 1 for d in v.shape[:extra]):
            raise ValueError(f"setitem: cannot broadcast a value of shape {v.shape} to the indexed "
                             f"shape {tuple(pos.shape)}")
        v = reshape(v, v.shape[extra:]) if is_tensor(v) else v.reshape(v.shape[extra:])
    try:
        shape = np.broadcast_shapes(v.shape, tuple(pos.shape))
    except ValueError:
        shape = None
    if shape != tuple(pos.shape):
        raise ValueError(f"setitem: cannot broadcast a value of shape {v.shape} to the indexed shape "
                         f"{tuple(pos.shape)}")
    k = int(np.prod(pos.shape))
    if k == 0:
        return x
    n = int(np.prod(x.shape))
    flat = reshape(x, (n,))
    v = bind(P.BroadcastTo, v, shape=shape) if v.shape != shape else v
    v = reshape(v, (k,)) if is_tensor(v) else v.reshape(k)
    pos = reshape(pos, (k,)) if type(pos) is Tracer else pos.reshape(k)
    if type(pos) is Tracer:
        new = _one_hot_scatter(flat, pos, v, add)
    elif not add and k == n and (pos == np.arange(n)).all():   # every entry, in order: just the value
        new = v if is_tensor(v) else Tensor._wrap(v.copy())
    elif add:
        new = _add_at(flat, pos, v if is_tensor(v) else Tensor._wrap(v))
    else:
        new = _write_at(flat, pos, v if is_tensor(v) else Tensor._wrap(v), np.arange(k), False)
    return reshape(new, x.shape)


def _write_at(flat, pos, v, rows, add):
    """``flat`` with ``v[rows[i]]`` written at (added to) ``pos[i]``: a Gather of ``v`` and a Select
    over the constant mask of ``pos`` (a repeated position keeps its last row)."""
    n = flat.shape[0]
    mask = np.zeros(n, bool)
    mask[pos] = True
    src = np.zeros(n, np.int64)
    src[pos] = rows
    picked = bind(P.Gather, v, src, axis=0)
    return bind(P.Select, mask, bind(P.Add, flat, picked) if add else picked, flat)


def _add_at(flat, pos, v):
    """``flat`` with ``v[i]`` added at the known positions ``pos[i]``, repeats summed: in rounds
    of distinct positions (the r-th occurrence of each) or, when a position repeats more often
    than that is worth, by first summing ``v`` per distinct position with a one-hot."""
    k, n = pos.shape[0], flat.shape[0]
    order = np.argsort(pos, kind="stable")
    ranked = pos[order]
    group_start = np.flatnonzero(np.concatenate([[True], ranked[1:] != ranked[:-1]]))
    occurrence = np.empty(k, np.int64)
    occurrence[order] = np.arange(k) - np.repeat(group_start, np.diff(np.append(group_start, k)))
    rounds, distinct = int(occurrence.max()) + 1, len(group_start)
    if rounds * n <= k * distinct:
        for r in range(rounds):
            rows = np.flatnonzero(occurrence == r)
            flat = _write_at(flat, pos[rows], v, rows, True)
        return flat
    inverse = np.repeat(np.arange(distinct), np.diff(np.append(group_start, k)))[np.argsort(order)]
    sums = _sum_rows(inverse[:, None] == np.arange(distinct)[None, :], v, flat.dtype)
    return _write_at(flat, ranked[group_start], sums, np.arange(distinct), True)


def _sum_rows(hot, v, dt):
    """``sum_k hot[k, :] * v[k]`` for a (K, N) boolean ``hot`` (Select + ReduceSum)."""
    work = dt if dt is not D.bool_ else D.int32
    v = convert(v, work) if is_tensor(v) else np.asarray(v, work.np)
    rows = bind(P.BroadcastTo, reshape(v, (-1, 1)) if is_tensor(v) else v.reshape(-1, 1), shape=tuple(hot.shape))
    out = bind(P.ReduceSum, bind(P.Select, hot, rows, np.zeros((), work.np)), axes=(0,), keep_dims=False)
    return convert(out, dt)


def _one_hot_scatter(flat, pos, v, add):
    """The scatter of ``v`` at the tensor ``pos`` into ``flat``: a (K, N) one-hot of ``pos``;
    without ``add`` a row is dropped when a later row hits the same position (last one wins)."""
    k, n = pos.shape[0], flat.shape[0]
    pos = convert(pos, D.int64)
    hot = bind(P.Equal, reshape(pos, (k, 1)), np.arange(n, dtype=np.int64).reshape(1, n))
    if add:
        return bind(P.Add, flat, _sum_rows(hot, v, flat.dtype))
    later = bind(P.LogicalAnd, bind(P.Equal, reshape(pos, (k, 1)), reshape(pos, (1, k))),
                 np.triu(np.ones((k, k), bool), 1))
    shadowed = bind(P.ReduceMax, bind(P.Cast, later, to=D.int32), axes=(1,), keep_dims=True)
    hot = bind(P.LogicalAnd, hot, bind(P.Equal, shadowed, np.zeros((), np.int32)))
    hit = bind(P.ReduceMax, bind(P.Cast, hot, to=D.int32), axes=(0,), keep_dims=False)
    return bind(P.Select, bind(P.Greater, hit, np.zeros((), np.int32)), _sum_rows(hot, v, flat.dtype), flat)


def updated(x, index, value):
    """``x`` with ``x[index] = value`` applied, as a new tensor (the functional setitem)."""
    x = operand("setitem", x)
    return scatter_flat(x, positions(x, index), value)


def setitem(x, index, value):
    """``x[index] = value`` in place, as ``x.__setitem__``.

    Eager: the array is written in place (a Parameter's version is bumped, as by set_data).
    Under capture: a Tracer is rebound to the updated value's node, so later reads of the same
    Python object see it; a Parameter's update becomes an ``assign``.
    """
    if type(x) is Tracer:
        new = updated(x, index, value)
        if type(new) is not Tracer:   # the whole tensor replaced by a constant
            new = (current_builder() or x.builder).lift(new)
        x.builder, x.name, x.aval = new.builder, new.name, new.aval
    elif type(value) is Tracer or current_builder() is not None and (
            isinstance(x, Parameter) or _holds_tracer(index)):
        if not isinstance(x, Parameter):
            raise ConcreteValueNeeded(*_where(), "writing a value computed under capture into a "
                                      "constant tensor (build it with ops instead, e.g. ops.concat or "
                                      "ops.where, or make it a Parameter)", None)
        assign(x, updated(x, index, value))
    elif TAPES and _on_tape(x, value):
        _rebind_on_tapes(x, updated(x, index, value))
    else:
        _write_in_place(x, index, value)


def _holds_tracer(index):
    items = index if type(index) is tuple else (index,)
    return any(type(it) is Tracer for it in items)


def _where():
    builder = current_builder()
    loc = builder.current_location() if builder is not None else None
    return loc or ("<unknown>", 0)


def _write_in_place(x, index, value):
    items = index if type(index) is tuple else (index,)
    np_index = tuple(it._array if isinstance(it, Tensor) else it for it in items)
    v = value._array if isinstance(value, Tensor) else value
    array = x._array
    if not isinstance(x, Parameter) and not array.flags.owndata:
        array = x._array = array.copy()   # a view: writing through it would change another tensor
    try:
        array[np_index if type(index) is tuple else np_index[0]] = np.asarray(v).astype(array.dtype, copy=False)
    except IndexError as e:
        raise IndexError(f"setitem: {e} (shape {x.shape})") from None
    except ValueError as e:
        raise ValueError(f"setitem: {e} (shape {x.shape})") from None
    if isinstance(x, Parameter):
        x._version += 1


def _on_tape(x, value):
    """Whether a tape depends on ``x`` or ``value``, or recorded a read of Parameter ``x``."""
    if any(id(x) in t.live or id(value) in t.live for t in TAPES):
        return True
    return isinstance(x, Parameter) and any(p is x for t in TAPES for e in t.entries for p, _ in e[4])


def _rebind_on_tapes(x, new):
    """Eager in-place update of ``x`` while tapes record: ``x`` takes ``new``'s value and place
    on the tapes, and what the tapes recorded reading ``x`` before now reads a snapshot of it.
    A Parameter keeps its array (updated in place, its version bumped)."""
    param = isinstance(x, Parameter)
    old = Tensor._wrap(x._array.copy() if param else x._array)
    for tape in TAPES:
        live = tape.live
        if id(x) in live:
            live[id(old)] = old
        tape.entries = [(prim, tuple(old if o is x else o for o in ops), attrs,
                         x if out is new else (old if out is x else out),
                         tuple((p, v) for p, v in versions if p is not x))
                        for prim, ops, attrs, out, versions in tape.entries]
        if live.pop(id(new), None) is not None:
            live[id(x)] = x
        else:
            live.pop(id(x), None)
    if param:
        np.copyto(x._array, new._array)
        x._version += 1
    else:
        x._array = new._array

"""``x[index] = value`` and the scatters, with numpy semantics, over the core primitives.

The flat positions ``x[index]`` reads are found by indexing an arange of ``x``'s shape with the
same index (``positions``). Known positions (constants, eager tensors) give a Select over a
constant mask of a Gather of the values; positions that are a tensor under capture give a
one-hot scatter (Equal against an arange, Select, ReduceSum), by rows when the tensor indexes
the leading axis. Eager writes go to the array in place; under capture a Tracer is rebound to
the updated value and a Parameter assigned.
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
from .indexing import _FULL, _bounded, getitem
from .operands import assign, convert, is_tensor, operand


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
    k = int(np.prod(pos.shape))
    if k == 0:
        return x
    n = int(np.prod(x.shape))
    flat = reshape(x, (n,))
    v = _value_as(x.dtype, value, tuple(pos.shape), (k,))
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


def _value_as(dt, value, shape, flat_shape):
    """``value`` cast to ``dt``, broadcast to the indexed ``shape`` (numpy's rule: leading size-1
    axes of the value may be dropped), reshaped to ``flat_shape``."""
    v = convert(value, dt) if is_tensor(value) else np.asarray(value, dt.np)
    if v.ndim > len(shape) and all(d == 1 for d in v.shape[:v.ndim - len(shape)]):
        v = reshape(v, v.shape[v.ndim - len(shape):]) if is_tensor(v) else v.reshape(v.shape[v.ndim - len(shape):])
    try:
        ok = np.broadcast_shapes(v.shape, shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"setitem: cannot broadcast a value of shape {v.shape} to the indexed shape {shape}")
    v = bind(P.BroadcastTo, v, shape=shape) if v.shape != shape else v
    return reshape(v, flat_shape) if is_tensor(v) else v.reshape(flat_shape)


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
    """The scatter of ``v`` at the tensor ``pos`` into ``flat``: a (K, N) one-hot of ``pos``."""
    k, n = pos.shape[0], flat.shape[0]
    pos = convert(pos, D.int64)
    hot = bind(P.Equal, reshape(pos, (k, 1)), np.arange(n, dtype=np.int64).reshape(1, n))
    if add:
        return bind(P.Add, flat, _sum_rows(hot, v, flat.dtype))
    hot = _last_wins(hot, pos)
    return bind(P.Select, _any_row(hot), _sum_rows(hot, v, flat.dtype), flat)


def _last_wins(hot, pos):
    """The (K, N) one-hot ``hot`` of ``pos`` without the rows a later row hits again."""
    k = pos.shape[0]
    later = bind(P.LogicalAnd, bind(P.Equal, reshape(pos, (k, 1)), reshape(pos, (1, k))),
                 np.triu(np.ones((k, k), bool), 1))
    shadowed = bind(P.ReduceMax, bind(P.Cast, later, to=D.int32), axes=(1,), keep_dims=True)
    return bind(P.LogicalAnd, hot, bind(P.Equal, shadowed, np.zeros((), np.int32)))


def _any_row(hot):
    """Which columns of the (K, N) boolean ``hot`` have a True."""
    hit = bind(P.ReduceMax, bind(P.Cast, hot, to=D.int32), axes=(0,), keep_dims=False)
    return bind(P.Greater, hit, np.zeros((), np.int32))


def _scatter_rows(x, idx, value):
    """``x[idx] = value`` for a tensor ``idx`` of leading-axis entries: a (K, rows) one-hot
    (a MatMul for floats) instead of one over every element."""
    r, d, k = x.shape[0], int(np.prod(x.shape[1:])), int(np.prod(idx.shape))
    v = _value_as(x.dtype, value, tuple(idx.shape) + x.shape[1:], (k, d))
    idx = _bounded(convert(reshape(idx, (k,)), D.int64), r, 0, x.shape)
    hot = _last_wins(bind(P.Equal, reshape(idx, (k, 1)), np.arange(r, dtype=np.int64).reshape(1, r)), idx)
    if x.dtype.is_floating:
        rows = bind(P.MatMul, bind(P.Cast, hot, to=x.dtype), v, transpose_a=True)
    else:
        pick = bind(P.BroadcastTo, reshape(hot, (k, r, 1)), shape=(k, r, d))
        v = convert(v, D.int32) if x.dtype is D.bool_ else v
        spread = bind(P.BroadcastTo, reshape(v, (k, 1, d)), shape=(k, r, d))
        rows = convert(bind(P.ReduceSum, bind(P.Select, pick, spread, np.zeros((), spread.dtype.np)), axes=(0,),
                            keep_dims=False), x.dtype)
    hit = bind(P.BroadcastTo, reshape(_any_row(hot), (r, 1)), shape=(r, d))
    return reshape(bind(P.Select, hit, rows, reshape(x, (r, d))), x.shape)


def _row_index(x, index):
    """The tensor ``idx`` when ``index`` is ``idx``, ``(idx, ...)`` or ``(idx, :, ...)`` with ``idx``
    an integer Tracer, else None."""
    items = index if type(index) is tuple else (index,)
    if not items or type(items[0]) is not Tracer or items[0].dtype not in (D.int32, D.int64) or not x.ndim:
        return None
    full = all(it is Ellipsis or isinstance(it, builtins.slice) and it == _FULL for it in items[1:])
    return items[0] if full else None


def updated(x, index, value):
    """``x`` with ``x[index] = value`` applied, as a new tensor (the functional setitem)."""
    x = operand("setitem", x)
    idx = _row_index(x, index)
    return scatter_flat(x, positions(x, index), value) if idx is None else _scatter_rows(x, idx, value)


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

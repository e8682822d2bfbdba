"""Reverse-mode rules: ``RULES[prim_name](dout, out, *operands, **attrs)`` -> one gradient per
operand (None for operands that take none: conditions, indices).

Rules are written with primitives through ``bind``, so they run eagerly on the numpy kernels
and are themselves recorded by an outer tape (higher-order gradients). Each returned gradient
has its operand's shape and dtype. Choices the daemon's autodiff pass makes the same way:

- Maximum / Minimum: where x == y the whole gradient goes to x (x >= y picks x for Maximum,
  x <= y for Minimum); y gets the rest.
- ReduceMax / ReduceMin: the gradient is split evenly between all positions equal to the
  result (ties share it). MaxPool follows MaxPoolGrad instead: the first maximum of a window.
- ReLU: gradient where x > 0 (none at 0). Abs: sign(x), 0 at 0.
- Pow: d/dx = y * x^(y-1); d/dy = log(x) * x^y where x > 0, 0 elsewhere.
- Cast: float -> float casts the gradient back; casts from or to other types carry none (the
  tape records only float results, and int/bool values are never watched).
"""
import math

import numpy as np

from ..ops import prims as P
from ..core import bind

RULES = {}
"""{primitive name: rule}. Primitives without an entry have no float result (comparisons,
logical ops), no operands (Constant), or block gradients (StopGradient); MaxPoolGrad has none
(its adjoint in dy, a gather at each window's argmax, is no primitive): backward raises."""


def rule(*names):
    def register(fn):
        for name in names:
            RULES[name] = fn
        return fn
    return register


def const(value, like):
    """A 0-d constant of ``like``'s dtype (an operand of bind)."""
    return np.asarray(value, like.dtype.np)


def zeros(shape, like):
    return np.zeros(shape, like.dtype.np)


def sum_to_shape(g, shape):
    """Sum ``g`` over the axes along which a value of ``shape`` was broadcast to ``g.shape``."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape) if d == 1 and g.shape[lead + i] != 1)
    if axes:
        g = bind(P.ReduceSum, g, axes=axes, keep_dims=True)
    return bind(P.Reshape, g, shape=shape)


def _mul(a, b):
    return bind(P.Mul, a, b)


def _where(cond, a, b):
    return bind(P.Select, cond, a, b)


def _mask(cond, g):
    """``g`` where ``cond``, 0 elsewhere (broadcast to the shape of both)."""
    return _where(cond, g, const(0, g))


# ---- elementwise binary ---------------------------------------------------------------------------

@rule("Add")
def _add(dout, out, x, y):
    return sum_to_shape(dout, x.shape), sum_to_shape(dout, y.shape)


@rule("Sub")
def _sub(dout, out, x, y):
    return sum_to_shape(dout, x.shape), sum_to_shape(bind(P.Neg, dout), y.shape)


@rule("Mul")
def _mul_rule(dout, out, x, y):
    return sum_to_shape(_mul(dout, y), x.shape), sum_to_shape(_mul(dout, x), y.shape)


@rule("Div")
def _div(dout, out, x, y):
    dx = bind(P.Div, dout, y)
    dy = bind(P.Neg, _mul(dx, out))                  # -dout * x / y^2 = -(dout / y) * out
    return sum_to_shape(dx, x.shape), sum_to_shape(dy, y.shape)


@rule("Pow")
def _pow(dout, out, x, y):
    dx = _mul(dout, _mul(y, bind(P.Pow, x, bind(P.Sub, y, const(1, y)))))
    positive = bind(P.Greater, x, const(0, x))
    log_x = bind(P.Log, _where(positive, x, const(1, x)))     # no log of x <= 0 is evaluated
    dy = _mask(positive, _mul(dout, _mul(log_x, out)))
    return sum_to_shape(dx, x.shape), sum_to_shape(dy, y.shape)


def _extremum(prim_to_x):
    def fn(dout, out, x, y):
        to_x = bind(prim_to_x, x, y)
        dx = _mask(to_x, dout)
        dy = _where(to_x, const(0, dout), dout)
        return sum_to_shape(dx, x.shape), sum_to_shape(dy, y.shape)
    return fn


rule("Maximum")(_extremum(P.GreaterEqual))
rule("Minimum")(_extremum(P.LessEqual))


@rule("Select")
def _select(dout, out, cond, x, y):
    return (None, sum_to_shape(_mask(cond, dout), x.shape),
            sum_to_shape(_where(cond, const(0, dout), dout), y.shape))


# ---- elementwise unary ----------------------------------------------------------------------------

@rule("Neg")
def _neg(dout, out, x):
    return (bind(P.Neg, dout),)


@rule("ReLU")
def _relu(dout, out, x):
    return (_mask(bind(P.Greater, x, const(0, x)), dout),)


@rule("Abs")
def _abs(dout, out, x):
    sign = bind(P.Sub, bind(P.Cast, bind(P.Greater, x, const(0, x)), to=x.dtype),
                bind(P.Cast, bind(P.Less, x, const(0, x)), to=x.dtype))
    return (_mul(dout, sign),)


@rule("Exp")
def _exp(dout, out, x):
    return (_mul(dout, out),)


@rule("Log")
def _log(dout, out, x):
    return (bind(P.Div, dout, x),)


@rule("Sqrt")
def _sqrt(dout, out, x):
    return (bind(P.Div, _mul(dout, const(0.5, dout)), out),)


@rule("Rsqrt")
def _rsqrt(dout, out, x):                              # d x^(-1/2) = -1/2 x^(-3/2) = -1/2 out^3
    cube = _mul(_mul(out, out), out)
    return (_mul(dout, _mul(cube, const(-0.5, out))),)


@rule("Sigmoid")
def _sigmoid(dout, out, x):
    return (_mul(dout, _mul(out, bind(P.Sub, const(1, out), out))),)


@rule("Tanh")
def _tanh(dout, out, x):
    return (_mul(dout, bind(P.Sub, const(1, out), _mul(out, out))),)


@rule("Sin")
def _sin(dout, out, x):
    return (_mul(dout, bind(P.Cos, x)),)


@rule("Cos")
def _cos(dout, out, x):
    return (bind(P.Neg, _mul(dout, bind(P.Sin, x))),)


@rule("Erf")
def _erf(dout, out, x):                                # 2 / sqrt(pi) * exp(-x^2)
    e = bind(P.Exp, bind(P.Neg, _mul(x, x)))
    return (_mul(dout, _mul(e, const(2 / math.sqrt(math.pi), x))),)


@rule("Cast")
def _cast(dout, out, x, *, to):
    if not x.dtype.is_floating:
        return (None,)
    return (dout if dout.dtype is x.dtype else bind(P.Cast, dout, to=x.dtype),)


def _triangle_rule(prim):
    def fn(dout, out, x, *, diagonal):
        return (bind(prim, dout, diagonal=diagonal),)
    return fn


rule("Triu")(_triangle_rule(P.Triu))
rule("Tril")(_triangle_rule(P.Tril))


# ---- reductions -----------------------------------------------------------------------------------

def _unreduce(dout, x, axes, keep_dims):
    """``dout`` of a reduction over ``axes`` broadcast back to ``x.shape``."""
    if not keep_dims:
        dout = bind(P.Reshape, dout, shape=P.reduced_shape(x.shape, axes, True))
    return bind(P.BroadcastTo, dout, shape=x.shape)


@rule("ReduceSum")
def _reduce_sum(dout, out, x, *, axes, keep_dims):
    return (_unreduce(dout, x, axes, keep_dims),)


@rule("ReduceMean")
def _reduce_mean(dout, out, x, *, axes, keep_dims):
    count = math.prod(x.shape[a] for a in (axes or range(x.ndim)))
    return (_mul(_unreduce(dout, x, axes, keep_dims), const(1 / max(count, 1), dout)),)


def _reduce_extremum(dout, out, x, *, axes, keep_dims):
    """Ties split the gradient evenly: dout * (x == out) / count(x == out)."""
    hit = bind(P.Cast, bind(P.Equal, x, _unreduce(out, x, axes, keep_dims)), to=x.dtype)
    count = bind(P.ReduceSum, hit, axes=axes, keep_dims=True)
    share = bind(P.Div, _unreduce(dout, x, axes, keep_dims), bind(P.BroadcastTo, count, shape=x.shape))
    return (_mul(share, hit),)


rule("ReduceMax", "ReduceMin")(_reduce_extremum)


# ---- linear algebra and windows -------------------------------------------------------------------

@rule("MatMul")
def _matmul(dout, out, x, y, *, transpose_a=False, transpose_b=False):
    def mm(a, b, ta=False, tb=False):
        return bind(P.MatMul, a, b, **{k: True for k, v in (("transpose_a", ta), ("transpose_b", tb)) if v})
    if not transpose_a and not transpose_b:
        return mm(dout, y, tb=True), mm(x, dout, ta=True)
    if not transpose_a:                                # out = x y^T
        return mm(dout, y), mm(dout, x, ta=True)
    if not transpose_b:                                # out = x^T y
        return mm(y, dout, tb=True), mm(x, dout)
    return mm(y, dout, ta=True, tb=True), mm(dout, x, ta=True, tb=True)   # out = x^T y^T



@rule("Conv2D")
def _conv2d(dout, out, x, w, *, stride, dilation, pad, group):
    attrs = dict(stride=stride, dilation=dilation, pad=pad, group=group)
    return (bind(P.Conv2DBackpropInput, dout, w, input_shape=tuple(x.shape), **attrs),
            bind(P.Conv2DBackpropFilter, dout, x, filter_shape=tuple(w.shape), **attrs))


@rule("MaxPool")
def _max_pool(dout, out, x, *, kernel, stride, pad):
    return (bind(P.MaxPoolGrad, x, dout, kernel=kernel, stride=stride, pad=pad),)


@rule("AvgPool")
def _avg_pool(dout, out, x, *, kernel, stride, pad, count_include_pad):
    return (bind(P.AvgPoolGrad, dout, kernel=kernel, stride=stride, pad=pad,
                 count_include_pad=count_include_pad, input_shape=tuple(x.shape)),)


# The gradient primitives are linear in dy (and the conv ones in w / x): their adjoints are the
# forward op and the other gradient primitive, which gives second derivatives through them.

@rule("Conv2DBackpropInput")
def _conv2d_backprop_input(dout, out, dy, w, *, input_shape, **attrs):
    return (bind(P.Conv2D, dout, w, **attrs),
            bind(P.Conv2DBackpropFilter, dy, dout, filter_shape=tuple(w.shape), **attrs))


@rule("Conv2DBackpropFilter")
def _conv2d_backprop_filter(dout, out, dy, x, *, filter_shape, **attrs):
    return (bind(P.Conv2D, x, dout, **attrs),
            bind(P.Conv2DBackpropInput, dy, dout, input_shape=tuple(x.shape), **attrs))


@rule("AvgPoolGrad")
def _avg_pool_grad(dout, out, dy, *, input_shape, **attrs):
    return (bind(P.AvgPool, dout, **attrs),)


# ---- data movement --------------------------------------------------------------------------------

@rule("Reshape")
def _reshape(dout, out, x, *, shape):
    return (bind(P.Reshape, dout, shape=tuple(x.shape)),)


@rule("Transpose")
def _transpose(dout, out, x, *, perm):
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return (bind(P.Transpose, dout, perm=tuple(inverse)),)


@rule("BroadcastTo")
def _broadcast_to(dout, out, x, *, shape):
    return (sum_to_shape(dout, x.shape),)


@rule("Tile")
def _tile(dout, out, x, *, multiples):
    """Output axis i is ``multiples[i]`` copies of input axis i: view it as (m, d) and sum m."""
    if all(m == 1 for m in multiples):
        return (dout,)
    split = tuple(v for m, d in zip(multiples, x.shape) for v in (m, d))
    g = bind(P.Reshape, dout, shape=split)
    g = bind(P.ReduceSum, g, axes=tuple(range(0, len(split), 2)), keep_dims=False)
    return (g,)


def _zeros_tensor(shape, like):
    return bind(P.BroadcastTo, const(0, like), shape=tuple(shape))


def _slice(g, axis, begin, end, stride=1):
    """``g`` sliced along one axis (StridedSlice, other axes whole)."""
    b, e, s = [0] * g.ndim, list(g.shape), [1] * g.ndim
    b[axis], e[axis], s[axis] = begin, end, stride
    return bind(P.StridedSlice, g, begin=tuple(b), end=tuple(e), strides=tuple(s))


def _unslice_axis(g, axis, size, begin, stride):
    """Scatter ``g``, whose ``axis`` holds the entries begin, begin + stride, ... of an axis of
    length ``size``, back into that axis with zeros elsewhere (Concat of zeros, no Pad)."""
    n = g.shape[axis]
    if stride < 0:                                     # reverse: ascending from the last entry
        g = _slice(g, axis, n - 1, -1, -1)
        begin, stride = begin + (n - 1) * stride, -stride
    if stride > 1:                                     # stride - 1 zeros after each entry
        shape = g.shape
        g = bind(P.Reshape, g, shape=shape[:axis + 1] + (1,) + shape[axis + 1:])
        g = bind(P.Concat, g, zeros(shape[:axis + 1] + (stride - 1,) + shape[axis + 1:], g), axis=axis + 1)
        g = bind(P.Reshape, g, shape=shape[:axis] + (n * stride,) + shape[axis + 1:])
        g = _slice(g, axis, 0, (n - 1) * stride + 1)
    after = size - begin - g.shape[axis]
    parts = [zeros(g.shape[:axis] + (k,) + g.shape[axis + 1:], g) for k in (begin, after)]
    if not begin and not after:
        return g
    return bind(P.Concat, *[p for p in (parts[0], g, parts[1]) if p.shape[axis]], axis=axis)


@rule("StridedSlice")
def _strided_slice(dout, out, x, *, begin, end, strides):
    if dout.size == 0:
        return (_zeros_tensor(x.shape, dout),)
    g = dout
    for axis, (d, b, s) in enumerate(zip(x.shape, begin, strides)):
        if g.shape[axis] != d or s != 1:
            g = _unslice_axis(g, axis, d, b, s)
    return (g,)


@rule("Concat")
def _concat(dout, out, *xs, axis):
    grads, start = [], 0
    for x in xs:
        n = x.shape[axis]
        grads.append(dout if n == dout.shape[axis] else _slice(dout, axis, start, start + n))
        start += n
    return tuple(grads)


@rule("Gather")
def _gather(dout, out, params, indices, *, axis):
    """Scatter-add through a one-hot matrix: dparams[j] = sum over k with indices[k] == j of
    dout[k] (duplicated indices accumulate, negative ones wrap), as one MatMul."""
    d = params.shape[axis]
    k = math.prod(indices.shape)
    outer, inner = math.prod(params.shape[:axis]), math.prod(params.shape[axis + 1:])
    wrapped = bind(P.Select, bind(P.Less, indices, const(0, indices)),
                   bind(P.Add, indices, const(d, indices)), indices)
    hot = bind(P.Equal, bind(P.Reshape, wrapped, shape=(k, 1)), np.arange(d, dtype=indices.dtype.np)[None, :])
    hot = bind(P.Cast, hot, to=dout.dtype)                                        # (k, d)
    g = bind(P.Reshape, dout, shape=(outer, k, inner))
    if outer > 1:
        g = bind(P.Transpose, g, perm=(1, 0, 2))
    g = bind(P.MatMul, hot, bind(P.Reshape, g, shape=(k, outer * inner)), transpose_a=True)
    if outer > 1:
        g = bind(P.Transpose, bind(P.Reshape, g, shape=(d, outer, inner)), perm=(1, 0, 2))
    return bind(P.Reshape, g, shape=tuple(params.shape)), None

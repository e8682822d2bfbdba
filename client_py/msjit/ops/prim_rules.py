"""Shape and dtype rules of the windowed NN primitives (Conv2D, MaxPool, AvgPool) and of their
gradient kernels, for the table in ``ops.prims``.

A gradient kernel knows its forward op's operands only partly (the rest are shape attributes),
so its rule runs the forward rule on what it knows, checks dy against that result and returns
the operand it differentiates: the same structure as ir/GradKernelOps.cpp.
"""
import numpy as np

from .. import dtype as D
from ..core import ShapedArray
from . import kernels


def check_dtype(name, dt, allowed):
    """TypeError naming the op unless ``dt`` is in the DTypeSet ``allowed``."""
    if dt not in allowed:
        raise TypeError(f"{name}: expected {allowed.label} operands, got {dt}")


class DTypeSet(frozenset):
    """A named set of dtypes: what an operand accepts, named in errors and in proto/OPS.md."""

    def __new__(cls, label, dtypes):
        self = super().__new__(cls, dtypes)
        self.label = label
        return self


ANY = DTypeSet("any", D.ALL)
NUMERIC = DTypeSet("numeric", D.NUMERIC)
FLOAT = DTypeSet("floating-point", D.FLOATING)
BOOL = DTypeSet("bool", {D.bool_})
INDEX = DTypeSet("int32 or int64", {D.int32, D.int64})
F32 = DTypeSet("float32", {D.float32})  # the vendor kernels' dtype


def _check_window_input(name, x, extra=""):
    check_dtype(name, x.dtype, F32)
    if x.ndim != 4:
        raise ValueError(f"{name}: expected a 4-D input (N, C, H, W){extra}, got shape {x.shape}")


def _check_ints(name, shape, **checks):
    """Each ints attribute has its length and every value is >= its bound: checks are
    ``key=(values, length, lower bound)``."""
    for key, (values, n, lo) in checks.items():
        if len(values) != n or any(v < lo for v in values):
            raise ValueError(f"{name}: {key} must be {n} ints >= {lo}, got {tuple(values)} (input shape {shape})")


def _window_out(name, shape, kernel, stride, dilation, pad, what):
    oh = kernels.window_size(shape[2], kernel[0], stride[0], dilation[0], pad[0], pad[1])
    ow = kernels.window_size(shape[3], kernel[1], stride[1], dilation[1], pad[2], pad[3])
    if oh <= 0 or ow <= 0:
        raise ValueError(f"{name}: {what} {tuple(kernel)} (dilation {tuple(dilation)}) does not fit the "
                         f"input of shape {shape} padded by {tuple(pad)}")
    return oh, ow


def conv2d_out(name, x, w, stride, dilation, pad, group):
    """Conv2D's result for input x and weight w; errors name ``name`` (Conv2D or a gradient)."""
    _check_window_input(name, x, f" and a 4-D weight (O, C/group, KH, KW), weight shape {w.shape}")
    check_dtype(name, w.dtype, F32)
    if w.ndim != 4:
        raise ValueError(f"{name}: expected a 4-D weight (O, C/group, KH, KW), got shape {w.shape} "
                         f"for input shape {x.shape}")
    _check_ints(name, x.shape, stride=(stride, 2, 1), dilation=(dilation, 2, 1), pad=(pad, 4, 0))
    c, o = x.shape[1], w.shape[0]
    if group < 1 or c % group or o % group or w.shape[1] * group != c:
        raise ValueError(f"{name}: input of shape {x.shape} and weight of shape {w.shape} do not match "
                         f"for group={group} (need C == weight.shape[1] * group and O % group == 0)")
    oh, ow = _window_out(name, x.shape, w.shape[2:], stride, dilation, pad, "kernel")
    return ShapedArray((x.shape[0], o, oh, ow), x.dtype)


def conv2d_rule(x, w, *, stride, dilation, pad, group):
    return conv2d_out("Conv2D", x, w, stride, dilation, pad, group)


def pool_out(name, x, kernel, stride, pad):
    """MaxPool's / AvgPool's result for input x; errors name ``name`` (the pool or its gradient)."""
    _check_window_input(name, x)
    _check_ints(name, x.shape, kernel=(kernel, 2, 1), stride=(stride, 2, 1), pad=(pad, 4, 0))
    if max(pad[:2]) >= kernel[0] or max(pad[2:]) >= kernel[1]:
        raise ValueError(f"{name}: padding {tuple(pad)} must be smaller than the kernel {tuple(kernel)} "
                         f"(input shape {x.shape})")
    oh, ow = _window_out(name, x.shape, kernel, stride, (1, 1), pad, "kernel")
    return ShapedArray(x.shape[:2] + (oh, ow), x.dtype)


def max_pool_rule(x, *, kernel, stride, pad):
    return pool_out("MaxPool", x, kernel, stride, pad)


def avg_pool_rule(x, *, kernel, stride, pad, count_include_pad=False):
    return pool_out("AvgPool", x, kernel, stride, pad)


# ---- gradients of the windows: dy has the forward result's shape ----------------------------------

def _shape_attr(name, key, shape, dims):
    """The float32 tensor an ints attribute describes (the forward operand a gradient is for)."""
    shape = tuple(shape)
    if len(shape) != 4 or not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0
                                  for d in shape):
        raise ValueError(f"{name}: {key} must be 4 non-negative ints {dims}, got {shape}")
    return ShapedArray(tuple(int(d) for d in shape), D.float32)


def _check_dy(name, dy, forward, what):
    check_dtype(name, dy.dtype, F32)
    if dy.shape != forward.shape:
        raise ValueError(f"{name}: dy of shape {dy.shape} does not match the result shape {forward.shape} "
                         f"of {what}")


def _check_conv2d_dy(name, dy, x, w, stride, dilation, pad, group):
    forward = conv2d_out(name, x, w, stride, dilation, pad, group)
    _check_dy(name, dy, forward, f"Conv2D of input shape {x.shape} and weight shape {w.shape}")


def _check_pool_dy(name, dy, x, kernel, stride, pad):
    forward = pool_out(name, x, kernel, stride, pad)
    _check_dy(name, dy, forward, f"{name.removesuffix('Grad')} of input shape {x.shape}")


def conv2d_backprop_input_rule(dy, w, *, stride, dilation, pad, group, input_shape):
    x = _shape_attr("Conv2DBackpropInput", "input_shape", input_shape, "(N, C, H, W)")
    _check_conv2d_dy("Conv2DBackpropInput", dy, x, w, stride, dilation, pad, group)
    return x


def conv2d_backprop_filter_rule(dy, x, *, stride, dilation, pad, group, filter_shape):
    w = _shape_attr("Conv2DBackpropFilter", "filter_shape", filter_shape, "(O, C/group, KH, KW)")
    _check_conv2d_dy("Conv2DBackpropFilter", dy, x, w, stride, dilation, pad, group)
    return w


def max_pool_grad_rule(x, dy, *, kernel, stride, pad):
    _check_pool_dy("MaxPoolGrad", dy, x, kernel, stride, pad)
    return x


def avg_pool_grad_rule(dy, *, kernel, stride, pad, count_include_pad, input_shape):
    x = _shape_attr("AvgPoolGrad", "input_shape", input_shape, "(N, C, H, W)")
    _check_pool_dy("AvgPoolGrad", dy, x, kernel, stride, pad)
    return x

"""Convolution Cells: Conv2d, Conv1d (a Conv2d over a unit height) and Conv2dTranspose."""
from .. import dtype as D
from .. import ops
from ..core import bind
from ..ops import prims as P
from ..ops.nn_ops import _pair
from .cell import Cell
from .layers import default_bias, default_weight


class Conv2d(Cell):
    """``Conv2d(in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
    dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None)`` on NCHW inputs."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCHW", dtype=D.float32):
        super().__init__()
        if data_format != "NCHW":
            raise ValueError(f"Conv2d: only data_format='NCHW' is supported, got {data_format!r}")
        if group < 1 or in_channels % group or out_channels % group:
            raise ValueError(f"Conv2d: in_channels {in_channels} and out_channels {out_channels} must "
                             f"be divisible by group {group}")
        self.in_channels, self.out_channels, self.group = in_channels, out_channels, group
        self.kernel_size = _pair("Conv2d", "kernel_size", kernel_size)
        self.stride, self.dilation = stride, dilation
        self.pad_mode, self.padding, self.has_bias = pad_mode, padding, has_bias
        ops.nn_ops.resolve_padding("Conv2d", pad_mode, padding, (1, 1), (1, 1), (1, 1), (1, 1))  # validate
        shape = (out_channels, in_channels // group) + self.kernel_size
        self.weight = default_weight(weight_init, shape, dtype)
        fan_in = shape[1] * shape[2] * shape[3]
        self.bias = default_bias(bias_init, (out_channels,), fan_in, dtype) if has_bias else None

    def construct(self, x):
        return ops.conv2d(x, self.weight, self.bias, self.stride, self.pad_mode, self.padding,
                          self.dilation, self.group)

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, has_bias={self.has_bias}")


class Conv1d(Conv2d):
    """``Conv1d(in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
    dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None)`` on (N, C, L):
    MindSpore's weight (out, in/group, 1, kernel_size) applied as a 2-D convolution of height 1."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None, dtype=D.float32):
        for what, v in (("kernel_size", kernel_size), ("stride", stride), ("dilation", dilation),
                        ("padding", padding)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"Conv1d: {what} must be an int, got {v!r}")
        super().__init__(in_channels, out_channels, (1, kernel_size), (1, stride), pad_mode, (0, 0, padding, padding),
                         (1, dilation), group, has_bias, weight_init, bias_init, dtype=dtype)

    def construct(self, x):
        if x.ndim != 3:
            raise ValueError(f"Conv1d: expected a 3-D input (N, C, L), got shape {x.shape}")
        y = super().construct(ops.expand_dims(x, 2))
        return ops.squeeze(y, 2)


class Conv2dTranspose(Cell):
    """``Conv2dTranspose(in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
    padding=0, output_padding=0, dilation=1, group=1, has_bias=False, ...)``: the gradient of a
    Conv2d with respect to its input (Conv2DBackpropInput), weight (in, out/group, KH, KW).
    Output size: ``H * stride`` ("same"), ``(H - 1) * stride + dilation * (K - 1) + 1``
    ("valid"; "pad" subtracts the padding and adds ``output_padding``)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 output_padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=D.float32):
        super().__init__()
        if group < 1 or in_channels % group or out_channels % group:
            raise ValueError(f"Conv2dTranspose: in_channels {in_channels} and out_channels {out_channels} must "
                             f"be divisible by group {group}")
        self.in_channels, self.out_channels, self.group = in_channels, out_channels, group
        self.kernel_size = _pair("Conv2dTranspose", "kernel_size", kernel_size)
        self.stride = _pair("Conv2dTranspose", "stride", stride)
        self.dilation = _pair("Conv2dTranspose", "dilation", dilation)
        self.output_padding = _pair("Conv2dTranspose", "output_padding", output_padding, lo=0)
        self.pad_mode, self.padding, self.has_bias = pad_mode, padding, has_bias
        ops.nn_ops.resolve_padding("Conv2dTranspose", pad_mode, padding, (1, 1), (1, 1), (1, 1), (1, 1))
        shape = (in_channels, out_channels // group) + self.kernel_size
        self.weight = default_weight(weight_init, shape, dtype)
        fan_in = shape[1] * shape[2] * shape[3]
        self.bias = default_bias(bias_init, (out_channels,), fan_in, dtype) if has_bias else None

    def _output_size(self, size):
        out = []
        pad = ops.nn_ops._padding("Conv2dTranspose", self.padding)
        for i, n in enumerate(size):
            k, s, d = self.kernel_size[i], self.stride[i], self.dilation[i]
            if self.pad_mode == "same":
                out.append(n * s)
            else:
                full = (n - 1) * s + d * (k - 1) + 1
                out.append(full if self.pad_mode == "valid" else
                           full - pad[2 * i] - pad[2 * i + 1] + self.output_padding[i])
        return tuple(out)

    def construct(self, x):
        if x.ndim != 4 or x.shape[1] != self.in_channels:
            raise ValueError(f"Conv2dTranspose: expected an input (N, {self.in_channels}, H, W), got shape {x.shape}")
        size = self._output_size(x.shape[2:])
        pad = ops.nn_ops.resolve_padding("Conv2dTranspose", self.pad_mode, self.padding, size, self.kernel_size,
                                         self.stride, self.dilation)
        y = bind(P.Conv2DBackpropInput, ops.cast(x, self.weight.dtype), self.weight, stride=self.stride,
                 dilation=self.dilation, pad=pad, group=self.group,
                 input_shape=(x.shape[0], self.out_channels) + size)
        return y if self.bias is None else ops.add(y, ops.reshape(self.bias, (1, -1, 1, 1)))

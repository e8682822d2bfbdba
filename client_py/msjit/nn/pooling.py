"""Pooling Cells: MaxPool2d, AvgPool2d, MaxPool1d, AvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool1d.

``pad_mode`` ("valid", "same", "pad") resolves into the explicit padding of the pool
primitives; "same" averages over the window's valid elements only, as MindSpore does. The 1-D
pools slide windows over the last axis (ops.nn_pooling), so they take any float dtype.
"""
from .. import ops
from ..ops.nn_ops import _pair, resolve_padding
from ..ops.nn_pooling import avg_pool1d_windows, max_pool1d_windows
from .cell import Cell


class _Pool2d(Cell):
    """Shared by the pools: sizes, ``pad_mode`` and the explicit padding of an input."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, data_format="NCHW"):
        super().__init__()
        name = type(self).__name__
        if ceil_mode:
            raise ValueError(f"{name}: ceil_mode=True is not supported")
        if data_format != "NCHW":
            raise ValueError(f"{name}: only data_format='NCHW' is supported, got {data_format!r}")
        pad_mode = pad_mode.lower()
        self.kernel_size, self.stride = self._size(name, "kernel_size", kernel_size), self._size(name, "stride", stride)
        self.pad_mode, self.padding = pad_mode, self._padding(padding)
        resolve_padding(name, pad_mode, self.padding, (1, 1), (1, 1), (1, 1), (1, 1))   # validate

    def _size(self, name, what, v):
        return _pair(name, what, v)

    def _padding(self, padding):
        return padding

    def _explicit_padding(self, x):
        return resolve_padding(type(self).__name__, self.pad_mode, self.padding, x.shape[2:], self.kernel_size,
                               self.stride, (1, 1))

    def construct(self, x):
        if x.ndim != 4:
            raise ValueError(f"{type(self).__name__}: expected a 4-D input (N, C, H, W), got shape {x.shape}")
        return self._pool(x)

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


class MaxPool2d(_Pool2d):
    """``MaxPool2d(kernel_size=1, stride=1, pad_mode="valid", padding=0, ...)`` on (N, C, H, W)."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False, data_format="NCHW"):
        if dilation not in (1, (1, 1)) or return_indices:
            raise ValueError(f"{type(self).__name__}: dilation and return_indices are not supported")
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)

    def _pool(self, x):
        return ops.max_pool2d(x, self.kernel_size, self.stride, self._explicit_padding(x))


class AvgPool2d(_Pool2d):
    """``AvgPool2d(kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None)`` on (N, C, H, W)."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None, data_format="NCHW"):
        if divisor_override:
            raise ValueError(f"{type(self).__name__}: divisor_override is not supported")
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)
        self.count_include_pad = bool(count_include_pad) and self.pad_mode != "same"

    def _pool(self, x):
        return ops.avg_pool2d(x, self.kernel_size, self.stride, self._explicit_padding(x),
                              count_include_pad=self.count_include_pad)


class _Pool1d:
    """Mixin: int sizes on (N, C, L), pooled by window slices (any float dtype)."""
    _rank = 3

    def construct(self, x):
        if x.ndim != self._rank:
            raise ValueError(f"{type(self).__name__}: expected an input of rank 3, got shape {x.shape}")
        pad = resolve_padding(type(self).__name__, self.pad_mode, self.padding, (1, x.shape[-1]), self.kernel_size,
                              self.stride, (1, 1))[2:]
        return self._pool1d(x, self.kernel_size[1], self.stride[1], pad)

    def _size(self, name, what, v):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name}: {what} must be a positive int, got {v!r}")
        return (1, v)

    def _padding(self, padding):
        return (0, 0, padding, padding) if isinstance(padding, int) else (0, 0) + tuple(padding)


class MaxPool1d(_Pool1d, MaxPool2d):
    """``MaxPool1d(kernel_size=1, stride=1, pad_mode="valid", padding=0, ...)`` on (N, C, L)."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__(kernel_size, stride, pad_mode, padding, dilation, return_indices, ceil_mode)

    def _pool1d(self, x, k, s, pad):
        return max_pool1d_windows(x, k, s, pad)


class AvgPool1d(_Pool1d, AvgPool2d):
    """``AvgPool1d(kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
    count_include_pad=True)`` on (N, C, L)."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, count_include_pad)

    def _pool1d(self, x, k, s, pad):
        return avg_pool1d_windows(x, k, s, pad, self.count_include_pad)


class AdaptiveAvgPool2d(Cell):
    """``AdaptiveAvgPool2d(output_size)``: average over adaptive bins of (N, C, H, W)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, input):
        return ops.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool1d(Cell):
    """``AdaptiveAvgPool1d(output_size)``: average over adaptive bins of (N, C, L)."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, input):
        return ops.adaptive_avg_pool1d(input, self.output_size)

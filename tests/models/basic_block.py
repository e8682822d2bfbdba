"""The ResNet tutorial's BasicBlock as an nn.Cell, and a pure-numpy reference of it."""
from typing import Optional

import numpy as np

import mindspore.nn as nn
from mindspore import Tensor


class BasicBlock(nn.Cell):
    """conv3x3 (pad 1, no bias) -> BN -> ReLU -> conv3x3 -> BN -> + residual -> ReLU. With a stride
    or a change of channels the residual goes through a 1x1 conv and BN (down_sample). Written in
    the tutorial script's idioms (a norm class argument, keyword kernel sizes, ``out += identity``)."""

    expansion: int = 1

    def __init__(self, in_channels: int = 128, channels: int = 128, stride: int = 1,
                 norm: Optional[nn.Cell] = None) -> None:
        super().__init__()
        if norm is None:
            norm = nn.BatchNorm2d
        self.conv1 = nn.Conv2d(in_channels, channels, kernel_size=3, stride=stride, padding=1, pad_mode="pad")
        self.bn1 = norm(channels)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(channels, channels, kernel_size=3, stride=1, padding=1, pad_mode="pad")
        self.bn2 = norm(channels)
        self.down_sample = None
        if stride != 1 or in_channels != channels:
            self.down_sample = nn.SequentialCell([nn.Conv2d(in_channels, channels, 1, stride=stride,
                                                            pad_mode="valid"), norm(channels)])

    def construct(self, x: Tensor) -> Tensor:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.down_sample is not None:
            identity = self.down_sample(x)
        out += identity
        return self.relu(out)


def _conv(x, w, stride, pad):
    """Direct convolution in float64 (independent of msjit's kernels)."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    o, c, kh, kw = w.shape
    oh, ow = (x.shape[2] - kh) // stride + 1, (x.shape[3] - kw) // stride + 1
    out = np.zeros((x.shape[0], o, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i: i + stride * (oh - 1) + 1: stride, j: j + stride * (ow - 1) + 1: stride]
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
    return out


def _bn(x, bn, training):
    if training:
        mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    else:
        mean, var = bn.moving_mean.asnumpy(), bn.moving_variance.asnumpy()
    s = (1, -1, 1, 1)
    return (x - mean.reshape(s)) / np.sqrt(var.reshape(s) + bn.eps) * bn.gamma.asnumpy().reshape(s) \
        + bn.beta.asnumpy().reshape(s)


def reference(block, x, training=False):
    stride = block.conv1.stride
    out = np.maximum(_bn(_conv(x, block.conv1.weight.asnumpy(), stride, 1), block.bn1, training), 0)
    out = _bn(_conv(out, block.conv2.weight.asnumpy(), 1, 1), block.bn2, training)
    identity = x
    if block.down_sample is not None:
        conv, bn = block.down_sample[0], block.down_sample[1]
        identity = _bn(_conv(x, conv.weight.asnumpy(), stride, 0), bn, training)
    return np.maximum(out + identity, 0)

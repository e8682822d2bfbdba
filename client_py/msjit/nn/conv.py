"""Convolution and normalization Cells: Conv2d, BatchNorm2d, LayerNorm."""
from .. import dtype as D
from .. import ops
from ..initializer import initializer
from ..ops.nn_ops import _pair
from ..parameter import Parameter
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


class BatchNorm2d(Cell):
    """``BatchNorm2d(num_features, eps=1e-5, momentum=0.9, ...)``. Training (``set_train()``
    or ``use_batch_statistics=True``) normalizes with the batch statistics and updates
    ``moving = moving * momentum + batch * (1 - momentum)``; inference uses the moving ones."""

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=D.float32):
        super().__init__()
        if not 0 <= momentum <= 1:
            raise ValueError(f"BatchNorm2d: momentum must be in [0, 1], got {momentum}")
        self.num_features, self.eps, self.momentum = int(num_features), float(eps), float(momentum)
        self.use_batch_statistics = use_batch_statistics
        shape = (self.num_features,)
        self.gamma = Parameter(initializer(gamma_init, shape, dtype), "gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, shape, dtype), "beta", requires_grad=affine)
        self.moving_mean = Parameter(initializer(moving_mean_init, shape, dtype), "mean", requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, shape, dtype), "variance",
                                         requires_grad=False)

    def construct(self, x):
        if x.ndim != 4:
            raise ValueError(f"BatchNorm2d: expected a 4-D input (N, C, H, W), got shape {x.shape}")
        training = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        return ops.batch_norm(x, self.moving_mean, self.moving_variance, self.gamma, self.beta,
                              training, 1.0 - self.momentum, self.eps)

    def extend_repr(self):
        return f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}"


class LayerNorm(Cell):
    """``LayerNorm(normalized_shape, begin_norm_axis=-1, begin_params_axis=-1, gamma_init="ones",
    beta_init="zeros", epsilon=1e-7)`` over the trailing ``normalized_shape`` dims."""

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1, gamma_init="ones",
                 beta_init="zeros", epsilon=1e-7, dtype=D.float32):
        super().__init__()
        self.normalized_shape = tuple(normalized_shape)
        self.epsilon = epsilon
        self.gamma = Parameter(initializer(gamma_init, self.normalized_shape, dtype), "gamma")
        self.beta = Parameter(initializer(beta_init, self.normalized_shape, dtype), "beta")

    def construct(self, x):
        return ops.layer_norm(x, self.normalized_shape, self.gamma, self.beta, self.epsilon)

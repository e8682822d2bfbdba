"""Normalization Cells: BatchNorm1d, BatchNorm2d, LayerNorm, GroupNorm."""
from .. import dtype as D
from .. import ops
from ..initializer import initializer
from ..parameter import Parameter
from .cell import Cell


class _BatchNorm(Cell):
    """Batch normalization over axis 1 of an input of rank ``_rank``. Training (``set_train()``
    or ``use_batch_statistics=True``) normalizes with the batch statistics and updates
    ``moving = moving * momentum + batch * (1 - momentum)``; inference uses the moving ones."""

    _ranks = (4,)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=D.float32):
        super().__init__()
        name = type(self).__name__
        if not 0 <= momentum <= 1:
            raise ValueError(f"{name}: momentum must be in [0, 1], got {momentum}")
        if data_format != "NCHW":
            raise ValueError(f"{name}: only data_format='NCHW' is supported, got {data_format!r}")
        self.num_features, self.eps, self.momentum = int(num_features), float(eps), float(momentum)
        self.use_batch_statistics = use_batch_statistics
        shape = (self.num_features,)
        self.moving_mean = Parameter(initializer(moving_mean_init, shape, dtype), "moving_mean",
                                     requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, shape, dtype), "moving_variance",
                                         requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, shape, dtype), "gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, shape, dtype), "beta", requires_grad=affine)

    def construct(self, x):
        if x.ndim not in self._ranks:
            raise ValueError(f"{type(self).__name__}: expected an input of rank {' or '.join(map(str, self._ranks))}"
                             f" (N, C, ...), got shape {x.shape}")
        training = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        return ops.batch_norm(x, self.moving_mean, self.moving_variance, self.gamma, self.beta,
                              training, 1.0 - self.momentum, self.eps)

    def extend_repr(self):
        return f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}"


class BatchNorm1d(_BatchNorm):
    """``BatchNorm1d(num_features, eps=1e-5, momentum=0.9, ...)`` on (N, C) or (N, C, L)."""
    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """``BatchNorm2d(num_features, eps=1e-5, momentum=0.9, ...)`` on (N, C, H, W)."""
    _ranks = (4,)


class LayerNorm(Cell):
    """``LayerNorm(normalized_shape, begin_norm_axis=-1, begin_params_axis=-1, gamma_init="ones",
    beta_init="zeros", epsilon=1e-7)``: normalize over the axes from ``begin_norm_axis`` on, then
    ``* gamma + beta`` (of shape ``normalized_shape``, the dims from ``begin_params_axis`` on)."""

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1, gamma_init="ones",
                 beta_init="zeros", epsilon=1e-7, dtype=D.float32):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"LayerNorm: normalized_shape must be a tuple or list, got {normalized_shape!r}")
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis, self.begin_params_axis, self.epsilon = begin_norm_axis, begin_params_axis, epsilon
        self.gamma = Parameter(initializer(gamma_init, self.normalized_shape, dtype), "gamma")
        self.beta = Parameter(initializer(beta_init, self.normalized_shape, dtype), "beta")

    def construct(self, x):
        if self.begin_norm_axis == -1 and len(self.normalized_shape) == 1:
            return ops.layer_norm(x, self.normalized_shape, self.gamma, self.beta, self.epsilon)
        axes = tuple(range(self.begin_norm_axis % x.ndim, x.ndim))
        if x.shape[self.begin_params_axis % x.ndim:] != self.normalized_shape:
            raise ValueError(f"LayerNorm: normalized_shape {self.normalized_shape} does not match the dims of the "
                             f"input of shape {x.shape} from begin_params_axis {self.begin_params_axis}")
        y = ops.nn_ops.normalize_over(x, axes, self.epsilon)
        return ops.add(ops.mul(y, ops.cast(self.gamma, y.dtype)), ops.cast(self.beta, y.dtype))

    def extend_repr(self):
        return f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}"


class GroupNorm(Cell):
    """``GroupNorm(num_groups, num_channels, eps=1e-5, affine=True, gamma_init="ones",
    beta_init="zeros")``: normalization over groups of channels of (N, C, ...)."""

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, gamma_init="ones", beta_init="zeros",
                 dtype=D.float32):
        super().__init__()
        if num_groups < 1 or num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels {num_channels} must be divisible by num_groups {num_groups}")
        self.num_groups, self.num_channels, self.eps = int(num_groups), int(num_channels), float(eps)
        self.affine = affine
        self.gamma = Parameter(initializer(gamma_init, (num_channels,), dtype), "gamma", requires_grad=affine)
        self.beta = Parameter(initializer(beta_init, (num_channels,), dtype), "beta", requires_grad=affine)

    def construct(self, x):
        if x.ndim < 2 or x.shape[1] != self.num_channels:
            raise ValueError(f"GroupNorm: expected an input (N, {self.num_channels}, ...), got shape {x.shape}")
        return ops.group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)

    def extend_repr(self):
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"

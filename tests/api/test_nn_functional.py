"""The functional nn ops of ``mindspore.ops`` (ops/nn_activations.py, ops/nn_pooling.py and the
normalizations of ops/nn_ops.py) against numpy on random shapes: eager, jit under
ast/bytecode/trace, and gradients against finite differences (float64)."""
import numpy as np
import pytest

import msjit as ms
from msjit import ops
from harness import array, as_input, check_api, seeded, shape

pytestmark = pytest.mark.usefixtures("module_daemon_home")

SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def softplus_ref(x, beta=1, threshold=20):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


# name: (numpy reference, kwargs, (low, high) of the input)
ACTIVATIONS = {
    "relu6": (lambda x: np.clip(x, 0, 6), {}, (-3, 9)),
    "leaky_relu": (lambda x, alpha=0.2: np.where(x > 0, x, alpha * x), {"alpha": 0.3}, (-3, 3)),
    "elu": (lambda x: np.where(x > 0, x, np.expm1(x)), {}, (-3, 3)),
    "celu": (lambda x, alpha=1.0: np.where(x > 0, x, alpha * np.expm1(x / alpha)), {"alpha": 0.6}, (-3, 3)),
    "selu": (lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)), {}, (-3, 3)),
    "softplus": (softplus_ref, {"beta": 2, "threshold": 4}, (-4, 4)),
    "hardswish": (lambda x: x * np.clip(x / 6 + 0.5, 0, 1), {}, (-5, 5)),
    "hardsigmoid": (lambda x: np.clip(x / 6 + 0.5, 0, 1), {}, (-5, 5)),
    "mish": (lambda x: x * np.tanh(np.log1p(np.exp(x))), {}, (-3, 3)),
    "softsign": (lambda x: x / (1 + np.abs(x)), {}, (-3, 3)),
    "logsigmoid": (lambda x: -np.log1p(np.exp(-x)), {}, (-4, 4)),
    "hardtanh": (lambda x, min_val=-1.0, max_val=1.0: np.clip(x, min_val, max_val),
                 {"min_val": -0.5, "max_val": 1.5}, (-3, 3)),
    "softmin": (lambda x, axis=-1: np.exp(-x) / np.exp(-x).sum(axis, keepdims=True), {"axis": 0}, (-3, 3)),
    "softshrink": (lambda x, lambd=0.5: np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0)),
                   {"lambd": 0.7}, (-3, 3)),
    "hardshrink": (lambda x, lambd=0.5: np.where(np.abs(x) > lambd, x, 0), {}, (-3, 3)),
    "tanhshrink": (lambda x: x - np.tanh(x), {}, (-3, 3)),
    "threshold": (lambda x, thr, value: np.where(x > thr, x, value), {"thr": 0.3, "value": -2.0}, (-3, 3)),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation(name):
    ref, kwargs, (low, high) = ACTIVATIONS[name]
    rng = seeded(name)
    x = array(rng, shape(rng), low=low, high=high)
    check_api(getattr(ops, name), [x], as_input(ref), kwargs=kwargs, grad=True)


def test_activation_extremes_and_errors():
    x = np.array([-100.0, -30.0, 0.0, 30.0, 100.0], np.float32)
    for name in ("softplus", "logsigmoid", "mish", "elu", "selu"):
        assert np.isfinite(getattr(ops, name)(x).asnumpy()).all(), name
    np.testing.assert_allclose(ops.softplus(x).asnumpy(), softplus_ref(x.astype(np.float64)), rtol=1e-6,
                               atol=1e-7)
    with pytest.raises(ValueError, match="alpha"):
        ops.elu(x, alpha=0.5)
    with pytest.raises(ValueError, match="min_val"):
        ops.hardtanh(x, 2.0, 1.0)
    with pytest.raises(ValueError, match="weight"):
        ops.prelu(np.ones((2, 3, 4), np.float32), np.ones(4, np.float32))


def prelu_ref(x, w):
    return np.where(x > 0, x, w.reshape((1, -1) + (1,) * (x.ndim - 2)) * x)


def group_norm_ref(x, groups, weight, bias, eps=1e-5):
    n = x.shape[0]
    g = x.reshape(n, groups, -1)
    y = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)).reshape(x.shape)
    channel = (1, -1) + (1,) * (x.ndim - 2)
    return y * weight.reshape(channel) + bias.reshape(channel)


def normalize_ref(x, p=2.0, dim=1, eps=1e-12):
    norm = np.sum(np.abs(x) ** p, axis=dim, keepdims=True) ** (1 / p)
    return x / np.maximum(norm, eps)


def cosine_ref(a, b, dim=1, eps=1e-8):
    return (a * b).sum(dim) / np.maximum(np.linalg.norm(a, axis=dim) * np.linalg.norm(b, axis=dim), eps)


def pool1d_ref(x, kernel, stride, padding=0, reduce=np.max, fill=-np.inf):
    x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(padding, padding)], constant_values=fill)
    n = (x.shape[-1] - kernel) // stride + 1
    return np.stack([reduce(x[..., i * stride:i * stride + kernel], -1) for i in range(n)], -1)


def adaptive_ref(x, sizes):
    """Adaptive average over the trailing len(sizes) axes: bins [floor(i n / o), ceil((i + 1) n / o))."""
    for k, out in enumerate(sizes):
        axis = x.ndim - len(sizes) + k
        n = x.shape[axis]
        bins = [np.take(x, range(i * n // out, -(-(i + 1) * n // out)), axis).mean(axis, keepdims=True)
                for i in range(out)]
        x = np.concatenate(bins, axis)
    return x


_NP_PAD = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def pad_ref(x, padding, mode="constant", value=None):
    widths = [(0, 0)] * x.ndim
    for k in range(len(padding) // 2):
        widths[x.ndim - 1 - k] = (padding[2 * k], padding[2 * k + 1])
    extra = {"constant_values": value or 0} if mode == "constant" else {}
    return np.pad(x, widths, _NP_PAD[mode], **extra)


def nearest_ref(x, scale_factor):
    for axis in range(2, x.ndim):
        x = np.repeat(x, scale_factor, axis)
    return x


def linear_ref(x, size, align_corners=False):
    """Separable linear resize of the axes after (N, C), one output sample at a time."""
    for k, out in enumerate(size):
        axis, n = 2 + k, x.shape[2 + k]
        samples = []
        for i in range(out):
            src = i * (n - 1) / (out - 1) if align_corners else max((i + 0.5) * n / out - 0.5, 0.0)
            lo = min(int(np.floor(src)), n - 1)
            hi = min(lo + 1, n - 1)
            a, b = np.take(x, lo, axis), np.take(x, hi, axis)
            samples.append(a + (b - a) * (src - lo))
        x = np.stack(samples, axis)
    return x


def _nchw(rng, ndim=4, c=None):
    s = shape(rng, ndim, 1, 4)
    return s[:1] + ((c,) if c else s[1:2]) + tuple(d + 2 for d in s[2:])


def _cases():
    """name -> (fn, args from rng, numpy reference, kwargs, grad)."""
    return {
        "glu": (ops.glu, lambda r: (array(r, (3, 4, 2)),),
                lambda x, axis=-1: x[:, :2] / (1 + np.exp(-x[:, 2:])), {"axis": 1}, True),
        "prelu": (ops.prelu, lambda r: (array(r, (2, 3, 4)), array(r, (3,), low=0.1, high=0.5)), prelu_ref, {}, True),
        "prelu_scalar_weight": (ops.prelu, lambda r: (array(r, shape(r, 2)), array(r, (1,), low=0.1, high=0.5)),
                                prelu_ref, {}, True),
        "group_norm": (ops.group_norm, lambda r: (array(r, (2, 4, 3, 2)), 2, array(r, (4,)), array(r, (4,))),
                       group_norm_ref, {}, True),
        "normalize": (ops.normalize, lambda r: (array(r, shape(r, 3)),), normalize_ref, {"dim": -1}, True),
        "normalize_p1": (ops.normalize, lambda r: (array(r, shape(r, 2)),), normalize_ref, {"p": 1, "dim": 0}, True),
        "cosine_similarity": (ops.cosine_similarity, lambda r: (array(r, (3, 4, 2)), array(r, (3, 4, 2))),
                              cosine_ref, {}, True),
        "max_pool1d": (ops.max_pool1d, lambda r: (array(r, (2, 3, 7)), 3, 2), pool1d_ref, {}, True),
        "avg_pool1d": (ops.avg_pool1d, lambda r: (array(r, (2, 3, 8)), 3, 2),
                       lambda x, k, s: pool1d_ref(x, k, s, reduce=np.mean), {}, True),
        "avg_pool1d_padded": (ops.avg_pool1d, lambda r: (array(r, (3, 6)), 3, 1, 1),
                              lambda x, k, s, p: pool1d_ref(x, k, s, p, np.sum, 0) / k, {}, True),
        "avg_pool1d_exclude_pad": (ops.avg_pool1d, lambda r: (array(r, (2, 2, 7)), 4, 2, 2),
                                   lambda x, k, s, p, count_include_pad: pool1d_ref(x, k, s, p, np.sum, 0)
                                   / pool1d_ref(np.ones_like(x), k, s, p, np.sum, 0),
                                   {"count_include_pad": False}, True),
        "max_pool1d_padded": (ops.max_pool1d, lambda r: (array(r, (2, 5)), 2, 1, 1), pool1d_ref, {}, True),
        "adaptive_avg_pool2d_divisible": (ops.adaptive_avg_pool2d, lambda r: (array(r, (2, 3, 6, 4)), (3, 2)),
                                          adaptive_ref, {}, True),
        "adaptive_avg_pool2d": (ops.adaptive_avg_pool2d, lambda r: (array(r, (2, 2, 5, 7)), (3, 4)),
                                adaptive_ref, {}, True),
        "adaptive_avg_pool1d": (ops.adaptive_avg_pool1d, lambda r: (array(r, (2, 3, 7)), 3),
                                lambda x, o: adaptive_ref(x, (o,)), {}, True),
        "pad_constant": (ops.pad, lambda r: (array(r, _nchw(r)), (1, 2, 0, 1)), pad_ref, {"value": 0.5}, True),
        "pad_crop": (ops.pad, lambda r: (array(r, (2, 3, 5)), (-1, 2)),
                     lambda x, p: pad_ref(x[..., 1:], (0, 2)), {}, True),
        "pad_reflect": (ops.pad, lambda r: (array(r, (2, 3, 4, 5)), (2, 1, 1, 3)), pad_ref, {"mode": "reflect"}, True),
        "pad_replicate": (ops.pad, lambda r: (array(r, (2, 3, 4)), (2, 3)), pad_ref, {"mode": "replicate"}, True),
        "pad_circular": (ops.pad, lambda r: (array(r, (2, 3, 4)), (3, 1)), pad_ref, {"mode": "circular"}, True),
        "interpolate": (ops.interpolate, lambda r: (array(r, _nchw(r)),), nearest_ref, {"scale_factor": 2}, True),
        "interpolate_bilinear": (ops.interpolate, lambda r: (array(r, (1, 2, 3, 4)),),
                                 lambda x, size, mode: linear_ref(x, size), {"size": (5, 3), "mode": "bilinear"}, True),
        "interpolate_bilinear_corners": (ops.interpolate, lambda r: (array(r, (2, 1, 4, 3)),),
                                         lambda x, size, mode, align_corners: linear_ref(x, size, True),
                                         {"size": (6, 5), "mode": "bilinear", "align_corners": True}, True),
        "interpolate_linear": (ops.interpolate, lambda r: (array(r, (2, 3, 5)),),
                               lambda x, size, mode: linear_ref(x, (size,)), {"size": 8, "mode": "linear"}, True),
        "interpolate_size": (ops.interpolate, lambda r: (array(r, (1, 2, 3, 2)),),
                             lambda x, size: nearest_ref(x, 2)[:, :, :, :], {"size": (6, 4)}, True),
    }


CASES = _cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_nn_function(name):
    fn, make_args, ref, kwargs, grad = CASES[name]
    args = list(make_args(seeded(name)))
    check_api(fn, args, as_input(ref), kwargs=kwargs, grad=grad, rtol=1e-4, atol=1e-5)


def _flat(parts):
    first, second = parts
    return ops.concat((ops.reshape(first, (-1,)), ops.reshape(second, (-1,))))


def clipped_global(a, b):
    return _flat(ops.clip_by_global_norm((a, b), 1.5))


def clipped_norm(a, b, norm_type):
    return _flat(ops.clip_by_norm([a, b], 0.8, norm_type=norm_type))


def clip_ref(a, b, max_norm, norm, global_rule):
    v = np.concatenate([a.ravel(), b.ravel()])
    total = np.abs(v).max() if norm == np.inf else (np.abs(v) ** norm).sum() ** (1 / norm)
    return v * (max_norm / max(total, max_norm) if global_rule else min(max_norm / (total + 1e-6), 1.0))


@pytest.mark.parametrize("norm_type", [2.0, 1.0, np.inf])
def test_clip_by_norm(norm_type):
    rng = seeded(f"clip {norm_type}")
    args = [array(rng, (2, 3)), array(rng, (4,))]
    check_api(clipped_norm, args, as_input(lambda a, b, norm_type: clip_ref(a, b, 0.8, norm_type, False)),
              kwargs={"norm_type": norm_type}, grad=norm_type != np.inf, rtol=1e-5, atol=1e-6)


def test_clip_by_global_norm():
    rng = seeded("clip global")
    args = [array(rng, (3, 2)), array(rng, (5,))]
    check_api(clipped_global, args, as_input(lambda a, b: clip_ref(a, b, 1.5, 2, True)), grad=True)
    small = [a * 0.01 for a in args]   # under the threshold: unchanged
    check_api(clipped_global, small, as_input(lambda a, b: np.concatenate([a.ravel(), b.ravel()])), modes=())
    single = ops.clip_by_global_norm(ms.Tensor(np.array([3.0, 4.0], np.float32)), 1.0)
    np.testing.assert_allclose(single.asnumpy(), [0.6, 0.8], rtol=1e-6)
    with pytest.raises(ValueError, match="use_norm"):
        ops.clip_by_global_norm(single, 1.0, use_norm=5.0)


def test_argument_errors():
    x = np.ones((2, 4, 3, 3), np.float32)
    with pytest.raises(ValueError, match="num_groups"):
        ops.group_norm(x, 3)
    with pytest.raises(ValueError, match="mode"):
        ops.pad(x, (1, 1), mode="symmetric")
    with pytest.raises(ValueError, match="reflect"):
        ops.pad(x, (3, 0), mode="reflect")
    with pytest.raises(ValueError, match="even"):
        ops.pad(x, (1, 1, 1))
    with pytest.raises(ValueError, match="mode"):
        ops.interpolate(x, scale_factor=2, mode="bicubic")
    with pytest.raises(ValueError, match="rank"):
        ops.interpolate(x, size=4, mode="linear")
    with pytest.raises(ValueError, match="rank"):
        ops.max_pool1d(x, 2)
    with pytest.raises(ValueError, match="output_size"):
        ops.adaptive_avg_pool2d(x, (1, 2, 3))


def softmax_method(t):
    return t.softmax(0)


def hardshrink_method(t):
    return t.hardshrink(lambd=0.8)


def test_tensor_methods():
    rng = seeded("methods")
    x = array(rng, (3, 4))
    check_api(softmax_method, [x], as_input(lambda v: np.exp(v) / np.exp(v).sum(0, keepdims=True)), grad=True)
    check_api(hardshrink_method, [x], as_input(lambda v: np.where(np.abs(v) > 0.8, v, 0)), grad=True)

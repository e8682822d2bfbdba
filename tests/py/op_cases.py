"""One table of cases for the ops of issue 3: each a module-level function of Tensors (so that
jit can capture its source), a numpy reference and its inputs. test_new_ops runs every case
eagerly and jitted (O0, O1) and compares all three."""
import numpy as np

import msjit
from msjit import ops
import nn_ref as R

_rng = np.random.default_rng(1234)


def f32(*shape, lo=-2.0, hi=2.0):
    return _rng.uniform(lo, hi, shape).astype(np.float32)


def i64(*shape, lo=-5, hi=5):
    return _rng.integers(lo, hi, shape).astype(np.int64)


def strided(a):
    """A non-contiguous view with the same values: a transposed copy, transposed back."""
    return np.ascontiguousarray(a.T).T if a.ndim >= 2 else a[::-1].copy()[::-1]


CASES = []


def case(ref, *inputs, tol=1e-5, id=None):
    def register(fn):
        CASES.append((id or fn.__name__, fn, ref, inputs, tol))
        return fn
    return register


# ---- elementwise ------------------------------------------------------------------------------
@case(lambda a, b: np.power(a, b), f32(3, 4, lo=0.1), f32(4))
def pow_broadcast(x, y): return x ** y  # noqa: E704
@case(lambda a: a ** 2, f32(2, 3))
def pow_scalar(x): return x ** 2  # noqa: E704
@case(lambda a: 2.0 ** a, f32(5))
def rpow(x): return 2.0 ** x  # noqa: E704
@case(np.sin, f32(2, 3))
def sin(x): return ops.sin(x)  # noqa: E704
@case(np.cos, strided(f32(3, 4)))
def cos_noncontig(x): return ops.cos(x)  # noqa: E704
@case(lambda a: 1 / np.sqrt(a), f32(4, 1, lo=0.1))
def rsqrt(x): return ops.rsqrt(x)  # noqa: E704
@case(np.abs, f32(7))
def abs_f(x): return abs(x)  # noqa: E704
@case(np.abs, i64(7))
def abs_i(x): return ops.abs(x)  # noqa: E704
@case(np.square, f32(1, 5))
def square(x): return ops.square(x)  # noqa: E704
@case(R.erf, f32(9, lo=-3, hi=3))
def erf(x): return ops.erf(x)  # noqa: E704
@case(lambda a, b: np.stack([a == b, a != b, a < b, a <= b, a > b, a >= b]), i64(3, 4, lo=0, hi=3), i64(4, lo=0, hi=3))
def comparisons(x, y): return ops.stack([x == y, x != y, x < y, x <= y, x > y, x >= y])  # noqa: E704
@case(lambda a: np.stack([a > 0.5, 0.5 < a, a == 1.0]), np.array([0.2, 0.5, 1.0, 3.0], np.float32))
def compare_scalar(x): return ops.stack([x > 0.5, 0.5 < x, x == 1.0])  # noqa: E704
@case(lambda a, b: np.stack([(a > 0) & (b > 0), (a > 0) | (b > 0), ~(a > 0)]), f32(2, 3), f32(3))
def logical(x, y): return ops.stack([(x > 0) & (y > 0), ops.logical_or(x > 0, y > 0), ~(x > 0)])  # noqa: E704
@case(lambda a, b: np.where(a > 0, a, b), f32(2, 3), f32(1, 3))
def where(x, y): return ops.where(x > 0, x, y)  # noqa: E704
@case(lambda a: np.where(a > 0, a, 0.0), f32(4, 2))
def where_scalar(x): return ops.where(x > 0, x, 0.0)  # noqa: E704


# ---- reductions and matmul --------------------------------------------------------------------
@case(lambda a: np.stack([a.max(-1), a.min(-1)]), f32(3, 5))
def max_min(x): return ops.stack([x.max(axis=-1), ops.amin(x, -1)])  # noqa: E704  (max(-1): values and indices)
@case(lambda a: a.max(axis=(0, 2), keepdims=True), i64(2, 3, 4))
def amax_int_keep(x): return ops.amax(x, (0, -1), True)  # noqa: E704
@case(lambda a, b: a.T @ b, f32(4, 3), f32(4, 5))
def matmul_ta(x, y): return ops.MatMul(transpose_a=True)(x, y)  # noqa: E704
@case(lambda a, b: a @ b.T, f32(3, 4), f32(5, 4))
def matmul_tb(x, y): return ops.MatMul(transpose_b=True)(x, y)  # noqa: E704
@case(lambda a, b: np.swapaxes(a, -1, -2) @ np.swapaxes(b, -1, -2), f32(2, 4, 3), f32(2, 5, 4))
def bmm_tt(x, y): return ops.BatchMatMul(True, True)(x, y)  # noqa: E704
@case(lambda a, b: a @ b, f32(2, 3, 4), f32(2, 4, 5))
def bmm(x, y): return ops.bmm(x, y)  # noqa: E704
@case(lambda a, b: a @ b, f32(3, 1, 2, 4), f32(5, 4, 3))
def matmul_broadcast_batch(x, y): return ops.matmul(x, y)  # noqa: E704
@case(lambda a, b: a @ b, strided(f32(3, 4)), f32(4, 2))
def matmul_noncontig(x, y): return x @ y  # noqa: E704


# ---- data movement and indexing ---------------------------------------------------------------
@case(lambda a: a[1], f32(3, 4))
def index_int(x): return x[1]  # noqa: E704
@case(lambda a: a[:, 1:3], f32(2, 5, 3))
def index_slice(x): return x[:, 1:3]  # noqa: E704
@case(lambda a: a[..., None], f32(2, 3))
def index_newaxis(x): return x[..., None]  # noqa: E704
@case(lambda a: a[::2], f32(5, 2))
def index_step(x): return x[::2]  # noqa: E704
@case(lambda a: a[-1, ::-1, -2], f32(2, 3, 4))
def index_negative(x): return x[-1, ::-1, -2]  # noqa: E704
@case(lambda a: a[None, 1:, ..., :1], f32(3, 2, 4))
def index_mixed(x): return x[None, 1:, ..., :1]  # noqa: E704
@case(lambda a, i: a[:, i], f32(3, 5), np.array([4, 0, -1, 2], np.int64))
def index_tensor(x, i): return x[:, i]  # noqa: E704
@case(lambda a: a[[2, 0]], f32(3, 2))
def index_list(x): return x[[2, 0]]  # noqa: E704
@case(lambda a: a[1:1], f32(3, 2))
def index_empty(x): return x[1:1] + 1  # noqa: E704
@case(lambda a, i: np.take(a, i, axis=1), f32(2, 4, 3), np.array([[3, 0], [1, -4]], np.int64))
def gather(x, i): return ops.gather(x, i, 1)  # noqa: E704
@case(lambda t, i: t[i], f32(10, 4), np.array([[1, 9], [0, 3]], np.int32))
def embedding(w, i): return ops.embedding(i, w)  # noqa: E704
@case(lambda a, b: np.concatenate([a, b, a], -1), f32(2, 3), f32(2, 1))
def concat(x, y): return ops.concat([x, y, x], -1)  # noqa: E704
@case(lambda a: np.stack(np.split(a, [2, 3], 1)[::2]), f32(2, 5))
def split_sections(x): return ops.stack(ops.split(x, [2, 1, 2], 1)[::2])  # noqa: E704
@case(lambda a: a[:, 2:4], f32(3, 5))
def split_size(x): return ops.split(x, 2, axis=-1)[1]  # noqa: E704
@case(lambda a: a[1:3, 0:2], f32(4, 3))
def slice_(x): return ops.slice(x, (1, 0), (2, -1))[:, :2]  # noqa: E704
@case(lambda a: a[:, 3:0:-2], f32(2, 5))
def strided_slice(x): return ops.strided_slice(x, (0, 3), (2, 0), (1, -2))  # noqa: E704
@case(lambda a: a[1, :, None], f32(3, 4))
def strided_slice_masks(x): return ops.strided_slice(x, (1, 0, 0), (2, 9, 0), (1, 1, 1), end_mask=2, new_axis_mask=4, shrink_axis_mask=1)  # noqa: E501,E704
@case(lambda a: a[:, None, :, None], f32(3, 4))
def expand_dims(x): return ops.expand_dims(ops.expand_dims(x, 1), -1)  # noqa: E704
@case(lambda a: a.reshape(3, 4), f32(3, 1, 4, 1))
def squeeze(x): return ops.squeeze(x)  # noqa: E704
@case(lambda a: a.reshape(3, 4, 1), f32(1, 3, 4, 1))
def squeeze_axis(x): return ops.squeeze(x, 0)  # noqa: E704
@case(lambda a: np.tile(a, (2, 1, 3)), f32(2, 3))
def tile(x): return ops.tile(x, (2, 1, 3))  # noqa: E704
@case(lambda a: np.broadcast_to(a, (2, 3, 4)), f32(3, 1))
def broadcast_to(x): return ops.broadcast_to(x, (2, -1, 4))  # noqa: E704
@case(lambda a: np.triu(a, 1), f32(2, 4, 4))
def triu(x): return ops.triu(x, 1)  # noqa: E704
@case(lambda a: np.tril(a, -1), f32(3, 5))
def tril(x): return ops.tril(x, -1)  # noqa: E704
@case(lambda a: np.repeat(a, 2, axis=1), f32(2, 3, 4))
def repeat_interleave(x): return ops.repeat_interleave(x, 2, 1)  # noqa: E704
@case(lambda a: np.repeat(a, [1, 0, 2], axis=0), f32(3, 2))
def repeat_interleave_list(x): return ops.repeat_interleave(x, [1, 0, 2], 0)  # noqa: E704
@case(lambda a: a.reshape(2, -1), f32(2, 3, 4))
def flatten(x): return ops.flatten(x)  # noqa: E704
@case(lambda a: a + np.arange(4) + np.ones((3, 4)) * 2 - np.zeros_like(a), f32(3, 4))
def constants(x): return x + ops.arange(4).astype(msjit.float32) + ops.ones((3, 4)) * 2 - ops.zeros_like(x)  # noqa: E704
@case(lambda a: a * np.triu(np.full((4, 4), 3.0), 1), f32(2, 4, 4))
def full_triu(x): return x * ops.triu(ops.full((4, 4), 3.0), 1)  # noqa: E704


# ---- neural network ---------------------------------------------------------------------------
@case(lambda a, w: R.conv2d(a, w, pad=R.same_padding(a.shape[2:], w.shape[2:], (1, 1))), f32(2, 3, 6, 5), f32(4, 3, 3, 3), tol=1e-4)
def conv_same(x, w): return ops.conv2d(x, w, pad_mode="same")  # noqa: E704
@case(lambda a, w: R.conv2d(a, w, (2, 1), pad=R.same_padding(a.shape[2:], w.shape[2:], (2, 1))), f32(1, 2, 7, 6), f32(2, 2, 2, 3), tol=1e-4)
def conv_same_stride(x, w): return ops.conv2d(x, w, stride=(2, 1), pad_mode="same")  # noqa: E704
@case(lambda a, w: R.conv2d(a, w), f32(1, 1, 5, 5), f32(2, 1, 2, 2), tol=1e-4)
def conv_valid(x, w): return ops.conv2d(x, w)  # noqa: E704
@case(lambda a, w, b: R.conv2d(a, w, (2, 2), (2, 1), (1, 2, 0, 1), group=2) + b.reshape(1, -1, 1, 1), f32(2, 4, 9, 8), f32(6, 2, 3, 2), f32(6), tol=1e-4)
def conv_pad_dilation_groups_bias(x, w, b): return ops.conv2d(x, w, b, 2, "pad", (1, 2, 0, 1), (2, 1), 2)  # noqa: E704
@case(lambda a, w: R.conv2d(a, w, pad=(1, 1, 2, 2)), strided(f32(2, 3, 5, 4)), f32(3, 3, 1, 3), tol=1e-4)
def conv_pad_pair_noncontig(x, w): return ops.conv2d(x, w, pad_mode="pad", padding=(1, 2))  # noqa: E704
@case(lambda a: R.max_pool(a, (2, 2), (2, 2)), f32(2, 3, 6, 7))
def max_pool(x): return ops.max_pool2d(x, 2)  # noqa: E704
@case(lambda a: R.max_pool(a, (3, 3), (2, 1), (1, 1, 1, 1)), f32(1, 2, 5, 4, lo=-5, hi=-1))
def max_pool_pad_negative(x): return ops.max_pool2d(x, 3, (2, 1), 1)  # noqa: E704
@case(lambda a: R.avg_pool(a, (2, 3), (1, 2)), f32(2, 2, 4, 7))
def avg_pool(x): return ops.avg_pool2d(x, (2, 3), (1, 2))  # noqa: E704
@case(lambda a: R.avg_pool(a, (3, 3), (2, 2), (1, 1, 1, 1), False), f32(1, 3, 5, 6))
def avg_pool_exclude_pad(x): return ops.avg_pool2d(x, 3, 2, 1, count_include_pad=False)  # noqa: E704
@case(lambda a: R.avg_pool(a, (3, 3), (2, 2), (1, 1, 1, 1), True), f32(1, 3, 5, 6))
def avg_pool_include_pad(x): return ops.avg_pool2d(x, 3, 2, 1)  # noqa: E704
@case(lambda a, m, v, g, b: R.batch_norm(a, m, v, g, b, 1e-5), f32(2, 3, 4, 4), f32(3), f32(3, lo=0.5), f32(3), f32(3), tol=1e-4)
def batch_norm_inference(x, m, v, g, b): return ops.batch_norm(x, m, v, g, b)  # noqa: E704
@case(lambda a, m, v, g, b: R.batch_norm(a, *R.batch_stats(a), g, b, 1e-3), f32(4, 3, 2, 5), f32(3), f32(3, lo=0.5), f32(3), f32(3), tol=1e-4)
def batch_norm_training(x, m, v, g, b): return ops.batch_norm(x, m, v, g, b, True, 0.1, 1e-3)  # noqa: E704
@case(lambda a: R.softmax(a), f32(3, 7, lo=-30, hi=30))
def softmax(x): return ops.softmax(x)  # noqa: E704
@case(lambda a: R.softmax(a, 0), f32(4, 1, 3))
def softmax_axis0(x): return ops.Softmax(axis=0)(x)  # noqa: E704
@case(lambda a: R.log_softmax(a, 1), f32(2, 5, 3, lo=-20, hi=20))
def log_softmax(x): return ops.log_softmax(x, 1)  # noqa: E704
@case(lambda a, w, b: R.layer_norm(a, 2, w, b), f32(2, 3, 4), f32(3, 4), f32(3, 4), tol=1e-4)
def layer_norm(x, w, b): return ops.layer_norm(x, (3, 4), w, b)  # noqa: E704
@case(lambda a, g: R.rms_norm(a, g), f32(2, 3, 8), f32(8), tol=1e-4)
def rms_norm(x, g): return ops.rms_norm(x, g)[0]  # noqa: E704
@case(lambda a, w, b: a @ w.T + b, f32(2, 3, 4), f32(5, 4), f32(5))
def dense(x, w, b): return ops.dense(x, w, b)  # noqa: E704
@case(lambda a, w: a @ w.T, f32(4), f32(3, 4))
def dense_vector(x, w): return ops.dense(x, w)  # noqa: E704
@case(R.silu, f32(3, 4))
def silu(x): return ops.silu(x)  # noqa: E704
@case(R.gelu, f32(3, 4, lo=-4, hi=4), tol=1e-4)
def gelu(x): return ops.gelu(x)  # noqa: E704
@case(lambda a: R.gelu(a, "tanh"), f32(3, 4, lo=-4, hi=4), tol=1e-4)
def gelu_tanh(x): return ops.gelu(x, approximate="tanh")  # noqa: E704
@case(lambda a: np.maximum(a, 0) + 1 / (1 + np.exp(-a)), f32(2, 3))
def primitive_classes(x): return ops.ReLU()(x) + ops.Sigmoid()(x)  # noqa: E704
@case(lambda a: a.sum(1) * a.mean((0, 1), keepdims=True).reshape(1), f32(2, 3))
def reduce_classes(x): return ops.ReduceSum()(x, 1) * ops.ReduceMean(keep_dims=True)(x).reshape(1)  # noqa: E704
@case(lambda a, b: np.concatenate([a.transpose(1, 0), b.astype(np.float32)]).reshape(-1), f32(2, 3), i64(1, 2))
def move_classes(x, y): return ops.Reshape()(ops.Concat()([ops.Transpose()(x, (1, 0)), ops.Cast()(y, msjit.float32)]), (-1,))  # noqa: E501,E704
@case(lambda a, b: (a - b) / (a * b + 3.0), f32(2, 3, lo=0.1), f32(3, lo=0.1))
def arith_classes(x, y): return ops.Div()(ops.Sub()(x, y), ops.Add()(ops.Mul()(x, y), 3.0))  # noqa: E704


"""The cluster job: 20 distinct small graphs (written once), each with seeded inputs.

Python clients call them through ``mindspore.jit``; ``export()`` writes the same graphs as
serialized CompileRequests with ExecuteRequest-format inputs for the C++ client (msjit-run), and
the eager outputs they must match. The cache key ignores source locations, so a graph captured
here and one captured in a client process are the same key."""
import os

import numpy as np

import mindspore
from mindspore import Tensor, ops

JIT_LEVEL = "O1"


def linear_relu(x, w, b):
    return ops.relu(ops.matmul(x, w) + b)


def mlp2(x, w1, w2):
    return ops.matmul(ops.tanh(ops.matmul(x, w1)), w2)


def gelu_chain(x):
    return ops.gelu(x) * 0.5 + x


def softmax_rows(x):
    return ops.softmax(x, axis=-1)


def log_softmax_scaled(x, s):
    return ops.log_softmax(x * s, axis=1)


def row_sum_sq(x):
    return ops.sum(x * x, dim=1)


def col_mean(x):
    return ops.mean(x, axis=0)


def amax_shift(x):
    return x - ops.amax(x, axis=-1, keepdims=True)


def sigmoid_gate(x, y):
    return ops.sigmoid(x) * y + (1.0 - ops.sigmoid(x)) * x


def silu_residual(x, y):
    return ops.silu(x + y) + y


def exp_normalise(x):
    e = ops.exp(x - 1.0)
    return e / ops.sum(e)


def clamp_abs(x):
    return ops.clamp(ops.abs(x) - 0.3, 0.0, 1.0)


def sqrt_norm(x):
    return x * ops.rsqrt(ops.mean(x * x, axis=-1, keep_dims=True) + 1e-5)


def trig_mix(x):
    return ops.sin(x) * ops.cos(2.0 * x) + ops.square(x)


def maximum_minimum(x, y):
    return ops.maximum(x, y) - ops.minimum(x, y) * 0.25


def where_positive(x, y):
    return ops.where(x > 0, x * y, y - x)


def conv_relu(x, w):
    return ops.relu(ops.conv2d(x, w, pad_mode="valid"))


def transpose_matmul(x, y):
    return ops.matmul(ops.transpose(x, (1, 0)), y) * 0.1


def concat_reduce(x, y):
    return ops.sum(ops.concat((x, y), axis=0), dim=0)


def reshape_affine(x, w):
    return ops.matmul(ops.reshape(x, (6, 8)), w) + 1.0


# (function, input shapes); the shapes differ per graph, so are the keys.
GRAPHS = [
    (linear_relu, [(4, 8), (8, 5), (5,)]),
    (mlp2, [(3, 6), (6, 7), (7, 2)]),
    (gelu_chain, [(5, 9)]),
    (softmax_rows, [(6, 10)]),
    (log_softmax_scaled, [(4, 11), (4, 11)]),
    (row_sum_sq, [(7, 12)]),
    (col_mean, [(9, 4)]),
    (amax_shift, [(3, 13)]),
    (sigmoid_gate, [(8, 6), (8, 6)]),
    (silu_residual, [(2, 14), (2, 14)]),
    (exp_normalise, [(15,)]),
    (clamp_abs, [(4, 4, 3)]),
    (sqrt_norm, [(5, 16)]),
    (trig_mix, [(6, 7)]),
    (maximum_minimum, [(3, 17), (3, 17)]),
    (where_positive, [(10, 3), (10, 3)]),
    (conv_relu, [(1, 2, 6, 6), (3, 2, 3, 3)]),
    (transpose_matmul, [(5, 4), (5, 3)]),
    (concat_reduce, [(3, 18), (2, 18)]),
    (reshape_affine, [(4, 12), (8, 3)]),
]
COUNT = len(GRAPHS)

SLOW_STEPS = 1000   # ~2,000 nodes: a compile of a few seconds, long enough to kill its daemon mid-way


def slow_chain(x):
    s = ops.tanh(x)   # |s| < 1: the chain contracts, so eager and compiled agree closely
    y = s
    for i in range(SLOW_STEPS):
        y = y * s + s if i % 2 == 0 else y * 0.5 - s
    return y


# The lease test's graph, after the job's: index SLOW.
ALL = GRAPHS + [(slow_chain, [(7,)])]
SLOW = COUNT


def name(index):
    return f"{index:02d}-{ALL[index][0].__name__}"


def inputs(index):
    """The graph's input arrays (float32, seeded by its index: every client uses the same)."""
    rng = np.random.default_rng(1000 + index)
    return [rng.standard_normal(shape).astype(np.float32) for shape in ALL[index][1]]


def outputs(value):
    """A graph's result as a list of numpy arrays."""
    values = value if isinstance(value, (tuple, list)) else [value]
    return [v.asnumpy() for v in values]


def eager(index):
    return outputs(ALL[index][0](*[Tensor(a) for a in inputs(index)]))


def jitted(index):
    # fullgraph: a daemon that cannot be reached is an error, never a silent eager run.
    return mindspore.jit(ALL[index][0], jit_level=JIT_LEVEL, fullgraph=True)


def run_jitted(index):
    return outputs(jitted(index)(*[Tensor(a) for a in inputs(index)]))


def assert_equal_outputs(got, want, where):
    assert len(got) == len(want), f"{where}: {len(got)} outputs, want {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape and g.dtype == w.dtype, f"{where}[{i}]: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=f"{where}[{i}]")


def compile_request(index):
    """The CompileRequest the Python client sends for this graph."""
    from msjit import serialize
    from msjit.proto import msjit_pb2

    function = jitted(index)
    captured = function.lower(*[Tensor(a) for a in inputs(index)])
    return msjit_pb2.CompileRequest(model=serialize.to_model(captured.graph), options=function.config.to_proto())


def export(directory, count=COUNT):
    """Writes NN-name.request.pb (CompileRequest) and NN-name.inputs.pb (ExecuteRequest) for the
    first ``count`` graphs of ALL; returns [(request path, inputs path)] and the eager outputs
    [[array]] they must give, by graph index."""
    from msjit import serialize
    from msjit.proto import msjit_pb2

    os.makedirs(directory, exist_ok=True)
    files, expected = [], []
    for index in range(count):
        stem = os.path.join(directory, name(index))
        execute = msjit_pb2.ExecuteRequest(inputs=[serialize.tensor_proto(a) for a in inputs(index)])
        for suffix, message in ((".request.pb", compile_request(index)), (".inputs.pb", execute)):
            with open(stem + suffix, "wb") as f:
                f.write(message.SerializeToString(deterministic=True))
        files.append((stem + ".request.pb", stem + ".inputs.pb"))
        expected.append(eager(index))
    return files, expected


def read_outputs(path):
    """The arrays of an ExecuteReply-format outputs file (what msjit-run writes)."""
    from msjit.dtype import ALL
    from msjit.proto import msjit_pb2

    by_proto = {d.proto: d.np for d in ALL}
    reply = msjit_pb2.ExecuteReply()
    with open(path, "rb") as f:
        reply.ParseFromString(f.read())
    return [np.frombuffer(t.raw_data, by_proto[t.dtype].newbyteorder("<")).astype(by_proto[t.dtype])
            .reshape(tuple(t.dims)) for t in reply.outputs]

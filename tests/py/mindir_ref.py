"""A reference interpreter of MindIR ModelProtos built on msjit's primitive table.

The test oracle for serialization: a captured graph, written to protobuf and read back here,
must compute what eager execution computed. It checks every node with the same abstract rules
the client uses, so a graph that violates the contract fails here too.
"""
import numpy as np

from msjit.core import ShapedArray
from msjit.dtype import ALL
from msjit.ops.prims import PRIMITIVES

BY_PROTO = {d.proto: d for d in ALL}


def array_from_proto(t):
    dt = BY_PROTO[t.dtype].np
    return np.frombuffer(t.raw_data, dtype=dt.newbyteorder("<")).astype(dt).reshape(tuple(t.dims))


def attribute_value(a):
    kind = a.WhichOneof("value")
    if kind == "t":
        return array_from_proto(a.t)
    if kind in ("ints", "floats"):
        return tuple(getattr(a, kind).values)
    if kind == "dtype":
        return BY_PROTO[a.dtype]
    return getattr(a, kind)


def evaluate(model, arrays):
    """Run ``model`` on numpy ``arrays`` (graph inputs, then parameters, in order); returns the
    outputs in order."""
    g = model.graph
    values = list(g.input) + list(g.parameter)
    assert len(arrays) == len(values)
    env = {}
    for vi, a in zip(values, arrays):
        assert a.dtype == BY_PROTO[vi.dtype].np and a.shape == tuple(vi.dims), (vi, a.dtype, a.shape)
        env[vi.name] = a
    for node in g.node:
        prim = PRIMITIVES[node.op_type]
        attrs = {a.name: attribute_value(a) for a in node.attribute}
        ins = [env[i] for i in node.input]
        aval = prim.abstract(*map(ShapedArray.of, ins), **attrs)
        env[node.output[0]] = np.asarray(prim.impl(*ins, **attrs), aval.dtype.np)
    return [env[o.name] for o in g.output]


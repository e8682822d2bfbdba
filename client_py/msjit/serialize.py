"""Graph -> MindIR ``ModelProto``.

Deterministic by construction (the daemon's cache key hashes these bytes): node and value names
come from counters, attributes are written in sorted order, locations are the user's source
file and line, and nothing process-specific (ids, temp paths, times) is written.
"""
import numpy as np

from . import __version__
from .capture.graph import Graph
from .dtype import DType, from_numpy
from .proto import mindir_pb2

IR_VERSION = "msjit-mindir-1"


def to_model(graph):
    """The ModelProto for a captured Graph."""
    model = mindir_pb2.ModelProto(ir_version=IR_VERSION, producer_name="msjit",
                                  producer_version=__version__)
    _fill_graph(model.graph, graph)
    return model


def _fill_graph(g, graph):
    g.name = graph.name
    for name, aval in graph.inputs:
        g.input.append(_value_info(name, aval))
    for name, aval in graph.parameters:
        g.parameter.append(_value_info(name, aval))
    for node in graph.nodes:
        n = g.node.add(name=node.name, op_type=node.op_type, input=node.inputs,
                       output=node.outputs or [node.name])
        for key in sorted(node.attrs):
            n.attribute.append(_attribute(key, node.attrs[key]))
        if node.location:
            n.location.file, n.location.line = node.location
    for name, aval in graph.outputs:
        g.output.append(_value_info(name, aval))


def to_bytes(graph):
    return to_model(graph).SerializeToString(deterministic=True)


def _value_info(name, aval):
    return mindir_pb2.ValueInfoProto(name=name, dtype=aval.dtype.proto, dims=aval.shape)


def tensor_proto(array, name=""):
    """A TensorProto with little-endian, row-major raw_data."""
    array = np.asarray(array, order="C")  # (ascontiguousarray would make 0-d arrays 1-d)
    dt = from_numpy(array.dtype)
    raw = array.astype(dt.np.newbyteorder("<"), copy=False).tobytes()
    return mindir_pb2.TensorProto(name=name, dtype=dt.proto, dims=array.shape, raw_data=raw)


def _attribute(name, value):
    a = mindir_pb2.AttributeProto(name=name)
    if isinstance(value, (bool, np.bool_)):
        a.b = bool(value)
    elif isinstance(value, (int, np.integer)):
        a.i = int(value)
    elif isinstance(value, (float, np.floating)):
        a.f = float(value)
    elif isinstance(value, str):
        a.s = value
    elif isinstance(value, DType):
        a.dtype = value.proto
    elif isinstance(value, np.ndarray):
        a.t.CopyFrom(tensor_proto(value))
    elif isinstance(value, Graph):
        _fill_graph(a.g, value)
    elif isinstance(value, (tuple, list)):
        is_ints = all(isinstance(v, (int, np.integer)) for v in value)
        values = a.ints if is_ints else a.floats
        values.SetInParent()  # an empty list is meaningful (ReduceSum axes=[] = all axes)
        values.values.extend(int(v) if is_ints else float(v) for v in value)
    else:
        raise TypeError(f"attribute {name!r}: cannot serialize a value of type {type(value).__name__}")
    return a

"""Writes the fuzz seed corpus (fuzz/corpus/*.pb: valid serialized CompileRequests, one per
kind of op and attribute the importer handles), the dictionary fuzz/request.dict (op and
attribute names, so mutations reach the type rules) and the hand-made regression inputs
(fuzz/regressions/*.pb: the overflows issue 11 reports and those fixed in the type rules; crash
inputs the fuzzer finds are copied there as they are). Run from the checkout after `make stage`:

    PYTHONPATH=client_py:tests/e2e /usr/bin/python3 fuzz/make_seeds.py
"""
import os
import re

import numpy as np

from mindir_models import F32, constant, model, mul_add, request
from msjit.proto import mindir_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
I32, BOOL = mindir_pb2.DT_INT32, mindir_pb2.DT_BOOL


def set_attrs(m, node_name, **attrs):
    """Attributes `model` cannot write: ints (int), dtypes (DataType via ("dtype", v)), graphs."""
    node = next(n for n in m.graph.node if n.name == node_name)
    for name, value in attrs.items():
        a = node.attribute.add(name=name)
        if isinstance(value, mindir_pb2.GraphProto):
            a.g.CopyFrom(value)
        elif isinstance(value, tuple):
            a.dtype = value[1]
        else:
            a.i = value
    return m


def one(op, dims, attrs, dtype=F32, **extra):
    return set_attrs(model([("x", dims, dtype)], [(f"{op}_1", op, ["x"], attrs)], [f"{op}_1"]), f"{op}_1", **extra)


def grad(depth):
    """Grad of Neg over x, its body nested `depth` deep."""
    def body(d):
        inner = model([("x", [2], F32)], [] if d else [("y", "Neg", ["x"], {})], ["y"])
        if d:
            node = inner.graph.node.add(name="y", op_type="Grad", input=["x"], output=["y", "y_dx"])
            node.location.file, node.location.line = "model.py", d
            set_attrs(inner, "y", body=body(d - 1), num_diff=1)
            inner.graph.node[0].attribute.add(name="wrt").ints.values.append(0)
            inner.graph.node[0].attribute.add(name="sens_param").b = False
        return inner.graph
    m = model([("x", [2], F32)], [], ["g"])
    node = m.graph.node.add(name="g", op_type="Grad", input=["x"], output=["g", "g_dx"])
    node.location.file, node.location.line = "model.py", depth + 1
    set_attrs(m, "g", body=body(depth), num_diff=1)
    m.graph.node[0].attribute.add(name="wrt").ints.values.append(0)
    m.graph.node[0].attribute.add(name="sens_param").b = False
    return m


def seeds():
    nchw = [1, 2, 6, 6]
    yield "mul_add", mul_add()
    yield "constant", constant([2, 2], np.arange(4, dtype=np.float32).tobytes())
    yield "reshape", one("Reshape", [2, 3], {"shape": [3, 2]})
    yield "transpose", one("Transpose", [2, 3], {"perm": [1, 0]})
    yield "broadcast_to", one("BroadcastTo", [1, 3], {"shape": [4, 3]})
    yield "tile", one("Tile", [2, 3], {"multiples": [2, 1]})
    yield "strided_slice", one("StridedSlice", [8], {"begin": [7], "end": [-1], "strides": [-3]})
    yield "reduce", one("ReduceMean", [2, 3], {"axes": [1], "keep_dims": True})
    yield "max_pool", one("MaxPool", nchw, {"kernel": [2, 2], "stride": [2, 2], "pad": [0, 0, 0, 0]})
    yield "avg_pool", one("AvgPool", nchw, {"kernel": [3, 3], "stride": [1, 1], "pad": [1, 1, 1, 1],
                                            "count_include_pad": False})
    yield "triu", one("Triu", [3, 3], {}, diagonal=1)
    yield "cast", one("Cast", [4], {}, to=("dtype", I32))
    yield "concat", set_attrs(model([("x", [2, 3], F32), ("y", [2, 1], F32)],
                                    [("Concat_1", "Concat", ["x", "y", "x"], {})], ["Concat_1"]), "Concat_1", axis=1)
    yield "gather", set_attrs(model([("x", [5, 3], F32), ("i", [4], I32)],
                                    [("Gather_1", "Gather", ["x", "i"], {})], ["Gather_1"]), "Gather_1", axis=0)
    yield "select", model([("c", [3], BOOL), ("x", [3], F32), ("y", [1], F32)],
                          [("Select_1", "Select", ["c", "x", "y"], {})], ["Select_1"])
    yield "matmul", model([("a", [2, 4, 3], F32), ("b", [2, 5, 4], F32)],
                          [("MatMul_1", "MatMul", ["a", "b"], {"transpose_a": True, "transpose_b": True})],
                          ["MatMul_1"])
    conv = {"stride": [1, 1], "dilation": [2, 1], "pad": [1, 1, 0, 0]}
    yield "conv2d", set_attrs(model([("x", nchw, F32), ("w", [4, 1, 3, 3], F32)],
                                    [("Conv2D_1", "Conv2D", ["x", "w"], conv)], ["Conv2D_1"]), "Conv2D_1", group=2)
    yield "conv2d_backprop_input", set_attrs(
        model([("dy", [1, 4, 4, 4], F32), ("w", [4, 1, 3, 3], F32)],
              [("Conv2DBackpropInput_1", "Conv2DBackpropInput", ["dy", "w"], dict(conv, input_shape=nchw))],
              ["Conv2DBackpropInput_1"]), "Conv2DBackpropInput_1", group=2)
    yield "grad", grad(0)
    yield "grad_nested", grad(2)


def regressions():
    """Requests whose size or shape arithmetic overflowed (UB, an LLVM abort, or unbounded memory)."""
    big = 1 << 62
    yield "constant_2e32x2e32", constant([1 << 32, 1 << 32])
    yield "constant_2e31x2e31", constant([1 << 31, 1 << 31])
    yield "input_2e62x4", model([("x", [big, 4], F32)], [("Neg_1", "Neg", ["x"], {})], ["Neg_1"])
    yield "tile_overflow", one("Tile", [4], {"multiples": [big]})
    yield "reshape_wraps_to_zero", one("Reshape", [0], {"shape": [1 << 32, 1 << 32, 4]})
    yield "strided_slice_huge_stride", one("StridedSlice", [4], {"begin": [3], "end": [-1], "strides": [-(1 << 63)]})
    yield "pool_padding_overflow", one("MaxPool", [1, 1, 4, 4], {"kernel": [2, (1 << 63) - 1], "stride": [1, 1],
                                                                 "pad": [0, 0, (1 << 63) - 2, (1 << 63) - 2]})
    yield "conv_dilation_overflow", set_attrs(
        model([("x", [1, 1, 3, 3], F32), ("w", [1, 1, 3, 3], F32)],
              [("Conv2D_1", "Conv2D", ["x", "w"], {"stride": [1, 1], "dilation": [big, 1], "pad": [0, 0, 0, 0]})],
              ["Conv2D_1"]), "Conv2D_1", group=1)
    yield "grad_nested_9", grad(8)


def dictionary():
    """Op mnemonics from the ODS file and every attribute name the op definitions declare."""
    with open(os.path.join(HERE, "..", "ir", "MindirOps.td")) as f:
        td = f.read()
    words = set(re.findall(r'Mindir_\w+Op<"(\w+)"', td)) | set(re.findall(r":\$(\w+)", td))
    words |= {"Grad", "body", "msjit-mindir-1", "O0", "O1"}
    return sorted(words)


def main():
    for folder, models in (("corpus", seeds()), ("regressions", regressions())):
        os.makedirs(os.path.join(HERE, folder), exist_ok=True)
        for name, m in models:
            with open(os.path.join(HERE, folder, name + ".pb"), "wb") as f:
                f.write(request(m).SerializeToString())
    with open(os.path.join(HERE, "request.dict"), "w") as f:
        f.write("# generated by fuzz/make_seeds.py: op and attribute names of ir/MindirOps.td\n")
        f.writelines(f'"{w}"\n' for w in dictionary())


if __name__ == "__main__":
    main()

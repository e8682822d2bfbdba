"""Hand-built MindIR models for daemon tests (the client is not involved)."""
from msjit.proto import mindir_pb2, msjit_pb2

F32 = mindir_pb2.DT_FLOAT32


def model(inputs, nodes, outputs):
    """inputs: [(name, dims, dtype)], nodes: [(name, op, [inputs], {attr: value})]."""
    m = mindir_pb2.ModelProto(ir_version="msjit-mindir-1", producer_name="msjit-tests")
    for name, dims, dtype in inputs:
        m.graph.input.add(name=name, dims=dims, dtype=dtype)
    for line, (name, op, ins, attrs) in enumerate(nodes, start=1):
        node = m.graph.node.add(name=name, op_type=op, input=ins, output=[name])
        node.location.file, node.location.line = "model.py", line
        for key, value in attrs.items():
            a = node.attribute.add(name=key)
            if isinstance(value, bool):
                a.b = value
            else:
                a.ints.SetInParent()
                a.ints.values.extend(value)
    for name in outputs:
        m.graph.output.add(name=name)
    return m


def mul_add(dims=(2, 3)):
    return model([(n, list(dims), F32) for n in "abc"],
                 [("Mul_1", "Mul", ["a", "b"], {}), ("Add_2", "Add", ["Mul_1", "c"], {})], ["Add_2"])


def request(m, jit_level="O1"):
    return msjit_pb2.CompileRequest(model=m, options=msjit_pb2.CompileOptions(jit_level=jit_level))


def chain(n, width=7):
    """A chain of n elementwise nodes over one input (Mul and Add alternate, each with the input
    again, so nothing folds away). Compile time grows about quadratically with n: a few thousand
    nodes take seconds, which is how tests get a compile that is still running when they act."""
    nodes, prev = [], "x"
    for i in range(n):
        op = "Mul" if i % 2 == 0 else "Add"
        nodes.append((f"{op}_{i}", op, [prev, "x"], {}))
        prev = f"{op}_{i}"
    return model([("x", [width], F32)], nodes, [prev])


def constant(dims, raw_data=b"", dtype=F32):
    """A graph whose only node is a Constant 'Const_1' of `dims` carrying `raw_data`."""
    m = model([], [], ["Const_1"])
    node = m.graph.node.add(name="Const_1", op_type="Constant", output=["Const_1"])
    node.location.file, node.location.line = "model.py", 1
    node.attribute.add(name="value").t.CopyFrom(mindir_pb2.TensorProto(dtype=dtype, dims=dims, raw_data=raw_data))
    return m

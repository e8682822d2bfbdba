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

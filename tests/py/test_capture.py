"""Graph capture (ast and trace modes): the graphs produced, constant folding, inlining, source
locations, deterministic serialization, unsupported syntax (STRICT) and JIT Fallback (LAX)."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import mindspore
import msjit
from msjit import Tensor, jit, ops, serialize
from msjit.capture.ast import capture_ast
from msjit.capture.trace import capture_trace
from msjit.errors import JitFallbackWarning, UnsupportedSyntaxError

import mindir_ref

from support import marker_lines  # noqa: E402

HERE = os.path.abspath(__file__)
line_of = marker_lines(HERE)


def f32(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).uniform(0.5, 2.0, shape).astype(np.float32))


def op_types(captured):
    return [n.op_type for n in captured.graph.nodes]


def run_graph(captured, args):
    """Serialize the captured graph, run it with the reference interpreter, rebuild the result."""
    model = mindir_pb2_roundtrip(serialize.to_model(captured.graph))
    outs = mindir_ref.evaluate(model, [args[i].asnumpy() for i in captured.tensor_args])
    from msjit.capture.graph import ARG, OUT, unflatten
    leaves = (Tensor._wrap(outs[v]) if k == OUT else args[v] if k == ARG else v for k, v in captured.leaves)
    return unflatten(captured.tree, leaves)


def mindir_pb2_roundtrip(model):
    from msjit.proto import mindir_pb2
    return mindir_pb2.ModelProto.FromString(model.SerializeToString())


def assert_same(a, b):
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    elif isinstance(a, Tensor):
        assert isinstance(b, Tensor) and a.dtype is b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
    else:
        assert a == b


# ---- functions under capture -------------------------------------------------------------------

def tutorial_f(a, b, c):
    return a * b + c


def folded(x):
    return 2.0 * 3 + x  # <folded>


def helper(a, b):
    return a * b  # <helper-mul>


def uses_helper(x, y):
    z = helper(x, y)
    return ops.exp(z)  # <uses-helper-exp>


@jit
def jitted_helper(x):
    return x - 1  # <jitted-helper-sub>


def calls_jitted(x):
    return jitted_helper(x) * 2


SCALE = 3.0


def python_features(x, y, flag, n=2, *rest, **kw):
    a, (b, c) = x, (y, 2)
    d: float = SCALE * n
    d += 1
    e = [x, y][0] if flag and len(rest) == 0 else y
    f = {"k": d}["k"] if not kw else 0
    g = max(abs(-c), 1) + float(int(2.7)) + min([1, 2]) + len(range(3))
    h = x.shape[-1] * x.ndim + sum((1, 2)) if isinstance(x, Tensor) else -1
    if b is not None and c == 2:
        e = e + f
    elif c > 2:
        e = e - f
    else:
        pass
    r = ops.add(*(e, g), **{}) * h
    return r.sum(axis=-1, keepdims=True), (a, d)


def multiline(x, y):
    z = ops.add(  # <multiline-add>
        x,
        y * 2.0,  # <multiline-mul>
    )
    return z


def mixed_dtypes(i, f):
    return i + f, i * 2, i / 2  # <mixed>


def vector_matmul(v, m):
    return v @ m


def closure_factory():
    w = Tensor(np.array([1.0, 2.0, 3.0], np.float32))

    def closure(x):
        return x * w
    return closure


def passthrough(x, y):
    s = x + y
    return x, 42, s, s


# ---- graphs --------------------------------------------------------------------------------------

def test_tutorial_function_graph():
    c = capture_ast(tutorial_f, [f32(2, 3), f32(2, 3), f32(2, 3)])
    assert op_types(c) == ["Mul", "Add"]
    assert [n for n, _ in c.graph.inputs] == ["arg0", "arg1", "arg2"]
    assert c.graph.nodes[0].inputs == ("arg0", "arg1")
    assert c.graph.nodes[1].inputs == ("Mul_0", "arg2")
    assert [n for n, _ in c.graph.outputs] == ["Add_1"]


def test_python_constants_are_folded():
    c = capture_ast(folded, [f32(2, 2)])
    assert op_types(c) == ["Constant", "Add"]
    value = c.graph.nodes[0].attrs["value"]
    assert value.dtype == np.float32 and value.shape == () and value == 6.0
    assert c.graph.nodes[0].location == (HERE, line_of("folded"))


def test_helpers_are_inlined_with_their_own_locations():
    c = capture_ast(uses_helper, [f32(3), f32(3)])
    assert op_types(c) == ["Mul", "Exp"]     # no call remains
    mul, exp = c.graph.nodes
    assert mul.location == (HERE, line_of("helper-mul"))
    assert exp.location == (HERE, line_of("uses-helper-exp"))


def test_jitted_function_called_from_another_is_inlined():
    c = capture_ast(calls_jitted, [f32(3)])
    assert op_types(c) == ["Constant", "Sub", "Constant", "Mul"]
    assert c.graph.nodes[1].location == (HERE, line_of("jitted-helper-sub"))


def test_multiline_expression_locations():
    c = capture_ast(multiline, [f32(2), f32(2)])
    locations = {n.op_type: n.location[1] for n in c.graph.nodes}
    assert locations == {"Constant": line_of("multiline-mul"), "Mul": line_of("multiline-mul"),
                         "Add": line_of("multiline-add")}


def test_implicit_casts_and_scalars_become_nodes():
    i, f = Tensor(np.array([1, 2], np.int32)), f32(2)
    c = capture_ast(mixed_dtypes, [i, f])
    assert op_types(c) == ["Cast", "Add", "Constant", "Mul", "Cast", "Constant", "Div"]
    cast, add, k2, mul, cast2, k2f, div = c.graph.nodes
    assert cast.attrs == {"to": msjit.float32} and cast.inputs == ("arg0",)
    assert k2.attrs["value"].dtype == np.int32      # int scalar takes the int tensor's dtype
    assert k2f.attrs["value"].dtype == np.float32   # int / int is float32 division
    assert {n.location for n in c.graph.nodes} == {(HERE, line_of("mixed"))}
    assert [a.dtype for _, a in c.graph.outputs] == [msjit.float32, msjit.int32, msjit.float32]


def test_vector_matmul_uses_reshape_nodes():
    c = capture_ast(vector_matmul, [f32(3), f32(3, 4)])
    assert op_types(c) == ["Reshape", "MatMul", "Reshape"]
    assert c.graph.nodes[0].attrs == {"shape": (1, 3)}
    assert c.graph.outputs[0][1].shape == (4,)


def test_reduce_attrs_are_normalized():
    c = capture_ast(lambda_free_reduce, [f32(2, 3, 4)])
    sums = [n.attrs for n in c.graph.nodes if n.op_type == "ReduceSum"]
    assert sums == [{"axes": (0, 2), "keep_dims": False}, {"axes": (), "keep_dims": True}]
    perm = [n.attrs for n in c.graph.nodes if n.op_type == "Transpose"]
    assert perm == [{"perm": (2, 0, 1)}]


def lambda_free_reduce(x):
    return x.sum(axis=(-1, 0)), ops.sum(x, None, True), ops.transpose(x, (-1, 0, 1))


def test_closure_tensor_becomes_a_constant():
    c = capture_ast(closure_factory(), [f32(3)])
    assert op_types(c) == ["Constant", "Mul"]
    np.testing.assert_array_equal(c.graph.nodes[0].attrs["value"], [1.0, 2.0, 3.0])


def test_passthrough_constant_and_duplicate_outputs():
    x, y = f32(2), f32(2)
    c = capture_ast(passthrough, [x, y])
    assert [n for n, _ in c.graph.outputs] == ["Add_0"]   # x and 42 are rebuilt in Python
    assert c.leaves == (("arg", 0), ("const", 42), ("out", 0), ("out", 0))
    out = run_graph(c, [x, y])
    assert out[0] is x and out[1] == 42


def test_python_features_match_eager():
    args = [f32(2, 3, seed=1), f32(2, 3, seed=2), True, 3, ]
    c = capture_ast(python_features, args)
    assert "Constant" in op_types(c) and op_types(c)[-1] == "ReduceSum"
    assert_same(run_graph(c, args), python_features(*args))


@pytest.mark.parametrize("flag", [True, False])
def test_constant_if_picks_a_branch_at_capture_time(flag):
    def pick(x, flag):
        if flag:
            return ops.exp(x)
        return ops.log(x)
    c = capture_ast(pick, [f32(2), flag])
    assert op_types(c) == (["Exp"] if flag else ["Log"])


# ---- differential: every op captured, serialized and interpreted matches eager ----------------

def op_add(x, y): return ops.add(x, y)  # noqa: E704
def op_sub(x, y): return ops.sub(x, y)  # noqa: E704
def op_mul(x, y): return x * y  # noqa: E704
def op_div(x, y): return x / y  # noqa: E704
def op_maximum(x, y): return ops.maximum(x, y)  # noqa: E704
def op_minimum(x, y): return ops.minimum(x, 1.0) + y  # noqa: E704
def op_neg(x): return -x  # noqa: E704
def op_exp(x): return ops.exp(x)  # noqa: E704
def op_log(x): return ops.log(x)  # noqa: E704
def op_sqrt(x): return ops.sqrt(x)  # noqa: E704
def op_relu(x): return ops.relu(x - 1.0)  # noqa: E704
def op_sigmoid(x): return ops.sigmoid(x)  # noqa: E704
def op_tanh(x): return ops.tanh(x)  # noqa: E704
def op_matmul(x, y): return ops.matmul(x, y)  # noqa: E704
def op_bmm(x, y): return x @ y  # noqa: E704
def op_sum(x): return ops.sum(x, -1, True)  # noqa: E704
def op_mean(x): return ops.mean(x, (0, 1))  # noqa: E704
def op_reshape(x): return ops.reshape(x, (3, -1))  # noqa: E704
def op_transpose(x): return ops.transpose(x, (1, 0))  # noqa: E704
def op_cast(x): return ops.cast(x, msjit.float16)  # noqa: E704


OP_CASES = [
    (op_add, [(2, 3), (3,)]), (op_sub, [(2, 1), (1, 4)]), (op_mul, [(4,), ()]), (op_div, [(2, 3), (2, 3)]),
    (op_maximum, [(3,), (2, 3)]), (op_minimum, [(3,), (3,)]), (op_neg, [(2, 2)]), (op_exp, [(5,)]),
    (op_log, [(5,)]), (op_sqrt, [(2, 5)]), (op_relu, [(6,)]), (op_sigmoid, [(3,)]), (op_tanh, [(3,)]),
    (op_matmul, [(2, 3), (3, 4)]), (op_bmm, [(2, 2, 3), (2, 3, 4)]), (op_bmm, [(2, 2, 3), (3, 4)]),
    (op_matmul, [(3,), (3, 4)]), (op_sum, [(2, 3)]), (op_mean, [(2, 3, 2)]), (op_reshape, [(2, 3)]),
    (op_transpose, [(2, 3)]), (op_cast, [(2, 3)]),
]


@pytest.mark.parametrize("fn, shapes", OP_CASES, ids=[f"{c[0].__name__}{c[1]}" for c in OP_CASES])
@pytest.mark.parametrize("capture", [capture_ast, capture_trace], ids=["ast", "trace"])
def test_every_op_captured_matches_eager(fn, shapes, capture):
    args = [f32(*s, seed=i) for i, s in enumerate(shapes)]
    c = capture(fn, args)
    assert op_types(c)[-1] != "Constant"
    assert_same(run_graph(c, args), fn(*args))


# ---- determinism ---------------------------------------------------------------------------------

def test_serialization_is_deterministic_in_process():
    args = [f32(2, 3), f32(2, 3), True, 2]
    a = serialize.to_bytes(capture_ast(python_features, args).graph)
    b = serialize.to_bytes(capture_ast(python_features, args).graph)
    assert a == b and len(a) > 100


_DETERMINISM_SCRIPT = """
import hashlib, sys
sys.path[:0] = [{client!r}, {tests!r}, {tests!r} + '/..']
import numpy as np
from msjit import Tensor, serialize
from msjit.capture.ast import capture_ast
import test_capture as t
args = [Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 3), np.float32)), True, 2]
print(hashlib.sha256(serialize.to_bytes(capture_ast(t.python_features, args).graph)).hexdigest())
"""


def test_serialization_is_deterministic_across_processes():
    script = _DETERMINISM_SCRIPT.format(client=os.path.join(os.path.dirname(HERE), "..", "..", "client_py"),
                                        tests=os.path.dirname(HERE))
    digests = {subprocess.run([sys.executable, "-c", script], env={**os.environ, "PYTHONHASHSEED": seed},
                              capture_output=True, text=True, check=True).stdout for seed in ("1", "2")}
    assert len(digests) == 1 and len(digests.pop()) == 65


def test_model_header_and_locations():
    model = serialize.to_model(capture_ast(uses_helper, [f32(3), f32(3)]).graph)
    assert model.ir_version == "msjit-mindir-1"
    assert [n.name for n in model.graph.node] == ["Mul_0", "Exp_1"]
    assert (model.graph.node[0].location.file, model.graph.node[0].location.line) == (HERE, line_of("helper-mul"))
    assert [(i.name, list(i.dims)) for i in model.graph.input] == [("arg0", [3]), ("arg1", [3])]


def test_empty_axes_attribute_is_present():
    def total(x):
        return x.sum()
    node = serialize.to_model(capture_ast(total, [f32(2, 2)]).graph).graph.node[0]
    axes = next(a for a in node.attribute if a.name == "axes")
    assert axes.WhichOneof("value") == "ints" and list(axes.ints.values) == []


# ---- unsupported syntax ---------------------------------------------------------------------------

def uses_for(x):
    for _ in range(10 ** 6):  # <for>
        pass
    return x


def uses_while(x):
    while x.sum() > 100:  # <while>
        x = x[1:]   # (a loop on a tensor value is one While node, whose carried shapes are static)
    return x


def uses_print(x):
    print(x)  # <print>
    return x


def uses_numpy_on_tensor(x):
    return np.sum(x)  # <np-sum>


def uses_tensor_condition(x):
    if x.sum():  # <tensor-if>
        return x
    return x, -x   # (a tensor and a tuple: no one graph returns either)


def uses_comprehension(x):
    return [x * i for i in (1, 2)]  # <listcomp>


def uses_lambda(x):
    f = lambda v: v + 1  # noqa: E731  # <lambda>
    return f(x)


def uses_try(x):
    try:  # <try>
        return x
    except ValueError:
        return x


def uses_with(x):
    with open(__file__):  # <with>
        return x


def uses_attr_store(x):
    x.foo = 1  # <attr-store>
    return x


def uses_asnumpy(x):
    return x.asnumpy()  # <asnumpy>


def uses_unsupported_helper(x):
    return helper_with_loop(x) + 1


def helper_with_loop(x):
    while x.sum() > 100:  # <helper-while>
        x = x[1:]
    return x


UNSUPPORTED = [
    (uses_for, "for", "'for' loop"), (uses_while, "while", "a 'while' loop on a tensor value where variable 'x'"),
    (uses_print, "print", "call to print"), (uses_numpy_on_tensor, "np-sum", "call to numpy.sum with a tensor"),
    (uses_tensor_condition, "tensor-if", "a condition on a tensor value"),
    (uses_comprehension, "listcomp", "list comprehension"), (uses_lambda, "lambda", "lambda"),
    (uses_try, "try", "'try' statement"),
    (uses_with, "with", "'with' statement"), (uses_attr_store, "attr-store", "assignment to an attribute"),
    (uses_asnumpy, "asnumpy", "conversion to a numpy array of a tensor under capture"),
    (uses_unsupported_helper, "helper-while", "a 'while' loop on a tensor value where variable 'x'"),
]


@pytest.mark.parametrize("fn, marker, what", UNSUPPORTED, ids=[u[1] for u in UNSUPPORTED])
def test_strict_raises_with_file_and_line(fn, marker, what, no_daemon):
    jitted = jit(fn, fullgraph=True)
    with pytest.raises(UnsupportedSyntaxError, match=f"^{HERE}:{line_of(marker)}: {what}") as info:
        jitted(f32(2))
    e = info.value
    assert isinstance(e, SyntaxError) and isinstance(e, msjit.MsjitError)
    assert (e.filename, e.lineno) == (HERE, line_of(marker))
    assert e.text.rstrip().endswith(f"# <{marker}>")
    assert jitted.stats.compiles == 0


@pytest.mark.parametrize("fn, breaks", [(uses_for, 0), (uses_print, 1), (uses_tensor_condition, 1),
                                         (uses_unsupported_helper, 1)])
def test_lax_warns_once_and_splits_the_graph(fn, breaks, daemon_home, capsys):
    """JIT Fallback under LAX: one warning at the construct; the call is then interpreted, the
    graph split where Python needs a tensor's value, and every call gives the eager answer."""
    jitted = jit(fn)  # fullgraph=False
    x = f32(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outs = [jitted(x) for _ in range(3)]
    fallbacks = [w for w in caught if issubclass(w.category, JitFallbackWarning)]
    assert len(fallbacks) == 1
    assert str(fallbacks[0].message).startswith(f"{HERE}:")
    assert "split into graphs" in str(fallbacks[0].message)
    assert fallbacks[0].filename == HERE          # points at the caller's line
    for out in outs:
        assert_same(out, fn(x))
    assert jitted.stats.fallbacks == 1 and jitted.stats.graph_breaks == 3 * breaks


def test_shape_error_during_capture_names_the_line():
    def bad(x, y):
        return x + y  # <bad-add>
    with pytest.raises(ValueError, match=rf"^{HERE}:{line_of('bad-add')}: Add: operands of shapes \(2, 3\) and \(4,\)"):
        capture_ast(bad, [f32(2, 3), f32(4)])


def test_undefined_name_is_a_name_error_with_location():
    def undefined(x):
        return x + not_defined_anywhere  # noqa: F821  # <undefined>
    with pytest.raises(NameError, match=f"^{HERE}:{line_of('undefined')}: name 'not_defined_anywhere'"):
        capture_ast(undefined, [f32(2)])


def test_lambda_function_is_unsupported():
    with pytest.raises(UnsupportedSyntaxError, match="lambda"):
        capture_ast(lambda x: x + 1, [f32(2)])


# ---- trace mode -----------------------------------------------------------------------------------

def traced(x, y):
    z = x * y  # <traced-mul>
    return z.mean()


def test_trace_mode_records_user_locations():
    c = capture_trace(traced, [f32(2, 2), f32(2, 2)])
    assert op_types(c) == ["Mul", "ReduceMean"]
    assert c.graph.nodes[0].location == (HERE, line_of("traced-mul"))


def test_trace_mode_rejects_tensor_conditions(no_daemon):
    jitted = jit(capture_mode="trace", fullgraph=True)(uses_tensor_condition)
    with pytest.raises(UnsupportedSyntaxError, match=f"^{HERE}:{line_of('tensor-if')}: the truth value"):
        jitted(f32(2))


def test_mindspore_alias_functions_capture_the_same():
    def via_alias(x):
        return mindspore.ops.relu(x) + mindspore.Tensor(np.float32(1.0))
    assert op_types(capture_ast(via_alias, [f32(2)])) == ["ReLU", "Constant", "Add"]

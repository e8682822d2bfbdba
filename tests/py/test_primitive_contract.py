"""The primitive contract: the declarations in msjit/ops/prims.py, the daemon's ODS definitions
(ir/MindirOps.td) and the daemon itself agree, and proto/OPS.md is generated from the declarations.

- names, attributes (names and kinds) and operand dtypes: the declarations against the ODS records
  (``llvm-tblgen --dump-json``; a type constraint's dtypes come from evaluating its predicate);
- accept/reject: one shared case list, each case an (op, operand avals, attrs) call, checked by the
  Python contract (``Primitive.check``: accept = returns, reject = raises) and by the real msjitd
  (a one-node MindIR graph; accept = compiles, with the output type the Python rule gives, reject
  = CompileError). The dtype cases are generated from the declarations (each op's example at
  every dtype), so a new primitive brings its cases; HAND adds shape and attribute cases with the
  verdict MindSpore's semantics call for.
"""
import functools
import importlib.util
import json
import os
import subprocess
import warnings

import numpy as np
import pytest

from msjit import dtype as D
from msjit import rpc, serialize
from msjit.core import ShapedArray
from msjit.errors import CompileError, DaemonError, DaemonUnavailableError
from msjit.ops.prims import PRIMITIVES, SECTIONS
from msjit.proto import mindir_pb2, msjit_pb2

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TBLGEN = "/usr/lib/llvm-16/bin/llvm-tblgen"
LLVM_INCLUDE = "/usr/lib/llvm-16/include"

# Ops of the dialect that a MindIR node may name but that are not primitives.
STRUCTURAL = {"Grad": "the importer's gradient-of-a-subgraph node (proto/OPS.md), expanded by msjit-autodiff"}

# ODS attribute constraints -> attribute kinds as the declarations (and proto/OPS.md) name them.
ATTR_KINDS = {"DenseI64ArrayAttr": "ints", "I64Attr": "int", "BoolAttr": "bool", "TypeAttr": "dtype",
              "ElementsAttr": "tensor"}
# The element-type predicates of ODS's builtin types, and the predicates that hold for any
# statically shaped tensor operand.
ELEMENT_TYPES = {"F16": D.float16, "F32": D.float32, "F64": D.float64, "I32": D.int32, "I64": D.int64,
                 "I1": D.bool_}
TENSOR_PREDICATES = {"IsTensorTypePred", "HasStaticShapePred"}


# ---- the ODS side --------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def ods_records():
    if not os.access(TBLGEN, os.X_OK):
        pytest.skip(f"{TBLGEN} (LLVM 16) is needed to read the ODS definitions")
    out = subprocess.run([TBLGEN, "--dump-json", "-I", LLVM_INCLUDE, "-I", os.path.join(ROOT, "ir"),
                          os.path.join(ROOT, "ir", "MindirOps.td")], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


@functools.lru_cache(maxsize=None)
def ods_ops():
    """{op name: its record} for every op of the mindir dialect."""
    records = ods_records()
    ops = (records[name] for name in records["!instanceof"]["Op"])
    return {r["opName"]: r for r in ops if r["opDialect"]["def"] == "Mindir_Dialect"}


def _accepts(records, pred, dtype):
    """Whether the ODS predicate record ``pred`` holds for a static tensor of ``dtype``."""
    r = records[pred]
    kinds = r["!superclasses"]
    children = [c["def"] for c in r.get("children") or []]
    for name, dt in ELEMENT_TYPES.items():
        if records[name]["predicate"]["def"] == pred:
            return dt is dtype
    if pred in TENSOR_PREDICATES:
        return True
    if "And" in kinds:
        return all(_accepts(records, c, dtype) for c in children)
    if "Or" in kinds:
        return any(_accepts(records, c, dtype) for c in children)
    if "Negative" in kinds or "Neg" in kinds:
        return not _accepts(records, children[0], dtype)
    if len(children) == 1 and ("Concat" in kinds or "SubstLeaves" in kinds):
        return _accepts(records, children[0], dtype)
    raise AssertionError(f"cannot interpret the ODS predicate {pred} ({kinds}: {r.get('predExpr')})")


def ods_signature(op):
    """(operands [(dtypes, variadic)], attrs {name: kind, '?' suffix = optional}) of an ODS op."""
    records = ods_records()
    operands, attrs = [], {}
    for (constraint, name) in ods_ops()[op]["arguments"]["args"]:
        r = records[constraint["def"]]
        kinds = r["!superclasses"]
        if "TypeConstraint" in kinds:
            variadic = "Variadic" in kinds
            base = r["baseType"]["def"] if variadic else constraint["def"]
            pred = records[base]["predicate"]["def"]
            operands.append((frozenset(d for d in D.ALL if _accepts(records, pred, d)), variadic))
        else:
            optional = "OptionalAttr" in kinds
            base = r["baseAttr"]["def"] if optional else constraint["def"]
            assert base in ATTR_KINDS, f"{op}: attribute {name} has the constraint {base}, which has no kind"
            attrs[name] = ATTR_KINDS[base] + ("?" if optional else "")
    return operands, attrs


def test_names_match_the_dialect():
    ods = set(ods_ops()) - set(STRUCTURAL)
    assert set(PRIMITIVES) == ods, (f"declared in prims.py only: {sorted(set(PRIMITIVES) - ods)}; "
                                     f"in ir/MindirOps.td only: {sorted(ods - set(PRIMITIVES))}")
    assert set(STRUCTURAL) <= set(ods_ops())


@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_declaration_matches_ods(name):
    prim = PRIMITIVES[name]
    operands, attrs = ods_signature(name)
    assert dict(prim.attrs) == attrs, f"{name}: attributes declared {dict(prim.attrs)}, ODS {attrs}"
    declared = [(frozenset(prim.operand_dtypes(i)), isinstance(o, str) and o.startswith("*"))
                for i, o in enumerate(prim.operands)]
    show = lambda sig: [(sorted(d.name for d in ds), var) for ds, var in sig]  # noqa: E731
    assert declared == operands, f"{name}: operands declared {show(declared)}, ODS {show(operands)}"


# ---- the declarations themselves and proto/OPS.md ------------------------------------------------

@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_declaration_is_complete(name):
    prim = PRIMITIVES[name]
    assert prim.doc and prim.out, f"{name}: declare doc and out (they are its row in proto/OPS.md)"
    assert prim.section in SECTIONS, f"{name}: section {prim.section!r} is not one of prims.SECTIONS"
    assert all(kind.rstrip("?") in ("ints", "int", "bool", "dtype", "tensor") for _, kind in prim.attrs)
    assert prim.dtypes and all(prim.operand_dtypes(i) for i in range(len(prim.operands)))


def _generator():
    spec = importlib.util.spec_from_file_location("gen_ops_md", os.path.join(ROOT, "tools", "gen_ops_md.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ops_md_is_generated():
    gen = _generator()
    with open(gen.OUTPUT) as f:
        checked_in = f.read()
    assert checked_in == gen.render(), ("proto/OPS.md is not what tools/gen_ops_md.py renders from "
                                        "client_py/msjit/ops/prims.py and proto/OPS.md.in: run `make gen`")
    for prim in PRIMITIVES.values():
        assert f"| `{prim.name}` |" in checked_in


# ---- the shared case list ------------------------------------------------------------------------

class Case:
    """One call of a primitive: operand avals and attrs; ``expect`` True/False when the verdict is
    known independently of both sides (declared dtypes, or a hand case), else None."""

    def __init__(self, op, avals, attrs, expect, why):
        self.op, self.avals, self.attrs, self.expect, self.why = op, avals, attrs, expect, why

    def __repr__(self):
        shown = {k: (f"array({v.dtype}{list(v.shape)})" if isinstance(v, np.ndarray) else v)
                 for k, v in self.attrs.items()}
        return f"{self.op}({', '.join(map(str, self.avals))}, {shown}) [{self.why}]"


def _default(dtypes):
    return D.float32 if D.float32 in dtypes else min(dtypes, key=lambda d: d.name)


def dtype_cases(prim):
    """The op's example at every dtype: the shared operands together, then each operand with its
    own dtype set alone; accepted exactly when every operand's dtype is declared for it."""
    shapes, attrs = prim.example
    if not prim.operands:  # a literal: the dtype is its value's
        return [Case(prim.name, [], {**attrs, "value": attrs["value"].astype(d.np)}, d in prim.dtypes,
                     f"value {d.name}") for d in D.ALL]
    fixed = [i for i, o in enumerate(prim.operands) if isinstance(o, tuple)]
    cases = []
    for vary in [None] + fixed:
        for d in D.ALL:
            dts = [d if (i == vary if vary is not None else i not in fixed)
                   else _default(prim.operand_dtypes(i)) for i in range(len(shapes))]
            ok = all(dt in prim.operand_dtypes(i) for i, dt in enumerate(dts))
            label = f"{'shared' if vary is None else prim.operands[vary][0]} operands {d.name}"
            cases.append(Case(prim.name, [ShapedArray(s, dt) for s, dt in zip(shapes, dts)], attrs, ok, label))
    return cases


F32, I32, BOOL = D.float32, D.int32, D.bool_
CONV = dict(stride=(1, 1), dilation=(1, 1), pad=(0, 0, 0, 0), group=1)
POOL = dict(kernel=(2, 2), stride=(1, 1), pad=(0, 0, 0, 0))


def hand(op, shapes, ok, why, dtypes=None, **attrs):
    dtypes = dtypes or [F32] * len(shapes)
    return Case(op, [ShapedArray(s, d) for s, d in zip(shapes, dtypes)], attrs, ok, why)


# Shape and attribute cases, with the verdict MindSpore's semantics call for.
HAND = [
    hand("Add", [(2, 3), (4,)], False, "not broadcastable"),
    hand("Add", [(2, 1), (1, 3)], True, "broadcast both ways"),
    hand("Add", [(2, 3), (3,)], False, "mixed dtypes", dtypes=[F32, I32]),
    hand("Add", [(2, 3), (3,), (3,)], False, "three operands"),
    hand("Add", [(2, 3), (3,)], False, "unknown attribute", axis=1),
    hand("Less", [(2, 3), (3,)], False, "mixed dtypes", dtypes=[I32, D.int64]),
    hand("Select", [(2, 3), (2, 3), (2, 3)], False, "value dtypes differ", dtypes=[BOOL, F32, D.float64]),
    hand("Select", [(2, 3), (4,), (2, 3)], False, "not broadcastable", dtypes=[BOOL, F32, F32]),
    hand("Cast", [(2, 3)], False, "missing `to`"),
    hand("Cast", [(2, 3)], True, "to bool", to=BOOL),
    hand("Cast", [(2, 3)], True, "bool to float64", dtypes=[BOOL], to=D.float64),
    hand("Cast", [(2, 3)], False, "`to` given as an int", to=1),
    hand("ReduceSum", [(2, 3, 4)], True, "all axes", axes=(), keep_dims=True),
    hand("ReduceSum", [(2, 3, 4)], False, "unsorted axes", axes=(2, 0), keep_dims=False),
    hand("ReduceSum", [(2, 3, 4)], False, "repeated axis", axes=(1, 1), keep_dims=False),
    hand("ReduceSum", [(2, 3, 4)], False, "axis out of range", axes=(3,), keep_dims=False),
    hand("ReduceSum", [(2, 3, 4)], False, "missing keep_dims", axes=(0,)),
    hand("ReduceSum", [(2, 3, 4)], False, "keep_dims given as an int", axes=(0,), keep_dims=1),
    hand("ReduceMax", [(0, 3)], False, "max over an empty axis", axes=(0,), keep_dims=False),
    hand("ReduceMin", [(0, 3)], False, "min over all axes of an empty tensor", axes=(), keep_dims=False),
    hand("ReduceMax", [(0, 3)], True, "max over a non-empty axis", axes=(1,), keep_dims=False),
    hand("ReduceSum", [(0, 3)], True, "sum over an empty axis", axes=(0,), keep_dims=False),
    hand("MatMul", [(2, 3), (4, 5)], False, "inner dims differ"),
    hand("MatMul", [(2, 3), (2, 4)], True, "transpose_a", transpose_a=True),
    hand("MatMul", [(2, 3), (4, 3)], True, "transpose_b", transpose_b=True),
    hand("MatMul", [(5, 2, 3), (5, 3, 4)], True, "batched"),
    hand("MatMul", [(5, 2, 3), (3, 4)], False, "ranks differ"),
    hand("MatMul", [(5, 2, 3), (4, 3, 4)], False, "batch dims differ"),
    hand("MatMul", [(3,), (3,)], False, "rank 1"),
    hand("MatMul", [(2, 3), (3, 4)], False, "transpose_a given as an int", transpose_a=1),
    hand("Conv2D", [(1, 4, 5, 5), (6, 3, 3, 3)], False, "channels do not match group", **{**CONV, "group": 1}),
    hand("Conv2D", [(1, 4, 5, 5), (6, 2, 3, 3)], True, "grouped", **{**CONV, "group": 2}),
    hand("Conv2D", [(1, 4, 5, 5), (5, 2, 3, 3)], False, "group does not divide O", **{**CONV, "group": 2}),
    hand("Conv2D", [(1, 4, 5, 5), (6, 4, 3, 3)], False, "stride 0", **{**CONV, "stride": (0, 1)}),
    hand("Conv2D", [(1, 4, 5, 5), (6, 4, 3, 3)], False, "negative pad", **{**CONV, "pad": (-1, 0, 0, 0)}),
    hand("Conv2D", [(1, 4, 5, 5), (6, 4, 3, 3)], False, "stride of 1 value", **{**CONV, "stride": (1,)}),
    hand("Conv2D", [(1, 4, 2, 2), (6, 4, 3, 3)], False, "kernel larger than the input", **CONV),
    hand("Conv2D", [(1, 4, 5, 5), (6, 4, 3, 3)], True, "dilated, strided, padded",
         **{**CONV, "stride": (2, 1), "dilation": (2, 1), "pad": (1, 0, 2, 1)}),
    hand("Conv2D", [(4, 5, 5), (6, 4, 3, 3)], False, "3-D input", **CONV),
    hand("Conv2D", [(1, 4, 5, 5), (6, 4, 3, 3)], False, "missing group", **{k: v for k, v in CONV.items()
                                                                          if k != "group"}),
    hand("MaxPool", [(1, 2, 4, 4)], False, "padding as large as the kernel", **{**POOL, "pad": (2, 0, 0, 0)}),
    hand("MaxPool", [(1, 2, 4, 4)], True, "padding smaller than the kernel", **{**POOL, "pad": (1, 1, 1, 1)}),
    hand("AvgPool", [(1, 2, 4, 4)], False, "padding larger than the kernel", **{**POOL, "pad": (0, 0, 0, 3)}),
    hand("AvgPool", [(1, 2, 4, 4)], True, "count_include_pad", count_include_pad=True,
         **{**POOL, "pad": (1, 1, 1, 1)}),
    hand("AvgPool", [(1, 2, 4, 4)], True, "count_include_pad left out", **POOL),
    hand("MaxPool", [(1, 2, 4, 4)], False, "MaxPool has no count_include_pad", count_include_pad=True, **POOL),
    hand("MaxPool", [(1, 2, 4, 4)], False, "kernel 0", **{**POOL, "kernel": (0, 2)}),
    hand("MaxPool", [(1, 2, 4, 4)], False, "window larger than the input", **{**POOL, "kernel": (5, 2)}),
    hand("MaxPool", [(2, 4, 4)], False, "3-D input", **POOL),
    hand("MaxPoolGrad", [(1, 2, 4, 4), (1, 2, 2, 2)], False, "dy shape is not the result shape", **POOL),
    hand("MaxPoolGrad", [(1, 2, 4, 4), (1, 2, 3, 3)], True, "dy of the result shape", **POOL),
    hand("AvgPoolGrad", [(1, 2, 3, 3)], False, "input_shape of 3 dims", count_include_pad=False,
         input_shape=(2, 4, 4), **POOL),
    hand("AvgPoolGrad", [(1, 2, 3, 3)], False, "missing count_include_pad", input_shape=(1, 2, 4, 4), **POOL),
    hand("Conv2DBackpropInput", [(1, 6, 3, 3), (6, 4, 3, 3)], False, "dy shape is not the result shape",
         input_shape=(1, 4, 4, 4), **CONV),
    hand("Conv2DBackpropFilter", [(1, 6, 2, 2), (1, 4, 4, 4)], False, "filter_shape does not match x",
         filter_shape=(6, 3, 3, 3), **CONV),
    hand("Reshape", [(2, 3)], False, "element count differs", shape=(4, 2)),
    hand("Reshape", [(2, 3)], False, "negative dims", shape=(-2, -3)),
    hand("Reshape", [(2, 3)], True, "to rank 3", shape=(1, 6, 1)),
    hand("Reshape", [(2, 3)], False, "unresolved -1", shape=(-1, 2)),
    hand("Transpose", [(2, 3)], False, "perm repeats a dim", perm=(1, 1)),
    hand("Transpose", [(2, 3)], False, "perm too short", perm=(0,)),
    hand("Transpose", [(2, 3)], False, "perm out of range", perm=(0, 2)),
    hand("BroadcastTo", [(2, 3)], False, "dims differ", shape=(2, 4)),
    hand("BroadcastTo", [(2, 3)], False, "fewer dims", shape=(3,)),
    hand("BroadcastTo", [(1,)], True, "to a zero dim", shape=(0,)),
    hand("Tile", [(2, 3)], True, "multiple 0 (MindSpore: empty result)", multiples=(0, 2)),
    hand("Tile", [(2, 3)], False, "negative multiple", multiples=(-1, 2)),
    hand("Tile", [(2, 3)], False, "one multiple per dim", multiples=(2,)),
    hand("StridedSlice", [(4, 5)], False, "begin after end", begin=(3, 0), end=(1, 5), strides=(1, 1)),
    hand("StridedSlice", [(4, 5)], False, "stride 0", begin=(0, 0), end=(4, 5), strides=(0, 1)),
    hand("StridedSlice", [(4, 5)], False, "negative begin", begin=(-1, 0), end=(4, 5), strides=(1, 1)),
    hand("StridedSlice", [(4, 5)], False, "end beyond the dim", begin=(0, 0), end=(5, 5), strides=(1, 1)),
    hand("StridedSlice", [(4, 5)], True, "reversed through index 0", begin=(3, 4), end=(-1, -1),
         strides=(-1, -3)),
    hand("StridedSlice", [(4, 5)], False, "one entry missing", begin=(0,), end=(4,), strides=(1,)),
    hand("Concat", [(2, 3)], True, "one input", axis=0),
    hand("Concat", [(2, 3), (2, 1), (2, 2)], True, "three inputs", axis=1),
    hand("Concat", [(2, 3), (2, 3)], False, "dtypes differ", dtypes=[F32, I32], axis=0),
    hand("Concat", [(2, 3), (3, 3)], False, "dims differ outside the axis", axis=1),
    hand("Concat", [(2, 3), (2, 3)], False, "axis out of range", axis=2),
    hand("Concat", [(2, 3), (2,)], False, "ranks differ", axis=0),
    hand("Concat", [], False, "no inputs", axis=0),
    hand("Gather", [(4, 3), (2,)], False, "axis out of range", dtypes=[F32, I32], axis=2),
    hand("Gather", [(4, 3), (2,)], False, "axis given as ints", dtypes=[F32, I32], axis=(0,)),
    hand("Gather", [(4, 3), ()], True, "scalar index", dtypes=[F32, D.int64], axis=1),
    hand("Triu", [(4,)], False, "rank 1", diagonal=0),
    hand("Tril", [(2, 3, 4)], True, "batched, negative diagonal", diagonal=-1),
    hand("Triu", [(3, 4)], False, "missing diagonal"),
    # rank 0 and empty tensors
    hand("Add", [(), ()], True, "rank 0"),
    hand("Select", [(), (2,), (3, 1)], True, "rank-0 condition", dtypes=[BOOL, F32, F32]),
    hand("ReduceSum", [()], True, "rank 0, all axes", axes=(), keep_dims=False),
    hand("ReduceMean", [(0, 3)], True, "mean over an empty axis (NaN)", axes=(0,), keep_dims=False),
    hand("Transpose", [()], True, "rank 0", perm=()),
    hand("Reshape", [(0, 3)], True, "empty", shape=(3, 0)),
    hand("Tile", [(0, 3)], True, "empty dim tiled", multiples=(2, 1)),
    hand("BroadcastTo", [(0, 1)], True, "empty", shape=(0, 3)),
    hand("StridedSlice", [(4, 5)], True, "empty slice", begin=(2, 0), end=(2, 5), strides=(1, 1)),
    hand("Concat", [(0, 3), (2, 3)], True, "an empty part", axis=0),
    hand("Gather", [(4, 3), (0,)], True, "no indices", dtypes=[F32, I32], axis=0),
    hand("MatMul", [(0, 3), (3, 2)], True, "no rows"),
    hand("Triu", [(0, 3)], True, "empty", diagonal=0),
    hand("Cast", [(0,)], True, "empty", to=BOOL),
    hand("Conv2D", [(0, 4, 5, 5), (6, 4, 3, 3)], True, "batch 0", **CONV),
    hand("MaxPool", [(0, 2, 4, 4)], True, "batch 0", **POOL),
]

# Valid calls msjitd fails on internally (not a rejection): bugs outside the contract's files,
# kept here so that a fix shows up (strict xfail: the test fails once the daemon compiles them).
KNOWN_DAEMON_BUGS = [
    hand("MatMul", [(2, 0), (0, 2)], True, "empty inner dim: the llvm stage fails to legalize an "
         "unrealized_conversion_cast (passes/, MindirToLinalg or VendorKernels)"),
]


def cases_of(name):
    return dtype_cases(PRIMITIVES[name]) + [c for c in HAND if c.op == name]


def test_every_hand_case_names_a_primitive():
    assert {c.op for c in HAND} <= set(PRIMITIVES)


# ---- the two sides -------------------------------------------------------------------------------

def python_verdict(case):
    """The Python contract's result aval, or the rejection; a rule failing any other way is a bug
    of the rule and fails the test."""
    try:
        return PRIMITIVES[case.op].check(*case.avals, **case.attrs)
    except (TypeError, ValueError) as e:
        return e


def _model(cases):
    """One graph holding one node per case (its operands are graph inputs, its result an output)."""
    model = mindir_pb2.ModelProto(ir_version=serialize.IR_VERSION, producer_name="msjit-contract-test")
    g = model.graph
    for n, case in enumerate(cases):
        inputs = [f"n{n}_in{i}" for i in range(len(case.avals))]
        for name, aval in zip(inputs, case.avals):
            g.input.add(name=name, dtype=aval.dtype.proto, dims=aval.shape)
        node = g.node.add(name=f"{case.op}_{n}", op_type=case.op, input=inputs, output=[f"n{n}_out"])
        node.location.file, node.location.line = "test_primitive_contract.py", n + 1
        for key in sorted(case.attrs):
            node.attribute.append(serialize._attribute(key, case.attrs[key]))
        g.output.add(name=f"n{n}_out")
    return model


def daemon_verdicts(cases):
    """Per case: the compiled node's output aval, or the daemon's rejection. Cases compile
    together first (one compile), one by one only when that fails."""
    options = msjit_pb2.CompileOptions(jit_level="O0")

    def compile(batch):
        try:
            reply = rpc.client().compile(_model(batch), options)
        except DaemonUnavailableError:
            raise
        except (CompileError, DaemonError) as e:  # a rejection, or an internal failure
            return e
        return [ShapedArray(tuple(o.dims), serialize_dtype(o.dtype)) for o in reply.outputs]
    if len(cases) > 1:
        together = compile(cases)
        if not isinstance(together, Exception):
            return together
    return [_single(compile([c])) for c in cases]


def _single(result):
    return result if isinstance(result, Exception) else result[0]


@functools.lru_cache(maxsize=None)
def _by_proto():
    return {d.proto: d for d in D.ALL}


def serialize_dtype(proto):
    return _by_proto()[proto]


def _verdict(result):
    if isinstance(result, (CompileError, TypeError, ValueError)):
        return "rejects"
    return f"fails ({type(result).__name__})" if isinstance(result, Exception) else f"accepts -> {result}"


def _eager_shape_agrees(case, aval):
    """The eager kernel on zeros of the case's avals gives the rule's shape."""
    arrays = [np.zeros(a.shape, a.dtype.np) for a in case.avals]
    with np.errstate(all="ignore"), warnings.catch_warnings():  # log(0), mean of nothing: only the
        warnings.simplefilter("ignore", RuntimeWarning)          # shape matters here
        return np.shape(PRIMITIVES[case.op].impl(*arrays, **case.attrs)) == aval.shape


@pytest.mark.usefixtures("module_daemon_home")
@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_python_and_daemon_agree(name):
    cases = cases_of(name)
    python = [python_verdict(c) for c in cases]
    accepted = [c for c, r in zip(cases, python) if not isinstance(r, Exception)]
    rejected = [c for c, r in zip(cases, python) if isinstance(r, Exception)]
    daemon = dict(zip(map(id, accepted), daemon_verdicts(accepted)))
    daemon.update({id(c): _single(r) for c in rejected for r in [daemon_verdicts([c])]})
    problems = []
    for case, py in zip(cases, python):
        dm = daemon[id(case)]
        if _verdict(py) != _verdict(dm):
            problems.append(f"{case}: Python {_verdict(py)} ({py}), msjitd {_verdict(dm)} ({dm})")
        elif case.expect is not None and case.expect == isinstance(py, Exception):
            problems.append(f"{case}: both {_verdict(py)}, but the case says it should "
                            f"{'be accepted' if case.expect else 'be rejected'} ({py})")
        elif not isinstance(py, Exception) and not _eager_shape_agrees(case, py):
            problems.append(f"{case}: the eager kernel's shape is not the rule's {py}")
    assert not problems, f"{len(problems)} of {len(cases)} cases disagree:\n" + "\n".join(problems)


@pytest.mark.usefixtures("module_daemon_home")
@pytest.mark.parametrize("case", KNOWN_DAEMON_BUGS, ids=repr)
@pytest.mark.xfail(strict=True, reason="a known msjitd bug (see KNOWN_DAEMON_BUGS)")
def test_known_daemon_bugs(case):
    python, daemon = python_verdict(case), daemon_verdicts([case])[0]
    assert _verdict(python) == _verdict(daemon), f"{case}: Python {_verdict(python)}, msjitd {daemon}"

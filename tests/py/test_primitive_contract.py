"""The primitive contract: the declarations in msjit/ops/prims.py, the daemon's ODS definitions
(ir/MindirOps.td) and the daemon itself agree, and proto/OPS.md is generated from the declarations.

- names, attributes (names and kinds) and operand dtypes: the declarations against the ODS records
  (``llvm-tblgen --dump-json``; a type constraint's dtypes come from evaluating its predicate);
- accept/reject: one shared case list, each case an (op, operand avals, attrs) call, checked by the
  Python contract (``Primitive.check``: accept = returns, reject = raises) and by the real msjitd
  (a one-node MindIR graph; accept = compiles, with the output type the Python rule gives, reject
  = CompileError). The dtype cases are generated from the declarations (each op's example at
  every dtype), so a new primitive brings its cases; HAND (tests/py/primitive_cases.py) adds shape
  and attribute cases with the verdict MindSpore's semantics call for;
- values: the accepted cases, compiled and run on random operands, compute what the eager kernels do.
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
from msjit import rpc, runtime, serialize
from msjit.core import ShapedArray
from msjit.errors import CompileError, DaemonError, DaemonUnavailableError
from msjit.ops.prims import PRIMITIVES, SECTIONS
from msjit.proto import mindir_pb2, msjit_pb2
from primitive_cases import HAND, cases_of

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TBLGEN = "/usr/lib/llvm-16/bin/llvm-tblgen"
LLVM_INCLUDE = "/usr/lib/llvm-16/include"

# Ops of the dialect that a MindIR node may name but that are not primitives.
STRUCTURAL = {"Grad": "the importer's gradient-of-a-subgraph node (proto/OPS.md), expanded by msjit-autodiff",
              "If": "a region op: one of two subgraphs runs (proto/OPS.md), lowered to scf.if",
              "While": "a region op: a loop over cond/body subgraphs (proto/OPS.md), lowered to scf.while",
              "Yield": "the terminator of an If/While region; no node names it"}

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


def _random_inputs(case, rng):
    """Operands for a case: positive floats (in every unary op's domain), small ints, in-range
    Gather indices, random bools."""
    arrays = []
    for i, a in enumerate(case.avals):
        if case.op == "Gather" and i == 1:
            arrays.append(rng.integers(0, case.avals[0].shape[case.attrs["axis"]], a.shape).astype(a.dtype.np))
        elif a.dtype is D.bool_:
            arrays.append(rng.random(a.shape) < 0.5)
        elif a.dtype.is_floating:
            arrays.append(rng.uniform(0.5, 2.0, a.shape).astype(a.dtype.np))
        else:
            arrays.append(rng.integers(-3, 4, a.shape).astype(a.dtype.np))
    return arrays


@pytest.mark.usefixtures("module_daemon_home")
@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_compiled_values_match_eager(name):
    """The accepted non-empty cases of an op, compiled as one graph and run, compute what the
    eager kernels compute."""
    cases = [c for c in cases_of(name) if not isinstance(python_verdict(c), Exception)
             and not any(0 in a.shape for a in c.avals)]
    reply = rpc.client().compile(_model(cases), msjit_pb2.CompileOptions(jit_level="O0"))
    rng = np.random.default_rng(0)
    args = [_random_inputs(c, rng) for c in cases]
    outs = runtime.load(reply, rpc.client()).run([x for a in args for x in a])
    for case, arrays, got in zip(cases, args, outs):
        want = np.asarray(PRIMITIVES[name].impl(*arrays, **case.attrs), python_verdict(case).dtype.np)
        half = any(a.dtype is D.float16 for a in case.avals) or want.dtype == np.float16
        tol = 1e-2 if half else 1e-5
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol,
                                   err_msg=f"{case}: compiled vs eager")

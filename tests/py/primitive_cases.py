"""The shared case list of tests/py/test_primitive_contract.py: calls of the primitives, each
(op, operand avals, attrs), accepted or rejected alike by the Python contract and by msjitd.

The dtype cases come from the declarations (each op's example at every dtype), so a new primitive
brings its own; HAND adds shape and attribute cases with the verdict MindSpore's semantics call for.
"""
import numpy as np

from msjit import dtype as D
from msjit.core import ShapedArray
from msjit.ops.prims import PRIMITIVES


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
    hand("ReduceSum", [(2, 3, 4)], False, "negative axis", axes=(-1,), keep_dims=False),
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
    hand("Conv2DBackpropInput", [(1, 6, 3, 3), (6, 4, 3, 3)], False, "negative input_shape dim",
         input_shape=(1, 4, -5, 5), **CONV),
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
    hand("BroadcastTo", [(1,)], False, "to a negative dim", shape=(-2,)),
    hand("BroadcastTo", [(1, 1)], False, "an unresolved -1", shape=(-1, 2)),
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
    hand("Concat", [(2, 3), (2, 3)], False, "negative axis", axis=-1),
    hand("Concat", [(2, 3), (2,)], False, "ranks differ", axis=0),
    hand("Concat", [], False, "no inputs", axis=0),
    hand("Gather", [(4, 3), (2,)], False, "axis out of range", dtypes=[F32, I32], axis=2),
    hand("Gather", [(4, 3), (2,)], False, "negative axis", dtypes=[F32, I32], axis=-1),
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
    hand("StridedSlice", [(4,)], True, "empty reversed slice", begin=(2,), end=(2,), strides=(-1,)),
    hand("Concat", [(0, 3), (2, 3)], True, "an empty part", axis=0),
    hand("Gather", [(4, 3), (0,)], True, "no indices", dtypes=[F32, I32], axis=0),
    hand("MatMul", [(0, 3), (3, 2)], True, "no rows"),
    hand("MatMul", [(2, 0), (0, 2)], True, "empty inner dim: a zero product"),
    hand("Triu", [(0, 3)], True, "empty", diagonal=0),
    hand("Cast", [(0,)], True, "empty", to=BOOL),
    hand("Conv2D", [(0, 4, 5, 5), (6, 4, 3, 3)], True, "batch 0", **CONV),
    hand("MaxPool", [(0, 2, 4, 4)], True, "batch 0", **POOL),
]

def cases_of(name):
    """Every case of the primitive ``name``."""
    return dtype_cases(PRIMITIVES[name]) + [c for c in HAND if c.op == name]

"""Capture corpus (issue 4, acceptance 1): small functions, each with its inputs and what capture
must do with it under every capture_mode.

Each ``Case`` says:
- ``inputs``: argument sets (numpy arrays become Tensors; anything else is passed as a constant).
  Sets that share shapes/dtypes/constants share one compiled graph; the inputs flip tensor
  conditions, so a graph that froze one branch gives a wrong answer.
- ``ref``: a numpy reference (``SAME``: the function itself run on numpy arrays), or None.
- ``error``: the ``# <marker>`` of the line where capture_mode ast/bytecode must raise
  UnsupportedSyntaxError under fullgraph=True (None: fully capturable).
- ``trace``: whether capture_mode="trace" applies (Python control flow independent of tensor
  values, or an expected trace error); ``trace_error``: the marker where trace must raise.
- ``bytecode_error``: where bytecode breaks the graph (and raises under fullgraph=True). By default
  the first place Python needs a tensor's value, as for trace, else the ast error; bytecode runs
  comprehensions, lambdas, try and f-strings itself, and iterates a tensor's rows by its shape.
  Under fullgraph=True a tensor 'if' is one If node and a loop on tensor values one While node, so
  bytecode raises where ast does, except where ``bytecode_strict`` says.
Markers are comments ``# <name>`` ending a line of this file (see ``line_of``).
"""
import os
from dataclasses import dataclass, field

import numpy as np

from msjit import Parameter, Tensor, jit, nn, ops

from support import marker_lines  # noqa: E402

HERE = os.path.abspath(__file__)
line_of = marker_lines(HERE)


SAME = "same"


@dataclass
class Case:
    fn: object
    inputs: list
    ref: object = None
    error: str = None          # marker of the STRICT error line for ast / bytecode
    trace: bool = True         # capture_mode="trace" applies
    trace_error: str = None    # marker of the STRICT error line for trace
    what: str = ""             # regex the ast error message must contain after file:line
    bytecode_error: object = "default"
    bytecode_what: str = ""    # regex for the bytecode error message
    bytecode_strict: object = "default"   # where bytecode raises under fullgraph=True (default: as ast)
    compiles: int = None       # graphs compiled, when not one per distinct guard key
    notes: dict = field(default_factory=dict)

    @property
    def name(self):
        return self.fn.__name__

    def modes(self):
        return ("ast", "bytecode") + (("trace",) if self.trace else ())

    def expected_error(self, mode, fullgraph=False):
        if mode == "bytecode":
            if self.bytecode_error != "default":
                return self.bytecode_error
            if fullgraph:   # a tensor 'if' is one If node (not a loop on a tensor: see bytecode_strict)
                return self.error if self.bytecode_strict == "default" else self.bytecode_strict
            return self.trace_error or self.error
        return self.trace_error if mode == "trace" else self.error

    def expected_what(self, mode):
        return {"ast": self.what, "bytecode": self.bytecode_what}.get(mode, "")


def arr(*values):
    return np.asarray(values, np.float32)


POS, NEG, MIX = arr(1.0, 2.0, 0.5), arr(-1.0, -2.0, -0.5), arr(1.5, -3.0, 0.25)
SMALL, ZERO = arr(0.1, 0.2, 0.05), arr(0.0, 0.0, 0.0)
X2 = np.asarray([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]], np.float32)
ONE = [(POS,), (NEG,), (MIX,), (SMALL,), (ZERO,)]
TWO = [(POS, NEG), (NEG, POS), (POS, POS), (NEG, NEG), (MIX, SMALL), (SMALL, ZERO)]


# ---- straight-line code and constant folding ----------------------------------------------------

def add_mul(x, y):
    return (x + y) * 2.0 - y


def const_fold(x):
    k = (2.0 * 3 + 1) / 7 + len("abc") + max(1, 4) ** 2
    return x * k - k


def unary_ops(x):
    return -x + abs(x) * 0.5


def pow_div(x):
    return (x * x + 1.0) / (x ** 2 + 2.0)


def op_functions(x):
    return ops.tanh(x) + ops.exp(x * 0.1) - ops.relu(-x)


def op_functions_ref(x):
    return np.tanh(x) + np.exp(x * 0.1) - np.maximum(-x, 0)


def reductions(x):
    return x.sum(), x.mean(), x.max(), x.min()


def matmul(a, b):
    return a @ b.T if False else a @ b


def where_select(x, y):
    return ops.where(x > y, x, y * 2.0)


def where_select_ref(x, y):
    return np.where(x > y, x, y * 2.0)


def slicing(x):
    return x[1:] + x[:-1] * 2.0, x[0]


def reshape_ops(x):
    return x.reshape((3, 2)) * 2.0, ops.transpose(x, (1, 0)) + 1.0


def reshape_ops_ref(x):
    return x.reshape((3, 2)) * 2.0, x.T + 1.0


def scale_by_constant(x, k):
    return x * k + k


def flag_constant(x, negate=False):
    return -x if negate else x * 3.0


# ---- loops over constants and containers (unrolled) ---------------------------------------------

def loop_range(x):
    for i in range(4):
        x = x * 0.5 + i
    return x


def loop_range_step(x):
    acc = x * 0.0
    for i in range(10, 0, -3):
        acc = acc + x * i
    return acc


def loop_tuple_of_constants(x):
    for s in (0.5, 2.0, -1.5):
        x = x * s + s
    return x


def loop_list_of_tensors(x, y):
    acc = x
    for t in [y, x * y, y - x]:
        acc = acc + t
    return acc


def loop_dict(x, y):
    d = {"a": x, "b": y, "c": x + y}
    out = x * 0.0
    for k in d:
        out = out + d[k]
    for k, v in d.items():
        out = out * 0.5 + v
    return out


def loop_zip_enumerate(x, y):
    scales = (1.0, 2.0, 3.0)
    out = x
    for i, (t, s) in enumerate(zip([x, y, x * y], scales)):
        out = out + t * s * i
    return out


def loop_nested(x):
    for i in range(3):
        for j in range(i + 1):
            x = x + i * j - 0.25
    return x


def loop_break_continue(x):
    for i in range(10):
        if i % 2 == 1:
            continue
        if i > 6:
            break
        x = x * 1.5 + i
    return x


def loop_for_else(x):
    for i in range(3):
        x = x + i
    else:
        x = x * 2.0
    for i in range(5):
        if i == 2:
            break
        x = x - 1.0
    else:
        x = x * 100.0
    return x


def loop_while_constant(x):
    i = 0
    while i < 5:
        x = x * 1.5 - i
        i += 1
    n = 0
    while True:
        n += 1
        if n >= 3:
            break
        x = x * 0.5
    return x, i, n


def loop_constant_count(x, n):
    for _ in range(n):
        x = x * 2.0 - 1.0
    return x


def loop_over_tensor_rows(x):
    total = x[0] * 0.0
    for k, row in enumerate(x):
        total = total + row * (k + 1)
    return total


def loop_shape_range(x):
    total = x[0] * 0.0
    for i in range(x.shape[0]):
        total = total + x[i] * (i + 1)
    return total


# ---- conditions on tensors (ast: both branches merged with Select; trace: an error) ------------

def tif_simple(x):
    if x.sum() > 0:  # <tif_simple>
        y = x * 2.0
    else:
        y = -x
    return y


def tif_no_else(x):
    y = x
    if x.max() > 1.0:  # <tif_no_else>
        y = y * 0.5
    return y


def tif_elif_chain(x):
    s = x.sum()
    if s > 3.0:  # <tif_elif_chain>
        y = x - 3.0
    elif s > 0:
        y = x * 10.0
    elif s > -3.0:
        y = x + 100.0
    else:
        y = -x
    return y


def tif_several_vars(x, y):
    a, b = x, y
    if (x * y).mean() < 0:  # <tif_several_vars>
        a = x + y
        b, c = y * 2.0, x
    else:
        c = y
        a = a - 1.0
    return a, b, c


def tif_constants_in_branches(x):
    if x.sum() > 0:  # <tif_constants>
        scale, tag = 2.0, 7
        sign = 1.0
    else:
        scale, tag = -3.0, 7
        sign = -1.0
    return x * scale + sign, tag


def tif_nested(x, y):
    if x.sum() > 0:  # <tif_nested>
        if y.sum() > 0:
            z = x + y
        else:
            z = x - y
    else:
        z = x * y
        if y.min() > 0:
            z = z * 2.0
    return z


def tif_both_return(x):
    if x.sum() > 0:  # <tif_both_return>
        return x * 3.0, {"s": x.sum()}
    else:
        return x - 1.0, {"s": x.sum() * 2.0}


def tif_in_loop(x):
    for i in range(4):
        if x.sum() > i:  # <tif_in_loop>
            x = x - 1.0
        else:
            x = x + 0.5
    return x


def tif_bool_ops(x, y):
    if x.sum() > 0 and y.sum() > 0:  # <tif_bool_ops>
        z = x + y
    elif x.sum() > 0 or not y.max() > 1.0:
        z = x - y
    else:
        z = x * y
    return z


def ternaries(x):
    y = x * 2.0 if x.mean() > 0 else x - 1.0  # <ternaries>
    z = (y if y.sum() > 5.0 else -y) if x.max() > 0.5 else y * 0.0
    return y + z


def tif_branch_local_list(x):
    if x.sum() > 0:  # <tif_branch_local_list>
        parts = []
        parts.append(x)
        parts.append(x * 2.0)
        out = parts[0] + parts[1]
    else:
        out = x
    return out


def tif_unused_one_branch_var(x):
    if x.sum() > 0:  # <tif_unused>
        tmp = x * 2.0  # noqa: F841
    return x + 1.0


def tif_shape_condition(x):
    if x.shape[0] > 2:   # a Python condition on a static shape: fine for every mode
        return x[:2] * 2.0
    return x + 1.0


# ---- helper calls and nested jitted calls -------------------------------------------------------

def helper_scale(v, k=2.0):
    for _ in range(2):
        v = v * k
    return v


def helper_pick(v):
    if v.sum() > 0:  # <helper_pick>
        return v
    else:
        return v * -1.0


@jit
def jitted_helper(v):
    return helper_scale(v, 0.5) + 1.0


def calls_helpers(x):
    return helper_scale(x) + helper_scale(x, k=3.0)


def calls_helper_with_tensor_if(x):
    y = helper_pick(helper_scale(x))
    return jitted_helper(y) + helper_scale(x, k=3.0)


def calls_helper_with_tensor_if_ref(x):
    y = helper_pick(x * 4.0)
    return y * 0.25 + 1.0 + x * 9.0


def calls_jitted(x, y):
    return jitted_helper(x) * jitted_helper(y)


def calls_jitted_ref(x, y):
    return (x * 0.25 + 1.0) * (y * 0.25 + 1.0)


def helper_kwargs(x):
    opts = {"k": 0.5}
    return helper_scale(x, **opts) + helper_scale(v=x)


# ---- containers in and out ----------------------------------------------------------------------

def containers_in(x, cfg):
    out = x * cfg["scale"]
    for shift in cfg["shifts"]:
        out = out + shift
    return out


def containers_out(x):
    return {"a": x + 1.0, "b": None, "c": [x * 2.0, 3, (x.sum(), None)]}


def list_building(x, y):
    parts = []
    for i in range(3):
        parts.append(x * i + y)
    parts.extend([x, y])
    first, *middle, last = parts
    return first + last, len(middle), middle[1]


def dict_update(x):
    d = {"a": x}
    d["b"] = x * 2.0
    return d["a"] + d["b"]


def returns_argument(x, y):
    return x, y * 2.0, "tag"


def returns_none(x):
    y = x + 1.0  # noqa: F841


# ---- Cells with Parameters ----------------------------------------------------------------------

def _dense(i, o, seed):
    rng = np.random.default_rng(seed)
    w = Tensor(rng.uniform(-0.5, 0.5, (o, i)).astype(np.float32))
    b = Tensor(rng.uniform(-0.5, 0.5, (o,)).astype(np.float32))
    return nn.Dense(i, o, weight_init=w, bias_init=b)


def _np_dense(cell, x):
    return x @ cell.weight.asnumpy().T + cell.bias.asnumpy()


SEQ = nn.SequentialCell(_dense(3, 4, 1), nn.ReLU(), _dense(4, 3, 2))
LAYERS = [_dense(3, 3, 3), _dense(3, 3, 4), _dense(3, 3, 5)]
DENSE = _dense(3, 2, 8)


def dense_call(x):
    return DENSE(x) * 2.0


def dense_call_ref(x):
    return _np_dense(DENSE, x) * 2.0


def loop_over_sequential(x):
    for cell in SEQ:
        x = cell(x)
    return x


def loop_over_sequential_ref(x):
    return _np_dense(SEQ[2], np.maximum(_np_dense(SEQ[0], x), 0))


def loop_over_cell_list(x):
    for i, layer in enumerate(LAYERS):
        y = layer(x)
        x = y if y.sum() > 0 else y * 0.5 + i  # <cell_list_if>
    return x


def loop_over_cell_list_ref(x):
    for i, layer in enumerate(LAYERS):
        y = _np_dense(layer, x)
        x = y if y.sum() > 0 else y * 0.5 + i
    return x


class Affine(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.asarray([0.5, -1.0, 2.0], np.float32)), name="affine_w")
        self.b = Parameter(Tensor(np.asarray([1.0, 0.0, -1.0], np.float32)), name="affine_b")

    def construct(self, x):
        return x * self.w + self.b


AFFINE = Affine()


def affine_cell(x):
    return AFFINE(AFFINE(x))


def affine_cell_ref(x):
    w, b = AFFINE.w.asnumpy(), AFFINE.b.asnumpy()
    return (x * w + b) * w + b


class Stack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.first = _dense(3, 3, 6)
        self.rest = nn.SequentialCell(_dense(3, 3, 7), nn.Tanh())
        self.blocks = [self.first, self.rest]

    def construct(self, x):
        for block in self.blocks:
            h = block(x)
            if h.mean() > 0:  # <stack_if>
                x = x + h
            else:
                x = x - h
        return x


STACK = Stack()


def cell_with_tensor_if(x):
    return STACK(x)


def cell_with_tensor_if_ref(x):
    blocks = (lambda v: _np_dense(STACK.first, v), lambda v: np.tanh(_np_dense(STACK.rest[0], v)))
    for block in blocks:
        h = block(x)
        x = x + h if h.mean() > 0 else x - h
    return x


# ---- globals ------------------------------------------------------------------------------------

SCALE = 2.0
MODE = "double"
DEBUG = False


def global_scale(x):
    return x * SCALE + 1.0


def global_mode(x):
    if MODE == "double":
        return x * 2.0
    return x - 1.0


def debug_print_disabled(x):
    if DEBUG:
        print("x =", x)   # never captured: DEBUG is a constant False
    return x + 1.0


# ---- loops and returns on tensor values (issue 12): If/While nodes under ast; bytecode and trace
# need the tensor's value in Python at the marked line -------------------------------------------

def cf_while_count(x):
    n = 0
    while x.sum() > 0:  # <cf_while_count>
        x = x - 0.75
        n = n + 1
    return x, x + n * 0.5   # (n is a tensor after a While, as in MindSpore's graph mode)


def cf_for_tensor_range(x, m):
    s = x * 0.0
    for i in range(m):  # <cf_for_range>
        s = s + x * i
    return s


def cf_while_break(x):
    while x.sum() < 50.0:  # <cf_while_break>
        if x.max() > 8.0:
            break
        x = x * 2.0 + 1.0
    return x


def cf_for_continue(x, m):
    acc = x
    for i in range(m):  # <cf_for_continue>
        if acc.sum() > 6.0:
            continue
        acc = acc + x * 0.5 + 1.0
    return acc


def cf_nested_loops(x, m):
    total = x * 0.0
    for i in range(m):  # <cf_nested>
        j = i
        while j > 0:
            total = total + x
            j = j - 1
    return total


def cf_early_return(x):
    if x.sum() > 0:  # <cf_early_return>
        return x * 2.0
    y = x - 1.0
    return y * 3.0


def cf_return_in_loop(x, m):
    acc = x
    for _ in range(m):  # <cf_return_in_loop>
        acc = acc + 1.0
        if acc.sum() > 6.0:
            return acc * 2.0
    return acc


def cf_untaken_branch_faults(x, i):
    if i < 3:  # <cf_untaken>
        y = x[i]
    else:
        y = x[0] * 0.0
    return y


M3, M0, M5 = np.array(3, np.int32), np.array(0, np.int32), np.array(5, np.int32)


# ---- unsupported: STRICT raises at the construct, LAX runs eagerly ------------------------------

def print_tensor(x):
    y = x * 2.0
    print("y =", y)  # <print_tensor>
    return y + 1.0


def tensor_while(x):
    while x.sum() > 0:  # <tensor_while>
        x = x - 1.0
    return x


def numpy_on_tensor(x):
    m = np.asarray(x).mean()  # <numpy_on_tensor>
    return x - m


def float_of_tensor(x):
    s = float(x.sum())  # <float_of_tensor>
    return x * s


def one_branch_variable(x):
    if x.sum() > 0:  # <one_branch>
        y = x * 2.0
    else:
        pass
    return x + y  # noqa: F821


class Counter:
    calls = 0


COUNTER = Counter()


def attribute_write(x):
    COUNTER.calls = COUNTER.calls + 1  # <attribute_write>
    return x * 2.0


def return_in_one_branch(x):
    if x.sum() > 0:  # <one_return>
        return x
    y = -x
    return y


def break_in_tensor_branch(x):
    for _ in range(3):
        if x.sum() > 0:  # <tensor_break>
            break
        x = x + 1.0
    return x


def mismatched_branches(x):
    if x.sum() > 0:  # <mismatch>
        y = x
    else:
        y = x.sum()
    return y


SEEN = []


def list_append_in_branch(x):
    if x.sum() > 0:  # <append_if>
        SEEN.append(1)  # <append_branch>
    return x * 3.0


def list_comprehension(x):
    ys = [x * i for i in range(3)]  # <listcomp>
    return ys[0] + ys[1] + ys[2]


def generator_expression(x):
    return sum(x * i for i in range(1, 4))  # <genexp>


def f_string(x):
    tag = f"n={x.shape[0]}"  # <fstring>
    return x + len(tag)


def try_statement(x):
    try:  # <try>
        y = x * 2.0
    except ValueError:
        y = x
    return y


def nested_def(x):
    def inner(v):  # <nested_def>
        return v * 2.0
    return inner(x) + 1.0


def lambda_call(x):
    f = lambda v: v * 3.0  # noqa: E731  # <lambda>
    return f(x)


def assert_statement(x):
    assert x.shape[0] == 3  # <assert>
    return x + 1.0


def walrus(x):
    if (n := x.shape[0]) > 2:  # <walrus>
        return x * n
    return x


def len_of_tensor(x):
    n = len(x)
    return x * n


def _bad_helper(v):
    return Tensor(np.exp(np.asarray(v)))  # <bad_helper>


def calls_bad_helper(x):
    return _bad_helper(x * 2.0) + 1.0


# ---- more control flow, assignment forms and return values --------------------------------------

def tif_elif_returns(x):
    if x.mean() > 1.0:  # <tif_elif_returns>
        return x
    elif x.mean() > 0:
        return x * x
    else:
        return -x


def tif_truthiness(x, y):
    # a non-bool one-element tensor is true when non-zero
    if x.sum():  # <tif_truthiness>
        z = y
    else:
        z = -y
    if (y > 0.5)[0:1]:   # a one-element bool tensor of shape (1,)
        z = z + 1.0
    return z


def tif_early_data_dependent_ternary_in_loop(x):
    acc = x * 0.0
    for k in range(3):
        acc = acc + (x * k if x.sum() > k else x - k)  # <early_ternary>
    return acc


def aug_assign(x, y):
    x += y
    x *= 2.0
    n = 1
    n += 2
    n *= 3
    x -= n
    x /= 4.0
    names = ["a"]
    names += ["b"]
    return x, n, names


def builtins_on_constants(x):
    sizes = (3, 1, 2)
    k = max(sizes) + min(sizes) + len(sizes) + min(4, 2.5)
    if isinstance(k, float) and isinstance(x.shape, tuple) and len(x) == x.shape[0]:
        x = x + k
    total = x
    for i in range(min(len(x), 2)):
        total = total + x[i]
    return total, k


def returns_structures(x):
    return {"a": x + 1.0, "b": None, "c": [x * 2.0, 3, (x.sum(), None)]}


# ---- the corpus ---------------------------------------------------------------------------------

SHAPES = [(POS,), (NEG,), (X2,), (-X2,), (np.asarray([3, -1, 2], np.int32),), (POS.astype(np.float64),)]

CORPUS = [
    # straight-line / constant folding
    Case(add_mul, TWO, SAME),
    Case(const_fold, ONE, SAME),
    Case(unary_ops, ONE, SAME),
    Case(pow_div, ONE, SAME),
    Case(op_functions, ONE, op_functions_ref),
    Case(reductions, ONE + [(X2,)], SAME),
    Case(matmul, [(X2, X2.T.copy()), (-X2, X2.T.copy())], SAME),
    Case(where_select, TWO, where_select_ref),
    Case(slicing, ONE, SAME),
    Case(reshape_ops, [(X2,), (-X2,)], reshape_ops_ref),
    Case(scale_by_constant, [(POS, 2.0), (NEG, 2.0), (POS, 3), (MIX, -0.5)], SAME),
    Case(flag_constant, [(POS, False), (NEG, True), (MIX, True), (SMALL, False)], SAME),
    Case(tif_shape_condition, SHAPES, SAME),
    # loops
    Case(loop_range, ONE, SAME),
    Case(loop_range_step, ONE, SAME),
    Case(loop_tuple_of_constants, ONE, SAME),
    Case(loop_list_of_tensors, TWO, SAME),
    Case(loop_dict, TWO, SAME),
    Case(loop_zip_enumerate, TWO, SAME),
    Case(loop_nested, ONE, SAME),
    Case(loop_break_continue, ONE, SAME),
    Case(loop_for_else, ONE, SAME),
    Case(loop_while_constant, ONE, SAME),
    Case(loop_constant_count, [(POS, 1), (NEG, 3), (MIX, 3), (SMALL, 0)], SAME, compiles=2),  # n=0: x itself, no graph
    # len() of a tensor and its rows are known from its static shape, in every capture mode
    Case(loop_over_tensor_rows, [(X2,), (-X2,)], SAME, bytecode_error=None),
    Case(len_of_tensor, [(POS,), (X2,)], SAME, bytecode_error=None),
    Case(loop_shape_range, [(X2,), (-X2,), (np.concatenate([X2, X2]),)], SAME),
    # conditions on tensors
    Case(tif_simple, ONE, SAME, trace_error="tif_simple"),
    Case(tif_no_else, ONE, SAME, trace_error="tif_no_else"),
    Case(tif_elif_chain, ONE + [(arr(2.0, 2.0, 2.0),), (arr(-2.0, -2.0, -2.0),)], SAME,
         trace_error="tif_elif_chain"),
    Case(tif_several_vars, TWO, SAME, trace_error="tif_several_vars"),
    Case(tif_constants_in_branches, ONE, SAME, trace_error="tif_constants"),
    Case(tif_nested, TWO, SAME, trace_error="tif_nested"),
    Case(tif_both_return, ONE, SAME, trace_error="tif_both_return"),
    Case(tif_in_loop, ONE + [(arr(3.0, 2.0, 1.0),)], SAME, trace_error="tif_in_loop"),
    Case(tif_bool_ops, TWO, SAME, trace_error="tif_bool_ops"),
    Case(ternaries, ONE, SAME, trace_error="ternaries"),
    Case(tif_branch_local_list, ONE, SAME, trace_error="tif_branch_local_list"),
    Case(tif_unused_one_branch_var, ONE, SAME, trace_error="tif_unused"),
    # helpers and nested jit
    Case(calls_helpers, ONE, SAME),
    Case(calls_helper_with_tensor_if, ONE, calls_helper_with_tensor_if_ref, trace_error="helper_pick"),
    Case(calls_jitted, TWO, calls_jitted_ref),
    Case(helper_kwargs, ONE, SAME),
    # containers
    Case(containers_in, [(POS, {"scale": 2.0, "shifts": (1.0, -0.5)}), (NEG, {"scale": 2.0, "shifts": (1.0, -0.5)}),
                         (MIX, {"scale": -1.0, "shifts": ()})], SAME),
    Case(containers_out, ONE, SAME),
    Case(list_building, TWO, SAME),
    Case(returns_argument, TWO, SAME),
    Case(returns_none, ONE, SAME, compiles=0),  # nothing returned: nothing to compile
    # Cells
    Case(dense_call, [(POS[None],), (np.stack([NEG, MIX]),)], dense_call_ref),
    Case(loop_over_sequential, [(np.stack([POS, NEG]),), (np.stack([MIX, SMALL]),)], loop_over_sequential_ref),
    Case(loop_over_cell_list, [(POS[None],), (NEG[None],), (MIX[None],)], loop_over_cell_list_ref,
         trace_error="cell_list_if"),
    Case(affine_cell, ONE, affine_cell_ref),
    Case(cell_with_tensor_if, [(POS[None],), (NEG[None],), (MIX[None],), (SMALL[None],)], cell_with_tensor_if_ref,
         trace_error="stack_if"),
    # globals (see also test_globals_*)
    Case(global_scale, ONE, SAME),
    Case(global_mode, ONE, SAME),
    Case(debug_print_disabled, ONE, SAME),
    # loops and returns on tensor values (If/While nodes under ast)
    Case(cf_while_count, ONE, SAME, trace_error="cf_while_count",
         bytecode_strict=None),
    Case(cf_for_tensor_range, [(POS, M3), (NEG, M5), (MIX, M0)], SAME, trace_error="cf_for_range",
         bytecode_strict=None),
    Case(cf_while_break, [(POS,), (SMALL,), (POS * 3.0,)], SAME, trace_error="cf_while_break",
         bytecode_strict=None),
    Case(cf_for_continue, [(POS, M5), (SMALL, M5), (MIX, M3)], SAME, trace_error="cf_for_continue",
         bytecode_strict=None),
    Case(cf_nested_loops, [(POS, M3), (NEG, M5), (MIX, M0)], SAME, trace_error="cf_nested",
         bytecode_strict=None),
    Case(cf_early_return, ONE, SAME, trace_error="cf_early_return"),
    Case(cf_return_in_loop, [(POS, M3), (SMALL, M5), (NEG, M3)], SAME, trace_error="cf_return_in_loop",
         bytecode_strict=None),
    Case(cf_untaken_branch_faults, [(POS, np.array(7, np.int32)), (NEG, np.array(1, np.int32))], SAME,
         trace_error="cf_untaken"),
    # unsupported constructs
    Case(print_tensor, ONE, SAME, error="print_tensor", what="call to print with a tensor argument",
         bytecode_what="call to print with a tensor argument"),
    # (issue 12: a While node under ast and bytecode fullgraph=True; bytecode breaks the graph otherwise)
    Case(tensor_while, ONE, SAME, trace_error="tensor_while", bytecode_what="the truth value of a tensor",
         bytecode_strict=None),
    Case(numpy_on_tensor, ONE, None, error="numpy_on_tensor", trace_error="numpy_on_tensor",
         what="call to numpy.asarray with a tensor argument"),
    Case(float_of_tensor, ONE, SAME, error="float_of_tensor", trace_error="float_of_tensor",
         what="call to float with a tensor argument"),
    Case(one_branch_variable, [(POS,), (SMALL,)], SAME, error="one_branch", trace_error="one_branch",
         what="a condition on a tensor value that assigns variable 'y' in only one branch"),
    Case(attribute_write, ONE, SAME, error="attribute_write", trace=False, what="assignment to an attribute",
         bytecode_what="assignment to attribute 'calls' \\(a side effect\\)"),
    Case(return_in_one_branch, ONE, SAME, trace_error="one_return"),   # (issue 12: a 'returned' flag under ast)
    Case(break_in_tensor_branch, ONE, SAME, trace_error="tensor_break",   # (issue 12: a 'break' flag under ast)
         bytecode_strict="tensor_break"),
    Case(mismatched_branches, ONE, SAME, error="mismatch", trace_error="mismatch",
         what="a condition on a tensor value where variable 'y' is a float32\\[3\\] tensor"),
    Case(list_append_in_branch, ONE, SAME, error="append_branch", trace_error="append_if",
         what="call to list.append on a container from outside a branch"),
    Case(dict_update, ONE, SAME),
    Case(list_comprehension, ONE, SAME, error="listcomp", what="list comprehension", bytecode_error=None),
    Case(generator_expression, ONE, SAME, error="genexp", what="generator expression", bytecode_error=None),
    Case(f_string, ONE, SAME, error="fstring", what="f-string", bytecode_error=None),
    Case(try_statement, ONE, SAME, error="try", what="'try' statement", bytecode_error=None),
    Case(nested_def, ONE, SAME, error="nested_def", what="nested function definition", bytecode_error=None),
    Case(lambda_call, ONE, SAME, error="lambda", what="lambda", bytecode_error=None),
    Case(assert_statement, ONE, SAME, error="assert", what="'assert' statement", bytecode_error=None),
    Case(walrus, ONE, SAME, error="walrus", what="assignment expression", bytecode_error=None),
    # more control flow, assignment forms, return values
    Case(tif_elif_returns, ONE, SAME, trace_error="tif_elif_returns"),
    Case(tif_truthiness, TWO, SAME, trace_error="tif_truthiness"),
    Case(tif_early_data_dependent_ternary_in_loop, ONE + [(arr(1.0, 0.5, 0.0),)], SAME, trace_error="early_ternary"),
    Case(aug_assign, TWO, SAME),
    Case(builtins_on_constants, ONE, SAME),
    Case(returns_structures, ONE, SAME),
    Case(calls_bad_helper, ONE, SAME, error="bad_helper", trace_error="bad_helper",
         what="call to numpy.asarray with a tensor argument"),
]

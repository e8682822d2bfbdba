"""Control-flow corpus (issue 12, acceptance 1): functions whose control flow depends on tensor
values, each with inputs that take every branch and a numpy reference, in corpus.py's ``Case``
form (``SAME``: the function itself run on numpy arrays).

Forms: tensor if/elif/ternary/and/or/not, ``while`` on a tensor condition, break/continue/return
under tensor conditions, nested loops, ``for`` over ``range`` with a tensor bound, recursion under
a tensor condition (bounded by a Python depth; refused when only a tensor bounds it), side
effects in branches and loops (``ops.assign``, Parameter attribute writes on Cells and jit_class
objects, a Parameter passed as an argument), gradients through them, and untaken branches that
would fault. ``notes`` says how test_cf_corpus.py runs a case:
- ``state``: a factory of fresh state; the function is ``fn(state, *args)`` and ``ref`` is
  ``ref(arrays, *args)`` over ``read(state)`` (the state's arrays, updated in place);
  ``rebinds``: under bytecode a write rebinds an attribute, so its readers recompile.
- ``grad``: the function returns a scalar; its gradient wrt the first argument is checked against
  central differences of ``ref`` (jit(grad), grad(jit) and eager grad).
- ``fault``: the untaken branch would fault; run in a subprocess.
- ``refused``: capture raises UnsupportedSyntaxError (or RecursionError) naming this marker's line.
"""
import numpy as np

from msjit import Parameter, Tensor, jit_class, nn, ops
from corpus import HERE as _CORPUS_HERE, SAME, Case, line_of as _corpus_line_of  # noqa: F401

RNG = np.random.default_rng(1212)


def f32(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape).astype(np.float32)


def i32(v):
    return np.array(v, np.int32)


def pos(*shape):
    return f32(*shape, low=0.1, high=2.0)


def neg(*shape):
    return -pos(*shape)


def signs(*shape):
    """Inputs that take a tensor ``if`` either way, in two shapes (two guard keys)."""
    other = (2,) + shape
    return [(pos(*shape),), (neg(*shape),), (f32(*shape),), (pos(*other),), (neg(*other),)]


def pairs(*shape):
    return [(pos(*shape), pos(*shape)), (pos(*shape), neg(*shape)), (neg(*shape), pos(*shape)),
            (neg(*shape), neg(*shape)), (f32(*shape), f32(*shape))]


# ---- tensor if / elif / ternary / and / or / not ---------------------------------------------------

def if_else(x):
    if x.sum() > 0:
        y = x * 2.0
    else:
        y = -x
    return y + 1.0


def if_no_else(x):
    y = x
    if x.mean() < 0:
        y = y * y
    return y


def elif_chain(x):
    s = x.sum()
    if s > 3.0:
        y = x - 3.0
    elif s > 0:
        y = x * 0.5
    elif s > -3.0:
        y = x + 10.0
    else:
        y = x * x
    return y


def ternary(x):
    return x * 2.0 if x.max() > 1.0 else x - 1.0


def nested_ternary(x):
    return x + 1.0 if x.sum() > 1.0 else (x * 3.0 if x.sum() > -1.0 else -x)


def if_and(x, y):
    if x.sum() > 0 and y.sum() > 0:
        z = x + y
    else:
        z = x - y
    return z


def if_or(x, y):
    if x.max() > 1.5 or y.min() < -1.5:
        z = x * y
    else:
        z = x + y * 2.0
    return z


def if_not(x):
    if not x.sum() > 0:
        x = x - 5.0
    return x * 0.5


def if_and_or_mixed(x, y):
    if (x.sum() > 0 and y.sum() < 0) or x.max() > 1.8:
        return x * 4.0
    return y * 4.0


def chained_compare(x):
    if -1.0 < x.sum() < 1.0:
        x = x * 10.0
    return x


def if_element_compare(x):
    if x[0] > x[1]:
        return x[0] - x[1]
    return x[1] - x[0]


def if_int_tensor(n, x):
    if n % 2 == 0:
        y = x * (n // 2)
    else:
        y = x + n
    return y


def nested_if(x, y):
    if x.sum() > 0:
        if y.sum() > 0:
            z = x + y
        else:
            z = x - y
    else:
        if y.max() > 1.0:
            z = y * 2.0
        else:
            z = x * y
    return z


def if_several_outputs(x, y):
    if x.sum() > y.sum():
        a, b = x, y * 2.0
    else:
        a, b = y, x * 3.0
    return a + b, a - b


def if_returns_tuple(x):
    if x.min() > 0:
        return x.sum(), x.max()
    return x.mean(), x.min()


def if_matmul(a, b):
    if (a @ b).sum() > 0:
        c = a @ b
    else:
        c = -(a @ b)
    return c


def if_in_unrolled_loop(x):
    for i in range(3):
        if x.sum() > i:
            x = x - 1.0
        else:
            x = x + 0.5 * i
    return x


def if_in_python_if(x, flag):
    if flag:
        if x.sum() > 0:
            return x * 2.0
        return x * 3.0
    return x - 1.0


# ---- while on a tensor condition -------------------------------------------------------------------

def while_halve(x):
    while x.max() > 1.0:
        x = x * 0.5
    return x


def while_count(x):
    n = 0
    while x.sum() > 0:
        x = x - 0.5
        n = n + 1
    return x, x * 0.0 + n


def while_two_carried(x):
    a, b = x, x * 0.0 + 1.0
    while b.sum() < 40.0:
        a, b = b, a + b
    return a, b


def while_with_if(x):
    while x.sum() < 20.0:
        if x.min() < 0:
            x = x + 2.0
        else:
            x = x * 1.5 + 0.5
    return x


def while_and_condition(x):
    n = 0
    while x.sum() < 15.0 and n < 6:
        x = x + 1.0
        n = n + 1
    return x * n


def while_else_form(x):
    while x.sum() < 10.0:
        if x.max() > 4.0:
            break
        x = x + 1.0
    else:
        x = x * 100.0
    return x


# ---- break / continue / return under tensor conditions ---------------------------------------------

def while_true_break(x):
    while True:
        x = x * 2.0 + 0.5
        if x.sum() > 12.0:
            break
    return x


def while_true_return(x):
    while True:              # ends only by the tensor 'return': a While from the first iteration on
        x = x + 1.0
        if x.sum() > 5.0:
            return x * 2.0


def python_while_return(x):
    j = 0
    while j < 20:            # a Python condition: j is carried once a tensor 'return' may have run
        x = x + 1.0
        if x.sum() > 5.0:
            return x * 2.0
        j = j + 1
    return x - j


def for_break(x, m):
    acc = x
    for i in range(m):
        if acc.sum() > 8.0:
            break
        acc = acc + x + i
    return acc


def for_continue(x, m):
    acc = x * 0.0
    for i in range(m):
        if (x * i).sum() < 0:
            continue
        acc = acc + x * i
    return acc


def break_and_continue(x, m):
    acc = x
    for i in range(m):
        if acc.max() > 20.0:
            break
        if i % 2 == 1:
            continue
        acc = acc * 1.5 + 1.0
    return acc


def unrolled_for_break(x):
    for _ in range(5):         # a Python range: unrolled; the tensor 'break' is a flag
        if x.sum() > 3.0:
            break
        x = x + 1.0
    else:
        x = x * 100.0
    return x


def unrolled_for_continue(x):
    for i in range(4):
        if x.sum() > i:
            continue
        x = x + 1.0
    return x


def return_in_while(x):
    while x.sum() < 30.0:
        if x.min() > 3.0:
            return x * -1.0
        x = x + 1.0
    return x


def return_in_for(x, m):
    for i in range(m):
        if x.sum() > 5.0:
            return x - i
        x = x + 1.0
    return x * 2.0


def return_in_nested_if(x):
    if x.max() > 1.0:
        if x.min() > 0.5:
            return x + 10.0
        x = x * 0.5
    return x - 1.0


def early_return_chain(x):
    if x.sum() > 4.0:
        return x * 4.0
    if x.sum() > 0:
        return x * 2.0
    if x.sum() > -4.0:
        return x
    return -x


# ---- nested loops ------------------------------------------------------------------------------------

def nested_while(x):
    total = x * 0.0
    while x.sum() > 0:
        y = x
        while y.max() > 0.5:
            y = y - 1.0
            total = total + 1.0
        x = x - 1.0
    return total


def nested_for_ranges(x, m, k):
    acc = x
    for i in range(m):
        for j in range(k):
            acc = acc + x * (i - j)
    return acc


def triangular(x, m):
    acc = x * 0.0
    for i in range(m):
        for j in range(i):
            acc = acc + x * j
    return acc


def for_in_while(x, m):
    while x.sum() < 20.0:
        for _ in range(m):
            x = x + 1.0
        x = x + 0.5
    return x


def break_inner_only(x, m):
    acc = x * 0.0
    for i in range(m):
        j = 0
        while j < 10:
            if (acc + j).sum() > 6.0 * (i + 1):
                break
            acc = acc + 0.5
            j = j + 1
    return acc


# ---- for over range with a tensor bound ------------------------------------------------------------

def for_tensor_bound(x, m):
    s = x * 0.0
    for i in range(m):
        s = s + x * i
    return s


def for_lo_hi(x, lo, hi):
    acc = x
    for i in range(lo, hi):
        acc = acc * 0.5 + i
    return acc


def for_step(x, lo, hi):
    acc = x
    for i in range(lo, hi, 3):
        acc = acc + i * 0.25
    return acc


def for_bound_from_value(x):
    m = (x > 0).astype(np.int32).sum()   # the spec's PIJit example: a bound computed from data
    acc = x
    for _ in range(m):
        acc = acc * 2.0
    return acc


def for_if_in_body(x, m):
    acc = x
    for i in range(m):
        if acc.sum() > i:
            acc = acc - 1.0
        else:
            acc = acc + 2.0
    return acc


# ---- recursion under a tensor condition ---------------------------------------------------------------

def _bounded(x, depth):
    if depth == 0:
        return x
    if x.sum() > 0:
        return _bounded(x - 1.0, depth - 1)
    return _bounded(x * 2.0 + 1.0, depth - 1)


def recursion_python_depth(x):
    return _bounded(x, 3)   # unrolled as MindSpore does: the depth is a Python value


def _unbounded(x):
    if x.sum() > 0:
        return _unbounded(x - 1.0)  # <cf_recursion>
    return x


def recursion_tensor_bound(x):
    return _unbounded(x)   # only the tensor ends the recursion: refused at capture, as MindSpore does


# ---- side effects: Parameters, Cell and jit_class attributes --------------------------------------

def params(*shapes):
    return lambda: tuple(Parameter(Tensor(np.zeros(s, np.float32)), name=f"p{i}") for i, s in enumerate(shapes))


def read_params(state):
    return [p.asnumpy().copy() for p in state]


def assign_in_if(state, x):
    total, count = state
    if x.sum() > 0:
        ops.assign(total, total + x)
    else:
        ops.assign(count, count + 1.0)
    return x + total


def assign_in_if_ref(s, x):
    if x.sum() > 0:
        s[0] += x
    else:
        s[1] += 1.0
    return x + s[0]


def assign_in_while(state, x):
    total, count = state
    while x.sum() > 0:
        x = x - 1.0
        ops.assign(count, count + 1.0)
        ops.assign(total, total + x)
    return x


def assign_in_while_ref(s, x):
    while x.sum() > 0:
        x = x - 1.0
        s[1] += 1.0
        s[0] += x
    return x


def assign_in_for_range(state, x, m):
    (total,) = state
    for i in range(m):
        ops.assign(total, total * 0.5 + x * i)
    return total * 1.0


def assign_in_for_range_ref(s, x, m):
    for i in range(int(m)):
        s[0][...] = s[0] * 0.5 + x * i
    return s[0].copy()


def assign_if_in_while(state, x):
    total, count = state
    while x.max() > 0:
        if x.sum() > 1.0:
            ops.assign(total, total + x)
        else:
            ops.assign(count, count + 2.0)
        x = x - 0.75
    return x


def assign_if_in_while_ref(s, x):
    while x.max() > 0:
        if x.sum() > 1.0:
            s[0] += x
        else:
            s[1] += 2.0
        x = x - 0.75
    return x


def assign_then_read(state, x):
    (total,) = state
    if x.mean() > 0:
        ops.assign(total, x * 3.0)
        y = total + 1.0          # reads the value just assigned
    else:
        y = total - 1.0
    return y


def assign_then_read_ref(s, x):
    if x.mean() > 0:
        s[0][...] = x * 3.0
        y = s[0] + 1.0
    else:
        y = s[0] - 1.0
    return y


def assign_after_break(state, x, m):
    total, count = state
    for _ in range(m):
        if x.sum() > 6.0:
            break
        x = x + 1.0
        ops.assign(count, count + 1.0)
    ops.assign(total, x)
    return x


def assign_after_break_ref(s, x, m):
    for _ in range(int(m)):
        if x.sum() > 6.0:
            break
        x = x + 1.0
        s[1] += 1.0
    s[0][...] = x
    return x


def assign_param_argument(p, x):
    """A Parameter passed as an argument: ops.assign writes it (by reference, as in MindSpore)."""
    if x.sum() > 0:
        ops.assign(p, p + x)
    else:
        ops.assign(p, p * 0.5)
    return p * 1.0


def assign_param_argument_ref(s, x):
    if x.sum() > 0:
        s[0] += x
    else:
        s[0] *= 0.5
    return s[0].copy()


def one_param():
    return Parameter(Tensor(np.ones(3, np.float32)), name="arg_param")


class Counter(nn.Cell):
    """``self.count += 1`` and ``self.total = ...`` on Parameter attributes, under tensor conditions."""

    def __init__(self):
        super().__init__()
        self.count = Parameter(Tensor(np.zeros((), np.float32)), name="count")
        self.total = Parameter(Tensor(np.zeros(3, np.float32)), name="total")

    def construct(self, x):
        return x


def cell_state():
    return Counter()


def read_cell(c):
    return [c.count.asnumpy().copy(), c.total.asnumpy().copy()]


def cell_count_in_if(c, x):
    if x.sum() > 0:
        c.count += 1
    else:
        c.total = c.total - x
    return x * c.count


def cell_count_in_if_ref(s, x):
    if x.sum() > 0:
        s[0] += 1
    else:
        s[1] -= x
    return x * s[0]


def cell_count_in_while(c, x):
    while x.sum() > 0:
        c.count += 1
        c.total = c.total + x
        x = x - 1.0
    return x + c.count


def cell_count_in_while_ref(s, x):
    while x.sum() > 0:
        s[0] += 1
        s[1] += x
        x = x - 1.0
    return x + s[0]


def cell_total_in_for(c, x, m):
    for i in range(m):
        if (x * i).sum() > 1.0:
            c.total = c.total + x * i
        c.count += 1
    return c.total * 1.0


def cell_total_in_for_ref(s, x, m):
    for i in range(int(m)):
        if (x * i).sum() > 1.0:
            s[1] += x * i
        s[0] += 1
    return s[1].copy()


@jit_class
class Accumulator:
    """A jit_class object with Parameter attributes."""

    def __init__(self):
        self.steps = Parameter(Tensor(np.zeros((), np.float32)), name="steps")
        self.value = Parameter(Tensor(np.zeros(3, np.float32)), name="value")


def jit_class_state():
    return Accumulator()


def read_jit_class(a):
    return [a.steps.asnumpy().copy(), a.value.asnumpy().copy()]


def jit_class_write_in_if(a, x):
    if x.max() > 1.0:
        a.value = a.value + x
    else:
        a.steps += 1
    return x - a.value


def jit_class_write_in_if_ref(s, x):
    if x.max() > 1.0:
        s[1] += x
    else:
        s[0] += 1
    return x - s[1]


def jit_class_write_in_loop(a, x):
    while x.min() < 3.0:
        a.steps += 1
        x = x + 1.0
    a.value = x
    return a.steps * 1.0


def jit_class_write_in_loop_ref(s, x):
    while x.min() < 3.0:
        s[0] += 1
        x = x + 1.0
    s[1][...] = x
    return s[0].copy()


# ---- gradients through tensor control flow --------------------------------------------------------

def grad_if(x):
    if x.sum() > 0:
        y = x * x
    else:
        y = x * 3.0
    return y.sum()


def grad_while(x):
    y = x
    while y.sum() < 20.0:
        y = y * 1.5 + 0.5
    return (y * x).sum()


def grad_for_range(x, m):
    acc = x
    for _ in range(m):
        acc = acc * x + 0.5
    return acc.sum()


def grad_if_in_while(x):
    y = x
    while y.max() < 10.0:
        if y.sum() > 3.0:
            y = y * 2.0
        else:
            y = y + x
    return (y * y).sum()


def grad_early_return(x):
    if x.min() > 0.5:
        return (x * x * x).sum()
    return (x * 2.0).sum()


def grad_break(x, m):
    acc = x
    for _ in range(m):
        if acc.sum() > 9.0:
            break
        acc = acc * 1.25 + x
    return (acc * acc).sum()


STEPS = Parameter(Tensor(np.zeros((), np.float32)), name="grad_steps")


def grad_with_assign(x):
    if x.sum() > 0:
        ops.assign(STEPS, STEPS + 1.0)
        y = x * x
    else:
        y = x * 3.0
    return y.sum()


# ---- an untaken branch that would fault ---------------------------------------------------------------

def untaken_index(x, i):
    if i < 3:
        y = x[i]
    else:
        y = x[0] * 0.0
    return y


def untaken_int_division(a, d):
    if d != 0:
        q = a // d
    else:
        q = a * 0
    return q


def untaken_division_in_loop(a, d):
    acc = a
    while acc.sum() > 100:
        if d != 0:
            acc = acc // d
        else:
            acc = acc - 50
    return acc


# ---- the corpus ------------------------------------------------------------------------------------

# Loops whose iterations depend on tensor values (while on a tensor, for over a tensor range, a
# tensor break/continue/return in a loop): bytecode under fullgraph=True refuses them (so does
# MindSpore 2.10's PIJit: "Data-dependent conditional control flow is not supported").
TENSOR_LOOPS = {
    "while_halve", "while_count", "while_two_carried", "while_with_if", "while_and_condition", "while_else_form",
    "while_true_break", "while_true_return", "python_while_return", "for_break", "for_continue",
    "break_and_continue", "unrolled_for_break", "return_in_while", "return_in_for", "nested_while",
    "nested_for_ranges", "triangular", "for_in_while", "break_inner_only", "for_tensor_bound", "for_lo_hi",
    "for_step", "for_bound_from_value", "for_if_in_body", "assign_in_while", "assign_in_for_range",
    "assign_if_in_while", "assign_after_break", "cell_count_in_while", "cell_total_in_for", "jit_class_write_in_loop"}

M = [i32(n) for n in (0, 1, 3, 6)]
GRAD3 = [(pos(3),), (neg(3),), (f32(3),), (pos(3) * 4.0,)]


def with_bound(shape, bounds=M):
    return [(f32(*shape, low=-1.0, high=3.0), m) for m in bounds]


def stateful(fn, make, read, inputs, **notes):
    return Case(fn, inputs, globals()[fn.__name__ + "_ref"], notes={"state": make, "read": read, **notes})


CF_CORPUS = [
    Case(if_else, signs(3), SAME),
    Case(if_no_else, signs(4), SAME),
    Case(elif_chain, [(np.full(3, v, np.float32),) for v in (2.0, 0.5, -0.5, -2.0)] + [(f32(2, 3),)], SAME),
    Case(ternary, signs(3), SAME),
    Case(nested_ternary, [(np.full(3, v, np.float32),) for v in (1.0, 0.1, -1.0)] + [(f32(5),)], SAME),
    Case(if_and, pairs(3), SAME),
    Case(if_or, pairs(4), SAME),
    Case(if_not, signs(3), SAME),
    Case(if_and_or_mixed, pairs(3), SAME),
    Case(chained_compare, [(np.full(3, v, np.float32),) for v in (0.1, 1.0, -1.0)], SAME),
    Case(if_element_compare, [(pos(4),), (neg(4),), (f32(4),), (f32(6),)], SAME),
    Case(if_int_tensor, [(i32(n), f32(3)) for n in (4, 7, 0, -3)], SAME),
    Case(nested_if, pairs(3) + [(neg(3), pos(3) * 3.0)], SAME),
    Case(if_several_outputs, pairs(3), SAME),
    Case(if_returns_tuple, signs(3), SAME),
    Case(if_matmul, [(f32(2, 3), f32(3, 2)) for _ in range(4)], SAME),
    Case(if_in_unrolled_loop, signs(3) + [(pos(3) * 3.0,)], SAME),
    Case(if_in_python_if, [(pos(3), True), (neg(3), True), (pos(3), False)], SAME),
    Case(while_halve, [(pos(3) * 8.0,), (pos(3) * 0.4,), (pos(2, 2) * 20.0,)], SAME),
    Case(while_count, [(pos(3),), (neg(3),), (pos(3) * 5.0,)], SAME),
    Case(while_two_carried, [(pos(3),), (pos(3) * 10.0,), (pos(5),)], SAME),
    Case(while_with_if, [(pos(3),), (neg(3) * 3.0,), (pos(3) * 20.0,)], SAME),
    Case(while_and_condition, [(pos(3),), (pos(3) * 6.0,), (neg(3) * 2.0,)], SAME),
    Case(while_else_form, [(f32(3, low=-1.0, high=1.0),), (f32(3, low=3.5, high=3.9),), (pos(3) * 10.0,)], SAME),
    Case(while_true_break, [(pos(3),), (pos(3) * 0.1,), (pos(3) * 10.0,)], SAME),
    Case(while_true_return, [(pos(3),), (neg(3) * 3.0,), (pos(3) * 4.0,)], SAME),
    Case(python_while_return, [(pos(3),), (neg(3) * 3.0,), (neg(3) * 20.0,)], SAME),
    Case(for_break, with_bound((3,)), SAME),
    Case(for_continue, with_bound((3,)) + [(neg(3), i32(4))], SAME),
    Case(break_and_continue, [(pos(3) * s, i32(n)) for s, n in ((1.0, 9), (8.0, 9), (0.1, 2), (1.0, 0))], SAME),
    Case(unrolled_for_break, [(pos(3),), (neg(3),), (pos(3) * 10.0,), (neg(3) * 10.0,)], SAME),
    Case(unrolled_for_continue, [(pos(3),), (neg(3),), (f32(3),), (neg(3) * 3.0,)], SAME),
    Case(return_in_while, [(pos(3),), (pos(3) + 3.0,), (neg(3) * 2.0,), (pos(3) * 40.0,)], SAME),
    Case(return_in_for, with_bound((3,)) + [(pos(3) * 4.0, i32(2))], SAME),
    Case(return_in_nested_if, [(pos(3) + 0.6,), (pos(3) * 3.0 - 1.5,), (neg(3),)], SAME),
    Case(early_return_chain, [(np.full(3, v, np.float32),) for v in (2.0, 0.5, -0.5, -2.0)], SAME),
    Case(nested_while, [(pos(3),), (pos(3) * 3.0,), (neg(3),)], SAME),
    Case(nested_for_ranges, [(f32(3), i32(m), i32(k)) for m, k in ((0, 2), (2, 3), (3, 0), (4, 4))], SAME),
    Case(triangular, with_bound((3,)), SAME),
    Case(for_in_while, [(pos(3), i32(2)), (neg(3), i32(0)), (pos(3) * 10.0, i32(5))], SAME),
    Case(break_inner_only, with_bound((3,)), SAME),
    Case(for_tensor_bound, with_bound((3,)) + with_bound((2, 2), M[:2]), SAME),
    Case(for_lo_hi, [(f32(3), i32(lo), i32(hi)) for lo, hi in ((0, 4), (-2, 3), (5, 1))], SAME),
    Case(for_step, [(f32(3), i32(lo), i32(hi)) for lo, hi in ((0, 10), (-4, 4), (3, 3))], SAME),
    Case(for_bound_from_value, [(pos(3),), (neg(3),), (f32(6),)], SAME),
    Case(for_if_in_body, with_bound((3,)), SAME),
    Case(recursion_python_depth, signs(3), SAME),
    Case(recursion_tensor_bound, [(pos(3),)], notes={"refused": "cf_recursion"}),
    stateful(assign_in_if, params(3, ()), read_params, signs(3)[:3] + [(pos(3),)]),
    stateful(assign_in_while, params(3, ()), read_params, [(pos(3),), (neg(3),), (pos(3) * 3.0,)]),
    stateful(assign_in_for_range, params(3), read_params, with_bound((3,))),
    stateful(assign_if_in_while, params(3, ()), read_params, [(pos(3),), (pos(3) * 3.0,), (neg(3),)]),
    stateful(assign_then_read, params(3), read_params, signs(3)[:3]),
    stateful(assign_after_break, params(3, ()), read_params, with_bound((3,))),
    Case(assign_param_argument, [(pos(3),), (neg(3),), (f32(3),)], assign_param_argument_ref,
         notes={"state": one_param, "read": lambda p: [p.asnumpy().copy()]}),
    stateful(cell_count_in_if, cell_state, read_cell, signs(3)[:3]),
    stateful(cell_count_in_while, cell_state, read_cell, [(pos(3),), (neg(3),), (pos(3) * 3.0,)]),
    stateful(cell_total_in_for, cell_state, read_cell, with_bound((3,))),
    # (bytecode runs the write as Python, which rebinds the attribute to a new Tensor: a later
    # piece reading it sees a changed guard and recompiles, as it must)
    stateful(jit_class_write_in_if, jit_class_state, read_jit_class, signs(3)[:3], rebinds=True),
    stateful(jit_class_write_in_loop, jit_class_state, read_jit_class, [(pos(3),), (neg(3),), (pos(3) * 4.0,)]),
    Case(grad_if, GRAD3, SAME, notes={"grad": True}),
    Case(grad_while, GRAD3[:1] + [(pos(3) * 0.3,), (pos(3) * 6.0,)], SAME, notes={"grad": True}),
    Case(grad_for_range, [(f32(3, low=-1.0, high=1.0), i32(m)) for m in (0, 1, 3)], SAME, notes={"grad": True}),
    Case(grad_if_in_while, [(pos(3),), (pos(3) * 2.0,), (pos(3) * 0.2,)], SAME, notes={"grad": True}),
    Case(grad_early_return, [(pos(3) + 0.6,), (f32(3),)], SAME, notes={"grad": True}),
    Case(grad_break, [(pos(3) * 0.2, i32(m)) for m in (0, 2, 8)], SAME, notes={"grad": True}),
    Case(untaken_index, [(f32(3), i32(i)) for i in (7, 1, 2, 30)], SAME, notes={"fault": True}),
    Case(untaken_int_division, [(np.array([7, -8, 9], np.int32), i32(d)) for d in (0, 2, -3)], SAME,
         notes={"fault": True}),
    Case(untaken_division_in_loop, [(np.array([70, 80, 90], np.int32), i32(d)) for d in (0, 2)], SAME,
         notes={"fault": True}),
]


class Gate(nn.Cell):
    """A Cell whose construct branches on a tensor: jit(cell.construct) and grad of it."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([0.5, -1.0, 2.0], np.float32)), name="w")

    def construct(self, x):
        if (x * self.w).sum() > 0:
            y = x * self.w
        else:
            y = x * x
        return y.sum()


def gate_ref(x):
    w = np.array([0.5, -1.0, 2.0])
    return (x * w).sum() if (x * w).sum() > 0 else (x * x).sum()

"""Linear algebra over MatMul: every contraction (tensor_dot, dot, inner, einsum) is one
Transpose + Reshape of each operand to (batch, free, contracted), one MatMul and a Reshape +
Transpose of the result."""
import math
import string

import numpy as np

from .. import dtype as D
from ..core import bind
from . import functional as F
from . import prims as P
from .operands import binary_operands, normalize_axes, operand

__all__ = ["mm", "mv", "dot", "outer", "ger", "inner", "addmm", "addmv", "addr", "addbmm", "baddbmm", "tensor_dot",
           "tensordot", "batch_dot", "einsum", "trace", "cross", "vecdot", "kron", "dist", "cdist", "matrix_power"]


def _transpose(x, perm):
    perm = tuple(perm)
    return x if perm == tuple(range(x.ndim)) else bind(P.Transpose, x, perm=perm)


def _contract(name, x, y, batch, ax, ay):
    """Contract axes ``ax`` of x with ``ay`` of y, with ``batch`` pairs of axes shared (in that
    order); result axes: batch, free axes of x, free axes of y."""
    bx, by = [b[0] for b in batch], [b[1] for b in batch]
    for i, j in zip(ax, ay):
        if x.shape[i] != y.shape[j]:
            raise ValueError(f"{name}: contracted dimensions do not match: axis {i} of shape {x.shape} "
                             f"and axis {j} of shape {y.shape}")
    fx = [i for i in range(x.ndim) if i not in ax and i not in bx]
    fy = [j for j in range(y.ndim) if j not in ay and j not in by]
    bshape = tuple(x.shape[i] for i in bx)
    k = math.prod(x.shape[i] for i in ax)
    m, n = math.prod(x.shape[i] for i in fx), math.prod(y.shape[j] for j in fy)
    xt = F.reshape(_transpose(x, bx + fx + list(ax)), bshape + (m, k))
    yt = F.reshape(_transpose(y, by + list(ay) + fy), bshape + (k, n))
    z = bind(P.MatMul, xt, yt)
    return F.reshape(z, bshape + tuple(x.shape[i] for i in fx) + tuple(y.shape[j] for j in fy))


def _axes_list(name, axes, ndim):
    axes = [axes] if isinstance(axes, (int, np.integer)) else list(axes)
    return [normalize_axes(name, a, ndim)[0] for a in axes]


def tensor_dot(x1, x2, axes):
    """Sum of products over ``axes``: an int n (the last n axes of x1 with the first n of x2) or
    a pair of axis lists."""
    x, y = binary_operands("TensorDot", x1, x2)
    if isinstance(axes, (int, np.integer)):
        ax, ay = list(range(x.ndim - axes, x.ndim)), list(range(axes))
    else:
        ax, ay = _axes_list("TensorDot", axes[0], x.ndim), _axes_list("TensorDot", axes[1], y.ndim)
    if len(ax) != len(ay):
        raise ValueError(f"TensorDot: axes {axes!r} pair {len(ax)} axes of x1 with {len(ay)} of x2")
    return _contract("TensorDot", x, y, [], ax, ay)


tensordot = tensor_dot


def dot(input, other):
    """numpy's dot: the last axis of ``input`` with the second-to-last (or only) of ``other``."""
    x, y = binary_operands("Dot", input, other)
    if x.ndim == 0 or y.ndim == 0:
        return F.mul(x, y)
    return _contract("Dot", x, y, [], [x.ndim - 1], [max(y.ndim - 2, 0)])


def inner(input, other):
    """Sum of products over the last axes (a scalar operand multiplies)."""
    x, y = binary_operands("Inner", input, other)
    if x.ndim == 0 or y.ndim == 0:
        return F.mul(x, y)
    return _contract("Inner", x, y, [], [x.ndim - 1], [y.ndim - 1])


def vecdot(x, y, *, axis=-1):
    """``sum(x * y, axis)`` with broadcasting."""
    return F.sum(F.mul(x, y), axis)


def outer(input, vec2):
    """``input[i] * vec2[j]`` of two 1-D tensors."""
    x, y = binary_operands("Outer", input, vec2)
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"Outer: expected 1-D inputs, got shapes {x.shape} and {y.shape}")
    return bind(P.Mul, F.reshape(x, (-1, 1)), F.reshape(y, (1, -1)))


ger = outer


def mm(input, mat2):
    """Matrix product of two 2-D tensors."""
    x, y = operand("MatMul", input), operand("MatMul", mat2)
    if x.ndim != 2 or y.ndim != 2:
        raise ValueError(f"MatMul: mm expects 2-D inputs, got shapes {x.shape} and {y.shape}")
    return F.matmul(x, y)


def mv(mat, vec):
    """Matrix (2-D) times vector (1-D)."""
    m, v = operand("MatrixVector", mat), operand("MatrixVector", vec)
    if m.ndim != 2 or v.ndim != 1:
        raise ValueError(f"MatrixVector: expected a 2-D matrix and a 1-D vector, got shapes {m.shape} and {v.shape}")
    return F.matmul(m, v)


def _scaled_sum(input, product, beta, alpha):
    """``beta * input + alpha * product`` (no Mul for a factor of 1)."""
    if alpha != 1:
        product = F.mul(product, alpha)
    return F.add(input if beta == 1 else F.mul(input, beta), product)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)``."""
    return _scaled_sum(input, mm(mat1, mat2), beta, alpha)


def baddbmm(input, batch1, batch2, beta=1, alpha=1):
    """``beta * input + alpha * bmm(batch1, batch2)``."""
    return _scaled_sum(input, F.bmm(batch1, batch2), beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``."""
    return _scaled_sum(input, mv(mat, vec), beta, alpha)


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """``beta * x + alpha * outer(vec1, vec2)``."""
    return _scaled_sum(x, outer(vec1, vec2), beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]`` (one MatMul over the joined batch)."""
    x, y = binary_operands("Addbmm", batch1, batch2)
    if x.ndim != 3 or y.ndim != 3 or x.shape[0] != y.shape[0]:
        raise ValueError(f"Addbmm: expected 3-D batches of one size, got shapes {x.shape} and {y.shape}")
    return _scaled_sum(input, _contract("Addbmm", x, y, [], [0, 2], [0, 1]), beta, alpha)


def batch_dot(x1, x2, axes=None):
    """Per-row dot products of two batches (rank >= 2): contract ``axes`` (default: the last
    axis of x1 with the second-to-last of x2, or the last one for 2-D x2); 2-D results get a
    trailing size-1 axis, as MindSpore."""
    x, y = binary_operands("BatchDot", x1, x2)
    if x.ndim < 2 or y.ndim < 2 or x.shape[0] != y.shape[0]:
        raise ValueError(f"BatchDot: expected batches of rank >= 2 and one size, got shapes {x.shape} and {y.shape}")
    if axes is None:
        axes = (x.ndim - 1, y.ndim - 1 if y.ndim == 2 else y.ndim - 2)
    elif isinstance(axes, (int, np.integer)):
        axes = (axes, axes)
    ax, ay = (normalize_axes("BatchDot", a, t.ndim)[0] for a, t in zip(axes, (x, y)))
    z = _contract("BatchDot", x, y, [(0, 0)], [ax], [ay])
    return F.reshape(z, z.shape + (1,)) if z.ndim == 1 else z


def kron(input, other):
    """Kronecker product: ``out[i*m + k, ...] = input[i, ...] * other[k, ...]`` per axis."""
    x, y = binary_operands("Kron", input, other)
    n = max(x.ndim, y.ndim)
    x = F.reshape(x, (1,) * (n - x.ndim) + x.shape)
    y = F.reshape(y, (1,) * (n - y.ndim) + y.shape)
    xs = F.reshape(x, tuple(v for d in x.shape for v in (d, 1)))
    ys = F.reshape(y, tuple(v for d in y.shape for v in (1, d)))
    return F.reshape(bind(P.Mul, xs, ys), tuple(a * b for a, b in zip(x.shape, y.shape)))


def dist(input, other, p=2):
    """p-norm of ``input - other`` over all elements."""
    from .math_reduce import vector_norm
    return vector_norm(F.sub(input, other), p)


def cdist(x1, x2, p=2.0):
    """Pairwise p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M)."""
    from .math_reduce import vector_norm
    x, y = binary_operands("Cdist", x1, x2, floating=True)
    if x.ndim < 2 or x.shape[-1] != y.shape[-1]:
        raise ValueError(f"Cdist: expected (..., P, M) and (..., R, M) inputs, got shapes {x.shape} and {y.shape}")
    d = F.sub(F.reshape(x, x.shape[:-1] + (1, x.shape[-1])), F.reshape(y, y.shape[:-2] + (1,) + y.shape[-2:]))
    return vector_norm(d, p, -1)


def matrix_power(input, n):
    """``input`` (..., m, m) multiplied by itself ``n`` >= 0 times, by repeated squaring."""
    x = operand("MatrixPower", input)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"MatrixPower: expected square matrices (..., m, m), got shape {x.shape}")
    if n < 0:
        raise ValueError(f"MatrixPower: negative powers (a matrix inverse) are not supported, got n={n}")
    result, base, n = None, x, int(n)
    while n:
        if n & 1:
            result = base if result is None else F.matmul(result, base)
        n >>= 1
        if n:
            base = F.matmul(base, base)
    if result is None:      # n == 0: identities, as a function of x (zero gradient)
        eye = np.eye(x.shape[-1], dtype=x.dtype.np)
        return bind(P.Add, bind(P.Mul, x, np.zeros((), x.dtype.np)), eye)
    return result


def trace(input):
    """Sum of the main diagonal of a 2-D tensor (a Gather of the flattened diagonal)."""
    x = operand("Trace", input)
    if x.ndim != 2:
        raise ValueError(f"Trace: expected a 2-D input, got shape {x.shape}")
    n, m = x.shape
    diagonal = bind(P.Gather, F.reshape(x, (-1,)), np.arange(min(n, m), dtype=np.int64) * (m + 1), axis=0)
    return bind(P.ReduceSum, diagonal, axes=(), keep_dims=False)



def cross(input, other, dim=None):
    """Cross product of 3-vectors along ``dim`` (None: the first axis of size 3)."""
    x, y = binary_operands("Cross", input, other)
    if x.shape != y.shape:
        shape = P.broadcast_shapes("Cross", x.shape, y.shape)
        x, y = (bind(P.BroadcastTo, t, shape=shape) if t.shape != shape else t for t in (x, y))
    if dim is None:
        dim = next((i for i, d in enumerate(x.shape) if d == 3), None)
        if dim is None:
            raise ValueError(f"Cross: no axis of size 3 in shape {x.shape}")
    a = normalize_axes("Cross", dim, x.ndim)[0]
    if x.shape[a] != 3:
        raise ValueError(f"Cross: axis {a} of shape {x.shape} must have size 3")

    def part(t, i):
        return bind(P.StridedSlice, t, begin=tuple(i if k == a else 0 for k in range(t.ndim)),
                    end=tuple(i + 1 if k == a else d for k, d in enumerate(t.shape)), strides=(1,) * t.ndim)
    xs, ys = [part(x, i) for i in range(3)], [part(y, i) for i in range(3)]
    comps = [bind(P.Sub, bind(P.Mul, xs[(i + 1) % 3], ys[(i + 2) % 3]), bind(P.Mul, xs[(i + 2) % 3], ys[(i + 1) % 3]))
             for i in range(3)]
    return bind(P.Concat, *comps, axis=a)


# ---- einsum ----------------------------------------------------------------------------------------

def _parse(equation, operands):
    """Subscripts per operand and for the output, with '...' expanded to fresh letters."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    specs = lhs.split(",")
    if len(specs) != len(operands):
        raise ValueError(f"Einsum: equation {equation!r} names {len(specs)} operands, got {len(operands)}")
    used = set(equation)
    fresh = [c for c in string.ascii_uppercase + string.ascii_lowercase if c not in used]
    n_ell = max((x.ndim - len(s.replace("...", "")) for s, x in zip(specs, operands) if "..." in s), default=0)
    ell = "".join(fresh[:n_ell])
    out = []
    for s, x in zip(specs, operands):
        if "..." in s:
            k = x.ndim - len(s.replace("...", ""))
            s = s.replace("...", ell[n_ell - k:] if k else "")
        if len(s) != x.ndim or not s.isalpha():
            raise ValueError(f"Einsum: subscripts {s!r} do not match an operand of shape {x.shape}")
        if len(set(s)) != len(s):
            raise ValueError(f"Einsum: repeated subscripts in {s!r} (diagonals) are not supported")
        out.append(s)
    if arrow:
        rhs = rhs.replace("...", ell)
    else:
        letters = "".join(out)
        rhs = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1 and c not in ell))
    return out, rhs


def _sum_out(x, spec, keep):
    """Sum the axes of ``x`` whose letters are not in ``keep``."""
    axes = tuple(i for i, c in enumerate(spec) if c not in keep)
    if not axes:
        return x, spec
    return bind(P.ReduceSum, x, axes=axes, keep_dims=False), "".join(c for c in spec if c in keep)


def _broadcast_letters(x, sx, y, sy):
    """Broadcast size-1 axes of letters shared by both operands to the other's size."""
    sizes = {}
    for s, v in ((sx, x), (sy, y)):
        for c, d in zip(s, v.shape):
            sizes[c] = d if sizes.get(c, 1) == 1 else sizes[c]

    def widen(v, s):
        shape = tuple(sizes[c] for c in s)
        if shape == v.shape:
            return v
        if any(d != n and d != 1 for d, n in zip(v.shape, shape)):
            raise ValueError(f"Einsum: operand shapes {x.shape} ({sx}) and {y.shape} ({sy}) do not match")
        return bind(P.BroadcastTo, v, shape=shape)
    return widen(x, sx), widen(y, sy)


def _pair(x, sx, y, sy, keep):
    x, sx = _sum_out(x, sx, keep | set(sy))
    y, sy = _sum_out(y, sy, keep | set(sx))
    x, y = _broadcast_letters(x, sx, y, sy)
    batch = [c for c in sx if c in sy and c in keep]
    contracted = [c for c in sx if c in sy and c not in keep]
    z = _contract("Einsum", x, y, [(sx.index(c), sy.index(c)) for c in batch],
                  [sx.index(c) for c in contracted], [sy.index(c) for c in contracted])
    return z, "".join(batch) + "".join(c for c in sx if c not in sy) + "".join(c for c in sy if c not in sx)


def einsum(equation, *operands):
    """Einstein summation (numpy's notation, '...' included; no repeated subscripts within one
    operand), evaluated left to right as pairwise MatMul contractions."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    xs = [operand("Einsum", x) for x in operands]
    dt = xs[0].dtype
    for t in xs[1:]:
        dt = D.promote_types(dt, t.dtype)
    xs = [F.cast(t, dt) for t in xs]
    specs, rhs = _parse(equation, xs)
    x, sx = xs[0], specs[0]
    for i in range(1, len(xs)):
        keep = set(rhs).union(*specs[i + 1:])
        x, sx = _pair(x, sx, xs[i], specs[i], keep)
    x, sx = _sum_out(x, sx, set(rhs))
    if sorted(sx) != sorted(rhs):
        raise ValueError(f"Einsum: output subscripts {rhs!r} are not all in the inputs of {equation!r}")
    return _transpose(x, [sx.index(c) for c in rhs])


TENSOR_METHODS = {n: globals()[n] for n in ("mm", "mv", "dot", "outer", "ger", "inner", "addmm", "addmv", "addr",
                                            "addbmm", "baddbmm", "trace", "cross", "kron",
                                            "matrix_power")}

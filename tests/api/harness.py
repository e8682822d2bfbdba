"""One check for every public name of the API tests: eager == numpy, compiled == eager, grad == FD.

``check_api(fn, args, ref)`` runs ``fn`` (any callable over msjit Tensors: a functional op, a
Tensor method, an nn Cell, a mindspore.numpy function) on ``args`` (numpy arrays become Tensors,
anything else is passed as it is) and compares

1. eager with ``ref`` (the numpy reference, called with the same arguments as numpy arrays);
2. ``jit(fullgraph=True)`` under every capture mode in ``modes`` with eager (fullgraph: the graph
   really ran, a silent fallback would raise instead of comparing eager with itself);
3. with ``grad=True``, the gradient of ``sum(ct * fn(...))`` for every floating-point array
   argument, eagerly (tape) and compiled (ast), with central finite differences in float64.

Random shapes come from ``shapes(rng, ...)``; each test draws its own with a seeded generator.
"""
import numpy as np

import msjit as ms
from support import assert_results_close, central_difference, cotangent, plain_result

MODES = ("ast", "bytecode", "trace")


def tensors(args):
    return [ms.Tensor(a) if isinstance(a, np.ndarray) else a for a in args]


def _call(fn, args, kwargs):
    return fn(*tensors(args), **kwargs)


def _jitted(fn, mode, kwargs):
    # A named wrapper with source: the ast mode interprets it and calls ``fn`` as a library op.
    def api_under_test(*xs):
        return fn(*xs, **kwargs)
    return ms.jit(capture_mode=mode, fullgraph=True)(api_under_test)   # (trace: decorator form only)


def _as_numpy(v):
    if isinstance(v, ms.Tensor):
        return v.asnumpy()
    if isinstance(v, (tuple, list)):
        return type(v)(_as_numpy(x) for x in v)
    return v


def check_api(fn, args, ref=None, *, kwargs=None, modes=MODES, grad=False, rtol=1e-5, atol=1e-5,
              check_dtype=True):
    """Run the three comparisons above; returns the eager result."""
    kwargs = kwargs or {}
    eager = _call(fn, args, kwargs)
    if ref is not None:
        want = ref(*args, **kwargs)
        _close(_as_numpy(eager), want, "eager vs numpy", rtol, atol, check_dtype)
    for mode in modes:
        got = _jitted(fn, mode, kwargs)(*tensors(args))
        assert_results_close(plain_result(got), plain_result(eager), f"jit({mode}) vs eager")
    if grad:
        check_grad(fn, args, kwargs=kwargs)
    return eager


def _close(got, want, where, rtol, atol, check_dtype):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), f"{where}: {got!r} vs {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, f"{where}[{i}]", rtol, atol, check_dtype)
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, f"{where}: shape {g.shape} vs {w.shape}"
    if check_dtype:
        assert g.dtype == w.dtype, f"{where}: dtype {g.dtype} vs {w.dtype}"
    if g.dtype == bool or w.dtype == bool:
        np.testing.assert_array_equal(g, w, err_msg=where)
    else:
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol,
                                   err_msg=where)


def _floating(args):
    return [i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype.kind == "f"]


def numeric_grad(fn, args, i, ct, kwargs, eps=1e-6):
    """Central finite differences of ``sum(ct * fn(...))`` w.r.t. ``args[i]`` (float64)."""
    args = [np.array(a) if isinstance(a, np.ndarray) else a for a in args]
    return central_difference(args[i], lambda: _call(fn, args, kwargs).asnumpy(), ct, eps)


def check_grad(fn, args, *, kwargs=None, wrt=None, rtol=1e-5, atol=1e-6, compiled=True):
    """Eager and compiled (ast) gradients of ``sum(ct * fn)`` vs finite differences, in float64."""
    kwargs = kwargs or {}
    args = [a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in args]
    wrt = tuple(_floating(args) if wrt is None else wrt)
    assert wrt, "check_grad: no floating-point argument to differentiate"
    out = _call(fn, args, kwargs)
    ct = cotangent(out.shape, out.dtype.np)

    def weighted(*xs):
        return (fn(*xs, **kwargs) * ms.Tensor(ct)).sum()

    grad_fn = ms.grad(weighted, wrt)
    runs = [("eager", grad_fn)] + ([("compiled", ms.jit(grad_fn, fullgraph=True))] if compiled else [])
    for where, g in runs:
        grads = g(*tensors(args))
        grads = grads if isinstance(grads, tuple) else (grads,)
        for i, got in zip(wrt, grads):
            np.testing.assert_allclose(got.asnumpy(), numeric_grad(fn, args, i, ct, kwargs), rtol=rtol,
                                       atol=atol, err_msg=f"{where} gradient vs FD, argument {i}")


def seeded(name):
    """A generator seeded by a case's name: each case draws the same values on every run."""
    return np.random.default_rng(sum(map(ord, name)))


def as_input(ref):
    """A numpy reference computed in float64, its results (nested tuples too) returned in the first
    argument's dtype (float32 when that is not a floating-point array)."""
    def wrapped(*args, **kwargs):
        dtype = args[0].dtype if args[0].dtype.kind == "f" else np.float32
        args = [a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in args]
        return _cast(ref(*args, **kwargs), dtype)
    return wrapped


def _cast(v, dtype):
    return type(v)(_cast(i, dtype) for i in v) if isinstance(v, tuple) else np.asarray(v).astype(dtype)


def shape(rng, ndim=None, low=1, high=5):
    """A random shape: ``ndim`` dims (1..3 when None), each in [low, high]."""
    ndim = int(rng.integers(1, 4)) if ndim is None else ndim
    return tuple(int(d) for d in rng.integers(low, high + 1, size=ndim))


def array(rng, shp, dtype=np.float32, low=-2.0, high=2.0):
    """Random values of ``dtype``: uniform floats, integers in [low, high], or random bools."""
    dtype = np.dtype(dtype)
    if dtype == bool:
        return rng.random(shp) < 0.5
    if dtype.kind in "iu":
        return rng.integers(int(low), int(high) + 1, size=shp).astype(dtype)
    return rng.uniform(low, high, size=shp).astype(dtype)

"""Compiled gradients (msjitd's msjit-autodiff, C++ bprop rules) on every case of cases.py (the
gradient kernels' own cases too: second derivatives through Conv2D and AvgPool): equal to the
PyNative tape's, and to finite differences / closed forms, at O0 and O1."""
import numpy as np
import pytest

import msjit as ms

from cases import CASES, GRAD_OP_CASES, cotangent, numeric_grad

pytestmark = pytest.mark.usefixtures("module_daemon_home")


def grads(case, ct, level=None):
    """Gradients of sum(ct * fn(inputs)) for case.wrt: eagerly, or compiled at ``level``."""
    def weighted(*xs):
        return (case.fn(*xs) * ms.Tensor(ct)).sum()
    grad_fn = ms.grad(weighted, tuple(case.wrt))
    if level is not None:
        grad_fn = ms.jit(grad_fn, jit_level=level)
    grads = grad_fn(*[ms.Tensor(a) for a in case.inputs])   # one gradient alone, several as a tuple
    return [g.asnumpy() for g in (grads if isinstance(grads, tuple) else (grads,))]


@pytest.mark.parametrize("level", ["O0", "O1"])
@pytest.mark.parametrize("case", CASES + GRAD_OP_CASES, ids=repr)
def test_compiled_gradient(case, level):
    out = np.asarray(case.fn(*[ms.Tensor(a) for a in case.inputs]).asnumpy())
    ct = cotangent(out.shape, out.dtype)
    compiled, eager = grads(case, ct, level), grads(case, ct)
    tight = all(case.inputs[i].dtype == np.float64 for i in case.wrt)
    for i, c, e in zip(case.wrt, compiled, eager):
        assert c.shape == e.shape and c.dtype == e.dtype, (i, c.shape, c.dtype, e.shape, e.dtype)
        np.testing.assert_allclose(c, e, rtol=1e-9 if tight else 2e-5, atol=1e-12 if tight else 1e-5,
                                   err_msg=f"compiled vs eager, input {i}")
    if case.fd:
        for i, c in zip(case.wrt, compiled):
            np.testing.assert_allclose(c, numeric_grad(case.fn, case.inputs, i, ct, case.eps),
                                       rtol=case.rtol, atol=case.atol, err_msg=f"compiled vs FD, input {i}")
    if case.expected:
        for c, e in zip(compiled, case.expected(*case.inputs, ct)):
            np.testing.assert_allclose(c, e, rtol=1e-7 if tight else 1e-5, atol=1e-9 if tight else 1e-5)

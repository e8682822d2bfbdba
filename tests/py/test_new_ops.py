"""The ops of issue 3, differential: eager vs numpy reference, and jit (O0, O1) vs eager and the
reference, for every case of op_cases (edge cases: size-1 dims, broadcasting, negative axes,
non-contiguous inputs). Jit tests of a primitive the daemon does not know yet fail with
CompileError "unknown op"."""
import numpy as np
import pytest

from msjit import Tensor, jit
from msjit.ops import kernels
import nn_ref as R
from op_cases import CASES, f32

IDS = [c[0] for c in CASES]


def tensors(inputs):
    return [Tensor._wrap(a) for a in inputs]   # keeps non-contiguous views as they are


def check(out, ref, tol):
    assert isinstance(out, Tensor)
    ref = np.asarray(ref)
    assert out.shape == ref.shape, (out.shape, ref.shape)
    if out.dtype.name == "bool_":
        np.testing.assert_array_equal(out.asnumpy(), ref)
    else:
        np.testing.assert_allclose(out.asnumpy().astype(np.float64), ref.astype(np.float64), rtol=tol, atol=tol)


@pytest.mark.parametrize("name, fn, ref, inputs, tol", CASES, ids=IDS)
def test_eager_matches_numpy(name, fn, ref, inputs, tol):
    check(fn(*tensors(inputs)), ref(*inputs), tol)


@pytest.mark.parametrize("level", ["O0", "O1"])
@pytest.mark.parametrize("name, fn, ref, inputs, tol", CASES, ids=IDS)
def test_jit_matches_eager_and_numpy(module_daemon_home, level, name, fn, ref, inputs, tol):
    pytest.importorskip("msjit._msjit_rt")
    args = tensors(inputs)
    eager = fn(*args)
    jitted = jit(fn, jit_level=level, fullgraph=True)
    out = jitted(*args)
    assert jitted.stats.compiles == 1
    assert out.dtype is eager.dtype
    check(out, eager.asnumpy(), tol)
    check(out, ref(*inputs), tol)
    check(jitted(*args), eager.asnumpy(), tol)   # cached call


@pytest.mark.parametrize("vendor", [True, False], ids=["vendor", "numpy"])
def test_conv_and_pool_kernels_both_paths(monkeypatch, vendor):
    """The eager kernels give the reference result through the extension and through the numpy
    fallback alike."""
    if vendor:
        pytest.importorskip("msjit._msjit_rt")
        if kernels.vendor("conv2d") is None:
            pytest.skip("the runtime extension has no vendor kernels")
    else:
        monkeypatch.setattr(kernels, "_vendor_cache", {"conv2d": None, "max_pool2d": None, "avg_pool2d": None})
    x, w = f32(2, 4, 7, 6), f32(6, 2, 3, 2)
    got = kernels.conv2d(x, w, stride=(2, 1), dilation=(1, 2), pad=(1, 0, 2, 1), group=2)
    np.testing.assert_allclose(got, R.conv2d(x, w, (2, 1), (1, 2), (1, 0, 2, 1), 2), rtol=1e-4, atol=1e-4)
    got = kernels.max_pool(x, kernel=(3, 2), stride=(2, 2), pad=(1, 1, 0, 1))
    np.testing.assert_allclose(got, R.max_pool(x, (3, 2), (2, 2), (1, 1, 0, 1)), rtol=1e-6)
    for include in (True, False):
        got = kernels.avg_pool(x, kernel=(3, 3), stride=(1, 2), pad=(1, 1, 1, 1), count_include_pad=include)
        np.testing.assert_allclose(got, R.avg_pool(x, (3, 3), (1, 2), (1, 1, 1, 1), include), rtol=1e-5, atol=1e-6)

"""Tensor construction, properties, printing, and the dtype promotion rules."""
import pickle

import numpy as np
import pytest

import msjit
from msjit import Tensor
from msjit import dtype as D


@pytest.mark.parametrize("data, expected", [
    ([1.0, 2.0], msjit.float32),          # Python floats -> float32, as MindSpore
    (1.5, msjit.float32),
    ([1, 2, 3], msjit.int64),             # Python ints -> int64
    (7, msjit.int64),
    ([True, False], msjit.bool_),
    (np.zeros(3, np.float64), msjit.float64),   # numpy data keeps its dtype
    (np.zeros(3, np.float16), msjit.float16),
    (np.zeros(3, np.int32), msjit.int32),
    (np.float64(2.0), msjit.float64),
])
def test_default_dtype(data, expected):
    t = Tensor(data)
    assert t.dtype is expected
    np.testing.assert_array_equal(t.asnumpy(), np.asarray(data))


def test_explicit_dtype_casts_like_the_tutorial():
    a = np.random.randn(2, 3)
    t = Tensor(a, msjit.float32)
    assert t.dtype is msjit.float32 and t.asnumpy().dtype == np.float32
    np.testing.assert_array_equal(t.asnumpy(), a.astype(np.float32))
    assert Tensor([1.7, -2.2], msjit.int32).asnumpy().tolist() == [1, -2]
    assert Tensor([1, 2], "float16").dtype is msjit.float16
    assert Tensor([1, 2], np.float64).dtype is msjit.float64


@pytest.mark.parametrize("bad", [np.zeros(2, np.complex64), ["a", "b"]])
def test_unsupported_dtypes_raise_type_error(bad):
    with pytest.raises(TypeError, match="unsupported dtype"):
        Tensor(bad)


def test_none_is_rejected():
    with pytest.raises(TypeError, match="None"):
        Tensor(None)


def test_construction_copies_but_wrap_shares():
    a = np.ones(3, np.float32)
    t = Tensor(a)
    a[0] = 5
    assert t.asnumpy()[0] == 1
    w = Tensor._wrap(a)
    assert w.asnumpy() is a and type(w) is Tensor
    assert Tensor(t).asnumpy() is not t.asnumpy()


def test_properties_and_printing():
    t = Tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
    assert (t.shape, t.ndim, t.size, t.dtype) == ((2, 3), 2, 6, msjit.int32)
    assert str(t) == str(np.arange(6).reshape(2, 3))
    assert repr(t).startswith("Tensor(shape=[2, 3], dtype=Int32, value=\n[[0 1 2]")
    assert repr(msjit.float32) == "Float32" and str(msjit.bool_) == "Bool"
    assert float(Tensor(2.5)) == 2.5 and int(Tensor(3)) == 3 and len(t) == 2
    assert bool(Tensor(0.0)) is False
    np.testing.assert_array_equal(np.asarray(t), t.asnumpy())


def test_dtypes_are_singletons_through_pickle():
    assert pickle.loads(pickle.dumps(msjit.float16)) is msjit.float16
    assert D.as_dtype(np.dtype("int32")) is msjit.int32 and D.as_dtype(msjit.int64) is msjit.int64


@pytest.mark.parametrize("a, b, expected", [
    (D.float16, D.float32, D.float32),
    (D.float32, D.float64, D.float64),
    (D.int32, D.int64, D.int64),
    (D.int64, D.float16, D.float16),     # exactly one floating operand wins
    (D.int32, D.float32, D.float32),
    (D.bool_, D.int32, D.int32),
    (D.bool_, D.float16, D.float16),
    (D.int32, D.int32, D.int32),
])
def test_promote_types(a, b, expected):
    assert D.promote_types(a, b) is expected
    assert D.promote_types(b, a) is expected


@pytest.mark.parametrize("t, scalar, expected", [
    (D.float16, 2.5, D.float16),      # the tensor's dtype wins over a Python scalar
    (D.float16, 3, D.float16),
    (D.int32, 3, D.int32),
    (D.int32, 2.5, D.float32),        # except: int tensor with float scalar -> float32
    (D.bool_, 2.5, D.float32),
    (D.bool_, 2, D.int64),
    (D.int64, True, D.int64),
    (D.float64, np.float32(1), D.float64),
])
def test_scalar_result_type(t, scalar, expected):
    assert D.scalar_result_type(t, D.scalar_kind(scalar)) is expected

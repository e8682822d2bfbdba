"""The ``mindspore`` top level: tensor(), set_device, set_context / get_context keys, seeds,
dtypes (compiled and eager-only), JitConfig / syntax levels, jit_class, mutable,
ParameterTuple and checkpoints. Expected values were checked against MindSpore 2.10."""
import numpy as np
import pytest

import mindspore as ms
from mindspore import Parameter, ParameterTuple, Tensor, context, nn, ops
from msjit import context as impl_context

pytestmark = pytest.mark.usefixtures("module_daemon_home")
RNG = np.random.default_rng(3)


@pytest.fixture(autouse=True)
def restore_context():
    saved = dict(impl_context._settings)
    yield
    impl_context._settings.clear()
    impl_context._settings.update(saved)


@pytest.mark.parametrize("data, dtype, want", [
    ([1, 2.5], None, np.float32), (3, None, np.int64), (np.ones(2), None, np.float64), (True, None, np.bool_),
    ([1, 2], ms.float32, np.float32), (np.ones(2, np.float32), ms.int32, np.int32),
])
def test_tensor_function(data, dtype, want):
    t = ms.tensor(data, dtype)
    assert isinstance(t, Tensor) and ms.is_tensor(t) and t.asnumpy().dtype == want
    np.testing.assert_array_equal(t.asnumpy(), np.asarray(data).astype(want))
    assert not ms.is_tensor(np.ones(2))


def test_set_device():
    ms.set_device("CPU")
    ms.set_device("CPU", 0)
    assert ms.get_context("device_target") == "CPU"
    for target in ("GPU", "Ascend"):
        with pytest.raises(RuntimeError, match=f"unsupported device target '{target}'"):
            ms.set_device(target)
    with pytest.raises(ValueError, match="device_id"):
        ms.set_device("CPU", -1)


CONTEXT_KEYS = {   # keys real programs pass -> a value to set (each accepted by MindSpore 2.10)
    "mode": ms.GRAPH_MODE, "device_target": "CPU", "device_id": 0, "jit_syntax_level": ms.COMPATIBLE,
    "save_graphs": True, "save_graphs_path": "./graphs", "pynative_synchronize": True, "max_call_depth": 2000,
    "jit_config": {"jit_level": "O1"}, "jit_level": "O1", "runtime_num_threads": 2, "enable_graph_kernel": False,
    "memory_optimize_level": "O1", "max_device_memory": "2GB", "enable_compile_cache": True, "deterministic": "ON",
}


@pytest.mark.parametrize("key", CONTEXT_KEYS)
def test_context_keys_are_accepted_and_recorded(key):
    ms.set_context(**{key: CONTEXT_KEYS[key]})
    got = ms.get_context(key)
    if key == "jit_config":
        assert got.jit_config_dict["jit_level"] == "O1"
    else:
        assert got == CONTEXT_KEYS[key]
    assert context.get_context(key) is got


@pytest.mark.parametrize("kwargs, error", [
    ({"mode": 5}, ValueError), ({"no_such_key": 1}, ValueError), ({"jit_syntax_level": 7}, ValueError),
    ({"device_target": "GPU"}, RuntimeError),
])
def test_context_rejects_bad_values_and_changes_nothing(kwargs, error):
    before = dict(impl_context._settings)
    with pytest.raises(error):
        ms.set_context(save_graphs=True, **kwargs)
    assert impl_context._settings == before


def test_seed():
    ms.set_seed(5)
    assert ms.get_seed() == 5
    a = ms.common.initializer.initializer("normal", (3, 4)).asnumpy()
    ms.set_seed(5)
    np.testing.assert_array_equal(ms.common.initializer.initializer("normal", (3, 4)).asnumpy(), a)
    with pytest.raises(ValueError):
        ms.set_seed(-1)
    with pytest.raises(TypeError):
        ms.set_seed(1.5)


COMPILED = ["float16", "float32", "float64", "int32", "int64", "bool_"]
EAGER_ONLY = ["int8", "int16", "uint8", "uint16", "uint32", "uint64"]
ALIASES = {"half": "float16", "single": "float32", "double": "float64", "float_": "float32", "byte": "int8",
           "ubyte": "uint8", "short": "int16", "ushort": "uint16", "intc": "int32", "intp": "int64",
           "uintc": "uint32", "uintp": "uint64", "long": "int64"}


@pytest.mark.parametrize("name", COMPILED + EAGER_ONLY)
def test_dtypes_and_numpy_types(name):
    dt = getattr(ms, name)
    assert dt is getattr(ms.common.dtype, name)
    assert ms.dtype_to_nptype(dt) is np.dtype(name.rstrip("_")).type
    x = RNG.integers(0, 2, (2, 3)).astype(name.rstrip("_"))
    assert Tensor(x).dtype is dt and Tensor(x.astype(np.float32), dt).asnumpy().dtype == x.dtype


@pytest.mark.parametrize("alias", ALIASES)
def test_dtype_aliases(alias):
    assert getattr(ms.common.dtype, alias) is getattr(ms, ALIASES[alias])


def test_pytype_conversions():
    assert ms.pytype_to_dtype(float) is ms.float32 and ms.pytype_to_dtype(int) is ms.int64
    assert ms.pytype_to_dtype(bool) is ms.bool_
    assert ms.dtype_to_pytype(ms.float16) is float and ms.dtype_to_pytype(ms.int8) is int
    assert ms.common.dtype.get_py_obj_dtype(Tensor(np.ones(2, np.int32))) is ms.int32


def reshape_2x2(t):
    return ops.reshape(t, (2, 2))


@pytest.mark.parametrize("name", EAGER_ONLY)
def test_eager_only_dtypes_are_refused_when_compiled(name):
    x = Tensor(np.arange(4).astype(name))
    np.testing.assert_array_equal(ops.cast(x.asnumpy().astype(np.int32), ms.float32).asnumpy(), np.arange(4.0))
    with pytest.raises(TypeError, match=f"dtype {getattr(ms, name)!r} is not supported by the msjit compiler"):
        ms.jit(reshape_2x2, fullgraph=True)(x)


def test_syntax_levels():
    assert (ms.STRICT, ms.COMPATIBLE, ms.LAX) == (0, 1, 2)
    ms.set_context(jit_syntax_level=ms.COMPATIBLE)
    assert ms.get_context("jit_syntax_level") == ms.COMPATIBLE
    for level, fullgraph in (("STRICT", True), ("COMPATIBLE", False), ("LAX", False), ("", False)):
        assert ms.JitConfig(jit_syntax_level=level).to_config().fullgraph is fullgraph
    with pytest.raises(ValueError, match="jit_syntax_level"):
        ms.JitConfig(jit_syntax_level="LOOSE")


@ms.jit_class
class Scale:
    def __init__(self, factor):
        self.factor = factor

    def apply(self, x):
        return x * self.factor


@pytest.mark.parametrize("mode", ["ast", "bytecode"])
def test_jit_class_instances_under_jit(mode):
    scale = Scale(3.0)
    assert Scale.__ms_class__ is True

    def f(x):
        return scale.apply(x) + scale.factor
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    got = ms.jit(f, capture_mode=mode, fullgraph=True)(Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), x * 3 + 3, rtol=1e-6)
    with pytest.raises(TypeError, match="jit_class can only be used for class type"):
        ms.jit_class(3)


@pytest.mark.parametrize("mode", ["ast", "bytecode"])
def test_mutable(mode):
    pair = (1, 2.0)
    assert ms.mutable(pair) is pair and ms.mutable(3) == 3

    def f(x, y):
        a, b = ms.mutable((x, y))
        return a * b + ms.mutable(2.0)
    x, y = (RNG.standard_normal((3,)).astype(np.float32) for _ in range(2))
    got = ms.jit(f, capture_mode=mode, fullgraph=True)(Tensor(x), Tensor(y))
    np.testing.assert_allclose(got.asnumpy(), x * y + 2, rtol=1e-6)


def test_parameter_tuple():
    a = Parameter(Tensor(RNG.standard_normal((2,)).astype(np.float32)), name="a")
    b = Parameter(Tensor(np.zeros((3,), np.float32)), name="b", requires_grad=False)
    pt = ParameterTuple([a, b])
    assert isinstance(pt, tuple) and pt == (a, b)
    same = pt.clone("m")
    assert [p.name for p in same] == ["m.a", "m.b"] and [p.requires_grad for p in same] == [True, False]
    np.testing.assert_array_equal(same[0].asnumpy(), a.asnumpy())
    assert same[0] is not a and isinstance(same, ParameterTuple)
    ones = pt.clone("o", "ones")
    np.testing.assert_array_equal(ones[1].asnumpy(), np.ones(3, np.float32))
    with pytest.raises(TypeError, match="collection of Parameters"):
        ParameterTuple([a, Tensor(np.ones(2))])
    with pytest.raises(ValueError, match="prefix"):
        pt.clone("")


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)
        self.scale = Parameter(Tensor(np.ones((2,), np.float32)), name="scale")

    def construct(self, x):
        return self.fc(x) * self.scale


def test_checkpoint_round_trip(tmp_path):
    src, dst = Net(), Net()
    src.scale.set_data(Tensor(RNG.standard_normal((2,)).astype(np.float32)))
    path = str(tmp_path / "net")
    ms.save_checkpoint(src, path, append_dict={"epoch": np.array(3)})
    assert (tmp_path / "net.ckpt").exists()
    params = ms.load_checkpoint(path + ".ckpt")
    assert set(params) == {name for name, _ in src.parameters_and_names()} | {"epoch"}
    assert all(isinstance(p, Parameter) for p in params.values())
    not_loaded, unused = ms.load_param_into_net(dst, params)
    assert not_loaded == [] and unused == ["epoch"]
    for (name, p), (_, q) in zip(src.parameters_and_names(), dst.parameters_and_names()):
        np.testing.assert_array_equal(p.asnumpy(), q.asnumpy(), err_msg=name)
    x = Tensor(RNG.standard_normal((4, 3)).astype(np.float32))
    np.testing.assert_allclose(dst(x).asnumpy(), src(x).asnumpy(), rtol=1e-6)
    partial = ms.load_checkpoint(path + ".ckpt", filter_prefix="fc")
    assert set(partial) == {"scale", "epoch"}
    assert ms.load_param_into_net(Net(), partial)[0] == [n for n, _ in dst.parameters_and_names() if n != "scale"]


def test_checkpoint_of_a_parameter_list(tmp_path):
    a = Parameter(Tensor(np.arange(3, dtype=np.float32)), name="a")
    ms.save_checkpoint([a, {"name": "b", "data": Tensor(np.ones(2, np.int32))}], str(tmp_path / "l.ckpt"))
    loaded = ms.load_checkpoint(str(tmp_path / "l.ckpt"))
    np.testing.assert_array_equal(loaded["a"].asnumpy(), a.asnumpy())
    assert loaded["b"].dtype is ms.int32
    with pytest.raises(TypeError, match="save_obj"):
        ms.save_checkpoint(3, str(tmp_path / "x"))


def test_run_check(capsys):
    ms.run_check()
    assert capsys.readouterr().out.splitlines()[-1].endswith("installed on platform [CPU] successfully!")


def test_initializers_draw_from_numpy_as_mindspore():
    """MindSpore's random initializers use numpy's global generator, and set_seed seeds it."""
    np.random.seed(1)
    a = ms.nn.Dense(3, 2).weight.asnumpy()
    np.random.seed(1)
    b = ms.nn.Dense(3, 2).weight.asnumpy()
    np.testing.assert_array_equal(a, b)
    ms.set_seed(5)
    first = np.random.rand()
    ms.set_seed(5)
    assert np.random.rand() == first


@pytest.mark.parametrize("name, value", [("zero", 0.0), ("Zeros", 0.0), ("one", 1.0), ("ones", 1.0)])
def test_initializer_names_are_mindspores(name, value):
    from mindspore.common.initializer import initializer
    np.testing.assert_array_equal(initializer(name, (2, 3)).asnumpy(), np.full((2, 3), value, np.float32))
    for alias in ("heuniform", "henormal", "xavieruniform", "xaviernormal", "truncatedNormal"):
        assert initializer(alias, (4, 5)).shape == (4, 5)

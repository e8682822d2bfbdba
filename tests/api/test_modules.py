"""Every MindSpore module path programs import exists, with the names they use (the list below
was checked against real MindSpore 2.10), sharing msjit's objects rather than copies."""
import importlib
import subprocess
import sys

import pytest

import msjit

NAMES = {   # module path -> names real MindSpore 2.10 has there (checked)
    "mindspore": ["Tensor", "Parameter", "ParameterTuple", "tensor", "is_tensor", "mutable", "jit", "jit_class",
                  "JitConfig", "set_device", "set_context", "get_context", "set_seed", "get_seed", "Model", "grad",
                  "value_and_grad", "ops", "nn", "dtype", "context", "train", "dataset", "common",
                  "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                  "uint64", "bool_", "float_", "half", "single", "double", "dtype_to_nptype", "pytype_to_dtype",
                  "dtype_to_pytype", "COMPATIBLE", "STRICT", "LAX", "GRAPH_MODE", "PYNATIVE_MODE",
                  "save_checkpoint", "load_checkpoint", "load_param_into_net", "LossMonitor", "Callback", "run_check",
                  "__version__"],
    "mindspore.common": ["Tensor", "Parameter", "ParameterTuple", "dtype", "tensor", "parameter", "api",
                         "initializer", "mutable", "jit", "jit_class", "set_seed", "get_seed", "float32", "int32"],
    "mindspore.common.dtype": ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_",
                               "float_", "int_", "half", "single", "double", "byte", "ubyte", "short", "ushort",
                               "intc", "intp", "uintc", "uintp", "long", "number_type", "float_type", "int_type",
                               "uint_type", "all_types", "dtype_to_nptype", "pytype_to_dtype", "dtype_to_pytype",
                               "get_py_obj_dtype"],
    "mindspore.common.tensor": ["Tensor"],
    "mindspore.common.parameter": ["Parameter", "ParameterTuple"],
    "mindspore.common.api": ["jit", "jit_class"],
    "mindspore.common.initializer": ["initializer", "Initializer", "Normal", "Uniform", "One", "Zero", "Constant",
                                     "XavierUniform", "XavierNormal", "HeUniform", "HeNormal", "TruncatedNormal"],
    "mindspore.common.mutable": ["mutable"],
    "mindspore.context": ["set_context", "get_context", "GRAPH_MODE", "PYNATIVE_MODE", "STRICT", "COMPATIBLE", "LAX"],
    "mindspore.ops": ["GradOperation", "HyperMap", "MultitypeFuncGraph", "Map", "grad", "value_and_grad", "depend",
                      "assign", "stop_gradient", "cast", "tensor_add", "shape", "dtype", "rank", "size", "zeros_like",
                      "ones_like", "Depend", "Assign", "AssignAdd", "AssignSub", "Add", "ReduceSum", "Primitive",
                      "functional", "composite", "operations", "primitive", "constexpr"],
    "mindspore.ops.functional": ["grad", "value_and_grad", "assign", "depend", "stop_gradient", "shape", "dtype",
                                 "rank", "size", "cast", "tensor_add", "tensor_sub", "tensor_mul", "tensor_div",
                                 "fill", "zeros_like", "ones_like", "assign_add", "assign_sub", "print_",
                                 "identity", "square", "reshape", "transpose", "matmul", "exp", "log"],
    "mindspore.ops.composite": ["GradOperation", "HyperMap", "Map", "MultitypeFuncGraph", "zeros_like", "ones_like"],
    "mindspore.ops.operations": [
        "Add", "Sub", "Mul", "Div", "RealDiv", "Pow", "Maximum", "Minimum", "Equal", "NotEqual", "Less", "LessEqual",
        "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalNot", "Neg", "ReLU", "Abs", "Exp", "Log", "Sqrt",
        "Rsqrt", "Square", "Sigmoid", "Tanh", "Sin", "Cos", "Erf", "Select", "MatMul", "BatchMatMul", "ReduceSum",
        "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceAll", "ReduceAny", "Reshape", "Transpose", "Cast",
        "Concat", "Stack", "Split", "ExpandDims", "Squeeze", "Tile", "BroadcastTo", "Gather", "GatherD", "OneHot",
        "OnesLike", "ZerosLike", "Softmax", "LogSoftmax", "GeLU", "Shape", "Rank", "Size", "DType", "ScalarCast",
        "ArgMaxWithValue", "ArgMinWithValue", "Argmax", "Argmin", "Fill", "SquaredDifference", "StridedSlice",
        "Print", "Identity", "Assign", "AssignAdd", "AssignSub", "Depend", "Floor", "Ceil", "FloorDiv", "FloorMod",
        "Sign", "Reciprocal", "Log1p", "Expm1", "CumSum", "Triu", "Tril", "Flatten", "AddN", "BiasAdd",
        "L2Normalize", "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits", "Conv2D", "MaxPool",
        "AvgPool", "Slice", "Unstack", "Zeros", "Ones", "Eye", "Sort", "Cummax", "Cross", "Acosh", "BitwiseAnd",
        "Partial", "ApplyMomentum", "ScalarSummary", "TensorAdd", "NanToNum", "IndexAdd", "Meshgrid"],
    "mindspore.ops.primitive": ["Primitive", "constexpr", "prim_attr_register"],
    "mindspore.nn": ["Cell", "Dense", "Accuracy", "Metric"],
    "mindspore.train": ["Model", "Callback", "LossMonitor", "RunContext", "Metric", "Accuracy", "Loss", "MAE", "MSE",
                        "get_metric_fn", "save_checkpoint", "load_checkpoint", "load_param_into_net", "callback"],
    "mindspore.train.callback": ["Callback", "LossMonitor", "RunContext", "TimeMonitor", "ModelCheckpoint",
                                 "CheckpointConfig"],
    "mindspore.dataset": ["GeneratorDataset", "NumpySlicesDataset"],
    "mindspore.numpy": ["array", "asarray", "ones", "zeros", "arange", "sum", "mean", "dot", "concatenate"],
    "mindspore.nn.optim": ["Optimizer", "SGD", "Momentum", "Adam"],
    "mindspore.nn.loss": ["LossBase", "MSELoss", "SoftmaxCrossEntropyWithLogits", "L1Loss"],
    "mindspore.nn.wrap": ["WithLossCell", "TrainOneStepCell"],
}


@pytest.mark.parametrize("module", NAMES)
def test_module_has_mindspore_names(module):
    m = importlib.import_module(module)
    missing = [n for n in NAMES[module] if not hasattr(m, n)]
    assert not missing, f"{module} lacks {missing}"


IMPORTS = [
    "import mindspore.ops.functional as F",
    "import mindspore.ops.composite as C",
    "from mindspore.ops import operations as P",
    "from mindspore.ops import functional as F, composite as C",
    "from mindspore.common import dtype as mstype",
    "from mindspore.common.tensor import Tensor",
    "from mindspore.common.parameter import Parameter, ParameterTuple",
    "from mindspore.common.api import jit, jit_class",
    "from mindspore.common.initializer import initializer, Normal, TruncatedNormal, XavierUniform",
    "from mindspore import context, nn, ops, Tensor, Parameter",
    "import mindspore.nn as nn",
    "from mindspore.nn import Cell",
    "import mindspore.dataset as ds",
    "from mindspore.train.callback import LossMonitor, Callback",
    "from mindspore.train import Model",
    "from mindspore import Model, LossMonitor",
    "import mindspore.context as context",
    "import mindspore.numpy as mnp",
    "from mindspore.nn.optim import Momentum",
    "from mindspore.nn.loss import MSELoss",
]


@pytest.mark.parametrize("statement", IMPORTS)
def test_import_statements_in_a_fresh_interpreter(statement):
    """Each import as a program's first line (nothing imported before it)."""
    done = subprocess.run([sys.executable, "-c", statement], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_objects_are_msjit_objects():
    import mindspore as ms
    import mindspore.nn as nn
    import mindspore.ops.functional as F
    from mindspore.common import dtype as mstype
    from mindspore.ops import operations as P
    assert nn is msjit.nn and ms.nn is msjit.nn and ms.numpy is msjit.numpy
    assert F.add is msjit.ops.add and ms.ops.add is msjit.ops.add and ms.ops.GradOperation is msjit.GradOperation
    assert P.Add is msjit.ops.Add and F.tensor_add.__class__ is P.Add
    assert ms.dtype is mstype and mstype.float32 is ms.float32 is msjit.float32
    assert ms.Tensor is msjit.Tensor and importlib.import_module("mindspore.common.tensor").Tensor is msjit.Tensor
    assert ms.common.tensor is msjit.tensor   # the function shadows the submodule, as in MindSpore


@pytest.mark.parametrize("package", ["nn", "numpy"])
def test_aliased_submodules_are_msjit_modules(package):
    """mindspore.nn.X is msjit.nn.X itself (one copy of every class), for any X msjit.nn has."""
    import pkgutil
    for info in pkgutil.iter_modules(importlib.import_module("msjit." + package).__path__):
        alias = importlib.import_module(f"mindspore.{package}.{info.name}")
        real = importlib.import_module(f"msjit.{package}.{info.name}")
        assert alias is real and real.__name__ == real.__spec__.name == f"msjit.{package}.{info.name}"
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("mindspore.nn.no_such_module")


def test_names_added_to_msjit_later_are_found():
    """The mirrors are not copies of a list: a name msjit.ops gets later is found through them."""
    import mindspore.ops as ops
    import mindspore.ops.functional as F
    msjit.ops.some_later_op = marker = object()
    try:
        assert F.some_later_op is marker and ops.some_later_op is marker
    finally:
        del msjit.ops.some_later_op
    with pytest.raises(AttributeError):
        F.some_later_op


def test_attribute_paths_are_the_mindspore_modules():
    """``mindspore.ops.functional`` reached by attribute (after only ``import mindspore``) is the
    MindSpore module, not msjit's module of the same name."""
    code = ("import mindspore as ms\n"
            "paths = ['ops', 'ops.functional', 'ops.composite', 'ops.operations', 'ops.primitive', 'context',\n"
            "         'train', 'train.callback', 'common', 'common.dtype', 'common.api', 'dataset', 'dtype']\n"
            "for p in paths:\n"
            "    m = ms\n"
            "    for part in p.split('.'):\n"
            "        m = getattr(m, part)\n"
            "    want = 'mindspore.common.dtype' if p == 'dtype' else 'mindspore.' + p\n"
            "    assert m.__name__ == want, (p, m.__name__)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr

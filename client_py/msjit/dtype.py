"""Element types and the one promotion rule used by eager execution and graph capture alike."""
import numpy as np

from .proto import mindir_pb2

__all__ = ["DType", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
           "uint64", "bool_", "half", "single", "double", "float_", "byte", "ubyte", "short", "ushort", "intc",
           "uintc", "intp", "uintp", "long", "int_", "uint", "number_type", "float_type", "int_type", "uint_type",
           "all_types", "dtype_to_nptype", "pytype_to_dtype", "dtype_to_pytype", "get_py_obj_dtype"]


class DType:
    """A tensor element type: its numpy dtype and its MindIR ``DataType``. One object per type.

    Types the compiler has no ``DataType`` for (int8, uint8, ...) exist for eager numpy use:
    reading ``proto`` (what serializing a graph does) raises a TypeError naming the type.
    """

    __slots__ = ("name", "np", "_proto", "is_floating", "_display")

    def __init__(self, name, np_dtype, proto, display):
        self.name, self.np, self._proto, self._display = name, np.dtype(np_dtype), proto, display
        self.is_floating = self.np.kind == "f"

    @property
    def proto(self):
        if self._proto is None:
            raise TypeError(f"dtype {self._display} is not supported by the msjit compiler (it compiles "
                            f"{', '.join(repr(d) for d in ALL)}); use it eagerly or cast the tensor")
        return self._proto

    def __repr__(self):  # MindSpore prints dtypes as Float32, Int64, Bool
        return self._display

    def __reduce__(self):  # pickle/copy by name: DTypes stay singletons
        return self.name


float16 = DType("float16", np.float16, mindir_pb2.DT_FLOAT16, "Float16")
float32 = DType("float32", np.float32, mindir_pb2.DT_FLOAT32, "Float32")
float64 = DType("float64", np.float64, mindir_pb2.DT_FLOAT64, "Float64")
int32 = DType("int32", np.int32, mindir_pb2.DT_INT32, "Int32")
int64 = DType("int64", np.int64, mindir_pb2.DT_INT64, "Int64")
bool_ = DType("bool_", np.bool_, mindir_pb2.DT_BOOL, "Bool")

ALL = (float16, float32, float64, int32, int64, bool_)     # what msjitd compiles
FLOATING = frozenset(d for d in ALL if d.is_floating)
NUMERIC = frozenset(ALL) - {bool_}

# Eager-only types (MindSpore's other numeric types): Tensors of them hold numpy data; ops and
# compiled graphs reject them with the op's dtype error.
int8 = DType("int8", np.int8, None, "Int8")
int16 = DType("int16", np.int16, None, "Int16")
uint8 = DType("uint8", np.uint8, None, "UInt8")
uint16 = DType("uint16", np.uint16, None, "UInt16")
uint32 = DType("uint32", np.uint32, None, "UInt32")
uint64 = DType("uint64", np.uint64, None, "UInt64")
EAGER_ONLY = (int8, int16, uint8, uint16, uint32, uint64)
_BY_NUMPY = {d.np: d for d in ALL + EAGER_ONLY}

# MindSpore's aliases (``mstype.half``, ``mindspore.float_``, ...): the same objects.
half, single, double, float_ = float16, float32, float64, float32
byte, ubyte, short, ushort = int8, uint8, int16, uint16
intc, uintc, intp, uintp, long = int32, uint32, int64, uint64, int64
int_, uint = int64, uint64
number_type = tuple(ALL + EAGER_ONLY)
float_type = (float16, float32, float64)
int_type = (int8, int16, int32, int64)
uint_type = (uint8, uint16, uint32, uint64)
all_types = number_type
_PYTYPES = {bool: bool_, int: int64, float: float32}


def from_numpy(np_dtype):
    """The DType of a numpy dtype; TypeError for the types msjit does not support."""
    try:
        return _BY_NUMPY[np_dtype]
    except (KeyError, TypeError):
        pass
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        names = ", ".join(d.name for d in ALL + EAGER_ONLY)
        raise TypeError(f"unsupported dtype {np_dtype!r}; msjit supports {names}") from None


def dtype_to_nptype(type_):
    """``mindspore.dtype_to_nptype``: the numpy scalar type of a dtype."""
    return as_dtype(type_).np.type


def pytype_to_dtype(obj):
    """``mindspore.pytype_to_dtype``: bool -> bool_, int -> int64, float -> float32 (dtypes and
    numpy types as they are)."""
    return _PYTYPES[obj] if obj in _PYTYPES else as_dtype(obj)


def dtype_to_pytype(type_):
    """``mindspore.dtype_to_pytype``: the Python type a dtype's scalars convert to."""
    kind = as_dtype(type_).np.kind
    return bool if kind == "b" else float if kind == "f" else int


def get_py_obj_dtype(obj):
    """The dtype of a Tensor, or of a Python scalar as a lone value (``DEFAULT_FOR_KIND``)."""
    if hasattr(obj, "dtype") and isinstance(obj.dtype, DType):
        return obj.dtype
    kind = scalar_kind(obj)
    if kind is None:
        raise TypeError(f"get_py_obj_dtype: no dtype for a {type(obj).__name__}")
    return DEFAULT_FOR_KIND[kind]


def as_dtype(x):
    """Accept a DType, a numpy dtype or scalar type, or a name such as "float32"."""
    return x if isinstance(x, DType) else from_numpy(x)


def promote_types(a, b):
    """Result type of an operation on two tensors.

    Exactly one floating operand wins outright (int64 ⊕ float16 → float16, as in MindSpore);
    otherwise numpy's rule (float16 ⊕ float32 → float32, bool ⊕ int32 → int32).
    """
    if a is b:
        return a
    if a.is_floating != b.is_floating:
        return a if a.is_floating else b
    return from_numpy(np.result_type(a.np, b.np))


def scalar_kind(value):
    """"bool", "int" or "float" for a Python or numpy scalar; None for anything else."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    return None


def scalar_result_type(t, kind):
    """Result type of tensor(t) ⊕ scalar: scalars are weakly typed and take the tensor's type.

    Except that a float scalar lifts an int/bool tensor to float32, and an int scalar lifts a
    bool tensor to int64 (as in MindSpore and PyTorch: bool + 2 is 2, not True).
    """
    if kind == "float" and not t.is_floating:
        return float32
    if kind == "int" and t is bool_:
        return int64
    return t


DEFAULT_FOR_KIND = {"bool": bool_, "int": int64, "float": float32}  # dtype of a lone Python scalar

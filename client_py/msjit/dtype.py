"""Element types and the one promotion rule used by eager execution and graph capture alike."""
import numpy as np

from .proto import mindir_pb2


class DType:
    """A tensor element type: its numpy dtype and its MindIR ``DataType``. One object per type."""

    __slots__ = ("name", "np", "proto", "is_floating", "_display")

    def __init__(self, name, np_dtype, proto, display):
        self.name, self.np, self.proto, self._display = name, np.dtype(np_dtype), proto, display
        self.is_floating = self.np.kind == "f"

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

ALL = (float16, float32, float64, int32, int64, bool_)
FLOATING = frozenset(d for d in ALL if d.is_floating)
NUMERIC = frozenset(ALL) - {bool_}
_BY_NUMPY = {d.np: d for d in ALL}


def from_numpy(np_dtype):
    """The DType of a numpy dtype; TypeError for the types msjit does not support."""
    try:
        return _BY_NUMPY[np_dtype]
    except (KeyError, TypeError):
        pass
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        names = ", ".join(d.name for d in ALL)
        raise TypeError(f"unsupported dtype {np_dtype!r}; msjit supports {names}") from None


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

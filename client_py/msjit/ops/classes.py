"""MindSpore's primitive classes (``ops.Mul()``, ``ops.MatMul(transpose_b=True)``, ...).

An instance holds the class's construction attributes and, when called, applies the functional
op with them, eagerly or under capture alike (capture treats instances as op calls). The classes
are generated from one table below instead of being written out one by one.
"""
from . import array_ops as A
from . import functional as F
from . import nn_ops as N


class PrimitiveOp:
    """Base of the generated primitive classes. ``attrs``: the construction attributes."""

    __slots__ = ("attrs",)
    _defaults = {}

    def __init__(self, *args, **kwargs):
        names = list(self._defaults)
        if len(args) > len(names) or set(kwargs) - set(names):
            raise TypeError(f"{type(self).__name__}() takes attributes {names or 'none'}, got "
                            f"{len(args)} positional and {sorted(kwargs)}")
        self.attrs = {**self._defaults, **dict(zip(names, args)), **kwargs}

    def __call__(self, *args, **kwargs):
        return self._apply(*args, **kwargs, **self.attrs)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.attrs.items())})"


def _reduce(fn):
    return lambda x, axis=(), *, keep_dims: fn(x, None if axis == () else axis, keep_dims)


_TABLE = {  # class name -> (call with the attrs as keywords, attrs with their defaults)
    "Add": (F.add, {}), "Sub": (F.sub, {}), "Mul": (F.mul, {}), "Div": (F.div, {}),
    "RealDiv": (F.div, {}), "Pow": (F.pow, {}), "Maximum": (F.maximum, {}), "Minimum": (F.minimum, {}),
    "Equal": (F.equal, {}), "NotEqual": (F.not_equal, {}), "Less": (F.less, {}),
    "LessEqual": (F.less_equal, {}), "Greater": (F.greater, {}), "GreaterEqual": (F.greater_equal, {}),
    "LogicalAnd": (F.logical_and, {}), "LogicalOr": (F.logical_or, {}), "LogicalNot": (F.logical_not, {}),
    "Neg": (F.neg, {}), "ReLU": (F.relu, {}), "Abs": (F.abs, {}), "Exp": (F.exp, {}), "Log": (F.log, {}),
    "Sqrt": (F.sqrt, {}), "Rsqrt": (F.rsqrt, {}), "Square": (F.square, {}), "Sigmoid": (F.sigmoid, {}),
    "Tanh": (F.tanh, {}), "Sin": (F.sin, {}), "Cos": (F.cos, {}), "Erf": (F.erf, {}),
    "Select": (F.where, {}),
    "MatMul": (F.batch_matmul, {"transpose_a": False, "transpose_b": False}),
    "BatchMatMul": (lambda x, y, **t: F.batch_matmul(x, y, name="BatchMatMul", **t),
                    {"transpose_a": False, "transpose_b": False}),
    "ReduceSum": (_reduce(F.sum), {"keep_dims": False}),
    "ReduceMean": (_reduce(F.mean), {"keep_dims": False}),
    "ReduceMax": (_reduce(F.amax), {"keep_dims": False}),
    "ReduceMin": (_reduce(F.amin), {"keep_dims": False}),
    "Reshape": (F.reshape, {}), "Transpose": (F.transpose, {}), "Cast": (F.cast, {}),
    "Concat": (A.concat, {"axis": 0}), "ExpandDims": (A.expand_dims, {}),
    "Squeeze": (lambda x, *, axis: A.squeeze(x, axis or None), {"axis": ()}),
    "Tile": (A.tile, {}), "BroadcastTo": (A.broadcast_to, {"shape": None}),
    "Gather": (A.gather, {}), "OnesLike": (A.ones_like, {}), "ZerosLike": (A.zeros_like, {}),
    "Softmax": (N.softmax, {"axis": -1}), "LogSoftmax": (lambda x, *, axis: N.log_softmax(x, axis), {"axis": -1}),
    "GeLU": (N.gelu, {}), "SiLU": (N.silu, {}),
}


def _make(name, fn, defaults):
    return type(name, (PrimitiveOp,), {"__slots__": (), "_defaults": defaults, "_apply": staticmethod(fn),
                                       "__module__": __name__,
                                       "__doc__": f"``ops.{name}({', '.join(defaults)})``: calls apply "
                                                  f"{getattr(fn, '__name__', name)}."})


globals().update({name: _make(name, fn, d) for name, (fn, d) in _TABLE.items()})
__all__ = list(_TABLE) + ["PrimitiveOp"]

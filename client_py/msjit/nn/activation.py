"""Activation Cells, one per functional op (built from a table), and ``get_activation``."""
from .. import ops
from ..initializer import initializer
from ..parameter import Parameter
from .cell import Cell


def _activation_cell(name, fn, doc, **defaults):
    """A Cell class ``name(**defaults)`` whose construct is ``fn(x, *attributes)``."""
    names = list(defaults)

    def __init__(self, *args, **kwargs):
        Cell.__init__(self)
        if len(args) > len(names) or set(kwargs) - set(names):
            raise TypeError(f"{name}: takes arguments {', '.join(names) or 'none'}, got {args} {kwargs}")
        for k, v in {**defaults, **dict(zip(names, args)), **kwargs}.items():
            setattr(self, k, v)

    def construct(self, x):
        return fn(x, *(getattr(self, k) for k in names))

    return type(name, (Cell,), {"__init__": __init__, "construct": construct, "__doc__": doc,
                                "__module__": __name__})


def _gelu(x, approximate):
    return ops.gelu(x, "tanh" if approximate else "none")


_TABLE = [   # (class name, get_activation name, function, doc, defaults)
    ("ReLU", "relu", ops.relu, "``max(x, 0)``.", {}),
    ("ReLU6", "relu6", ops.relu6, "``min(max(x, 0), 6)``.", {}),
    ("LeakyReLU", "leakyrelu", ops.leaky_relu, "``x`` or ``alpha * x`` below 0.", {"alpha": 0.2}),
    ("ELU", "elu", ops.elu, "``x`` or ``alpha * (exp(x) - 1)`` below 0.", {"alpha": 1.0}),
    ("CELU", "celu", ops.celu, "``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.", {"alpha": 1.0}),
    ("SeLU", "selu", ops.selu, "Scaled ELU with SELU's constants.", {}),
    ("GELU", "gelu", _gelu, "GELU (``approximate=True``: the tanh form).", {"approximate": True}),
    ("SiLU", "silu", ops.silu, "``x * sigmoid(x)``.", {}),
    ("Sigmoid", "sigmoid", ops.sigmoid, "``1 / (1 + exp(-x))``.", {}),
    ("Tanh", "tanh", ops.tanh, "``tanh(x)``.", {}),
    ("Softmax", "softmax", ops.softmax, "Softmax over ``axis``.", {"axis": -1}),
    ("LogSoftmax", "logsoftmax", ops.log_softmax, "Log-softmax over ``axis``.", {"axis": -1}),
    ("Softplus", "softplus", ops.softplus, "``log(1 + exp(beta x)) / beta``.", {"beta": 1, "threshold": 20}),
    ("HSwish", "hswish", ops.hardswish, "``x * hsigmoid(x)``.", {}),
    ("HSigmoid", "hsigmoid", ops.hardsigmoid, "``clip(x / 6 + 1 / 2, 0, 1)``.", {}),
    ("Mish", "mish", ops.mish, "``x * tanh(softplus(x))``.", {}),
    ("Softsign", "softsign", ops.softsign, "``x / (1 + |x|)``.", {}),
    ("LogSigmoid", "logsigmoid", ops.logsigmoid, "``log(sigmoid(x))``.", {}),
    ("Hardtanh", "hardtanh", ops.hardtanh, "``clip(x, min_val, max_val)``.", {"min_val": -1.0, "max_val": 1.0}),
    ("Softmin", "softmin", ops.softmin, "Softmin over ``axis``.", {"axis": -1}),
    ("SoftShrink", "softshrink", ops.softshrink, "``x -/+ lambd`` outside ``[-lambd, lambd]``, else 0.",
     {"lambd": 0.5}),
    ("HShrink", "hshrink", ops.hardshrink, "``x`` outside ``[-lambd, lambd]``, else 0.", {"lambd": 0.5}),
    ("Tanhshrink", "tanhshrink", ops.tanhshrink, "``x - tanh(x)``.", {}),
    ("Threshold", "threshold", ops.threshold, "``x`` above ``threshold``, else ``value``.",
     {"threshold": None, "value": None}),
    ("GLU", "glu", ops.glu, "``a * sigmoid(b)`` of the halves along ``axis``.", {"axis": -1}),
]

_ACTIVATIONS = {}
for _cls, _key, _fn, _doc, _defaults in _TABLE:
    globals()[_cls] = _ACTIVATIONS[_key] = _activation_cell(_cls, _fn, _doc, **_defaults)


class PReLU(Cell):
    """``PReLU(channel=1, w=0.25)``: ``x`` or ``w * x`` below 0, ``w`` learned per channel."""

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        if channel < 1:
            raise ValueError(f"PReLU: channel must be positive, got {channel}")
        self.w = Parameter(initializer(w, (channel,)), name="w")

    def construct(self, x):
        return ops.prelu(x, self.w)


_ACTIVATIONS["prelu"] = PReLU
__all__ = [c for c, *_ in _TABLE] + ["PReLU", "get_activation"]


def get_activation(name, prim_name=None):
    """An instance of the activation Cell named ``name`` ("relu", "gelu", ...); None for None."""
    if name is None:
        return None
    if name not in _ACTIVATIONS:
        raise KeyError(f"get_activation: activation {name!r} is not supported; valid names are "
                       f"{', '.join(map(repr, _ACTIVATIONS))}")
    return _ACTIVATIONS[name]()

"""Single-step recurrent Cells: RNNCell, LSTMCell, GRUCell (MindSpore's parameters and outputs).

Each projects its input with ``weight_ih`` / ``bias_ih`` and applies the same gate step as the
multi-step layers of ``rnns`` (one implementation of each cell's math).
"""
import math

from .. import dtype as D
from .. import ops
from ..initializer import Uniform, initializer
from ..ops.operands import is_tensor
from ..parameter import Parameter
from .cell import Cell
from .rnns import gru_step, lstm_step, rnn_step

__all__ = ["RNNCell", "LSTMCell", "GRUCell"]


class _CellBase(Cell):
    _gates = 1

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=D.float32):
        super().__init__()
        name = type(self).__name__
        if not isinstance(has_bias, bool):
            raise TypeError(f"For '{name}', 'has_bias' must be a bool, but got {type(has_bias).__name__}")
        for what, v in (("hidden_size", hidden_size), ("input_size", input_size)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"For '{name}', '{what}' must be a positive int, but got {v!r}")
        self.input_size, self.hidden_size, self.has_bias = input_size, hidden_size, has_bias
        init, gate = Uniform(1 / math.sqrt(hidden_size)), self._gates * hidden_size
        shapes = [("weight_ih", (gate, input_size)), ("weight_hh", (gate, hidden_size))]
        shapes += [("bias_ih", (gate,)), ("bias_hh", (gate,))] if has_bias else []
        for pname, shape in shapes:
            setattr(self, pname, Parameter(initializer(init, shape, dtype), pname))
        if not has_bias:
            self.bias_ih = self.bias_hh = None

    def _check(self, what, v):
        if not is_tensor(v):
            raise TypeError(f"For '{type(self).__name__}', the '{what}' must be a Tensor, but got {type(v).__name__}")
        if v.dtype not in (D.float16, D.float32):
            raise TypeError(f"For '{type(self).__name__}', the dtype of '{what}' must be float16 or float32, "
                            f"but got {v.dtype}")

    def _project(self, x, hx):
        """``x W_ih^T + b_ih`` after checking ``x`` and ``hx`` (2-D (batch, features), as MindSpore)."""
        self._check("x", x)
        self._check("hx", hx)
        if x.ndim != 2 or hx.ndim != 2:
            raise ValueError(f"For '{type(self).__name__}', 'x' and 'hx' must be 2-D (batch, features), but got "
                             f"shapes {x.shape} and {hx.shape}")
        return ops.dense(x, self.weight_ih, self.bias_ih)

    def extend_repr(self):
        return f"input_size={self.input_size}, hidden_size={self.hidden_size}, has_bias={self.has_bias}"


class RNNCell(_CellBase):
    """``RNNCell(input_size, hidden_size, has_bias=True, nonlinearity="tanh", dtype=float32)``:
    ``construct(x, hx)`` returns ``act(x W_ih^T + b_ih + hx W_hh^T + b_hh)``."""

    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh", dtype=D.float32):
        super().__init__(input_size, hidden_size, has_bias, dtype)
        if not isinstance(nonlinearity, str):
            raise TypeError(f"For 'RNNCell', 'nonlinearity' must be a str, but got {type(nonlinearity).__name__}")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNNCell', 'nonlinearity' must be 'tanh' or 'relu', but got {nonlinearity!r}")
        self.nonlinearity = nonlinearity

    def construct(self, x, hx):
        return rnn_step(self._project(x, hx), hx, self.weight_hh, self.bias_hh, self.nonlinearity)


class GRUCell(_CellBase):
    """``GRUCell(input_size, hidden_size, has_bias=True, dtype=float32)``: ``construct(x, hx)``
    returns the next hidden state (gates r, z, n)."""
    _gates = 3

    def construct(self, x, hx):
        return gru_step(self._project(x, hx), hx, self.weight_hh, self.bias_hh)


class LSTMCell(_CellBase):
    """``LSTMCell(input_size, hidden_size, has_bias=True, dtype=float32)``: ``construct(x, (hx,
    cx))`` returns ``(hy, cy)`` (gates i, f, g, o)."""
    _gates = 4

    def construct(self, x, hx):
        if not isinstance(hx, (tuple, list)):
            raise TypeError(f"For 'LSTMCell', the 'hx' must be a tuple, but got {type(hx).__name__}")
        if len(hx) != 2:
            raise TypeError(f"For 'LSTMCell', the length of 'hx' must be 2, but got {len(hx)}")
        h, c = hx
        self._check("hx[1]", c)
        return lstm_step(self._project(x, h), h, c, self.weight_hh, self.bias_hh)

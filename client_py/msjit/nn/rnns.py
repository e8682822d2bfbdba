"""Recurrent layers: RNN, LSTM, GRU (MindSpore's parameters, gate order and outputs).

The time loop is unrolled (sequence lengths are static): per layer and direction one Dense
projects every step's input at once, then each step adds ``h @ weight_hh.T + bias_hh`` and
applies the cell. ``seq_length`` (unidirectional) keeps each sequence's state past its end and
zeros its outputs there, with ``where`` masks.
"""
import math


from .. import dtype as D
from .. import ops
from ..initializer import Uniform, initializer
from ..parameter import Parameter
from .cell import Cell

__all__ = ["RNN", "LSTM", "GRU"]


# One time step of each cell from the projected input ``gates_x = x @ W_ih.T + b_ih``: shared by
# the layers below and the single-step Cells of ``rnn_cells``.
def rnn_step(gates_x, h, w_hh, b_hh, nonlinearity="tanh"):
    """``act(gates_x + h @ W_hh.T + b_hh)``."""
    pre = ops.add(gates_x, ops.dense(h, w_hh, b_hh))
    return ops.tanh(pre) if nonlinearity == "tanh" else ops.relu(pre)


def gru_step(gates_x, h, w_hh, b_hh):
    """Gates (r, z, n): ``n = tanh(x_n + r * h_n)``, ``h' = n + z (h - n)``."""
    xr, xz, xn = ops.split(gates_x, gates_x.shape[-1] // 3, -1)
    hh = ops.dense(h, w_hh, b_hh)
    hr, hz, hn = ops.split(hh, hh.shape[-1] // 3, -1)
    r, z = ops.sigmoid(ops.add(xr, hr)), ops.sigmoid(ops.add(xz, hz))
    n = ops.tanh(ops.add(xn, ops.mul(r, hn)))
    return ops.add(n, ops.mul(z, ops.sub(h, n)))


def lstm_step(gates_x, h, c, w_hh, b_hh):
    """Gates (i, f, g, o): ``c' = sig(f) c + sig(i) tanh(g)``, ``h' = sig(o) tanh(c')``."""
    gates = ops.add(gates_x, ops.dense(h, w_hh, b_hh))
    i, f, g, o = ops.split(gates, gates.shape[-1] // 4, -1)
    c = ops.add(ops.mul(ops.sigmoid(f), c), ops.mul(ops.sigmoid(i), ops.tanh(g)))
    return ops.mul(ops.sigmoid(o), ops.tanh(c)), c


class _RNNBase(Cell):
    _gates = 1

    def __init__(self, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, dtype=D.float32):
        super().__init__()
        name = type(self).__name__
        for what, v in (("input_size", input_size), ("hidden_size", hidden_size), ("num_layers", num_layers)):
            if not isinstance(v, int) or v < 1:
                raise ValueError(f"For '{name}', '{what}' must be a positive int, but got {v!r}")
        if not 0 <= dropout < 1:
            raise ValueError(f"For '{name}', 'dropout' must be in [0, 1), but got {dropout}")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.has_bias, self.batch_first, self.dropout = has_bias, batch_first, float(dropout)
        self.bidirectional, self.num_directions = bidirectional, 2 if bidirectional else 1
        init = Uniform(1 / math.sqrt(hidden_size))
        gate = self._gates * hidden_size
        kinds = [("weight_ih", None), ("weight_hh", (gate, hidden_size))]
        kinds += [("bias_ih", (gate,)), ("bias_hh", (gate,))] if has_bias else []
        for kind, shape in kinds:
            for layer in range(num_layers):
                inputs = input_size if layer == 0 else hidden_size * self.num_directions
                for d in range(self.num_directions):
                    pname = self._name(kind, layer, d)
                    setattr(self, pname, Parameter(initializer(init, shape or (gate, inputs), dtype), pname))

    @staticmethod
    def _name(kind, layer, direction):
        return f"{kind}_l{layer}" + ("_reverse" if direction else "")

    def _step(self, gates_x, h, c, w_hh, b_hh):
        """One time step from the projected input ``gates_x``: the new (h, c)."""
        raise NotImplementedError

    def _direction(self, proj, h, c, layer, d, seq_length):
        w_hh, b_hh = getattr(self, self._name("weight_hh", layer, d)), getattr(self, self._name("bias_hh", layer, d),
                                                                               None)
        steps = range(proj.shape[0])
        outs = [None] * len(steps)
        for t in (reversed(steps) if d else steps):
            h_new, c_new = self._step(proj[t], h, c, w_hh, b_hh)
            if seq_length is None:
                h, c = h_new, c_new
                outs[t] = h
            else:
                live = ops.reshape(ops.less(t, seq_length), (-1, 1))
                h = ops.where(live, h_new, h)
                c = None if c is None else ops.where(live, c_new, c)
                outs[t] = ops.where(live, h_new, 0.0)
        return ops.stack(outs, 0), h, c

    def _run(self, x, h0, c0, seq_length):
        if x.ndim != 3 or x.shape[-1] != self.input_size:
            raise ValueError(f"For '{type(self).__name__}', expected an input of rank 3 with {self.input_size} "
                             f"features, got shape {x.shape}")
        if seq_length is not None and self.bidirectional:
            raise ValueError(f"For '{type(self).__name__}', seq_length is only supported when bidirectional=False")
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        batch = x.shape[1]
        state = (self.num_layers * self.num_directions, batch, self.hidden_size)
        h0 = ops.zeros(state, x.dtype) if h0 is None else h0
        if c0 is None and self._gates == 4:
            c0 = ops.zeros(state, x.dtype)
        hs, cs = [], []
        for layer in range(self.num_layers):
            outs = []
            for d in range(self.num_directions):
                k = layer * self.num_directions + d
                proj = ops.dense(x, getattr(self, self._name("weight_ih", layer, d)),
                                 getattr(self, self._name("bias_ih", layer, d), None))
                out, h, c = self._direction(proj, h0[k], None if c0 is None else c0[k], layer, d, seq_length)
                outs.append(out)
                hs.append(h)
                cs.append(c)
            x = outs[0] if len(outs) == 1 else ops.concat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = ops.dropout(x, self.dropout)
        out = ops.transpose(x, (1, 0, 2)) if self.batch_first else x
        return out, ops.stack(hs, 0), (ops.stack(cs, 0) if c0 is not None else None)

    def extend_repr(self):
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, num_layers={self.num_layers}, "
                f"bidirectional={self.bidirectional}")


class RNN(_RNNBase):
    """``RNN(input_size, hidden_size, num_layers=1, nonlinearity="tanh", has_bias=True,
    batch_first=False, dropout=0.0, bidirectional=False)``: ``h = act(W_ih x + b_ih + W_hh h +
    b_hh)``; returns ``(output, h_n)``."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", has_bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, dtype=D.float32):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNN', 'nonlinearity' must be 'tanh' or 'relu', but got {nonlinearity!r}")
        super().__init__(input_size, hidden_size, num_layers, has_bias, batch_first, dropout, bidirectional, dtype)
        self.nonlinearity = nonlinearity

    def _step(self, gates_x, h, c, w_hh, b_hh):
        return rnn_step(gates_x, h, w_hh, b_hh, self.nonlinearity), None

    def construct(self, x, hx=None, seq_length=None):
        out, h, _ = self._run(x, hx, None, seq_length)
        return out, h


class GRU(_RNNBase):
    """``GRU(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False)``: gates (r, z, n), ``n = tanh(x_n + r * h_n)``,
    ``h = (1 - z) n + z h``; returns ``(output, h_n)``."""
    _gates = 3

    def _step(self, gates_x, h, c, w_hh, b_hh):
        return gru_step(gates_x, h, w_hh, b_hh), None

    def construct(self, x, hx=None, seq_length=None):
        out, h, _ = self._run(x, hx, None, seq_length)
        return out, h


class LSTM(_RNNBase):
    """``LSTM(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False)``: gates (i, f, g, o); returns ``(output, (h_n, c_n))``."""
    _gates = 4

    def _step(self, gates_x, h, c, w_hh, b_hh):
        return lstm_step(gates_x, h, c, w_hh, b_hh)

    def construct(self, x, hx=None, seq_length=None):
        h0, c0 = (None, None) if hx is None else hx
        out, h, c = self._run(x, h0, c0, seq_length)
        return out, (h, c)



"""A program written the way the jit tutorial's attention script writes its own (every API call it
makes, in the same form), so the tests exercise the tutorial's idioms: a grouped-query attention
block with rotary embeddings, with a plain-numpy float64 reference. Sizes are parameters so tests
stay small. (The conv script's idioms are in basic_block.py.)"""
from typing import Optional

import numpy as np

import mindspore
from mindspore import nn, ops, Tensor


class AttentionSettings:
    dropout = 0.0
    hidden = 64
    heads = 4
    kv_heads = 2
    max_positions = 128
    theta = 10000.0
    bias = False


class RotaryTables(nn.Cell):
    """cos/sin of position * inverse frequency, computed in the graph from the position ids."""

    def __init__(self, dim, max_positions=2048, theta=10000.0):
        super().__init__()
        self.dim = dim
        inv_freq = 1.0 / (theta ** (np.arange(0, dim, 2).astype(np.float32) / dim))
        self.inv_freq = Tensor(inv_freq, mindspore.float32)
        self.max_positions = max_positions

    def construct(self, x, position_ids):
        freq = self.inv_freq[None, :, None].to(mindspore.float32).broadcast_to((position_ids.shape[0], -1, 1))
        positions = position_ids[:, None, :].to(mindspore.float32)
        angles = ops.matmul(freq, positions).swapdims(1, 2)
        table = ops.cat((angles, angles), axis=-1)
        cos, sin = table.cos(), table.sin()
        cos, sin = cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)
        return ops.stop_gradient(cos), ops.stop_gradient(sin)


class GroupedAttention(nn.Cell):
    def __init__(self, settings: AttentionSettings):
        super().__init__()
        self.dropout = settings.dropout
        self.heads = settings.heads
        self.head_dim = settings.hidden // settings.heads
        self.kv_heads = settings.kv_heads
        self.groups = self.heads // self.kv_heads
        if self.head_dim * self.heads != settings.hidden:
            raise ValueError(f"hidden {settings.hidden} is not a multiple of heads {settings.heads}")
        self.q = nn.Dense(settings.hidden, self.heads * self.head_dim, has_bias=settings.bias)
        self.k = nn.Dense(settings.hidden, self.kv_heads * self.head_dim, has_bias=settings.bias)
        self.v = nn.Dense(settings.hidden, self.kv_heads * self.head_dim, has_bias=settings.bias)
        self.out = nn.Dense(settings.hidden, settings.hidden, has_bias=settings.bias)
        self.rotary = RotaryTables(self.head_dim, settings.max_positions, settings.theta)

    def half_turn(self, x):
        first = x[..., : x.shape[-1] // 2]
        second = x[..., x.shape[-1] // 2 :]
        return ops.cat((-second, first), axis=-1)

    def rotate(self, q, k, cos, sin, dim=1):
        cos, sin = cos.unsqueeze(dim), sin.unsqueeze(dim)
        return (q * cos) + (self.half_turn(q) * sin), (k * cos) + (self.half_turn(k) * sin)

    def widen(self, states: mindspore.Tensor, times: int) -> mindspore.Tensor:
        batch, kv, length, dim = states.shape
        if times == 1:
            return states
        states = states[:, :, None, :, :].broadcast_to((batch, kv, times, length, dim))
        return states.reshape(batch, kv * times, length, dim)

    def construct(self, hidden: mindspore.Tensor, mask: Optional[mindspore.Tensor] = None,
                  position_ids: Optional[mindspore.Tensor] = None, **kwargs):
        batch, length, _ = hidden.shape
        q = self.q(hidden).view(batch, length, self.heads, self.head_dim).swapdims(1, 2)
        k = self.k(hidden).view(batch, length, self.kv_heads, self.head_dim).swapdims(1, 2)
        v = self.v(hidden).view(batch, length, self.kv_heads, self.head_dim).swapdims(1, 2)
        cos, sin = self.rotary(v, position_ids)
        q, k = self.rotate(q, k, cos, sin)
        k, v = self.widen(k, self.groups), self.widen(v, self.groups)
        scores = ops.matmul(q, k.swapdims(2, 3)) / (self.head_dim**0.5)
        scores = ops.cast(scores, mindspore.float32)
        if mask is not None:
            scores = scores + ops.cast(mask[:, :, :, : k.shape[-2]], scores.dtype)
        weights = ops.softmax(scores, axis=-1, dtype=mindspore.float32).to(q.dtype)
        weights = ops.dropout(weights, p=self.dropout, training=self.training)
        attended = ops.matmul(weights, v).swapdims(1, 2).reshape(batch, length, -1)
        return self.out(attended)


def attention_reference(block, x, position_ids, mask=None):
    """float64 numpy of GroupedAttention (dropout 0)."""
    b, s, _ = x.shape
    h, kv, d = block.heads, block.kv_heads, block.head_dim
    w = {n: getattr(block, n).weight.asnumpy().astype(np.float64) for n in ("q", "k", "v", "out")}
    x = x.astype(np.float64)
    q = (x @ w["q"].T).reshape(b, s, h, d).transpose(0, 2, 1, 3)
    k = (x @ w["k"].T).reshape(b, s, kv, d).transpose(0, 2, 1, 3)
    v = (x @ w["v"].T).reshape(b, s, kv, d).transpose(0, 2, 1, 3)
    inv = block.rotary.inv_freq.asnumpy().astype(np.float64)
    angles = position_ids.astype(np.float64)[:, :, None] * inv[None, None, :]
    table = np.concatenate([angles, angles], -1)[:, None]
    cos, sin = np.cos(table), np.sin(table)
    half = lambda t: np.concatenate([-t[..., d // 2:], t[..., :d // 2]], -1)  # noqa: E731
    q, k = q * cos + half(q) * sin, k * cos + half(k) * sin
    k, v = np.repeat(k, h // kv, axis=1), np.repeat(v, h // kv, axis=1)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d)
    if mask is not None:
        scores = scores + mask[:, :, :, :s]
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return (p @ v).transpose(0, 2, 1, 3).reshape(b, s, h * d) @ w["out"].T

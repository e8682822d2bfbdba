"""Llama's self-attention (grouped-query, rotary embedding, causal softmax, no bias) as an
nn.Cell parameterized by size, and a pure-numpy reference of it."""
import numpy as np

import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops


def rotary_tables(max_positions, head_dim, theta):
    """cos and sin of (position * inv_freq), each frequency used for both halves of a head."""
    inv_freq = 1.0 / theta ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    freqs = np.outer(np.arange(max_positions, dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return np.cos(emb).astype(np.float32), np.sin(emb).astype(np.float32)


class LlamaAttention(nn.Cell):
    def __init__(self, hidden_size=4096, num_heads=32, num_kv_heads=8, head_dim=128, rope_theta=500000.0,
                 max_positions=2048):
        super().__init__()
        self.num_heads, self.num_kv_heads, self.head_dim = num_heads, num_kv_heads, head_dim
        self.q_proj = nn.Dense(hidden_size, num_heads * head_dim, has_bias=False)
        self.k_proj = nn.Dense(hidden_size, num_kv_heads * head_dim, has_bias=False)
        self.v_proj = nn.Dense(hidden_size, num_kv_heads * head_dim, has_bias=False)
        self.o_proj = nn.Dense(num_heads * head_dim, hidden_size, has_bias=False)
        cos, sin = rotary_tables(max_positions, head_dim, rope_theta)
        self.cos, self.sin = ms.Tensor(cos), ms.Tensor(sin)      # constants, not Parameters
        self.scale = head_dim ** -0.5

    def rotate_half(self, x):
        half = self.head_dim // 2
        return ops.concat([-x[..., half:], x[..., :half]], -1)

    def construct(self, x):
        b, s, _ = x.shape
        q = self.q_proj(x).reshape(b, s, self.num_heads, self.head_dim).transpose(0, 2, 1, 3)
        k = self.k_proj(x).reshape(b, s, self.num_kv_heads, self.head_dim).transpose(0, 2, 1, 3)
        v = self.v_proj(x).reshape(b, s, self.num_kv_heads, self.head_dim).transpose(0, 2, 1, 3)
        cos, sin = self.cos[:s], self.sin[:s]
        q = q * cos + self.rotate_half(q) * sin
        k = k * cos + self.rotate_half(k) * sin
        groups = self.num_heads // self.num_kv_heads
        k = ops.repeat_interleave(k, groups, 1)
        v = ops.repeat_interleave(v, groups, 1)
        scores = ops.BatchMatMul(transpose_b=True)(q, k) * self.scale
        scores = scores + ops.triu(ops.full((s, s), -1e9), 1)
        out = ops.matmul(ops.softmax(scores, -1), v)
        return self.o_proj(out.transpose(0, 2, 1, 3).reshape(b, s, -1))


def reference(attn, x):
    """Float64 numpy: the same attention, heads repeated with np.repeat, softmax by hand."""
    b, s, _ = x.shape
    nh, nkv, hd = attn.num_heads, attn.num_kv_heads, attn.head_dim
    w = {n: getattr(attn, n).weight.asnumpy().astype(np.float64) for n in ("q_proj", "k_proj", "v_proj", "o_proj")}
    x = x.astype(np.float64)
    q = (x @ w["q_proj"].T).reshape(b, s, nh, hd).transpose(0, 2, 1, 3)
    k = (x @ w["k_proj"].T).reshape(b, s, nkv, hd).transpose(0, 2, 1, 3)
    v = (x @ w["v_proj"].T).reshape(b, s, nkv, hd).transpose(0, 2, 1, 3)
    cos, sin = (t[:s].astype(np.float64) for t in rotary_tables(s, hd, 500000.0))
    rot = lambda t: np.concatenate([-t[..., hd // 2:], t[..., :hd // 2]], -1)  # noqa: E731
    q, k = q * cos + rot(q) * sin, k * cos + rot(k) * sin
    k, v = np.repeat(k, nh // nkv, axis=1), np.repeat(v, nh // nkv, axis=1)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)
    scores = np.where(np.triu(np.ones((s, s), bool), 1), -np.inf, scores)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return (p @ v).transpose(0, 2, 1, 3).reshape(b, s, nh * hd) @ w["o_proj"].T

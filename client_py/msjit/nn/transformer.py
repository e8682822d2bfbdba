"""``nn.MultiheadAttention``: MindSpore's multi-head attention (parameters, masks and outputs).

The forward pass is one function over tensor ops: the three input projections (one packed
``in_proj_weight`` or separate ``q/k/v_proj_weight`` when ``kdim``/``vdim`` differ), the optional
``bias_k``/``bias_v`` row and zero row appended to the keys and values, the masks folded into one
additive float mask, then ``softmax(q k^T / sqrt(head_dim) + mask) v`` per head and ``out_proj``.
As MindSpore, q and k are each divided by ``head_dim ** 0.25``.
"""
import numpy as np

from .. import dtype as D
from .. import ops
from ..initializer import XavierNormal, XavierUniform, initializer
from ..ops.operands import is_tensor
from ..parameter import Parameter
from .cell import Cell
from .layers import Dense

__all__ = ["MultiheadAttention"]


def _check_mask(name, mask):
    if mask is not None and not (mask.dtype == D.bool_ or mask.dtype.is_floating):
        raise ValueError(f"For 'MultiheadAttention', only bool and floating types of {name} are supported, "
                         f"but got {mask.dtype}")


def _pad_last(mask):
    """One more source position, not masked (False / 0.0)."""
    pad = ops.zeros(mask.shape[:-1] + (1,), mask.dtype)
    return ops.concat((mask, pad), -1)


def _additive(mask, dtype):
    """A float mask to add to the scores: a bool mask's True positions become -inf."""
    if mask.dtype == D.bool_:
        return ops.masked_fill(ops.zeros(mask.shape, dtype), mask, float("-inf"))
    return mask


class MultiheadAttention(Cell):
    """``MultiheadAttention(embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False,
    add_zero_attn=False, kdim=None, vdim=None, batch_first=False, dtype=float32)``;
    ``construct(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True)`` returns ``(attn_output, attn_weights)`` (``(attn_output,)``
    when ``need_weights`` is False)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, dtype=D.float32):
        super().__init__()
        self.embed_dim, self.num_heads, self.dropout, self.batch_first = embed_dim, num_heads, dropout, batch_first
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise ValueError("The init argument 'embed_dim' must be divisible by 'num_heads'.")
        dtype = D.float32 if dtype is None else dtype
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(initializer(XavierUniform(), (3 * embed_dim, embed_dim), dtype),
                                            "in_proj_weight")
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            for pname, dim in (("q_proj_weight", embed_dim), ("k_proj_weight", self.kdim),
                               ("v_proj_weight", self.vdim)):
                setattr(self, pname, Parameter(initializer(XavierUniform(), (embed_dim, dim), dtype), pname))
            self.in_proj_weight = None
        self.in_proj_bias = Parameter(initializer("zeros", (3 * embed_dim,), dtype), "in_proj_bias") \
            if has_bias else None
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=has_bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_k")
            self.bias_v = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_v")
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self.dtype = dtype

    def _projections(self, query, key, value):
        if self._qkv_same_embed_dim:
            weights = ops.split(self.in_proj_weight, self.embed_dim, 0)
        else:
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        biases = (None,) * 3 if self.in_proj_bias is None else ops.split(self.in_proj_bias, self.embed_dim, 0)
        return tuple(ops.dense(x, w, b) for x, w, b in zip((query, key, value), weights, biases))

    def _check_inputs(self, query, key, value):
        for what, v in (("query", query), ("key", key), ("value", value)):
            if not is_tensor(v):
                raise TypeError(f"For 'MultiheadAttention', '{what}' must be a Tensor, but got {type(v).__name__}")
        if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
            raise ValueError(f"For 'MultiheadAttention', query, key and value must all be 2D (unbatched) or 3D "
                             f"(batched), but got {query.ndim}D, {key.ndim}D and {value.ndim}D")
        if query.shape[-1] != self.embed_dim:
            raise ValueError(f"The `embed_dim` should be {self.embed_dim}, but got {query.shape[-1]}.")
        same = key.shape[:-1] == value.shape[:-1] if not self._qkv_same_embed_dim else key.shape == value.shape
        if not same:
            raise ValueError(f"For 'MultiheadAttention', the shape of `key` {key.shape} does not match `value` "
                             f"{value.shape}.")

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                  average_attn_weights=True):
        self._check_inputs(query, key, value)
        _check_mask("key_padding_mask", key_padding_mask)
        _check_mask("attn_mask", attn_mask)
        batched = query.ndim == 3
        if not batched:     # one batch of size 1 on axis 1
            query, key, value = (ops.expand_dims(x, 1) for x in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = ops.expand_dims(key_padding_mask, 0)
        elif self.batch_first:
            query, key, value = (ops.swapaxes(x, 0, 1) for x in (query, key, value))
        out, weights = self._attend(query, key, value, key_padding_mask, attn_mask, average_attn_weights)
        if not batched:
            out, weights = ops.squeeze(out, 1), ops.squeeze(weights, 0)
        elif self.batch_first:
            out = ops.swapaxes(out, 0, 1)
        return (out, weights) if need_weights else (out,)

    def _attend(self, query, key, value, key_padding_mask, attn_mask, average):
        """Sequence-first (L, N, E) inputs: ``(output (L, N, E), weights)``."""
        tgt_len, bsz, embed = query.shape
        heads, head_dim = self.num_heads, self.head_dim
        q, k, v = self._projections(query, key, value)
        if attn_mask is not None:
            attn_mask = self._attn_mask_3d(attn_mask, tgt_len, key.shape[0], bsz)
        if self.bias_k is not None:
            k = ops.concat((k, ops.tile(self.bias_k, (1, bsz, 1))), 0)
            v = ops.concat((v, ops.tile(self.bias_v, (1, bsz, 1))), 0)
            attn_mask = None if attn_mask is None else _pad_last(attn_mask)
            key_padding_mask = None if key_padding_mask is None else _pad_last(key_padding_mask)
        # (len, N, E) -> (N * heads, len, head_dim)
        q, k, v = (ops.swapaxes(ops.reshape(x, (x.shape[0], bsz * heads, head_dim)), 0, 1) for x in (q, k, v))
        if self.add_zero_attn:
            zeros = ops.zeros((bsz * heads, 1, head_dim), k.dtype)
            k, v = ops.concat((k, zeros), 1), ops.concat((v, zeros), 1)
            attn_mask = None if attn_mask is None else _pad_last(attn_mask)
            key_padding_mask = None if key_padding_mask is None else _pad_last(key_padding_mask)
        src_len = k.shape[1]
        mask = self._merge_masks(attn_mask, key_padding_mask, bsz, src_len, q.dtype)
        q, k, v = (ops.reshape(x, (bsz, heads, x.shape[1], head_dim)) for x in (q, k, v))
        scale = float(np.sqrt(np.sqrt(np.asarray(head_dim, self.dtype.np))))
        scores = ops.matmul(ops.div(q, scale), ops.div(ops.swapaxes(k, -2, -1), scale))
        if mask is not None:
            scores = ops.add(scores, mask)
        weights = ops.softmax(scores, -1)
        if self.dropout > 0 and self.training:
            weights = ops.dropout(weights, self.dropout)
        out = ops.matmul(weights, v)                                   # (N, heads, L, head_dim)
        out = ops.reshape(ops.transpose(out, (2, 0, 1, 3)), (bsz * tgt_len, embed))
        out = ops.reshape(self.out_proj(out), (tgt_len, bsz, embed))
        if average:
            weights = ops.div(ops.sum(weights, 1), heads)
        return out, weights

    def _attn_mask_3d(self, attn_mask, tgt_len, src_len, bsz):
        if attn_mask.ndim == 2:
            if attn_mask.shape != (tgt_len, src_len):
                raise ValueError(f"The shape of the `attn_mask` should be {(tgt_len, src_len)}, "
                                 f"but got {attn_mask.shape}.")
            return ops.expand_dims(attn_mask, 0)
        if attn_mask.ndim == 3:
            want = (bsz * self.num_heads, tgt_len, src_len)
            if attn_mask.shape != want:
                raise ValueError(f"The shape of the `attn_mask` should be {want}, but got {attn_mask.shape}.")
            return attn_mask
        raise ValueError(f"The ndim of `attn_mask` only support 2 or 3, but got {attn_mask.ndim}.")

    def _merge_masks(self, attn_mask, key_padding_mask, bsz, src_len, dtype):
        """One additive mask broadcastable to the (N, heads, L, S) scores, or None."""
        heads = self.num_heads
        if key_padding_mask is not None:
            if key_padding_mask.shape != (bsz, src_len):
                raise ValueError(f"The shape of `key_padding_mask` should be {(bsz, src_len)}, "
                                 f"but got {key_padding_mask.shape}.")
            kpm = ops.reshape(ops.tile(ops.reshape(key_padding_mask, (bsz, 1, 1, src_len)), (1, heads, 1, 1)),
                              (bsz * heads, 1, src_len))
            if attn_mask is None:
                attn_mask = kpm
            elif attn_mask.dtype == D.bool_:
                attn_mask = ops.logical_or(attn_mask, ops.cast(kpm, D.bool_))
            else:   # as MindSpore: a bool padding mask added to a float attn_mask counts True as 1.0
                attn_mask = ops.add(attn_mask, ops.cast(kpm, attn_mask.dtype))
        if attn_mask is None:
            return None
        attn_mask = _additive(attn_mask, dtype)
        if attn_mask.shape[0] == 1:
            return ops.expand_dims(attn_mask, 0)
        return ops.reshape(attn_mask, (bsz, heads, -1, src_len))

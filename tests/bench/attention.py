#!/usr/bin/python3
"""The tutorial's attention benchmark: LlamaAttention (hidden 4096, 32 heads, 8 KV heads, head_dim
128, rotary theta 500000, causal) forward and forward+backward on (1, 512, 4096) float32, eager
vs jit O0 vs O1. Usage: attention.py [iterations] [--small]."""
import sys

from model_bench import forward_backward, run  # noqa: E402  (sets up paths and the OpenMP policy before numpy)
import numpy as np  # noqa: E402
import mindspore  # noqa: E402
from models.llama_attention import LlamaAttention  # noqa: E402


def main():
    iterations = int(next((a for a in sys.argv[1:] if a.isdigit()), 3))
    small = "--small" in sys.argv
    hidden, heads, kv_heads, head_dim, seq = (256, 4, 2, 64, 64) if small else (4096, 32, 8, 128, 512)
    x = mindspore.Tensor(np.random.default_rng(0).standard_normal((1, seq, hidden)).astype(np.float32))

    def make():
        np.random.seed(1)
        return LlamaAttention(hidden, heads, kv_heads, head_dim)

    run("LlamaAttention forward", make, x, iterations)
    run("LlamaAttention forward+backward (value_and_grad over trainable params)", make, x, iterations,
        mode=forward_backward)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The tutorial's convolution benchmark: ResNet BasicBlock(128, 128, stride 1) forward and
forward+backward on (1, 128, 256, 256) float32, eager vs jit O0 vs O1.
Usage: conv.py [iterations] [--small]."""
import sys

from model_bench import forward_backward, run  # noqa: E402  (sets up paths and the OpenMP policy before numpy)
import numpy as np  # noqa: E402
import mindspore  # noqa: E402
from models.basic_block import BasicBlock  # noqa: E402


def main():
    iterations = int(next((a for a in sys.argv[1:] if a.isdigit()), 5))
    small = "--small" in sys.argv
    channels, size = (16, 32) if small else (128, 256)
    x = mindspore.Tensor(np.random.default_rng(0).standard_normal((1, channels, size, size)).astype(np.float32))

    def make():
        np.random.seed(1)
        return BasicBlock(channels, channels, 1)

    run("BasicBlock forward", make, x, iterations)
    run("BasicBlock forward+backward (value_and_grad over trainable params)", make, x, iterations,
        mode=forward_backward)
    try:
        import torch  # noqa: F401
    except ImportError:
        print("PyTorch is not installed: eager conv vs PyTorch not measured")


if __name__ == "__main__":
    main()

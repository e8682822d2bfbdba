# The tutorial's first example (jit-practice, "对函数进行JIT编译"), verbatim.
from mindspore import Tensor

def f(a: Tensor, b: Tensor, c: Tensor):
    return a * b + c

import mindspore

jitted_f = mindspore.jit(f)

import numpy as np
import mindspore
from mindspore import Tensor

# 构造数据
f_input = [Tensor(np.random.randn(2, 3), mindspore.float32) for _ in range(3)]

# 运行原始函数
out = f(*f_input)
print(f"{out=}")

# 运行jit转换后的函数
out = jitted_f(*f_input)
print(f"{out=}")

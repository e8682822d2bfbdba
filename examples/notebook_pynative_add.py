# The notebook "dynamic-and-static-graph" (动静态图结合), code cell 3, verbatim.
# (Its cells 5 and 7, GradNetWrtX and the Mul bprop, need autodiff, issue 5, and are not examples yet.)
import numpy as np
import mindspore.nn as nn
import mindspore as ms
import mindspore.ops as ops

ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
x = ms.Tensor(np.ones([1, 3, 3, 4]).astype(np.float32))
y = ms.Tensor(np.ones([1, 3, 3, 4]).astype(np.float32))
output = ops.add(x, y)
print(output.asnumpy())

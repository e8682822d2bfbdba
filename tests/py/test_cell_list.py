"""nn.CellList: parameters registered under the owner, iteration unrolled by ast capture."""
import numpy as np
import pytest

import msjit
import msjit.nn as nn
from msjit import Tensor


class Stack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(4, 4), nn.ReLU(), nn.Dense(4, 2)])

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def reference(stack, x):
    d1, d2 = stack.layers[0], stack.layers[2]
    h = np.maximum(x @ d1.weight.asnumpy().T + d1.bias.asnumpy(), 0)
    return h @ d2.weight.asnumpy().T + d2.bias.asnumpy()


def test_cell_list_registers_parameters_and_iterates():
    stack = Stack()
    names = [n for n, _ in stack.parameters_and_names()]
    assert names == ["layers.0.weight", "layers.0.bias", "layers.2.weight", "layers.2.bias"]
    assert len(stack.layers) == 3 and isinstance(stack.layers[1], nn.ReLU)
    assert len(stack.layers[0:2]) == 2 and isinstance(stack.layers[0:2], nn.CellList)
    with pytest.raises(TypeError, match="not a Cell"):
        stack.layers.append(3)
    with pytest.raises(TypeError, match="container"):
        stack.layers(Tensor(np.ones((1, 4), np.float32)))


@pytest.mark.parametrize("level", ["O0", "O1"])
def test_loop_over_cell_list_compiles_to_one_graph(level, module_daemon_home):
    stack = Stack()
    x = Tensor(np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32))
    jitted = msjit.jit(stack.construct, jit_level=level, fullgraph=True)
    np.testing.assert_allclose(jitted(x).asnumpy(), reference(stack, x.asnumpy()), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jitted(x).asnumpy(), stack(x).asnumpy(), rtol=1e-6)
    assert jitted.stats.compiles == 1
    assert [n.op_type for n in jitted.lower(x).graph.nodes].count("MatMul") == 2

"""The models of tests/models at small sizes: eager and jit O0/O1 against pure-numpy references."""
import numpy as np
import pytest

import msjit
from msjit import JitConfig, Tensor

from models import basic_block, llama_attention

LEVELS = ["eager", "O0", "O1"]


@pytest.fixture(autouse=True)
def pynative_after():
    yield
    msjit.set_context(mode=msjit.PYNATIVE_MODE)


def run(net, x, level, request):
    """One call of ``net``: eagerly, or as a GRAPH_MODE Cell compiled at ``level``."""
    if level != "eager":
        pytest.importorskip("msjit._msjit_rt")
        request.getfixturevalue("module_daemon_home")
        net.set_jit_config(JitConfig(jit_level=level, jit_syntax_level="STRICT"))
        msjit.set_context(mode=msjit.GRAPH_MODE)
    try:
        return net(Tensor(x)).asnumpy()
    finally:
        msjit.set_context(mode=msjit.PYNATIVE_MODE)


def randomize_batchnorms(net, rng):
    for name, p in net.parameters_and_names():
        if "bn" in name or "down_sample.1" in name:
            lo = 0.5 if name.endswith(("gamma", "variance")) else -0.5
            p.set_data(Tensor(rng.uniform(lo, 1.0, p.shape).astype(np.float32)))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("in_channels, channels, stride", [(8, 8, 1), (4, 8, 2)])
def test_basic_block(request, level, in_channels, channels, stride):
    rng = np.random.default_rng(7)
    msjit.set_seed(7)
    block = basic_block.BasicBlock(in_channels=in_channels, channels=channels, stride=stride)
    randomize_batchnorms(block, rng)
    x = rng.standard_normal((2, in_channels, 16, 16)).astype(np.float32)
    out = run(block, x, level, request)
    np.testing.assert_allclose(out, basic_block.reference(block, x), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("level", LEVELS)
def test_basic_block_training_updates_statistics(request, level):
    rng = np.random.default_rng(8)
    msjit.set_seed(8)
    block = basic_block.BasicBlock(in_channels=8, channels=8).set_train()
    x = rng.standard_normal((4, 8, 16, 16)).astype(np.float32)
    out = run(block, x, level, request)
    np.testing.assert_allclose(out, basic_block.reference(block, x, training=True), rtol=1e-4, atol=1e-4)
    batch_mean = basic_block._conv(x, block.conv1.weight.asnumpy(), 1, 1).mean(axis=(0, 2, 3))
    np.testing.assert_allclose(block.bn1.moving_mean.asnumpy(), 0.1 * batch_mean, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("heads, kv_heads", [(4, 2), (4, 4)])
def test_llama_attention(request, level, heads, kv_heads):
    rng = np.random.default_rng(9)
    msjit.set_seed(9)
    attn = llama_attention.LlamaAttention(hidden_size=64, num_heads=heads, num_kv_heads=kv_heads, head_dim=16,
                                          max_positions=32)
    x = rng.standard_normal((2, 8, 64)).astype(np.float32)
    out = run(attn, x, level, request)
    np.testing.assert_allclose(out, llama_attention.reference(attn, x), rtol=1e-4, atol=1e-5)


def test_llama_attention_default_size_is_the_spec():
    attn = llama_attention.LlamaAttention(max_positions=4)
    assert attn.q_proj.weight.shape == (4096, 4096) and attn.k_proj.weight.shape == (1024, 4096)
    assert attn.o_proj.weight.shape == (4096, 4096) and attn.o_proj.bias is None

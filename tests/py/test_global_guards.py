"""Globals read as Python constants are guarded: changing one recompiles and gives the new
answer; unchanged calls hit the compiled entry (also on the fast path)."""
import numpy as np

import msjit
from msjit import Tensor

SCALE = 2.0
OFFSETS = (1.0, 2.0)


def scaled(x):
    return x * SCALE + OFFSETS[1]


def test_changing_a_global_recompiles_with_the_new_value(module_daemon_home):
    global SCALE, OFFSETS
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    jitted = msjit.jit(scaled, jit_level="O1")
    try:
        np.testing.assert_allclose(jitted(x).asnumpy(), x.asnumpy() * 2 + 2)
        jitted(x)                                   # fast path, same globals: no compile
        assert jitted.stats.compiles == 1
        SCALE = 3.0
        np.testing.assert_allclose(jitted(x).asnumpy(), x.asnumpy() * 3 + 2)
        assert jitted.stats.compiles == 2
        OFFSETS = (1.0, 5.0)
        np.testing.assert_allclose(jitted(x).asnumpy(), x.asnumpy() * 3 + 5)
        assert jitted.stats.compiles == 3
        SCALE, OFFSETS = 2.0, (1.0, 2.0)             # back to the first values
        np.testing.assert_allclose(jitted(x).asnumpy(), x.asnumpy() * 2 + 2)
        for _ in range(3):
            jitted(x)
        assert jitted.stats.compiles == 4          # recaptured once, then served
    finally:
        SCALE, OFFSETS = 2.0, (1.0, 2.0)


def times(x):
    return x * SCALE


def test_type_change_of_equal_value_is_a_change(module_daemon_home):
    global SCALE
    x = Tensor(np.ones((2,), np.int32))
    jitted = msjit.jit(times)
    try:
        assert jitted(x).dtype == msjit.float32
        SCALE = 2                                    # 2 == 2.0, but an int keeps int32
        assert jitted(x).dtype == msjit.int32
        assert jitted.stats.compiles == 2
    finally:
        SCALE = 2.0

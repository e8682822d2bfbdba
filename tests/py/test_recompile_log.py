"""MSJIT_LOG=recompiles: every recompilation is logged with the guard that changed."""
import os
import subprocess
import sys
import textwrap

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

SCRIPT = textwrap.dedent("""
    import logging, numpy as np
    import msjit
    logging.basicConfig(level=logging.INFO, format="%(name)s %(message)s")

    def f(x, scale):
        return x * scale

    j = msjit.jit(f)
    j(msjit.Tensor(np.ones((2, 3), np.float32)), 2.0)
    j(msjit.Tensor(np.ones((2, 3), np.float32)), 2.0)      # hit: no log
    j(msjit.Tensor(np.ones((4, 3), np.float32)), 2.0)      # shape
    j(msjit.Tensor(np.ones((4, 3), np.int32)), 2.0)        # dtype
    j(msjit.Tensor(np.ones((4, 3), np.int32)), 3.0)        # constant

    G = 1.5
    def g(x):
        return x * G
    k = msjit.jit(g)
    k(msjit.Tensor(np.ones((2,), np.float32)))
    G = 2.5
    k(msjit.Tensor(np.ones((2,), np.float32)))             # global

    def make(scale):
        def h(x):
            return x * scale
        return h
    h = make(2.0)
    b = msjit.jit(h, capture_mode="bytecode")
    b(msjit.Tensor(np.ones((2,), np.float32)))
    h.__closure__[0].cell_contents = 4.0
    b(msjit.Tensor(np.ones((2,), np.float32)))             # closure variable (bytecode guards it)
""")


def run(tmp_path, env_log):
    script = tmp_path / "recompiles.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "client_py"), MSJIT_LOG=env_log)
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [line for line in proc.stderr.splitlines() if "recompiling" in line]


def test_each_recompile_is_logged_with_its_reason(tmp_path, module_daemon_home):
    lines = run(tmp_path, "recompiles")
    assert len(lines) == 5, lines
    assert "argument 0" in lines[0] and "(2, 3)" in lines[0] and "(4, 3)" in lines[0]
    assert "argument 0" in lines[1] and "int32" in lines[1]
    assert "argument 1" in lines[2] and "2.0" in lines[2] and "3.0" in lines[2]
    assert "global 'G' changed: 1.5 -> 2.5" in lines[3]
    assert "closure variable 'scale' changed: 2.0 -> 4.0" in lines[4]


def test_silent_without_the_flag(tmp_path, module_daemon_home):
    assert run(tmp_path, "") == []

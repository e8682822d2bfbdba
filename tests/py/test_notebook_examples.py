"""The notebook's code cells (examples/notebook_*.py, verbatim) run as scripts against the real
daemon and print exactly what the notebook shows."""
import os
import subprocess
import sys

import pytest

from support import ROOT, msjitd_binary

EXPECTED = {
    "notebook_graph_mode.py": "[ 4. 10. 18.]\n",
    "notebook_pynative_add.py": "[[[[2. 2. 2. 2.]\n   [2. 2. 2. 2.]\n   [2. 2. 2. 2.]]\n\n"
                                "  [[2. 2. 2. 2.]\n   [2. 2. 2. 2.]\n   [2. 2. 2. 2.]]\n\n"
                                "  [[2. 2. 2. 2.]\n   [2. 2. 2. 2.]\n   [2. 2. 2. 2.]]]]\n",
    "notebook_mixed_jit_cell.py": "[[[[15.99984]]\n\n  [[15.99984]]]]\n",
}


@pytest.mark.parametrize("script", sorted(EXPECTED))
def test_notebook_cell_prints_what_the_notebook_shows(daemon_home, script):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "client_py"), MSJIT_HOME=daemon_home.path,
               MSJITD_BIN=msjitd_binary())
    env.pop("MSJITD_ADDRESS", None)
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "examples", script)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == EXPECTED[script]


def test_graph_mode_example_really_compiles(daemon_home):
    """GRAPH_MODE compiles the Cell: the daemon sees a compile request."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "client_py"), MSJIT_HOME=daemon_home.path,
               MSJITD_BIN=msjitd_binary())
    env.pop("MSJITD_ADDRESS", None)
    subprocess.run([sys.executable, os.path.join(ROOT, "examples", "notebook_graph_mode.py")], env=env,
                   check=True, capture_output=True, timeout=300)
    from msjit import rpc
    assert rpc.client().stats().compile_requests >= 1

"""Separate Python processes sharing one real msjitd: the second process's compile is a cache
hit, a restart keeps the disk tier, and the tutorial demo prints equal eager and jit outputs."""
import os
import re
import shutil
import subprocess
import sys

from support import ROOT

CLIENT = r"""
import sys
import numpy as np
import mindspore
from mindspore import Tensor

def f(a, b, c):
    return a * b + c

x = [Tensor(np.full((2, 3), v, np.float32)) for v in (1.5, 2.0, 0.25)]
out = mindspore.jit(f, jit_level=sys.argv[1])(*x)
print(out.asnumpy().ravel().tolist())
"""


def run_client(daemon, level="O1", script=None):
    """Runs a client script file (ast capture reads its source) against `daemon`."""
    if script is None:
        script = os.path.join(daemon.workdir, "client.py")
        with open(script, "w") as f:
            f.write(CLIENT)
    env = dict(os.environ, MSJITD_ADDRESS=daemon.address, PYTHONPATH=os.path.join(ROOT, "client_py"))
    proc = subprocess.run([sys.executable, "-W", "error::UserWarning", script, level], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def msjitctl_stats(daemon):
    binary = os.path.join(ROOT, "bazel-bin/client_cpp/msjitctl")
    if not os.access(binary, os.X_OK):
        binary = shutil.which("msjitctl")
    proc = subprocess.run([binary, "--address", daemon.address, "stats"], capture_output=True, text=True,
                          timeout=30)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def stats(daemon):
    from msjit.proto import msjit_pb2
    return daemon.stub().Stats(msjit_pb2.StatsRequest())


def test_second_process_hits_and_restart_hits_disk(make_daemon):
    daemon = make_daemon().start()
    assert run_client(daemon) == "[3.25, 3.25, 3.25, 3.25, 3.25, 3.25]\n"
    assert run_client(daemon) == "[3.25, 3.25, 3.25, 3.25, 3.25, 3.25]\n"
    s = stats(daemon)
    assert (s.compile_requests, s.compiles, s.memory_hits) == (2, 1, 1)
    assert "2 compile requests: 1 compiled, 1 hits (1 memory, 0 disk" in msjitctl_stats(daemon)

    daemon.stop()
    restarted = make_daemon().start()
    assert run_client(restarted) == "[3.25, 3.25, 3.25, 3.25, 3.25, 3.25]\n"
    s = stats(restarted)
    assert (s.compiles, s.disk_hits) == (0, 1)
    assert "1 compile requests: 0 compiled, 1 hits (0 memory, 1 disk" in msjitctl_stats(restarted)


def test_o0_and_o1_are_separate_entries(daemon):
    run_client(daemon, "O0")
    run_client(daemon, "O1")
    assert stats(daemon).compiles == 2


def test_demo_prints_equal_eager_and_jit_outputs(daemon):
    out = run_client(daemon, script=os.path.join(ROOT, "examples/simple_function.py"))
    eager, jitted = re.findall(r"out=(Tensor\(.*?\]\]\))", out, re.S)
    assert eager == jitted
    assert "shape=[2, 3]" in eager and "Float32" in eager
    s = stats(daemon)
    assert s.compiles == 1
    artifacts = [os.path.join(d, f) for d, _, files in os.walk(daemon.cache_dir) for f in files if f.endswith(".so")]
    assert len(artifacts) == 1 and open(artifacts[0], "rb").read(4) == b"\x7fELF"

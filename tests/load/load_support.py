"""What the load test and its client processes share: the key mix (16 distinct small graphs) and
tests/e2e's Daemon helper, loaded under its own module name so no conftest is shadowed."""
import importlib.util
import os

from mindir_models import mul_add, request

DISTINCT = 16


def key_mix():
    return [request(mul_add((n + 1, 3))) for n in range(DISTINCT)]


def daemon_class():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e", "conftest.py")
    spec = importlib.util.spec_from_file_location("_msjit_e2e_conftest", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Daemon

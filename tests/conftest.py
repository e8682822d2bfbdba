"""Real-daemon fixtures for every test folder: reuses tests/py/conftest.py (its DaemonHome starts
msjitd in a private MSJIT_HOME and stops every daemon it served)."""
import importlib.util
import os
import sys

_TESTS = os.path.abspath(os.path.dirname(__file__))
for _p in (os.path.join(_TESTS, "py"), _TESTS, os.path.join(_TESTS, "capture"), os.path.join(_TESTS, "api")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

_spec = importlib.util.spec_from_file_location("_msjit_py_conftest", os.path.join(_TESTS, "py", "conftest.py"))
_py_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_py_conftest)

module_daemon_home = _py_conftest.module_daemon_home

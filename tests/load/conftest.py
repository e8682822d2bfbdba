"""tests/load: puts client_py, tests and tests/e2e on sys.path, as tests/e2e/conftest.py does."""
import os
import sys

_TESTS = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
for _p in (os.path.join(os.path.dirname(_TESTS), "client_py"), _TESTS, os.path.join(_TESTS, "e2e")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

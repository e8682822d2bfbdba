"""Fixtures shared by the API tests (the daemon fixtures come from tests/conftest.py)."""
import pytest

import msjit as ms


@pytest.fixture
def graph_mode():
    """GRAPH_MODE for one test, PYNATIVE_MODE again afterwards whatever happens."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        yield
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)

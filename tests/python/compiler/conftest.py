"""Fixtures of the compiler's tests (helpers: compiler_support.py)."""

import pytest

from compiler_support import build_recorded


@pytest.fixture
def record(monkeypatch):
    """record(pyfunc) builds ``pyfunc`` afresh (not memoised) through a
    builder that records every call (a compiler_support.Recording)."""
    return lambda pyfunc: build_recorded(pyfunc, monkeypatch)

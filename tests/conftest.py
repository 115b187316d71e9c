"""Shared fixtures: real Xvfb servers (tests/helpers/xvfb.py; tests/helpers is on pytest's pythonpath)."""

from __future__ import annotations

import pytest
from xvfb import Xvfb


@pytest.fixture
def xvfb():
    """One fresh Xvfb display for this test (1280x1024x24)."""
    server = Xvfb()
    yield server
    server.stop()


@pytest.fixture
def xvfb3():
    """Three fresh Xvfb displays for this test."""
    servers = [Xvfb() for _ in range(3)]
    yield servers
    for server in servers:
        server.stop()

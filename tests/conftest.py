"""Shared fixtures: real Xvfb servers (tests/xvfb.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from xvfb import Xvfb  # noqa: E402


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

"""Shared fixtures: real Xvfb servers (tests/helpers/xvfb.py; tests/helpers is on pytest's pythonpath)."""

from __future__ import annotations

import os
import signal

import pytest
from xvfb import Xvfb

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    # A shell starts a background job (`make test &`, nohup in a script) with Ctrl-C ignored, and the programs
    # the tests run would inherit that: the tests that send them SIGINT would wait for an exit that never
    # comes. The suite's own processes take it as Python does by default, and so do the programs.
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True, scope="session")
def private_state_home(tmp_path_factory):
    """``s`` without ``--save`` saves under ``$XDG_STATE_HOME`` (motti.savegame.default_path): the suite and
    the programs it starts save into a folder of the run's own, never into the user's ~/.local/state."""
    before = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))
    yield
    if before is None:
        os.environ.pop("XDG_STATE_HOME", None)
    else:
        os.environ["XDG_STATE_HOME"] = before


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


E2E_MODULES = {"test_x11.py", "test_xvfb.py", "test_install.py", "test_server.py", "test_bots.py",
               "test_tournament.py", "test_faults.py"}
"""Modules outside tests/e2e that drive real X servers, play over real TCP or install the project."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark as ``e2e`` (skipped by ``make test-fast``) every test that drives a real X server, terminal or
    installed package: those under tests/e2e, those in :data:`E2E_MODULES`, those using the Xvfb fixtures."""
    for item in items:
        path = item.path
        if "e2e" in path.parts or path.name in E2E_MODULES or {"xvfb", "xvfb3"} & set(item.fixturenames):
            item.add_marker(pytest.mark.e2e)

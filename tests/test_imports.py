"""Importing any module of the project prints nothing (pygame's greeting would tear a curses screen)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(f"{p.parent.name}.{p.stem}" for package in ("common", "motti", "starlanes", "arena")
                 for p in (ROOT / package).glob("*.py") if p.stem not in ("__init__", "__main__"))


@pytest.mark.slow
def test_every_module_imports_silently() -> None:
    probe = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\n"
    for name in MODULES:
        done = subprocess.run([sys.executable, "-c", probe, name], capture_output=True, text=True, timeout=60,
                              cwd=ROOT)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), name

"""Importing any module of the project prints nothing (pygame's greeting would tear a curses screen)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from deadline import deadline

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(f"{p.parent.name}.{p.stem}" for package in ("common", "motti", "starlanes", "arena")
                 for p in (ROOT / package).glob("*.py") if p.stem not in ("__init__", "__main__"))

PROBE = """
import importlib, os, sys, traceback
import numpy, scipy.ndimage   # third-party and silent: loaded once, before the forks, to save time
for name in sys.argv[1:]:
    for stream in (sys.stdout, sys.stderr):
        stream.write(f"@@ {name}\\n")
        stream.flush()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            importlib.import_module(name)
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.stdout.write(f"@@ exit {os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])}\\n")
    sys.stdout.flush()
"""
"""Imports each module alone in a fresh fork of one interpreter that has loaded only numpy and scipy."""


def _said(output: str) -> dict[str, str]:
    """What each module printed, from the probe's ``@@ name`` markers (exit lines kept as said)."""
    out: dict[str, str] = {}
    name = ""
    for line in output.splitlines(keepends=True):
        if line.startswith("@@ ") and not line.startswith("@@ exit"):
            name = line[3:].strip()
            out[name] = ""
        else:
            out[name] = out.get(name, "") + line
    return out


@pytest.mark.slow
def test_every_module_imports_silently() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, *MODULES], capture_output=True, text=True,
                          timeout=deadline(100), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    stdout, stderr = _said(done.stdout), _said(done.stderr)
    assert sorted(stdout) == sorted(stderr) == MODULES
    for name in MODULES:
        assert (stdout[name], stderr[name]) == ("@@ exit 0\n", ""), name


def test_the_probe_sees_a_greeting_and_a_failure() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, "this", "no_such_module"], capture_output=True,
                          text=True, timeout=deadline(20), cwd=ROOT)
    stdout, stderr = _said(done.stdout), _said(done.stderr)
    assert stdout["this"].startswith("The Zen of Python") and stdout["this"].endswith("@@ exit 0\n")
    assert stdout["no_such_module"] == "@@ exit 1\n"
    assert "ModuleNotFoundError" in stderr["no_such_module"]

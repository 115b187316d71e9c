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


@pytest.mark.parametrize("module", ["motti.session", "motti.rules", "motti.script"])
def test_motti_s_turn_flow_and_rules_import_no_front_end_library(module: str) -> None:
    probe = (f"import sys, {module}; print(sorted(name for name in ('pygame', 'Xlib', 'curses', '_curses') "
             "if name in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=deadline(20),
                          cwd=ROOT)
    assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr


def _motti_imports(path: Path) -> set[str]:
    """The motti modules *path* imports anywhere (functions included), except under ``if TYPE_CHECKING:``."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
                   for stmt in block.body for node in ast.walk(stmt)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("motti.")}
        elif isinstance(node, ast.ImportFrom) and node.module == "motti":
            found |= {f"motti.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("motti."):
            found.add(node.module)
    return found


def test_motti_has_no_import_circles() -> None:
    graph = {f"motti.{p.stem}": _motti_imports(p) for p in (ROOT / "motti").glob("*.py")}
    assert graph["motti.levels"] >= {"motti.march", "motti.rollout"}
    assert graph["motti.march"] >= {"motti.evaluate"} and "motti.rollout" not in graph["motti.march"]
    assert graph["motti.rollout"] >= {"motti.march", "motti.evaluate"}
    circles = []

    def visit(module: str, path: list[str]) -> None:
        for imported in sorted(graph.get(module, ())):
            if imported in path:
                circles.append([*path[path.index(imported):], imported])
            elif imported not in done:
                visit(imported, [*path, imported])
        done.add(module)

    done: set[str] = set()
    for module in sorted(graph):
        visit(module, [module])
    assert circles == []


def test_the_circle_check_sees_a_lazy_import_and_ignores_a_type_checking_one(tmp_path: Path) -> None:
    source = tmp_path / "a.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from motti.game import Game\n"
                      "def f():\n    from motti import rollout, march\n    import motti.rules\n")
    assert _motti_imports(source) == {"motti.rollout", "motti.march", "motti.rules"}
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import motti.rollout\n")
    assert _motti_imports(source) == set()


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["play", "--help"]])
def test_motti_s_help_loads_no_scipy(args: list[str]) -> None:
    # scipy alone costs about half a second of CPU: only the rules' labelling and the computer players'
    # searches need it, and they import it when they first run.
    probe = ("import sys\nfrom motti.cli import main\nstatus = main(sys.argv[1:])\n"
             "loaded = {name.split('.')[0] for name in sys.modules}\n"
             "print(status, sorted(loaded & {'scipy', 'pygame', 'Xlib'}))")
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True,
                          timeout=deadline(20), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "0 []"
    assert "usage: motti" in done.stdout or done.stdout.startswith("motti ")

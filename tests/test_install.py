"""The shipped maps are found after a regular (non-editable) install, not only from the checkout."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

from deadline import deadline

ROOT = Path(__file__).resolve().parent.parent


def test_regular_install_finds_shipped_maps(tmp_path):
    source = tmp_path / "source"   # a copy, so that the build leaves nothing behind in the checkout
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".*", "build", "*.egg-info", "__pycache__"))
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(source)],
                   check=True, timeout=deadline(100), capture_output=True)
    wheel = next(wheels.glob("*.whl"))
    target = tmp_path / "venv"
    venv.create(target, with_pip=True)
    python = target / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True,
                   timeout=deadline(100), capture_output=True)
    probe = ("from common.data import shipped_dir; "
             "[print(shipped_dir(g)) for g in ('motti', 'arena')]")
    out = subprocess.run([str(python), "-c", probe], cwd=tmp_path, check=True, timeout=deadline(20),
                         capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}).stdout.split()
    for game, found in zip(("motti", "arena"), out, strict=True):
        directory = Path(found)
        assert directory == target / "share" / "games" / game
        shipped = sorted(p.name for p in (ROOT / "maps" / game).iterdir() if p.suffix in (".map", ".toxic"))
        assert shipped, f"no {game} maps in the checkout"
        assert sorted(p.name for p in directory.iterdir()) == shipped
    manuals = target / "share" / "man" / "man6"
    assert sorted(p.name for p in manuals.iterdir()) == ["arena.6", "motti.6", "starlanes.6"]
    page = subprocess.run(["man", "-M", str(target / "share" / "man"), "motti"], capture_output=True,
                          text=True, timeout=deadline(20), env={"PATH": "/usr/bin:/bin", "MANPAGER": "cat"})
    assert page.returncode == 0 and "conquer land by encircling it" in page.stdout

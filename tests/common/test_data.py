import os
import stat
from pathlib import Path

import pytest

from common.data import shipped_dir
from common.save import NotARegularFile, load_json, save_json, write_atomic, write_failure, write_problem


def test_env_overrides_map_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("MOTTI_MAPDIR", str(tmp_path))
    assert shipped_dir("motti") == tmp_path


def test_checkout_map_dir(monkeypatch):
    monkeypatch.delenv("MOTTI_MAPDIR", raising=False)
    assert shipped_dir("motti") == Path(__file__).resolve().parents[2] / "maps" / "motti"


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path):
    target = tmp_path / "state.json"
    write_atomic(target, "old")
    save_json(target, {"turn": 2, "board": ["aab"]})
    assert load_json(target) == {"turn": 2, "board": ["aab"]}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_atomic_write_refuses_devices_fifos_and_directories(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    targets = ((Path("/dev/null"), "a character device"), (fifo, "a FIFO"), (tmp_path, "a directory"))
    for target, kind in targets:
        with pytest.raises(NotARegularFile, match=f"is {kind}, not a regular file"):
            write_atomic(target, "x")
    assert Path("/dev/null").is_char_device()
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_atomic_write_goes_through_a_symbolic_link(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_atomic_write_gives_the_mode_open_would(tmp_path):
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.map", "x")
        assert stat.S_IMODE((tmp_path / "new.map").stat().st_mode) == 0o640
        kept = tmp_path / "kept.map"
        kept.write_text("old")
        kept.chmod(0o604)
        write_atomic(kept, "new")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o604 and kept.read_text() == "new"
    finally:
        os.umask(old)
    os.umask(0o022)
    try:
        write_atomic(tmp_path / "other.map", "x")
        assert stat.S_IMODE((tmp_path / "other.map").stat().st_mode) == 0o644
    finally:
        os.umask(old)


def test_load_json_refuses_endless_devices():
    with pytest.raises(NotARegularFile, match="is a character device"):
        load_json("/dev/zero")


def test_write_problem_names_what_keeps_a_file_from_being_written(tmp_path):
    (tmp_path / "file").write_text("x")
    assert write_problem(tmp_path / "new.json") is None
    assert write_problem(tmp_path / "file") is None
    assert list(tmp_path.iterdir()) == [tmp_path / "file"]  # the probe is removed
    assert write_problem(tmp_path) == "is a directory, not a regular file"
    assert write_problem(tmp_path / "none" / "x") == f"cannot write in {tmp_path / 'none'}: no such folder"
    assert write_problem(tmp_path / "file" / "x") == f"cannot write in {tmp_path / 'file'}: not a folder"
    # /proc creates no file: "No such file or directory" from the system, named for what it is
    assert write_problem("/proc/version") == "cannot write in /proc: not writable"
    with pytest.raises(FileNotFoundError) as failed:
        write_atomic("/proc/version", "x")
    assert write_failure("/proc/version", failed.value) == "cannot write in /proc: not writable"

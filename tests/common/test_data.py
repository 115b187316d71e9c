from pathlib import Path

from common.data import shipped_dir
from common.save import load_json, save_json, write_atomic


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

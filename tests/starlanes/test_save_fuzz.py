"""Broken Star Lanes saves, generated and mutated: never a traceback, always one line naming the file."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from starlanes.rules import Game, rule_set
from starlanes.save import SaveError, load_game, save_game

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


def _valid(rules: str = "1995") -> dict[str, Any]:
    game = Game.new(["Ann", "Bob", "Cy"], random.Random(4), rules=rule_set(rules))
    for _ in range(7):
        if game.is_terminal():
            break
        game.apply(game.legal_actions()[0])
    return {"format": "starlanes-save-1", "controllers": ["human", "easy", "hard"], "game": game.to_dict()}


VALID = _valid()


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node[:3]):
            out += _paths(value, (*prefix, i))
    return out


PATHS = [p for p in _paths(VALID) if p]


def _replace(doc: Any, path: tuple[Any, ...], value: Any, delete: bool) -> Any:
    doc = json.loads(json.dumps(doc))
    node = doc
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return doc


def _assert_one_line_error_or_game(path: Path) -> None:
    try:
        load_game(path)
    except SaveError as error:
        message = str(error)
        assert message.startswith(str(path)), message
        assert "\n" not in message and "Traceback" not in message


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.sampled_from(PATHS), value=JSON, delete=st.booleans())
@example(where=("game",), value={"\n": None}, delete=False)  # an unknown field named by a newline
def test_any_field_replaced_or_removed(tmp_path: Path, where: tuple[Any, ...], value: Any,
                                       delete: bool) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(_replace(VALID, where, value, delete)))
    _assert_one_line_error_or_game(path)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(0, len(json.dumps(VALID))), junk=st.binary(max_size=6))
def test_cut_and_spliced_bytes(tmp_path: Path, cut: int, junk: bytes) -> None:
    text = json.dumps(VALID).encode()
    path = tmp_path / "game.json"
    path.write_bytes(text[:cut] + junk + text[cut + len(junk):])
    _assert_one_line_error_or_game(path)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=JSON)
def test_any_json_at_all(tmp_path: Path, doc: Any) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    _assert_one_line_error_or_game(path)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["game"]["companies"].__setitem__(0, [1, 2, 3]),
     "$.game.companies[0]: expected array of length 2"),
    (lambda d: d["game"].__setitem__("players", "Ann"), "$.game.players: expected array, got str"),
    (lambda d: d["game"]["players"].__setitem__(0, "Ann"), "$.game.players[0]: expected object, got str"),
    (lambda d: d["game"]["rng"].__setitem__(1, 5), "$.game.rng[1]: expected array, got int"),
    (lambda d: d["game"].__setitem__("current", True), "$.game.current: expected int, got bool"),
    (lambda d: d.__setitem__("extra", 1), "$: object contains unknown field extra"),
])
def test_wrong_types_name_the_json_path(tmp_path: Path, edit: Any, message: str) -> None:
    doc = json.loads(json.dumps(VALID))
    edit(doc)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(SaveError) as error:
        load_game(path)
    assert str(error.value) == f"{path}: {message}"


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(VALID).encode())
    game, controllers = load_game(path)
    assert game.to_dict() == VALID["game"] and controllers == ["human", "easy", "hard"]


def test_deep_nesting_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SaveError) as error:
        load_game(path)
    assert str(error.value) == f"{path}: $: expected object, got array"
    doc = json.loads(json.dumps(VALID))
    doc["game"]["history"] = "@"
    path.write_text(json.dumps(doc).replace('"@"', "[" * 100_000 + "]" * 100_000))
    with pytest.raises(SaveError) as error:
        load_game(path)
    assert str(error.value).startswith(f"{path}: $.game.history[0]")


def test_round_trip_under_both_rule_sets(tmp_path: Path) -> None:
    for rules in ("1995", "1977"):
        doc = _valid(rules)
        path = tmp_path / f"{rules}.json"
        game = Game.from_dict(doc["game"])
        save_game(path, game, doc["controllers"])
        again, _ = load_game(path)
        assert again.to_dict() == doc["game"]


@pytest.mark.parametrize(("name", "shown"), [("", "''"), ("A" * 21, "'" + "A" * 21 + "'")])
def test_a_name_out_of_bounds_says_what_a_name_is(tmp_path: Path, name: str, shown: str) -> None:
    doc = json.loads(json.dumps(VALID))
    doc["game"]["players"][0]["name"] = name
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(SaveError) as error:
        load_game(path)
    assert str(error.value) == (f"{path}: $.game: bad game state: players: a name is text of 1 to 20 "
                                f"characters, not {shown}")

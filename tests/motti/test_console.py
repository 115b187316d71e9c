"""The console's game-side helpers (motti/console.py): commands, snapshots, messages, scrolling."""

from __future__ import annotations

import random

import pytest

from common.loop import Command
from motti.commands import apply_command
from motti.compose import Composer
from motti.console import Snapshot, _scroll, status_variant, watch_status
from motti.mapfile import parse_map
from motti.rules import (
    Action,
    Game,
    IllegalAction,
)

# spec §9 T1: cap 1@(0,0), cap 2@(3,0), mover 1
T1 = """motti-map 1
size 4 3
players 2
capital 1 0 0
capital 2 3 0
grid
aabb
aAbb
aabb
"""


def t1() -> Game:
    return Composer(Game(parse_map(T1).board, random.Random(0)))


def command(verb: str, *args: object) -> Command:
    return Command("console", verb, tuple(args))


def test_toggle_takes_both_argument_shapes() -> None:
    game = t1()
    apply_command(game, command("toggle", (2, 1)))
    apply_command(game, command("toggle", 0, 0))
    assert game.crosses == [(2, 1), (0, 0)]
    apply_command(game, command("toggle", (2, 1)))
    assert game.crosses == [(0, 0)]


def test_perform_with_an_action_selects_it_first() -> None:
    game = t1()
    for cell in [(2, 1), (0, 0), (0, 1)]:
        apply_command(game, command("toggle", cell))
    events = apply_command(game, command("perform", "defend"))   # (2,1) is dropped: not own land (§2.2)
    assert game.board.occupied[0, 0] and game.board.occupied[1, 0] and not game.board.occupied[1, 2]
    assert game.current_player == 2 and events


def test_select_cycle_and_refusals() -> None:
    game = t1()
    apply_command(game, command("select", "guerilla"))
    assert game.selected is Action.GUERILLA
    apply_command(game, command("cycle"))
    assert game.selected is Action.ATTACK
    with pytest.raises(IllegalAction):
        apply_command(game, command("toggle", (1, 1)))   # occupied
    with pytest.raises(IllegalAction):
        apply_command(game, command("perform", "defend"))   # no cross
    assert game.selected is Action.ATTACK
    with pytest.raises(ValueError, match="unknown command"):
        apply_command(game, command("dance"))
    apply_command(game, command("perform"))   # an attack with no cross fails
    assert game.attacks_left == 5
    with pytest.raises(IllegalAction, match=r"^Guerilla is impossible after an attack this turn$"):
        apply_command(game, command("perform", "guerilla"))


def test_impossible_actions_cannot_be_selected_and_the_cycle_skips_them() -> None:
    game = t1()
    apply_command(game, command("perform"))   # a failed attack: Defend and Guerilla are impossible now
    for name in ("defend", "guerilla"):
        reason = f"^{name.capitalize()} is impossible after an attack this turn$"
        with pytest.raises(IllegalAction, match=reason):
            apply_command(game, command("select", name))
        assert game.selected is Action.ATTACK
    apply_command(game, command("cycle"))
    assert game.selected is Action.ATTACK
    apply_command(game, command("select", "attack"))
    assert game.selected is Action.ATTACK


def test_snapshot_predicts_what_the_game_accepts() -> None:
    game = t1()
    game.toggle_cross(2, 1)
    snap = Snapshot.of(game)
    assert snap.can_toggle(2, 1) and snap.can_toggle(0, 2) and not snap.can_toggle(1, 1)
    assert not snap.can_toggle(3, 0)
    game.attack([])
    after = Snapshot.of(game)
    assert after.possible == {Action.ATTACK}
    game.board.owner[0, 0] = 2   # the snapshot is a copy
    assert after.owner[0, 0] == 1


@pytest.mark.parametrize(("origin", "cursor", "expected"), [
    (0, 5, 0), (0, 10, 1), (5, 3, 3), (0, 39, 30), (28, 20, 20), (35, 39, 30),
])
def test_scroll_keeps_the_cursor_visible(origin: int, cursor: int, expected: int) -> None:
    assert _scroll(origin, cursor, 10, 40) == expected


@pytest.mark.parametrize(("width", "line"), [
    (80, "Player 1 | Attack: 6 left | Crosses: 6 | watching (? keys, q stops)"),
    (60, "Player 1 | Attack: 6 left | Crosses: 6 | watching (? keys)"),
    (40, "P1 | Att 6 | X 6 | watching (? keys)"),
    (30, "P1 | Att 6 | X 6 | watching"),
])
def test_a_watching_terminal_shows_its_own_keys_instead_of_the_actions(width: int, line: str) -> None:
    snap = Snapshot.of(t1())
    assert "".join(watch_status(snap, width)) == line
    head, labels = status_variant(snap, 80)   # a player's line, for comparison: the same head
    assert head == "Player 1 | Attack: 6 left | Crosses: 6 | " and labels[0][1] == "[A]ttack(z)"

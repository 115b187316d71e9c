"""arena through the one game interface (arena/game.py); the round as a tuple of stages (arena/rules.py)."""

from __future__ import annotations

import random
import re

import pytest

from arena.game import GAME, action, decode
from arena.mapfile import arena_from_text
from arena.rules import FORCED, RED, ROUND, Game, stage_forced
from common.game import SIMULTANEOUS, TERMINAL, IllegalAction, load

S1_MAP = "#...\n...#\n.#..\n"


def test_load_gives_the_arena_game_and_office_by_default() -> None:
    state = load("arena").new_initial_state(seed=5)
    assert state.num_players() == 4
    assert state.game.arena.name == "office"
    assert state.current_player() == SIMULTANEOUS


def test_actions_encode_move_and_facing() -> None:
    assert action("NORTH", "NORTH") == 0
    assert action("NONE", "NORTH_WEST") == 71
    assert decode(action("SOUTH_WEST", "EAST")) == ("SOUTH_WEST", "EAST")
    with pytest.raises(ValueError, match=r"^no arena action 72$"):
        decode(72)
    with pytest.raises(ValueError, match=r"^no arena move 'east': one of NORTH, NORTH_EAST, .*, NONE$"):
        action("east", "NORTH")
    with pytest.raises(ValueError, match=r"^no arena facing 'NONE': one of NORTH, .*, NORTH_WEST$"):
        action("NONE", "NONE")


def test_legal_actions_are_the_s1_moves_with_every_facing() -> None:
    """Spec S1: from (2,1) W, NW, N, S and NONE are legal; E, NE, SE, SW are refused by the walls."""
    state = GAME.new_initial_state(map=arena_from_text(S1_MAP), players=2, seed=0)
    state.game.players[0].x, state.game.players[0].y = 2, 1
    state.game.players[1].x, state.game.players[1].y = 0, 2
    moves = sorted({decode(a)[0] for a in state.legal_actions(0)})
    assert moves == ["NONE", "NORTH", "NORTH_WEST", "SOUTH", "WEST"]
    assert len(state.legal_actions(0)) == 5 * 8
    assert state.legal_actions() == [] and state.legal_actions(2) == [] and state.legal_actions(-1) == []


def test_arrival_order_decides_a_contested_cell() -> None:
    """Spec S8 through the interface: both target (5,5); the one whose move arrives first gets it."""
    arena = arena_from_text("\n".join(["." * 12] * 12))
    for order, winner in (([1, 0], 1), ([0, 1], 0), (None, 0)):
        state = GAME.new_initial_state(map=arena, players=2, seed=0)
        (a, b) = state.game.players
        a.x, a.y, b.x, b.y = 4, 5, 6, 5
        state.apply_actions([action("EAST", "EAST"), action("WEST", "WEST")], order)
        at = [(p.x, p.y) for p in state.game.players]
        assert at[winner] == (5, 5)
        assert at[1 - winner] == ((4, 5), (6, 5))[1 - winner]
        assert [p.facing for p in state.game.players] == ["EAST", "WEST"]


def test_bad_joint_actions_change_nothing() -> None:
    state = GAME.new_initial_state(seed=2)
    before = state.serialize()
    ok = [state.legal_actions(p)[0] for p in range(4)]
    for joint, order in ((ok[:3], None), (ok, [0, 1, 2, 2]), ([*ok[:3], 72], None), ([*ok[:3], True], None)):
        with pytest.raises(IllegalAction):
            state.apply_actions(joint, order)
        assert state.serialize() == before
    with pytest.raises(IllegalAction):
        state.apply_action(ok[0])


def test_playout_ends_with_points_as_scores_ranked_as_returns_and_round_trips() -> None:
    state = GAME.new_initial_state(seed=9, map="field", players=6, quiet_rounds=5)
    rng = random.Random(1)
    while not state.is_terminal():
        text = state.serialize()
        assert GAME.deserialize_state(text).serialize() == text
        state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(6)])
    assert state.current_player() == TERMINAL
    assert state.legal_actions(0) == []
    assert state.scores() == [1.0, 15.0, 0.0, 6.0, 10.0, 3.0]                # points (§2.8)
    assert state.returns() == [-0.6, 1.0, -1.0, 0.2, 0.6, -0.2]             # ranked: (below - above) / 5
    assert state.game.round <= 30


def test_clone_is_independent_and_keeps_the_generator() -> None:
    state = GAME.new_initial_state(seed=4)
    state.rng.random()
    twin = state.clone()
    assert twin.rng.random() == state.rng.random()
    twin.apply_actions([twin.legal_actions(p)[-1] for p in range(4)])
    assert twin.game.round == 1 and state.game.round == 0
    assert twin.game.players[0] is not state.game.players[0]


def test_a_variant_is_another_stage_tuple() -> None:
    """Without the forced stage nobody is forced RED after F quiet rounds (spec §2.6 phase 5 left out)."""
    arena = arena_from_text("\n".join(["." * 10] * 10))
    plain = Game.with_positions(arena, [(0, 0), (9, 9)], quiet_rounds=3)
    calm = Game(arena, 2, positions=[(0, 0), (9, 9)], quiet_rounds=3,
                stages=tuple(s for s in ROUND if s is not stage_forced))
    for _ in range(3):
        r1, r2 = plain.play_round([]), calm.play_round([])
    assert [c.cause for c in r1.changes] == [FORCED]
    assert r2.changes == [] and all(p.team != RED for p in calm.players)


def test_from_snapshot_checks_what_the_constructor_checks() -> None:
    arena = arena_from_text(S1_MAP)
    game = Game.with_positions(arena, [(2, 1), (3, 2)])
    game.play_round([(0, "NORTH", "EAST")])
    data = game.snapshot()
    assert Game.from_snapshot(arena, data).snapshot() == data
    data["players"][1]["x"] = 1  # (1,2) is a wall
    with pytest.raises(ValueError, match="not a free cell"):
        Game.from_snapshot(arena, data)
    data = game.snapshot()
    for key, value, message in [
            ("round", 61, "round 61 is not 0..60 (max_rounds)"),
            ("quiet", 2, "quiet 2 is not 0..1 (quiet_rounds - 1, and the rounds played)")]:
        with pytest.raises(ValueError, match=rf"^{re.escape(message)}$"):
            Game.from_snapshot(arena, {**data, key: value})
    for key, value in (("stay", 2), ("points", "-1/2")):
        player = {**data["players"][1], key: value}
        with pytest.raises(ValueError, match=r"^players\[1\]: stay .* or points .* no game reaches in round"):
            Game.from_snapshot(arena, {**data, "players": [data["players"][0], player]})
    data["players"][0]["id"] = 1
    with pytest.raises(ValueError, match=r"^players\[0\]: id 1, not 0 \(the players are listed by id\)$"):
        Game.from_snapshot(arena, data)


def test_example_bots_play_an_interface_state_through_seats() -> None:
    """Two smart bots, each a Seat handed the server's messages, play a whole game on office; every answer
    is a legal action and the game ends with a catch or at MAXR (§2.7)."""
    from arena.bots import BotError, Example, Seat

    state = GAME.new_initial_state(seed=3, map="office", players=2, quiet_rounds=10)
    seats = [Seat(Example("smart", random.Random(p)), p, state.game.arena.path) for p in range(2)]
    rounds = 0
    while not state.is_terminal():
        joint = [seat.action(state) for seat in seats]
        assert all(a in state.legal_actions(p) for p, a in enumerate(joint))
        assert seats[0].brain.round == state.game.round + 1                # the START of the coming round
        state.apply_actions(joint)
        rounds += 1
    assert rounds <= 2 * 10 and state.current_player() == TERMINAL
    assert any(p.team == RED for p in state.game.players)
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])
    with pytest.raises(BotError, match="no map file"):
        Seat(Example("smart"), 0, None)

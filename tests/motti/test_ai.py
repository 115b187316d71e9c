"""motti's computer player (motti/ai.py, motti/evaluate.py): legal, deterministic, tactically sensible,
better than chance."""

from __future__ import annotations

import random

import numpy as np
import pytest

from motti import ai, evaluate, levels
from motti.generate import generate
from motti.mapfile import parse_map
from motti.rules import Action, Game, Reset, TurnPassed


def game_of(text: str, **kwargs) -> Game:
    state = parse_map(text)
    return Game(state.board, random.Random(0), **kwargs)


def header(w: int, h: int, capitals: list[tuple[int, int]]) -> str:
    lines = ["motti-map 1", f"size {w} {h}", f"players {len(capitals)}"]
    lines += [f"capital {k} {x} {y}" for k, (x, y) in enumerate(capitals, start=1)]
    return "\n".join([*lines, "grid"]) + "\n"


def assert_legal(game: Game, action: tuple) -> None:
    """*action* is one of legal_actions(), or a multi-cell attack/defend made of legal single-cell ones."""
    legal = set(game.legal_actions())
    verb = action[0]
    if verb in ("pass",) or verb == "guerilla":
        assert action in legal, action
        return
    assert verb in ("attack", "defend"), action
    cells = action[1]
    assert len(set(cells)) == len(cells)
    assert len(cells) <= (6 if verb == "attack" else 3)
    assert verb == "attack" or cells
    for cell in cells:
        assert (verb, (cell,)) in legal, (action, cell)


def self_play(seed: int, kinds: dict[int, str], *, players: int = 2, limit: int = 1500,
              check: bool = False) -> Game:
    game = Game(generate(20, 15, players, random.Random(seed)), random.Random(seed))
    rngs = {p: random.Random(seed * 31 + p) for p in kinds}
    for _ in range(limit):
        if game.is_terminal():
            break
        player = game.current_player
        if kinds[player] == "ai":
            action = ai.choose_action(game, rngs[player])
        else:
            action = rngs[player].choice(game.legal_actions())
        if check:
            assert_legal(game, action)
        game.apply(action)
    return game


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3])
def test_never_an_illegal_move(players: int) -> None:
    kinds = dict.fromkeys(range(1, players + 1), "ai")
    for seed in range(2):
        self_play(seed, kinds, players=players, limit=300, check=True)


def test_deterministic_given_its_rng() -> None:
    def actions(seed: int) -> list[tuple]:
        game = Game(generate(20, 15, 2, random.Random(seed)), random.Random(seed))
        rng = random.Random(99)
        out = []
        for _ in range(60):
            action = ai.choose_action(game, rng)
            out.append(action)
            game.apply(action)
        return out

    assert actions(5) == actions(5)


def test_guerilla_captures_a_diagonal_capital() -> None:
    # Player 2's capital (3,1) is unoccupied and diagonal to player 1's occupied (2,0): a certain capture.
    text = header(6, 3, [(0, 0), (3, 1)]) + "aaAbbb\naaabbb\naaabbb\n"
    game = game_of(text)
    assert ai.choose_action(game, random.Random(1)) == ("guerilla", (3, 1))


def test_defends_own_capital_next_to_an_enemy_wall() -> None:
    # Player 1's capital (2,1) is unoccupied and orthogonally next to player 2's occupied (3,1).
    text = header(6, 3, [(2, 1), (5, 1)]) + "aaabbb\naaaBbb\naaabbb\n"
    game = game_of(text)
    verb, cells = ai.choose_action(game, random.Random(1))
    assert verb == "defend"
    assert cells[0] == (2, 1)
    assert set(cells) <= {(2, 0), (2, 1), (2, 2)}   # its cells next to the enemy wall (3,1)


def test_guerilla_closes_a_pocket() -> None:
    # Player 1's occupied ring encloses 15 cells of player 2 with one gap at (4,5): occupying it cuts them off
    text = header(11, 7, [(0, 6), (10, 3)]) + (
        "bbbbbbbbbbb\n"
        "bAAAAAAAbbb\n"
        "bAbbbbbAbbb\n"
        "bAbbbbbAbbb\n"
        "bAbbbbbAbbb\n"
        "bAAAbAAAbbb\n"
        "aaaaaaaabbb\n"
    )
    game = game_of(text)
    action = ai.choose_action(game, random.Random(1))
    assert action == ("guerilla", (4, 5))
    game.apply(action)
    assert np.count_nonzero(game.board.owner[2:5, 2:7] == 1) == 15


def test_attack_crosses_an_attackable_enemy_capital() -> None:
    # After its first attack, player 1 may only attack; player 2's capital (3,1) is next to its wall (2,1).
    text = header(6, 3, [(0, 0), (3, 1)]) + "aaabbb\naaAbbb\naaabbb\n"
    game = game_of(text, attacks=5)
    verb, cells = ai.choose_action(game, random.Random(1))
    assert verb == "attack"
    assert (3, 1) in cells and len(cells) == 6


def test_play_turn_plays_exactly_one_turn() -> None:
    game = Game(generate(20, 15, 2, random.Random(3)), random.Random(3))
    events = levels.play_turn(game, random.Random(4))
    assert game.current_player == 2
    assert sum(isinstance(e, TurnPassed) for e in events) == 1
    assert isinstance(events[-1], TurnPassed)


def test_clone_leaves_the_game_alone() -> None:
    game = Game(generate(20, 15, 2, random.Random(8)), random.Random(8))
    state = random.Random(8)
    state.setstate(game.rng.getstate())
    before = (game.board.owner.copy(), game.board.occupied.copy())
    copy = evaluate.clone(game)
    cell = next(zip(*np.nonzero(game.legal_mask(Action.ATTACK)), strict=True))
    copy.attack([(int(cell[1]), int(cell[0]))], draw=0)
    assert copy.board.occupied[cell] and not game.board.occupied[cell]
    assert np.array_equal(game.board.owner, before[0]) and np.array_equal(game.board.occupied, before[1])
    assert game.rng.getstate() == state.getstate() and game.attacks_left == 6


def test_evaluate_sees_the_end() -> None:
    text = header(6, 3, [(0, 0), (3, 1)]) + "aaAbbb\naaabbb\naaabbb\n"
    game = game_of(text)
    game.guerilla((3, 1))
    assert game.winner == 1
    assert evaluate.evaluate(game, 1) == evaluate.WIN and evaluate.evaluate(game, 2) == -evaluate.WIN


def test_land_distance_walks_around_the_sea() -> None:
    land = np.array([[1, 1, 0, 1], [1, 1, 1, 1], [0, 0, 0, 1]], dtype=bool)
    inf = np.inf
    assert np.array_equal(evaluate.land_distance(land, (0, 0)),
                          np.array([[0, 1, inf, 5], [1, 2, 3, 4], [inf, inf, inf, 5]]))


# Computer-vs-computer games end: checked on small generated maps (12x9, capitals at least 6 apart) so that
# the test stays fast; bench/motti_selfplay.py measures the default 20x15 size.
TURN_CAP = 1000
SEEDS_THAT_END = [0, 4, 6]


def computer_game(seed: int, turns: int) -> tuple[Game, int, int]:
    """Computer against computer on a generated 12x9 map: (game, turns played, global resets)."""
    game = Game(generate(12, 9, 2, random.Random(seed), distance_min=6.0), random.Random(seed))
    rngs = {p: random.Random(seed * 31 + p) for p in (1, 2)}
    played = resets = 0
    while not game.is_terminal() and played < turns:
        player = game.current_player
        events = game.apply(ai.choose_action(game, rngs[player]))
        resets += sum(isinstance(event, Reset) for event in events)
        played += game.current_player != player
    return game, played, resets


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS_THAT_END)
def test_computer_games_end_with_a_winner(seed: int) -> None:
    # Two computer players finish the game: a capital falls after a global reset (not a turn cap, not a draw).
    game, played, resets = computer_game(seed, turns=TURN_CAP)
    assert game.is_terminal(), f"seed {seed}: no winner after {played} turns ({resets} resets)"
    assert game.winner in (1, 2) and game.alive == [game.winner]
    assert resets >= 1   # only a reset frees an occupied capital
    assert game.returns()[game.winner - 1] == 1.0



def test_after_a_reset_the_ring_cell_next_to_the_free_enemy_capital_is_crossed_first() -> None:
    # All land is free (as after a reset, §2.8) and player 1 is attacking: it owns (4,1), next to player 2's
    # free capital (5,1). Occupying (4,1) is what makes that capital attackable in the same turn.
    text = header(6, 3, [(0, 0), (5, 1)]) + "aaaabb\naaaaab\naaaabb\n"
    game = game_of(text, attacks=5)
    verb, cells = ai.choose_action(game, random.Random(1))
    assert verb == "attack"
    assert cells[0] == (4, 1)

"""motti's ``medium`` and ``hard`` computer players (motti/rollout.py) and the guarded march they play out
(motti/march.py ``guarded=True``): what they weigh at the start of a turn, what they choose, and that they
are deterministic (spec/motti.md §2.2, §2.5, §2.7)."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from motti import levels, march, rollout
from motti.evaluate import cells_of, cells_won
from motti.mapfile import parse_map
from motti.rules import Game, Move, takeable_cells

#: A small budget for the tests; the levels' own are rollout.MEDIUM and rollout.HARD.
QUICK = rollout.Budget(rollouts=4, turns=2)


def game_of(rows: list[str], capitals: list[tuple[int, int]], **kwargs: object) -> Game:
    lines = ["motti-map 1", f"size {len(rows[0])} {len(rows)}", f"players {len(capitals)}"]
    lines += [f"capital {k} {x} {y}" for k, (x, y) in enumerate(capitals, start=1)]
    text = "\n".join([*lines, "grid", *rows]) + "\n"
    return Game(parse_map(text).board, random.Random(0), **kwargs)


#: Player 2's eight cells left of the sea reach its capital (6,1) only through (4,2): a Guerilla of player 1
#: there (diagonal to its wall (3,1)) closes the pocket and wins the nine cells; one on (3,2) wins less.
POCKET = ["bbbA.bbb", "bbbA.bbb", "AAbbbbbb", "aaaa.bbb"]


def test_the_levels_are_this_module_with_their_budgets() -> None:
    game = game_of(POCKET, [(0, 3), (6, 1)])
    assert levels.choose_action(game, random.Random(5), "medium") == rollout.choose_action(
        game, random.Random(5), rollout.MEDIUM)
    assert levels.choose_action(game, random.Random(5), "hard") == rollout.choose_action(
        game, random.Random(5), rollout.HARD)
    assert (rollout.MEDIUM.rollouts, rollout.MEDIUM.turns) < (rollout.HARD.rollouts, rollout.HARD.turns)
    # medium plays out easy's march, hard the guarded one: later in a turn each attacks as its march
    late = game_of(POCKET, [(0, 3), (6, 1)], attacks=5)
    for level, guarded in (("medium", False), ("hard", True)):
        assert levels.choose_action(late, random.Random(2), level) == march.choose_action(
            late, random.Random(2), guarded=guarded)


def test_it_weighs_the_march_a_defence_and_the_guerillas_that_win_most() -> None:
    game = game_of(POCKET, [(0, 3), (6, 1)])
    first = march.choose_action(game, random.Random(0), guarded=True)
    moves = rollout.candidates(game, first)
    # The guarded march attacks, its open capital (0,3) first: player 2 owns (2,2), two cells from it.
    assert moves[0] == first
    assert moves[0][0] == "attack" and moves[0][1][0] == (0, 3)
    assert moves[1:] == [march.defence(game, 1), ("guerilla", (4, 2)), ("guerilla", (3, 2))]
    assert cells_won(game, ("guerilla", (4, 2))) == 9
    assert cells_won(game, ("guerilla", (3, 2))) < 9


def test_the_playouts_choose_the_guerilla_that_closes_a_pocket() -> None:
    game = game_of(POCKET, [(0, 3), (6, 1)])
    for seed in range(3):
        assert rollout.choose_action(game, random.Random(seed), QUICK) == ("guerilla", (4, 2))


def test_a_capital_taken_by_guerilla_is_played_at_once() -> None:
    # Player 2's open capital (3,1) is next to player 1's wall (2,1).
    game = game_of(["aaAbbb", "aaAbbb", "aaAbbb"], [(0, 0), (3, 1)])
    assert rollout.choose_action(game, random.Random(0), QUICK) == ("guerilla", (3, 1))


def test_later_in_the_turn_it_attacks_as_the_guarded_march() -> None:
    game = game_of(POCKET, [(0, 3), (6, 1)], attacks=5)
    assert rollout.choose_action(game, random.Random(2), QUICK) == march.choose_action(
        game, random.Random(2), guarded=True)


def test_the_guarded_march_takes_back_and_mends_the_cells_round_its_capital_first() -> None:
    # Player 1's capital (2,2) is open. Player 2 owns (3,1), diagonal to it, which player 1 can cross from its
    # wall (3,0): taken back first. Player 2's wall (3,2) could attack player 1's (3,3): mended next. Then
    # the capital itself, an enemy owning cells within two of it; the march's own crosses fill the rest.
    rows = ["aaaA...", "aaab..b", "aaaB.bb", "aaaa.bb", "aaaa..b"]
    game = game_of(rows, [(2, 2), (6, 4)], attacks=5)
    assert march.fortress(game, 1) == [(3, 1), (3, 3), (2, 2)]
    for seed in range(8):
        verb, crosses = march.choose_action(game, random.Random(seed), guarded=True)
        assert verb == "attack" and crosses[:3] == ((3, 1), (3, 3), (2, 2)) and len(crosses) == 6
    # the plain march ranks them by steps to the enemy capital, (2,2) and (3,3) equal: its ties order them
    plain = {march.choose_action(game, random.Random(seed))[1][:3] for seed in range(8)}
    assert plain == {((3, 1), (3, 3), (2, 2)), ((3, 1), (2, 2), (3, 3))}


def test_a_playout_is_worth_the_land_lead_or_the_end() -> None:
    game = game_of(POCKET, [(0, 3), (6, 1)])
    assert rollout.value(game, 1) == 8 - 21
    assert rollout.value(game, 2) == 21 - 8
    won = game_of(["aaAbbb", "aaAbbb", "aaAbbb"], [(0, 0), (3, 1)])
    won.guerilla((3, 1))
    assert rollout.value(won, 1) == rollout.WON and rollout.value(won, 2) == -rollout.WON


def test_the_same_seed_gives_the_same_choice() -> None:
    game = game_of(POCKET, [(0, 3), (6, 1)])
    first = [rollout.choose_action(game, random.Random(s), QUICK) for s in range(4)]
    assert first == [rollout.choose_action(game, random.Random(s), QUICK) for s in range(4)]


def test_on_a_big_board_the_playouts_shrink_and_then_the_guarded_march_plays_alone() -> None:
    # 20 x 40 cells of land: twice FULL_LAND, so a budget of 16 playouts becomes 8, one of 3 becomes 1 (none).
    rows = ["a" * 20] * 20 + ["b" * 20] * 20
    game = game_of(rows, [(2, 2), (17, 37)])
    assert int(game.board.land.sum()) == 2 * rollout.FULL_LAND
    alone = rollout.Budget(rollouts=3, turns=2)
    assert rollout.choose_action(game, random.Random(1), alone) == march.choose_action(
        game, random.Random(1), guarded=True)


def test_only_the_march_and_the_best_candidates_play_the_second_half(monkeypatch: pytest.MonkeyPatch) -> None:
    # Four candidates (the march, its defence, two Guerillas): each plays the first two of QUICK's four seeds,
    # then the march's move and the FINALISTS (2) best of the other three the last two.
    game = game_of(POCKET, [(0, 3), (6, 1)])
    played: dict[Move, list[float]] = defaultdict(list)
    real = rollout.playout

    def counted(game: Game, me: int, move: Move, seed: int, end: int, guarded: bool = True) -> float:
        worth = real(game, me, move, seed, end, guarded)
        played[move].append(worth)
        return worth

    monkeypatch.setattr(rollout, "playout", counted)
    chosen = rollout.choose_action(game, random.Random(0), QUICK)
    moves = rollout.candidates(game, march.choose_action(game, random.Random(0), guarded=True))
    assert len(moves) == 4 and rollout.FINALISTS == 2
    assert sorted(len(played[m]) for m in moves) == [2, 4, 4, 4]
    assert len(played[moves[0]]) == 4
    dropped = next(m for m in moves if len(played[m]) == 2)
    assert sum(played[dropped]) <= min(sum(played[m][:2]) for m in moves[1:] if m != dropped)
    assert chosen == ("guerilla", (4, 2)) and len(played[chosen]) == 4


#: Player 1 owns (3,1), next to player 2's open capital (4,1); three cells hold the reset back (§2.8): (3,0)
#: next to player 1's wall, (2,1) and (3,1) next to player 2's.
STRIKE = ["AAAbB", "aaaab", "AAABB"]


def test_the_guarded_march_brings_the_reset_on_while_it_can_strike_after_it() -> None:
    # One attack of the turn played already: at its start the guarded march would defend its open capital,
    # three cells from player 2's wall (3,2).
    game = game_of(STRIKE, [(0, 1), (4, 1)], attacks=5)
    assert cells_of(takeable_cells(game.board)) == [(3, 0), (2, 1), (3, 1)]
    assert (march.strikes(game, 1, 2), march.strikes(game, 2, 1)) == (1, 0)
    assert march.choose_action(game, random.Random(0), guarded=True) == ("attack", ((3, 0), (2, 1), (3, 1)))
    # The plain march (easy) crosses the enemy cell and its own nearest the enemy capital instead.
    assert march.choose_action(game, random.Random(0))[1] != ((3, 0), (2, 1), (3, 1))
    # With three attacks left the reset would give it too few to strike with.
    late = game_of(STRIKE, [(0, 1), (4, 1)], attacks=3)
    assert march.choose_action(late, random.Random(0), guarded=True) == march.choose_action(
        late, random.Random(0))


def test_the_guarded_march_holds_the_reset_back_late_in_its_turn_when_an_enemy_could_strike() -> None:
    # Player 2 in turn: its fortress crosses take back (3,1), mend (3,0) and occupy its capital (4,1); with
    # three attacks left, the two that hold the reset back are left out.
    early = game_of(STRIKE, [(0, 1), (4, 1)], turn=2, attacks=4)
    assert march.choose_action(early, random.Random(0), guarded=True) == ("attack", ((3, 1), (3, 0), (4, 1)))
    late = game_of(STRIKE, [(0, 1), (4, 1)], turn=2, attacks=3)
    assert march.choose_action(late, random.Random(0), guarded=True) == ("attack", ((4, 1),))
    occupied = game_of(["AAAbB", "aaaaB", "AAABB"], [(0, 1), (4, 1)], turn=2, attacks=3)
    assert march.reset_timing(occupied, 2, ("attack", ((3, 1), (3, 0)))) == ("pass",)
    # Under the `empty` reset rule every free cell holds the reset back, its capital too: it passes.
    empty = game_of(STRIKE, [(0, 1), (4, 1)], turn=2, attacks=3, reset_rule="empty")
    assert march.choose_action(empty, random.Random(0), guarded=True) == ("pass",)


#: Three players: player 1 (in turn) owns (0,1) and (1,1), which player 3's wall (0,0) could take (they hold
#: the reset back, §2.8), far from every enemy capital; its wall (7,1) can cross (7,0) and (8,1).
QUIET = ["Cccccccccc", "aaaaaaaAbb", "aaaaaaaabb"]


def test_with_three_players_the_guarded_march_quiets_its_fronts_after_one_enemy_cross() -> None:
    # One attack of the turn played already. Among three players the march keeps no fortress: its open
    # capital (3,2), three cells from player 3's wall (0,0), is not crossed.
    game = game_of(QUIET, [(3, 2), (9, 2), (9, 0)], attacks=5)
    assert march.choose_action(game, random.Random(0), guarded=True) == (
        "attack", ((7, 0), (0, 1), (1, 1), (8, 1), (7, 2), (6, 2)))
    for seed in range(8):
        crosses = march.choose_action(game, random.Random(seed), guarded=True)[1]
        assert crosses[0] in {(7, 0), (8, 1)} and crosses[1:3] == ((0, 1), (1, 1))
    # With two players (the wall player 2's) the reset timing alone orders the crosses: (1,1), which no wall
    # could attack, is left for later.
    two = game_of(["B" + QUIET[0][1:].lower().replace("c", "b"), *QUIET[1:]], [(3, 2), (9, 2)])
    for seed in range(8):
        assert (1, 1) not in march.choose_action(two, random.Random(seed), guarded=True)[1]
    assert march.quiet_fronts(game, 1, ("pass",)) == ("pass",)

"""motti's ``easy`` computer player, the march that ``medium`` and ``hard`` play guarded (motti/march.py):
what it defends, what it takes, where its crosses go, and that it never plays a pass in disguise
(spec/motti.md §2.2, §2.5, §2.7, §2.8)."""

from __future__ import annotations

import random

import pytest

from motti import evaluate, levels, march
from motti.evaluate import brings_reset, capital_in_danger, changes_nothing
from motti.generate import generate
from motti.mapfile import parse_map
from motti.rules import Action, Game


def game_of(rows: list[str], capitals: list[tuple[int, int]], **kwargs: object) -> Game:
    lines = ["motti-map 1", f"size {len(rows[0])} {len(rows)}", f"players {len(capitals)}"]
    lines += [f"capital {k} {x} {y}" for k, (x, y) in enumerate(capitals, start=1)]
    text = "\n".join([*lines, "grid", *rows]) + "\n"
    return Game(parse_map(text).board, random.Random(0), **kwargs)


def test_the_easy_level_is_this_module() -> None:
    assert levels.CHOOSERS["easy"] is march.choose_action
    game = game_of(["aaAbbb", "aaAbbb", "aaAbbb"], [(0, 0), (3, 1)])
    assert levels.choose_action(game, random.Random(0), "easy") == ("guerilla", (3, 1))


# ----------------------------------------------------------------------------------------------- it takes


def test_it_takes_a_capital_by_guerilla() -> None:
    # T13's board: player 2's open capital (3,1) is next to player 1's wall, so a Guerilla captures it.
    game = game_of(["aaAbbb", "aaAbbb", "aaAbbb"], [(0, 0), (3, 1)])
    move = march.choose_action(game, random.Random(0))
    assert move == ("guerilla", (3, 1))
    game.apply(move)
    assert game.winner == 1


def test_the_capture_comes_before_its_own_defence() -> None:
    # Its own capital (1,1) is in danger (player 2's wall (2,2) is diagonal to it), but player 2's capital
    # (4,1) is diagonal to its wall (3,0): taking it ends the game, so it does not defend.
    game = game_of(["aaaAbb", "aaabbb", "aaBbbb"], [(1, 1), (4, 1)])
    assert capital_in_danger(game, 1)
    assert march.choose_action(game, random.Random(0)) == ("guerilla", (4, 1))


def test_it_strikes_an_open_capital_from_the_ring_cells_it_owns() -> None:
    # Right after a reset nothing is occupied; player 1 owns two cells next to player 2's capital (4,2) and
    # has 5 attacks left. It occupies a ring cell, then crosses the capital itself; when each attack conquers
    # its first cross (draw 0) the second attack takes it.
    rows = ["a......", "....b..", "...aba.", "....b..", "......."]
    game = game_of(rows, [(0, 0), (4, 2)], attacks=5)
    verb, crosses = march.choose_action(game, random.Random(1))
    assert verb == "attack" and set(crosses[:2]) == {(3, 2), (5, 2)} and crosses[2:] == ((0, 0),)
    game.attack(list(crosses), draw=0)
    verb, crosses = march.choose_action(game, random.Random(1))
    assert verb == "attack" and crosses[0] == (4, 2)
    game.attack(list(crosses), draw=0)
    assert game.winner == 1


def test_its_attack_crosses_the_enemy_cell_then_its_own_nearest_the_enemy_capital() -> None:
    # T1's board: (2,1) is the only enemy cell player 1 can cross; its own cells follow by steps over land to
    # player 2's capital (3,0): (1,0) 2 steps, (0,0) 3, (1,2) and (0,1) 4 (a tie the rng breaks), (0,2) 5.
    game = game_of(["aabb", "aAbb", "aabb"], [(0, 0), (3, 0)])
    verb, crosses = march.choose_action(game, random.Random(0))
    assert verb == "attack"
    assert crosses[:3] == ((2, 1), (1, 0), (0, 0))
    assert set(crosses[3:5]) == {(1, 2), (0, 1)} and crosses[5] == (0, 2)


def test_two_of_its_cells_under_attack_come_first_then_those_nearest_the_enemy_capital() -> None:
    # Player 2's wall (column 0) could attack five cells of player 1 (column 1), which has no wall to attack
    # from. The two of them nearest player 2's capital (8,2) come first: (1,2) 7 steps, then (1,1) or (1,3)
    # 8; the other crosses go to its cells nearest that capital: (6,2), (7,1), (7,3) 2 steps, one at 3.
    game = game_of(["Baaaaaaab", "Baaaaaaab", "Baaaaaabb", "Baaaaaaab", "Baaaaaaab"], [(4, 2), (8, 2)])
    verb, crosses = march.choose_action(game, random.Random(0))
    assert verb == "attack" and crosses[0] == (1, 2) and crosses[1] in {(1, 1), (1, 3)}
    assert set(crosses[2:5]) == {(6, 2), (7, 1), (7, 3)}
    assert crosses[5] in {(6, 1), (6, 3), (7, 0), (7, 4), (5, 2)}


def test_an_enemy_cell_keeps_a_cross_when_ring_cells_fill_the_others() -> None:
    # Three players: the open capitals of players 2 (5,1) and 3 (5,4) have eight cells of player 1 next to
    # them, which come first; the enemy cell (2,2) next to player 1's wall (1,2) still gets the sixth cross.
    rows = ["aaaaaaa",
            "aaaaaba",
            "aAbbaaa",
            "aaaaaaa",
            "aaaaaca",
            "aaaaaaa"]
    game = game_of(rows, [(0, 0), (5, 1), (5, 4)], attacks=5)
    verb, crosses = march.choose_action(game, random.Random(0))
    assert verb == "attack" and len(crosses) == 6
    owners = [int(game.board.owner[y, x]) for x, y in crosses]
    assert owners[:5] == [1] * 5 and crosses[5] == (2, 2)
    rings = {(4, 1), (6, 1), (5, 0), (5, 2), (4, 4), (6, 4), (5, 3), (5, 5)}
    assert set(crosses[:5]) <= rings


# ---------------------------------------------------------------------------------------------- it defends


def test_it_defends_its_open_capital_against_a_wall_two_cells_away() -> None:
    # Player 2's wall (3,1) is two cells from player 1's open capital (1,1): it occupies the capital, the ring
    # cell (2,1) that touches player 2's land, then the next ring cell (0,1).
    game = game_of(["aaaabbb", "aaaBbbb", "aaaabbb"], [(1, 1), (6, 1)])
    assert march.choose_action(game, random.Random(0)) == ("defend", ((1, 1), (2, 1), (0, 1)))


def test_a_wall_three_cells_away_is_no_danger_yet_and_its_own_cell_under_attack_is_filled_first() -> None:
    # Player 2's wall (4,0) is three cells from player 1's capital (1,1): no Defend. Player 1 has no wall, so
    # it crosses its own cells: (3,0), which that wall could attack, first, then by steps to player 2's
    # capital (6,1): (3,1) 3 steps, (3,2) and (2,1) 4.
    game = game_of(["aaaaBbb", "aaaabbb", "aaaabbb"], [(1, 1), (6, 1)])
    assert not capital_in_danger(game, 1)
    verb, crosses = march.choose_action(game, random.Random(0))
    assert verb == "attack" and crosses[:2] == ((3, 0), (3, 1)) and set(crosses[2:4]) == {(3, 2), (2, 1)}


def test_the_guarded_march_defends_against_a_wall_three_cells_away() -> None:
    # The same board for hard's guarded march: from three cells away a keen enemy takes an open capital within
    # one turn now and then (seed 1 of `motti generate` lost hard its capital in turn 3 that way), so it
    # occupies the capital, the ring cell (2,1) that touches player 2's land, then the next ring cell (0,1).
    game = game_of(["aaaaBbb", "aaaabbb", "aaaabbb"], [(1, 1), (6, 1)])
    assert march.choose_action(game, random.Random(0), guarded=True) == ("defend", ((1, 1), (2, 1), (0, 1)))
    far = game_of(["aaaaaBb", "aaaaabb", "aaaaabb"], [(1, 1), (6, 1)])
    assert march.choose_action(far, random.Random(0), guarded=True)[0] == "attack"


def test_after_a_reset_it_defends_a_capital_an_enemy_owns_a_cell_next_to() -> None:
    # Nothing is occupied, but player 2 owns (1,0) next to player 1's capital (0,0): on its turn it could
    # occupy that cell and take the capital. Player 1 occupies the capital and its other ring cell (0,1).
    game = game_of(["abbbbb", "aabbbb"], [(0, 0), (5, 1)])
    assert capital_in_danger(game, 1)
    assert march.choose_action(game, random.Random(0)) == ("defend", ((0, 0), (0, 1)))


def test_among_three_players_it_presses_on() -> None:
    # The boards above with player 3 beside player 2. Player 2 owning (1,0) next to player 1's open capital is
    # no reason to defend among three, nor is a wall three cells away for the guarded march; a wall within
    # two cells still is. The plain march mends none of its own cells: (3,1), nearest player 2's capital, is
    # crossed before (3,0), which player 2's wall could attack.
    ringed = game_of(["abbbbbcc", "aabbbbcc"], [(0, 0), (5, 1), (7, 0)])
    assert capital_in_danger(ringed, 1) and not capital_in_danger(ringed, 1, ring=False)
    for guarded in (False, True):
        assert march.choose_action(ringed, random.Random(0), guarded)[0] == "attack"
    three = game_of(["aaaaBbbcc", "aaaabbbcc", "aaaabbbcc"], [(1, 1), (6, 1), (8, 1)])
    assert march.choose_action(three, random.Random(0), guarded=True)[0] == "attack"
    verb, crosses = march.choose_action(three, random.Random(0))
    assert verb == "attack" and crosses[0] == (3, 1) and (3, 0) in crosses[1:]
    near = game_of(["aaaBbbbcc", "aaabbbbcc", "aaabbbbcc"], [(1, 1), (6, 1), (8, 1)])
    assert march.choose_action(near, random.Random(0), guarded=True) == ("defend", ((1, 1), (2, 1), (0, 1)))


def test_an_occupied_capital_needs_no_defence() -> None:
    game = game_of(["Abbbbb", "aBbbbb"], [(0, 0), (5, 1)])
    assert not capital_in_danger(game, 1)
    assert march.choose_action(game, random.Random(0))[0] == "attack"


# ------------------------------------------------------------------------------------------ no disguised pass


def test_it_leaves_a_guerilla_that_is_encircled_straight_back() -> None:
    # A Guerilla on (4,1), diagonal to player 1's wall (3,0), would be encircled at once by player 2's walls
    # around it (a pass in disguise); player 1 attacks its own land instead.
    game = game_of(["aaaABbb", "aaaBbBb", "aaaaBbb"], [(0, 1), (6, 1)])
    assert game.legal_mask(Action.GUERILLA)[1, 4]
    assert changes_nothing(game, ("guerilla", (4, 1)))
    move = march.choose_action(game, random.Random(0))
    assert move[0] == "attack" and len(move[1]) == 6
    assert not changes_nothing(game, move)


def test_with_no_cell_to_attack_it_takes_a_foothold_by_guerilla() -> None:
    # Every cell of player 1 is occupied and sea parts its land from player 2's, so no cell can be crossed for
    # an attack; (2,2) is diagonal to its wall (1,1), and no enemy wall can encircle it there.
    game = game_of(["AA.bbb", "AA.bbb", "..bbbb"], [(0, 0), (5, 1)])
    assert not game.legal_mask(Action.ATTACK).any()
    move = march.choose_action(game, random.Random(0))
    assert move == ("guerilla", (2, 2))
    assert not changes_nothing(game, move)


def test_with_no_cell_to_attack_and_only_a_disguised_guerilla_it_passes() -> None:
    # A Guerilla onto (4,1), diagonal to player 1's wall (3,0), would be encircled at once by player 2's walls
    # around it; every cell of player 1 is occupied and sea or walls part it from player 2's free cells, so
    # it passes rather than play the Guerilla the encirclement undoes.
    game = game_of(["AAAABbb", "AA.BbBb", "AA.BBbb"], [(0, 1), (6, 1)])
    assert not game.legal_mask(Action.ATTACK).any() and changes_nothing(game, ("guerilla", (4, 1)))
    assert march.choose_action(game, random.Random(0)) == ("pass",)


def test_with_an_enemy_cell_next_to_its_capital_it_passes_rather_than_bring_the_reset_by_guerilla() -> None:
    # Player 1 can cross no cell for an attack; a Guerilla onto (2,3), diagonal to its wall (1,2), would take
    # the last free cell anybody can reach, so the global reset follows and the turn ends with it. Player 2
    # owns (2,0), next to player 1's capital (1,0): on the reset board it would move first, a step from the
    # open capital. (Hard played such a foothold against rush, seed 3006, and lost its capital the next turn.)
    rows = ["AABbb", "AA..b", "AA..b", "..b.b"]
    game = game_of(rows, [(1, 0), (4, 2)])
    foothold = ("guerilla", (2, 3))
    assert not game.legal_mask(Action.ATTACK).any() and game.legal_mask(Action.GUERILLA)[3, 2]
    assert not changes_nothing(game, foothold) and brings_reset(game, foothold)
    assert march.ringed(game, 1) and not march.ringed(game, 2)
    assert march.choose_action(game, random.Random(0)) == ("pass",)
    # With its capital at (0,1), no enemy cell is next to it: the same Guerilla is its foothold.
    assert march.choose_action(game_of(rows, [(0, 1), (4, 2)]), random.Random(0)) == foothold


@pytest.mark.parametrize("seed", [3, 4])
def test_every_move_of_a_whole_game_changes_the_board(seed: int) -> None:
    # easy against easy on a generated 20x15 map, to the end or 100 turns: every move changes the board, and a
    # pass comes only when no cell can be crossed for an attack and no Guerilla onto an enemy cell would hold.
    game = Game(generate(20, 15, 2, random.Random(seed)), random.Random(seed))
    rngs = {1: random.Random(seed), 2: random.Random(seed + 1)}
    moves = 0
    while not game.is_terminal() and game.turns < 100:
        move = march.choose_action(game, rngs[game.current_player])
        if move == ("pass",):
            assert not game.legal_mask(Action.ATTACK).any()
            me = game.current_player
            footholds = [m for m in game.legal_actions()
                         if m[0] == "guerilla" and game.board.owner[m[1][1], m[1][0]] != me]
            assert game.attacked or all(changes_nothing(game, m) for m in footholds)
        else:
            assert not changes_nothing(game, move), move
        game.apply(move)
        moves += 1
    assert moves > 40


def test_the_same_seed_gives_the_same_game() -> None:
    def moves(seed: int) -> list[tuple]:
        game = Game(generate(20, 15, 2, random.Random(7)), random.Random(7))
        rng = random.Random(seed)
        out = []
        while not game.is_terminal() and game.turns < 40:
            out.append(march.choose_action(game, rng))
            game.apply(out[-1])
        return out

    assert moves(11) == moves(11)
    assert moves(11) != moves(12)


def test_its_moves_do_not_depend_on_the_games_it_played_before() -> None:
    # The march keeps the steps to the enemy capitals of the last maps it saw (one land mask each, in
    # motti.evaluate.per_land): two games with the same capitals on different land, played turn about, move as
    # each does alone, with those answers forgotten. The second map has a lake of 3x3 cells in the middle of
    # the first.
    def start(lake: int) -> tuple[Game, random.Random]:
        board = generate(20, 15, 3, random.Random(5))
        if lake:
            board.land[6:9, 8:11] = board.owner[6:9, 8:11] = board.occupied[6:9, 8:11] = False
        return Game(board, random.Random(5)), random.Random(5)

    def alone(lake: int) -> list[tuple]:
        evaluate._kept.clear()
        game, rng = start(lake)
        out = []
        while not game.is_terminal() and game.turns < 30:
            out.append(march.choose_action(game, rng, guarded=True))
            game.apply(out[-1])
        return out

    expected = {lake: alone(lake) for lake in (0, 1)}
    assert expected[0] != expected[1]
    games = {lake: start(lake) for lake in (0, 1)}
    played: dict[int, list[tuple]] = {0: [], 1: []}
    while any(len(played[lake]) < len(expected[lake]) for lake in games):
        for lake, (game, rng) in games.items():
            if len(played[lake]) < len(expected[lake]):
                played[lake].append(march.choose_action(game, rng, guarded=True))
                game.apply(played[lake][-1])
    assert played == expected

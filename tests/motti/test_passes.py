"""No computer level plays a pass in disguise (issue 28; spec/motti.md §2.2, §2.5, §2.8): a move whose every
outcome leaves the board as it was, once its encirclement is resolved, or a Guerilla the next player undoes at
once. The positions are those of two ``hard`` players on the shipped ``classic`` map, seed 2000 (``motti
classic --seed 2000 --headless --computer 1:hard,2:hard``), where the levels used to lock into such moves."""

from __future__ import annotations

import random

import numpy as np
import pytest

from motti import evaluate, levels
from motti.mapfile import find_map, load_map, parse_map
from motti.rules import Game

TURN_44 = (
    "...bbbbbbbbbb.......\n"
    "..bbbbbbbbbbbbbb....\n"
    ".bbbbbbbbbbbbbbbbb..\n"
    ".bbbbbbbbbbbbbbbbbb.\n"
    "bbbb..bbbBbbbbbbbbbb\n"
    "bbb....bbbbbbbbbBbbb\n"
    ".bbb...bbbbbb.bbBbbb\n"
    ".bbbbBBBbbbbbbb..bbb\n"
    "..BBBBBbbbbbbbbbbbb.\n"
    ".AAABBbbbbbbbbbbbbB.\n"
    "bBBBBbbbbbbbbbbbbbBb\n"
    ".bbBbbbb..bbbbbbbBb.\n"
    "..bbbbb....bbbbbbb..\n"
    "...bbb......bbbbb...\n"
    ".....b.......bbb....\n"
)
TURN_54 = (
    "...bbbbbbbbbb.......\n"
    "..bbbbbbbbbbbbbb....\n"
    ".bbbbbbbbbbbbbbbbb..\n"
    ".bbbbbbbbbbbbbbbbbb.\n"
    "bbbb..bbbbbbbbbbbbbb\n"
    "bbb....bbbbbbbbBBbbb\n"
    ".bbb...bbbbbb.Bbbbbb\n"
    ".bbBAABbbbbbbbB..bbb\n"
    "..BBABbbbbbbbbbbbbb.\n"
    ".BAAABbbbbbbbbbbbbb.\n"
    "bBABBBbbbbbbbbbbbbbb\n"
    ".bBbbbbb..bbbbbbbbb.\n"
    "..bbbbb....bbbbbbb..\n"
    "...bbb......bbbbb...\n"
    ".....b.......bbb....\n"
)


def classic(grid: str, turn: int, takeable: int) -> Game:
    """``classic``'s land and capitals with *grid*'s owners and occupation, *turn* to move at a fresh turn."""
    board = load_map(find_map("classic")).board
    capitals = "\n".join(f"capital {p} {x} {y}" for p, (x, y) in sorted(board.capitals.items()) if (x, y))
    text = (f"motti-map 1\nsize {board.width} {board.height}\nplayers {board.players}\n{capitals}\n"
            f"turn {turn}\ntakeable {takeable}\ngrid\n{grid}")
    state = parse_map(text)
    assert np.array_equal(state.board.land, board.land)
    return Game(state.board, random.Random(0), turn=turn, takeable=state.takeable)


def test_a_guerilla_encircled_straight_back_changes_nothing() -> None:
    # Turn 44: player 1 holds only (1,9), (2,9) and its capital (3,9), all occupied. A Guerilla onto (0,10),
    # diagonal to (1,9), is a pocket walled in by player 2's (1,10) at once: it goes straight back.
    game = classic(TURN_44, 1, 1)
    assert evaluate.changes_nothing(game, ("guerilla", (0, 10)))
    assert evaluate.futile(game, ("guerilla", (0, 10)))


@pytest.mark.parametrize("level", levels.LEVELS)
def test_no_level_plays_a_pass_in_disguise_at_turn_44(level: str) -> None:
    game = classic(TURN_44, 1, 1)
    move = levels.choose_action(game, random.Random(44), level)
    assert move == ("pass",) or not evaluate.futile(game, move), move


def swapping(moves: int) -> Game:
    """The position after *moves* of the Guerillas the two players swapped from turn 54: player 1's onto
    (1,11), player 2's onto (1,10), and so on."""
    game = classic(TURN_54, 1, 1)
    for cell in [(1, 11), (1, 10)] * (moves // 2) + [(1, 11)] * (moves % 2):
        game.apply(("guerilla", cell))
    return game


def test_the_swapped_guerillas_undo_each_other() -> None:
    # Turn 54: player 1's Guerilla onto (1,11) walls in player 2's (1,9), (0,10) and (1,10), and is itself
    # walled in; player 2's onto (1,10) takes (0,10) back. From turn 56 on, each of the two Guerillas gives
    # back the board of two moves before: the players swapped these cells every turn.
    start = swapping(0)
    assert not evaluate.undone_at_once(start, ("guerilla", (1, 11)))
    assert swapping(1).board.owner[9, 1] == 1
    for moves, cell in ((2, (1, 11)), (3, (1, 10))):
        game = swapping(moves)
        assert not evaluate.changes_nothing(game, ("guerilla", cell))
        assert evaluate.undone_at_once(game, ("guerilla", cell))
        later = swapping(moves + 2)
        assert np.array_equal(later.board.owner, game.board.owner)
        assert np.array_equal(later.board.occupied, game.board.occupied)


@pytest.mark.parametrize("level", levels.LEVELS)
@pytest.mark.parametrize(("moves", "undone"), [(2, (1, 11)), (3, (1, 10))])
def test_no_level_swaps_cells_for_ever(level: str, moves: int, undone: tuple[int, int]) -> None:
    game = swapping(moves)
    move = levels.choose_action(game, random.Random(moves), level)
    assert move != ("guerilla", undone)
    assert not evaluate.futile(game, move), move


def test_hard_against_hard_from_turn_54_never_repeats_a_position() -> None:
    # From the loop's first position, twelve turns of two hard players: no turn may start on a board (owners,
    # occupation, player in turn) that an earlier turn started on.
    game = classic(TURN_54, 1, 1)
    rng = random.Random(54)
    seen: set[bytes] = set()
    for _turn in range(12):
        if game.is_terminal():
            break
        key = bytes([game.current_player]) + game.board.owner.tobytes() + game.board.occupied.tobytes()
        assert key not in seen
        seen.add(key)
        levels.play_turn(game, rng, "hard")

"""The words, numbers and states of arena's JSON (replays, serialized states) as types for msgspec's typed
decoder (spec/arena.md §2, §4): a value of the wrong kind is named by its JSON path. The words mirror the
rules' tuples (:data:`arena.rules.DIRECTIONS`, :data:`arena.rules.MOVES`, the teams,
:data:`arena.rules.REFUSALS`), which this module checks at import; :class:`State` is a game's state as a
replay records it (:meth:`arena.rules.Game.snapshot`)."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

import msgspec

from arena.rules import BLUE, DIRECTIONS, MOVES, RED, REFUSALS, START_ENERGY

#: A whole number from 0.
Count = Annotated[int, msgspec.Meta(ge=0)]
#: A player's energy in hundredths, 0..START_ENERGY.
Energy = Annotated[int, msgspec.Meta(ge=0, le=START_ENERGY)]
#: Points as an exact fraction ``"num/den"`` (``"7/2"``).
PointsText = Annotated[str, msgspec.Meta(pattern=r"^-?[0-9]+/[1-9][0-9]*$")]
Direction = Literal["NORTH", "NORTH_EAST", "EAST", "SOUTH_EAST", "SOUTH", "SOUTH_WEST", "WEST", "NORTH_WEST"]
MoveName = Literal["NORTH", "NORTH_EAST", "EAST", "SOUTH_EAST", "SOUTH", "SOUTH_WEST", "WEST", "NORTH_WEST",
                   "NONE"]
Team = Literal["BLUE", "RED"]
Refusal = Literal["wall", "player", "corner"]
assert get_args(Direction) == DIRECTIONS and get_args(MoveName) == MOVES and get_args(Team) == (BLUE, RED)
assert get_args(Refusal) == REFUSALS
#: A map's walls as rows of ``#`` (wall) and `` `` (free), at least one row.
WallRows = Annotated[list[Annotated[str, msgspec.Meta(pattern=r"^[# ]+$")]], msgspec.Meta(min_length=1)]


class PlayerState(msgspec.Struct):
    """``state.players[i]`` (:meth:`arena.rules.Game.snapshot`)."""

    id: Count
    x: Count
    y: Count
    facing: Direction
    team: Team
    energy: Energy
    points: PointsText
    catches: Count
    switch_round: Count | None = None


class State(msgspec.Struct):
    """A state: the round, the limits and every player."""

    round: Count
    max_rounds: Count
    players: list[PlayerState]

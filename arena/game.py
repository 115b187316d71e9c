"""arena through the one game interface (common/game.py; spec/arena.md §2).

A round is one simultaneous step: :meth:`ArenaState.current_player` is ``SIMULTANEOUS`` while the game runs
and ``TERMINAL`` once no BLUE is left. An action is one int, ``8 * move + facing``: ``move`` indexes
:data:`arena.rules.MOVES` (the eight directions, then ``NONE`` = 8) and ``facing`` indexes
:data:`arena.rules.DIRECTIONS`; :func:`action` and :func:`decode` convert. A player's legal actions are every
facing with ``NONE`` or with a direction the walls allow (§2.4; occupied targets are listed, since the
occupant may leave earlier in the round, and the rules then refuse or carry out the move in arrival order).
``apply_actions(joint, order)`` plays the round with the moves arriving in ``order`` (default: player
order).

``scores()`` are the players' points (§2.8) as floats; ``returns()`` ranks the players by their exact points
(:func:`common.game.rank_returns`): (players below − players above) / (players − 1), equal points sharing, so
+1 alone on top and −1 alone at the bottom. Defined throughout (the standing so far), final once over.

``GAME.new_initial_state(seed=0, map="office", players=4, quiet_rounds=30)``: ``map`` is a shipped map name
(the declared variants, ``GAME.game_type``), a ``.map`` path or an :class:`arena.rules.Arena`; players
2..16 as the server takes them. ``GAME.game_info(players=n, quiet_rounds=f)``: a game lasts at most
MAXR = n × f rounds (§2.7), one ``apply_actions`` each.
"""

from __future__ import annotations

import json
import operator
import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Annotated, Any

import msgspec
import numpy as np

from arena.rules import DIRECTIONS, MOVES, NONE, QUIET_ROUNDS, Arena, Game
from arena.shapes import Count, PlayerState, WallRows
from common.data import shipped_dir
from common.game import (
    SIMULTANEOUS,
    TERMINAL,
    GameInfo,
    GameType,
    IllegalAction,
    Parameter,
    check_options,
    rank_returns,
)
from common.save import decode_text

__all__ = ["GAME", "GAME_TYPE", "MAX_PLAYERS", "ArenaGame", "ArenaState", "action", "decode"]

MAX_PLAYERS = 16
"""The most bots a server waits for (``arena serve --players``)."""
STATE = "arena state"
"""What the errors of :meth:`ArenaGame.deserialize_state` name the text they read."""

GAME_TYPE = GameType(
    short_name="arena",
    long_name="Right2Live arena (freiesMagazin 2010)",
    dynamics="simultaneous",
    chance_mode="sampled",
    min_num_players=2,
    max_num_players=MAX_PLAYERS,
    parameters=(
        Parameter("map", "office", (str, Arena), "a shipped map name, a .map path or an Arena (spec/arena.md "
                  "§2.2)", variants=tuple(sorted(p.stem for p in shipped_dir("arena").glob("*.map"))),
                  closed=False),
        Parameter("players", 4, int, "bots, 2..16 (spec/arena.md §2.3)", low=2, high=MAX_PLAYERS),
        Parameter("quiet_rounds", QUIET_ROUNDS, int, "F, the rounds without a team change before a forced "
                  "switch; MAXR = players × F (spec/arena.md §2.7)", low=1),
    ),
    spec="spec/arena.md",
)

_FACINGS = len(DIRECTIONS)
_NONE_INDEX = MOVES.index(NONE)
_TOXIC_CHARS = "abcdefghijklmnopqrstu"
"""Toxicity 1..20 hundredths written one character per cell in :meth:`ArenaState.serialize`."""


def action(direction: str, facing: str) -> int:
    """The action of moving ``direction`` (one of :data:`arena.rules.MOVES`: a direction or ``"NONE"``) and
    facing ``facing`` (one of :data:`arena.rules.DIRECTIONS`). Raises ValueError naming a word that is
    neither."""
    if direction not in MOVES:
        raise ValueError(f"no arena move {direction!r}: one of {', '.join(MOVES)}")
    if facing not in DIRECTIONS:
        raise ValueError(f"no arena facing {facing!r}: one of {', '.join(DIRECTIONS)}")
    return _FACINGS * MOVES.index(direction) + DIRECTIONS.index(facing)


def decode(value: int) -> tuple[str, str]:
    """(direction or "NONE", facing) of an action int. Raises ValueError outside 0..71."""
    if not 0 <= value < len(MOVES) * _FACINGS:
        raise ValueError(f"no arena action {value!r}")
    return MOVES[value // _FACINGS], DIRECTIONS[value % _FACINGS]


class ArenaState:
    """One arena game (:class:`arena.rules.Game`) and its random generator, as a
    :class:`common.game.State`."""

    def __init__(self, game: Game, rng: random.Random) -> None:
        self.game = game
        self.rng = rng

    # --- the interface ------------------------------------------------------------------------------------
    def num_players(self) -> int:
        return len(self.game.players)

    def current_player(self) -> int:
        return TERMINAL if self.game.is_over() else SIMULTANEOUS

    def is_terminal(self) -> bool:
        return self.game.is_over()

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Player ``player``'s actions, ascending; ``[]`` once over, for no player (in a simultaneous round
        :meth:`apply_action` takes none: :meth:`apply_actions` takes one of each player's) and for a number
        that is no player's."""
        if self.game.is_over() or player is None or not 0 <= operator.index(player) < len(self.game.players):
            return []
        p = self.game.players[player]
        moves = [m for m, d in enumerate(DIRECTIONS) if self.game.step_ok(p.x, p.y, d)] + [_NONE_INDEX]
        return [_FACINGS * m + f for m in moves for f in range(_FACINGS)]

    def apply_action(self, action: Any) -> None:
        raise IllegalAction("arena rounds are simultaneous: use apply_actions with one action per player")

    def apply_actions(self, joint: Sequence[Any], order: Sequence[int] | None = None) -> None:
        """One round: ``joint[p]`` is player p's action; ``order`` the arrival order of the moves (a
        permutation of the players, default player order), which decides contested cells (§2.4).

        Raises IllegalAction (state unchanged) for a wrong count, an unlisted action or a bad order."""
        n = self.num_players()
        if self.game.is_over():
            raise IllegalAction("the game is over")
        if len(joint) != n:
            raise IllegalAction(f"expected {n} actions, one per player, got {len(joint)}")
        arrival = list(range(n)) if order is None else list(order)
        if sorted(arrival) != list(range(n)):
            raise IllegalAction(f"order must be a permutation of the players 0..{n - 1}, got {order!r}")
        moves = []
        for pid in arrival:
            a = joint[pid]
            if type(a) is not int or a not in self.legal_actions(pid):
                raise IllegalAction(f"player {pid}: {a!r} is not a legal action")
            direction, facing = decode(a)
            moves.append((pid, direction, facing))
        self.game.play_round(moves)

    def returns(self) -> list[float]:
        """Rank-based by exact points, in [−1, 1] (module docstring)."""
        return rank_returns([p.points for p in self.game.players])

    def scores(self) -> list[float]:
        """Every player's points so far (spec/arena.md §2.8), as floats."""
        return [float(p.points) for p in self.game.players]

    def clone(self) -> ArenaState:
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        return ArenaState(self.game.copy(), rng)

    def reseed(self, seed: int) -> ArenaState:
        self.rng = random.Random(seed)
        return self

    def serialize(self) -> str:
        """JSON: the map (name, wall rows, toxicity one letter per cell), the rules snapshot and the
        generator."""
        arena = self.game.arena
        version, internal, gauss = self.rng.getstate()
        return json.dumps({
            "map": arena.name, "walls": arena.derived(_wall_rows), "toxicity": arena.derived(_toxicity_rows),
            "state": self.game.snapshot(), "rng": [version, list(internal), gauss],
        }, separators=(",", ":"))

    def __repr__(self) -> str:
        g = self.game
        return f"<arena state {g.arena.name} round {g.round}/{g.max_rounds}, {self.num_players()} players>"


def _wall_rows(arena: Arena) -> list[str]:
    """The walls as rows of ``#`` and spaces (made once per arena: :meth:`Arena.derived`)."""
    return ["".join("#" if w else " " for w in row) for row in arena.walls.tolist()]


def _toxicity_rows(arena: Arena) -> list[str]:
    """The toxicity as rows of one letter a cell (made once per arena: :meth:`Arena.derived`)."""
    return ["".join(_TOXIC_CHARS[v] for v in row) for row in arena.toxicity.tolist()]


@lru_cache(maxsize=16)
def _arena_of(name: str, walls: tuple[str, ...], toxicity: tuple[str, ...]) -> Arena:
    grid = np.array([[c == "#" for c in row] for row in walls], dtype=bool)
    tox = np.array([[_TOXIC_CHARS.index(c) for c in row] for row in toxicity], dtype=np.int16)
    return Arena(walls=grid, toxicity=tox, name=name)


class _PlayerData(PlayerState, kw_only=True, forbid_unknown_fields=True):
    """``$.state.players[i]``: a replay's player (:class:`arena.shapes.PlayerState`) and its ``stay``."""

    stay: Count


class _SnapshotData(msgspec.Struct, forbid_unknown_fields=True):
    """``$.state`` (:meth:`arena.rules.Game.snapshot`)."""

    round: Count
    quiet: Count
    quiet_rounds: Annotated[int, msgspec.Meta(ge=1)]
    max_rounds: Count
    players: list[_PlayerData]


class _StateData(msgspec.Struct, forbid_unknown_fields=True):
    """The shape of :meth:`ArenaState.serialize`'s JSON for the typed decoder."""

    map: str
    walls: WallRows
    toxicity: list[Annotated[str, msgspec.Meta(pattern=f"^[{_TOXIC_CHARS[1]}-{_TOXIC_CHARS[-1]}]+$")]]
    state: _SnapshotData
    rng: tuple[int, list[int], float | None]


class ArenaGame:
    """The arena as a :class:`common.game.Game`."""

    name = "arena"
    game_type = GAME_TYPE

    def new_initial_state(self, seed: int | None = None, **options: Any) -> ArenaState:
        """A game of ``players`` on ``map``, start cells drawn from ``random.Random(seed)`` (§2.3).

        Raises ValueError for an unknown option or a bad value (:data:`GAME_TYPE`), a map that cannot be
        loaded or is unfit for ``players``."""
        checked = check_options(GAME_TYPE, options)
        map, players, quiet_rounds = checked["map"], checked["players"], checked["quiet_rounds"]
        if isinstance(map, Arena):
            arena = map
        else:
            from arena.mapfile import find_map, load_arena, validate

            arena = load_arena(find_map(map))
            validate(arena, players)
        rng = random.Random(seed)
        return ArenaState(Game(arena, players, rng, quiet_rounds=quiet_rounds), rng)

    def game_info(self, **options: Any) -> GameInfo:
        """The players and the most rounds (MAXR = players × F, §2.7) under ``options``. Raises ValueError."""
        checked = check_options(GAME_TYPE, options)
        rounds = checked["players"] * checked["quiet_rounds"]
        return GameInfo(checked["players"], rounds, "MAXR = players × quiet_rounds rounds (§2.7)")

    def deserialize_state(self, text: str) -> ArenaState:
        """The state :meth:`ArenaState.serialize` wrote. Raises ValueError naming the fault: its line and
        column (``arena state:1:7: Input data was truncated``), its JSON path (``arena state:
        $.state.players[0].x: expected int, got str``) or the rule it breaks (``arena state: $.state: (0,0) is
        not a free cell of map office``)."""
        data = decode_text(text, _StateData, STATE)
        if len({len(row) for row in data.walls}) > 1:
            raise ValueError(f"{STATE}: $.walls: rows of equal length")
        if [len(row) for row in data.toxicity] != [len(row) for row in data.walls]:
            raise ValueError(f"{STATE}: $.toxicity: one letter for each cell of $.walls")
        arena = _arena_of(data.map, tuple(data.walls), tuple(data.toxicity))
        try:
            game = Game.from_snapshot(arena, msgspec.to_builtins(data.state))
        except (ValueError, ZeroDivisionError) as exc:
            raise ValueError(f"{STATE}: $.state: {exc}") from None
        version, internal, gauss = data.rng
        rng = random.Random()
        try:
            rng.setstate((version, tuple(internal), gauss))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{STATE}: $.rng: not a state of Python's generator ({exc})") from None
        return ArenaState(game, rng)

GAME = ArenaGame()

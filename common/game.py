"""The one game interface, with OpenSpiel's names, and :func:`load` through package entry points.

Every game of the project registers a :class:`Game` under the entry-point group ``motti_games.games``
(``pyproject.toml``); ``load("motti")`` returns it.  ``common`` names no game.

A state is played like this::

    game = load("starlanes")
    state = game.new_initial_state(seed=7)
    rng = random.Random(7)
    while not state.is_terminal():
        if state.current_player() == SIMULTANEOUS:
            state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(state.num_players())])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    print(state.returns())

Players are numbered from 0.  Actions are small hashable values (ints or tuples of ints) whose meaning each
game documents; ``legal_actions()`` lists every action ``apply_action`` accepts in the state, nothing
else, and nothing for a player who is not to act.

What every game keeps to (OpenSpiel's ``GameType``/``GameInfo`` contract; tests/test_conformance.py checks it
over every declared variant and player count):

- ``game.game_type`` (:class:`GameType`) declares the parameters (:class:`Parameter`: default, the variants,
  the range), the player counts and the dynamics; ``game.game_info(**options)`` (:class:`GameInfo`) the
  number of players, the range of ``returns()`` and the longest a game can last under those options.
- ``returns()`` is rank-based in every game (:func:`rank_returns`): (players below − players above) /
  (N − 1), ties sharing, so [−1, 1] and summing to 0; ``scores()`` is what the ranking is made of (motti's
  land, Star Lanes' net worths, arena's points).
- A bad option is a ``ValueError`` naming it (:func:`check_options`), before anything starts.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from itertools import product
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "ENTRY_POINT_GROUP",
    "SIMULTANEOUS",
    "TERMINAL",
    "Action",
    "Game",
    "GameInfo",
    "GameType",
    "IllegalAction",
    "Parameter",
    "State",
    "UnknownGame",
    "check_options",
    "game_names",
    "load",
    "rank_returns",
]

TERMINAL = -4
"""``current_player()`` of a state whose game is over (OpenSpiel's ``kTerminalPlayerId``)."""

SIMULTANEOUS = -2
"""``current_player()`` where every player acts at once, through ``apply_actions`` (OpenSpiel's value)."""

ENTRY_POINT_GROUP = "motti_games.games"

Action = Hashable
"""An action: an int or a tuple of ints, as the game documents."""


class IllegalAction(ValueError):
    """``apply_action`` or ``apply_actions`` was given an action the state does not list; nothing changed."""


class UnknownGame(LookupError):
    """``load(name)`` for a name no installed game registers."""


@dataclass(frozen=True)
class Parameter:
    """One option of ``new_initial_state`` (OpenSpiel's parameter specification).

    ``kind`` is the Python type a value must have (``int``, ``str``, ``(list, tuple)``; an ``int`` is accepted
    for a ``float``). ``variants`` are the values the game declares (the rule variants, arena's shipped
    maps); with ``closed`` they are the only ones accepted, else any value of ``kind`` is (a map file of
    one's own). Without variants any value of ``kind`` from ``low`` to ``high`` is accepted; ``optional``
    lets ``None`` through (motti's ``map``: generate one). ``doc`` says what it means, with the spec
    section."""

    name: str
    default: Any
    kind: type | tuple[type, ...]
    doc: str
    variants: tuple[Any, ...] = ()
    closed: bool = True
    low: int | None = None
    high: int | None = None
    optional: bool = False

    def check(self, value: Any) -> Any:
        """``value`` if it is one this parameter takes, else ValueError naming the parameter and the range."""
        if value is None and self.optional:
            return value
        ok = isinstance(value, self.kind) and not isinstance(value, bool)
        if self.kind is float and isinstance(value, int) and not isinstance(value, bool):
            ok, value = True, float(value)
        if not ok:
            raise ValueError(f"{self.name} must be {self._expected()}, not {value!r}")
        if self.variants and self.closed and value not in self.variants:
            raise ValueError(f"{self.name} must be {self._expected()}, not {value!r}")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise ValueError(f"{self.name} must be {self._expected()}, not {value!r}")
        return value

    def _expected(self) -> str:
        if self.variants and self.closed:
            return "one of " + ", ".join(map(str, self.variants))
        names = {int: "a whole number", str: "a text", float: "a number", (list, tuple): "a list"}
        if isinstance(self.kind, tuple) and str in self.kind:
            names[self.kind] = "a text"
        what = names.get(self.kind, str(self.kind))
        if self.low is not None and self.high is not None:
            what += f" {self.low}..{self.high}"
        elif self.low is not None:
            what += f" >= {self.low}"
        return what + (" or None" if self.optional else "")


@dataclass(frozen=True)
class GameType:
    """What a game is, whatever its options (OpenSpiel's ``GameType``).

    ``dynamics`` is ``"sequential"`` (one player at a time, ``apply_action``) or ``"simultaneous"`` (every
    player at once, ``apply_actions``); ``chance_mode`` ``"sampled"``: chance (motti's attack draw, Star
    Lanes' candidates, arena's start cells) is drawn inside the actions from the state's generator, never a
    chance player. Players ``min_num_players``..``max_num_players`` (``players`` among ``parameters`` where
    the count is an option). ``spec`` names the rules."""

    short_name: str
    long_name: str
    dynamics: str
    chance_mode: str
    min_num_players: int
    max_num_players: int
    parameters: tuple[Parameter, ...]
    spec: str

    def parameter(self, name: str) -> Parameter:
        """The parameter ``name``. Raises ValueError naming the known ones."""
        for p in self.parameters:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.parameters)
        raise ValueError(f"unknown {self.short_name} option {name!r} (options: {known})")

    def defaults(self) -> dict[str, Any]:
        """Every parameter's default."""
        return {p.name: p.default for p in self.parameters}

    def variants(self) -> list[dict[str, Any]]:
        """Every combination of the parameters' declared variants, as options (``[{}]`` when none)."""
        declared = [p for p in self.parameters if p.variants]
        return [dict(zip((p.name for p in declared), combo, strict=True))
                for combo in product(*(p.variants for p in declared))]


@dataclass(frozen=True)
class GameInfo:
    """What a game started with given options is (OpenSpiel's ``GameInfo``).

    ``returns()`` lies in ``min_utility``..``max_utility`` and sums to ``utility_sum`` (rank-based: −1..1,
    sum 0). ``max_game_length`` is the most actions a game can last (``apply_action`` calls, or
    ``apply_actions`` calls in a simultaneous game), ``None`` where it is unbounded; ``cap`` says which option
    bounds it (motti's ``max_turns``, arena's rounds)."""

    num_players: int
    max_game_length: int | None
    cap: str
    min_utility: float = -1.0
    max_utility: float = 1.0
    utility_sum: float = 0.0


def check_options(game_type: GameType, options: Mapping[str, Any]) -> dict[str, Any]:
    """Every parameter of ``game_type``: ``options`` checked (:meth:`Parameter.check`), the defaults for the
    rest. Raises ValueError for an unknown option or a bad value (one line naming the option)."""
    out = game_type.defaults()
    for name, value in options.items():
        out[name] = game_type.parameter(name).check(value)
    return out


def rank_returns(scores: Sequence[Any]) -> list[float]:
    """Rank-based returns of comparable ``scores`` (higher is better): (players below − players above) /
    (N − 1) per player, ties sharing; ``[0.0]`` for one player. In [−1, 1], summing to 0.

    >>> rank_returns([5, 3, 5, 1])
    [0.6666666666666666, -0.3333333333333333, 0.6666666666666666, -1.0]
    """
    n = len(scores)
    if n < 2:
        return [0.0] * n
    return [(sum(s < mine for s in scores) - sum(s > mine for s in scores)) / (n - 1) for mine in scores]


@runtime_checkable
class State(Protocol):
    """One game position, with everything needed to go on: the board, whose turn, the random generator."""

    def num_players(self) -> int:
        """How many players the game was started with (players out of the game still count)."""
        ...

    def current_player(self) -> int:
        """The player to act, 0-based; :data:`TERMINAL` once over; :data:`SIMULTANEOUS` in a joint step."""
        ...

    def legal_actions(self, player: int | None = None) -> Sequence[Any]:
        """Every action ``apply_action`` accepts now (for ``player`` in a simultaneous step).

        The sequence supports ``len``, indexing and ``in``; it is empty once the game is over, and for a
        ``player`` who is not the one to act.
        """
        ...

    def apply_action(self, action: Any) -> None:
        """Play ``action`` for the current player. Raises :class:`IllegalAction`, changing nothing."""
        ...

    def apply_actions(self, joint: Sequence[Any], order: Sequence[int] | None = None) -> None:
        """Play one action per player (player order) in a simultaneous step.

        ``order`` is the order the actions arrived in (default: player order), where the game cares.
        Raises :class:`IllegalAction`, changing nothing.
        """
        ...

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        ...

    def returns(self) -> list[float]:
        """One value per player, rank-based (:func:`rank_returns`) in [−1, 1]: the winner's is the highest.

        Final at the end; while the game runs, the ranking the game would give if it stopped now (what a
        search cut short evaluates)."""
        ...

    def scores(self) -> list[float]:
        """The game's own standing per player, higher is better (motti's land cells, Star Lanes' net worths,
        arena's points), in the game's units; ``returns()`` ranks by it."""
        ...

    def clone(self) -> State:
        """An independent copy, random generator state included; cheap (no copy of front-end objects)."""
        ...

    def reseed(self, seed: int) -> State:
        """Replace the state's random generator by ``random.Random(seed)``; returns ``self``.

        A search calls ``state.clone().reseed(s)`` so that it never draws the real game's future.
        """
        ...

    def serialize(self) -> str:
        """The whole state as text; ``game.deserialize_state(text)`` gives it back exactly."""
        ...


class Game(Protocol):
    """A game: its name, what it is and a factory of initial states."""

    name: str
    game_type: GameType

    def game_info(self, **options: Any) -> GameInfo:
        """The :class:`GameInfo` of a game started with ``options``. Raises ValueError for a bad option."""
        ...

    def new_initial_state(self, seed: int | None = None, **options: Any) -> State:
        """A fresh game; ``options`` are the game's own (map, players, rule options). Bad ones: ValueError."""
        ...

    def deserialize_state(self, text: str) -> State:
        """The state ``State.serialize`` wrote. Raises ValueError for text it cannot read."""
        ...


@cache
def _registry() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def game_names() -> list[str]:
    """The names of the installed games, sorted."""
    return sorted(_registry())


def load(name: str) -> Game:
    """The game registered as ``name`` (``"motti"``, ``"starlanes"``, ``"arena"``).

    Raises :class:`UnknownGame` naming the installed games when ``name`` is none of them.
    """
    try:
        entry = _registry()[name]
    except KeyError:
        raise UnknownGame(f"no game {name!r}; installed: {', '.join(game_names()) or 'none'}") from None
    game = entry.load()
    return game() if isinstance(game, type) else game  # type: ignore[no-any-return]

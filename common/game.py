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
else.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from functools import cache
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "ENTRY_POINT_GROUP",
    "SIMULTANEOUS",
    "TERMINAL",
    "Action",
    "Game",
    "IllegalAction",
    "State",
    "UnknownGame",
    "game_names",
    "load",
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

        The sequence supports ``len``, indexing and ``in``; it is empty once the game is over.
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
        """One value per player; the winner's is the highest. Meaningful at the end, defined throughout."""
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
    """A game: its name and a factory of initial states."""

    name: str

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

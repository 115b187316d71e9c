"""The computer players' levels of motti (spec/motti.md §2): one registry that dispatches each level's
choice.

``easy`` (:func:`motti.march.choose_action`: marches its walls at the enemy capital, mends its own cells
under attack and strikes at a free capital), ``medium`` (:func:`motti.rollout.choose_action` with the budget
:data:`motti.rollout.MEDIUM`: that march, each turn's first move chosen by playing the candidates out) and
``hard`` (the budget :data:`motti.rollout.HARD`: the march guarding its capital and timing the reset, with
more and longer playouts). Each level beats the one below
(bench/motti_levels.py measures it). The command line's ``--level`` and ``--computer 2:hard``, a
save's ``computer K LEVEL`` lines and the thinking of the windows, the console and headless matches
(motti/thinking.py) all go through this registry. Every level is deterministic given its ``random.Random``.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from motti import march, rollout
from motti.rules import Event, Game, IllegalAction, Move

#: A level's choice: ``(game, rng) -> action`` in ``Game.apply`` form for the player in turn.
Choose = Callable[[Game, random.Random], Move]

#: The levels, weakest first, each with its choice.
CHOOSERS: dict[str, Choose] = {
    "easy": march.choose_action,
    "medium": lambda game, rng: rollout.choose_action(game, rng, rollout.MEDIUM),
    "hard": lambda game, rng: rollout.choose_action(game, rng, rollout.HARD),
}
LEVELS = tuple(CHOOSERS)
#: The level of a computer player no level is given for (``--computer 2`` without ``--level``).
DEFAULT_LEVEL = "medium"


def choose_action(game: Game, rng: random.Random, level: str = DEFAULT_LEVEL) -> Move:
    """The next action of the player in turn at *level* (:data:`LEVELS`), in ``Game.apply`` form (spec §2.2):
    ``("attack", cells)`` with 0..6 cells is ONE attack, ``("defend", cells)`` 1..3 cells,
    ``("guerilla", (x, y))``, or ``("pass",)``. Raises ``IllegalAction`` if the game is over, ``ValueError``
    for an unknown level."""
    choose = CHOOSERS.get(level)
    if choose is None:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    if game.is_terminal():
        raise IllegalAction("the game is over")
    return choose(game, rng)


def play_turn(game: Game, rng: random.Random, level: str = DEFAULT_LEVEL) -> list[Event]:
    """Play the whole turn of the player in turn at *level* (every attack, or one Defend/Guerilla); return the
    events."""
    player = game.current_player
    events: list[Event] = []
    while not game.is_terminal() and game.current_player == player:
        events += game.apply(choose_action(game, rng, level))
    return events

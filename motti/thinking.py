"""The computer players' thinking off the event loop (motti/session.py, under the windows and the console).

The ``hard`` level's playouts at the start of a turn take up to about a second; run in the loop's thread they
would freeze every window and leave a quitting player unanswered meanwhile. :class:`Thinker` computes the
action in a worker thread, on a copy of the game, and posts the answer to the loop's
:class:`common.loop.Inbox` as ``Command(SOURCE, "move", (ticket, action))``. Any change to the game in between
(a player quits, a window closes) makes the loop call :meth:`Thinker.cancel`, and the stale answer is dropped
by :meth:`Thinker.take`.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping

from common.loop import Command, Inbox
from motti.evaluate import clone
from motti.levels import DEFAULT_LEVEL, choose_action
from motti.rules import Game, Move

#: ``Command.source`` of the answers.
SOURCE = "motti-computer"


def prepare(game: Game, rng: random.Random) -> tuple[Game, random.Random]:
    """What one decision thinks with: a copy of *game* (its own generator, so that the real game's draws stay
    untouched) and a generator seeded from *rng*, so that the decisions depend only on *rng* and the game."""
    return clone(game), random.Random(rng.getrandbits(64))


def decide(game: Game, level: str, rng: random.Random) -> Move:
    """The action a :class:`Thinker` with generator *rng* would answer, computed in this thread (headless
    matches: the same seed plays the same game as in the windows). ``Game.apply`` form."""
    snapshot, own = prepare(game, rng)
    return choose_action(snapshot, own, level)


class Thinker:
    """Thinks for the computer players *levels* (player -> ``easy``/``medium``/``hard``) in worker threads.

    Each :meth:`start` draws a fresh seed from *rng* in the caller's thread, so the answers depend only on
    *rng* and the game, never on timing."""

    def __init__(self, inbox: Inbox, levels: Mapping[int, str], rng: random.Random) -> None:
        self.inbox = inbox
        self.levels = dict(levels)
        self.rng = rng
        self._ticket = 0
        self.busy = False

    def start(self, game: Game) -> None:
        """Think about the move of ``game.current_player`` (a computer player) on a copy of *game*."""
        self._ticket += 1
        self.busy = True
        level = self.levels.get(game.current_player, DEFAULT_LEVEL)
        snapshot, rng = prepare(game, self.rng)
        worker = threading.Thread(target=self._think, args=(snapshot, level, rng, self._ticket),
                                  name="motti-computer", daemon=True)
        worker.start()

    def _think(self, game: Game, level: str, rng: random.Random, ticket: int) -> None:
        action = choose_action(game, rng, level)
        self.inbox.put(Command(SOURCE, "move", (ticket, action)))

    def cancel(self) -> None:
        """Forget the move being thought about (the game changed meanwhile)."""
        self._ticket += 1
        self.busy = False

    def take(self, command: Command) -> Move | None:
        """The action of an answer *command*, or None when it is stale (cancelled or superseded)."""
        ticket, action = command.args
        if ticket != self._ticket or not self.busy:
            return None
        self.busy = False
        answer: Move = action
        return answer

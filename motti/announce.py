"""One line announcing what a move did, from the rules' events (motti.rules), for every front end.

The X windows' legend band is narrow and names players ``P2``; the console's message line names them
``player 2``. The words are otherwise the same.
"""

from __future__ import annotations

from collections.abc import Iterable

from motti.rules import AttackDrawn, CapitalCaptured, Eliminated, Encircled, GameOver, Reset, TurnPassed

_WHY_OUT = {"capital": "lost the capital", "closed": "left", "quit": "quit"}


def describe(events: Iterable[object], mover: int | None = None, *, short: bool = False) -> str | None:
    """One line telling what *events* did, or None when there is nothing to say.

    *mover* is the player who was in turn when the events happened (named when the turn passes on); *short*
    names players ``P2`` instead of ``player 2``. Land handed on by a player who left or quit (spec/motti.md
    §2.7) is not announced as encircled.
    """
    def who(player: int | None) -> str:
        return f"P{player}" if short else f"player {player}"

    events = list(events)
    left = any(isinstance(event, Eliminated) and event.cause in ("closed", "quit") for event in events)
    parts: list[str] = []
    for event in events:
        if isinstance(event, AttackDrawn):
            if event.cell is None:
                parts.append(f"{who(event.player)}'s attack failed")
            else:
                parts.append(f"{who(event.player)} took {event.cell[0]},{event.cell[1]}")
        elif isinstance(event, Encircled) and not left:
            parts.append(f"{who(event.to)} encircled {len(event.cells)} of {who(event.victim)}")
        elif isinstance(event, CapitalCaptured):
            parts.append(f"{who(event.by)} captured {who(event.player)}'s capital")
        elif isinstance(event, Eliminated):
            parts.append(f"{who(event.player)} {_WHY_OUT.get(event.cause, event.cause)}, out")
        elif isinstance(event, Reset):
            parts.append("reset: all land free")
        elif isinstance(event, TurnPassed):
            parts.append(f"{who(mover)}'s turn ended" if mover not in (None, event.to) else "turn passed")
        elif isinstance(event, GameOver) and event.winner is not None:
            parts.append(f"{who(event.winner)} wins!")
        elif isinstance(event, GameOver):
            parts.append("everyone left: game over")
    return "; ".join(parts) if parts else None

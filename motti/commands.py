"""Front-end-neutral game commands (``common.loop.Command``) played on a motti game.

The X front end and the curses console both turn their input into these commands (motti verbs of
``common.loop.Command``), so one function applies them.
"""

from __future__ import annotations

from common.loop import Command
from motti.compose import Composer
from motti.rules import Action, IllegalAction


def apply_command(game: Composer, command: Command) -> list[object]:
    """Play one console/front-end command on *game* and return the rules' events.

    Verbs (``common.loop.Command``): ``toggle`` with args ``((x, y),)`` (``(x, y)`` is accepted too),
    ``select NAME`` (an impossible action is refused, ``Composer.choose``), ``cycle`` (skips impossible
    actions), ``perform [NAME]``, ``pass`` (end the turn at once, ``Game.pass_turn``). ``quit`` is not
    handled here (the caller knows whose players to defeat).
    Raises ``motti.rules.IllegalAction`` for an illegal move and ``ValueError`` for an unknown verb.
    """
    verb, args = command.verb, tuple(command.args)
    if verb == "toggle":
        x, y = args if len(args) == 2 else args[0]
        game.toggle_cross(int(x), int(y))
        return []
    if verb == "select":
        game.choose(Action(args[0]))
        return []
    if verb == "cycle":
        game.cycle_action()
        return []
    if verb == "pass":
        return list(game.pass_turn())
    if verb == "perform":
        if not args:
            return list(game.perform())
        action = Action(args[0])
        reason = game.why_impossible(action)
        if reason is not None:
            raise IllegalAction(reason)
        before = (game.selected, list(game.crosses))
        game.select(action)
        try:
            return list(game.perform())
        except IllegalAction:
            game.selected, game.crosses = before   # a refused action leaves the selection as it was
            raise
    raise ValueError(f"unknown command {verb!r}")

"""Composing an action step by step (spec/motti.md §2.2): the selected action and its crosses.

The rules (:class:`motti.rules.Game`) take whole actions: one attack with its crosses, a Defend, a Guerilla, a
pass. A player composes them: crosses a cell, uncrosses it, chooses Attack, Defend or Guerilla, performs.
:class:`Composer` keeps that selection beside the game, for the X windows, the console, the front-end commands
(motti/commands.py) and the game interface (motti/game.py) alike:

* crosses are validated against the selected action; choosing another action drops the crosses illegal for it
  and keeps the oldest up to its limit (§2.2, PROPOSED);
* after an attack the conquered cross is removed and the crosses still legal stay for the next attack (§2.2
  step 5); when the turn passes the selection starts again with Attack and no cross.

A composer also shows the game's state (``board``, ``current_player``, ``attacks_left``, ``winner``…), so a
front end holds one object.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from motti.rules import (
    CYCLE_ORDER,
    MAX_CROSSES,
    Action,
    AttackDrawn,
    Board,
    Cell,
    Event,
    Game,
    GameOver,
    IllegalAction,
    too_many_crosses,
    why_illegal,
)


class Composer:
    """The selected action and the crosses of the player in turn, over ``game`` (a rules :class:`Game`).

    ``selected`` is the action performed by :meth:`perform`; ``crosses`` the crossed cells ``(x, y)`` in
    placement order (at most the selected action's limit, each legal for it). Raises :class:`IllegalAction`
    for a step the rules refuse; a refused step changes nothing."""

    def __init__(self, game: Game, selected: Action = Action.ATTACK, crosses: Iterable[Cell] = ()) -> None:
        self.game = game
        self.selected = selected
        self.crosses: list[Cell] = [(int(x), int(y)) for x, y in crosses]

    def clone(self) -> Composer:
        """An independent copy (:meth:`Game.clone`, random generator state included)."""
        return Composer(self.game.clone(), self.selected, self.crosses)

    # --------------------------------------------------------------------------------- the game's state

    @property
    def board(self) -> Board:
        return self.game.board

    @property
    def current_player(self) -> int:
        return self.game.current_player

    @property
    def attacks_left(self) -> int:
        return self.game.attacks_left

    @property
    def attacked(self) -> bool:
        return self.game.attacked

    @property
    def alive(self) -> list[int]:
        return self.game.alive

    @property
    def winner(self) -> int | None:
        return self.game.winner

    @property
    def end(self) -> GameOver | None:
        return self.game.end

    @property
    def turns(self) -> int:
        return self.game.turns

    @property
    def resets(self) -> list[int]:
        return self.game.resets

    def is_terminal(self) -> bool:
        return self.game.is_terminal()

    def returns(self) -> list[float]:
        return self.game.returns()

    def possible_actions(self) -> set[Action]:
        return self.game.possible_actions()

    def why_impossible(self, action: Action) -> str | None:
        return self.game.why_impossible(action)

    # ------------------------------------------------------------------------------------ the selection

    def legal_mask(self, action: Action | None = None) -> np.ndarray:
        """(H, W) bool: cells the player in turn may cross for ``action`` (default: the selected one), crossed
        cells included; all False once the game is over."""
        return self.game.legal_mask(action or self.selected)

    def is_legal_cross(self, x: int, y: int, action: Action | None = None) -> bool:
        return self.game.is_legal_cross(x, y, action or self.selected)

    def crosses_left(self) -> int:
        return MAX_CROSSES[self.selected] - len(self.crosses)

    def toggle_mask(self, legal: np.ndarray | None = None) -> np.ndarray:
        """(H, W) bool, a new array: the cells :meth:`toggle_cross` accepts now (crossed ones, and legal ones
        while crosses are left). ``legal`` is :meth:`legal_mask` when the caller has it already."""
        if self.crosses_left() <= 0:
            mask = np.zeros(self.board.land.shape, dtype=bool)
        else:
            mask = self.legal_mask() if legal is None else legal.copy()
        for x, y in self.crosses:
            mask[y, x] = True
        return mask

    def toggle_cross(self, x: int, y: int) -> None:
        """Add a cross on (x, y) for the selected action, or remove it if present (§2.2)."""
        if self.game.is_terminal():
            raise IllegalAction("the game is over")
        if (x, y) in self.crosses:
            self.crosses.remove((x, y))
            return
        why = why_illegal(self.board, self.current_player, self.selected, x, y)
        if why is not None:
            raise IllegalAction(why)
        if self.crosses_left() <= 0:
            raise IllegalAction(too_many_crosses(self.selected))
        self.crosses.append((int(x), int(y)))

    def select(self, action: Action) -> None:
        """Select ``action``; drop crosses illegal for it and keep the oldest up to its limit (§2.2)."""
        self.selected = action
        kept = [c for c in self.crosses if self.game.is_legal_cross(*c, action)]
        self.crosses = kept[: MAX_CROSSES[action]]

    def choose(self, action: Action) -> None:
        """Select *action* as a player does (a toolbar click, a console key): like :meth:`select`, but an
        impossible action is refused, saying why (:meth:`Game.why_impossible`)."""
        reason = self.game.why_impossible(action)
        if reason is not None:
            raise IllegalAction(reason)
        self.select(action)

    def propose(self, action: Action, cells: Sequence[Cell]) -> None:
        """Select *action* with *cells* as the crosses, not performed (a tip, motti.explain.Tip): the old
        crosses go, each new one is checked as :meth:`toggle_cross` checks it. Raises IllegalAction (the
        selection is then as before)."""
        before = (self.selected, list(self.crosses))
        self.choose(action)
        self.crosses = []
        try:
            for x, y in cells:
                self.toggle_cross(x, y)
        except IllegalAction:
            self.selected, self.crosses = before
            raise

    def cycle_action(self) -> None:
        """Select the next possible action in the order Attack -> Defend -> Guerilla -> Attack (§6 middle
        button), skipping impossible ones (Attack is always possible while the game runs)."""
        possible = self.game.possible_actions()
        start = CYCLE_ORDER.index(self.selected)
        for step in range(1, len(CYCLE_ORDER) + 1):
            action = CYCLE_ORDER[(start + step) % len(CYCLE_ORDER)]
            if action in possible:
                self.select(action)
                return

    def why_not_perform(self) -> str | None:
        """Why :meth:`perform` would be refused now (one line), or None when it would be accepted."""
        reason = self.game.why_impossible(self.selected)
        if reason is not None:
            return reason
        if self.selected is Action.DEFEND and not self.crosses:
            return "Defend needs 1 to 3 crosses"
        if self.selected is Action.GUERILLA and len(self.crosses) != 1:
            return "Guerilla needs exactly one cross"
        return None

    def perform(self) -> list[Event]:
        """Perform the selected action with the crosses; Attack is ONE attack (§2.2)."""
        reason = self.why_not_perform()
        if reason is not None:
            raise IllegalAction(reason)
        if self.selected is Action.ATTACK:
            return self.attack()
        if self.selected is Action.DEFEND:
            return self.defend(self.crosses)
        return self.guerilla(self.crosses[0])

    # ----------------------------------------------------------------------------------- whole actions

    def _after(self, events: list[Event], turns: int) -> list[Event]:
        """Bring the selection up to date after a whole action: a new turn starts with Attack and no cross;
        within the turn the conquered cross goes and the crosses still legal stay (§2.2 step 5)."""
        if self.game.is_terminal() or self.game.turns != turns:
            self.selected = Action.ATTACK
            self.crosses = []
            return events
        conquered = {e.cell for e in events if isinstance(e, AttackDrawn)}
        self.crosses = [c for c in self.crosses
                        if c not in conquered and self.game.is_legal_cross(*c, self.selected)]
        return events

    def attack(self, cells: Sequence[Cell] | None = None, draw: int | None = None) -> list[Event]:
        """One attack with ``cells`` (0..6; default: the crosses), which become the crosses (§3.3 script
        mode); see :meth:`Game.attack`."""
        crosses = list(self.crosses) if cells is None else [(int(x), int(y)) for x, y in cells]
        turns = self.game.turns
        events = self.game.attack(crosses, draw)
        self.selected, self.crosses = Action.ATTACK, crosses
        return self._after(events, turns)

    def defend(self, cells: Sequence[Cell]) -> list[Event]:
        turns = self.game.turns
        return self._after(self.game.defend(list(cells)), turns)

    def guerilla(self, cell: Cell) -> list[Event]:
        turns = self.game.turns
        return self._after(self.game.guerilla(cell), turns)

    def pass_turn(self) -> list[Event]:
        turns = self.game.turns
        return self._after(self.game.pass_turn(), turns)

    def defeat(self, players: Iterable[int], cause: str = "closed") -> list[Event]:
        turns = self.game.turns
        return self._after(self.game.defeat(players, cause), turns)

    def apply(self, action: tuple[Any, ...]) -> list[Event]:
        """Apply one whole action (:meth:`Game.apply` form); an attack's cells become the crosses."""
        if isinstance(action, tuple) and len(action) == 2 and action[0] == "attack":
            try:
                cells = [(int(x), int(y)) for x, y in action[1]]
            except (TypeError, ValueError):
                raise IllegalAction(f"malformed action {action!r}") from None
            return self.attack(cells)
        turns = self.game.turns
        return self._after(self.game.apply(action), turns)

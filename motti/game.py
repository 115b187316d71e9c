"""motti through the one game interface (common/game.py): ``GAME``, loaded as ``load("motti")``.

Players are numbered from 0 here (motti's player 1 is player 0). An action is one step of a player composing
a turn (motti/compose.py, spec/motti.md §2.2), a small int:

====================  =================================================================================
``PASS`` = 0           end the turn at once, drawing nothing (§2.2 passing)
``PERFORM`` = 1        perform the selected action with the crosses: ONE attack, a Defend or a Guerilla
``CHOOSE + i`` = 2..4  choose Attack (2), Defend (3) or Guerilla (4) (listed when possible and not selected)
``CELL + y·W + x``     cross the cell (x, y), or uncross it when crossed (``CELL`` = 5, W the board width)
====================  =================================================================================

``legal_actions()`` lists exactly what ``apply_action`` accepts: ``PASS``, ``PERFORM`` when the selection can
be performed (Attack always, Defend with 1–3 crosses, Guerilla with one), the other possible actions, then
the cells in row-major order. It is a lazy sequence (``len``, indexing, ``in`` answered from the board's
masks). ``returns()`` is +1 for the winner and −1 for the others, 0 for everyone after a draw and while the
game runs.

``GAME.new_initial_state(seed=s)`` generates the default 20×15 map for 2 players (§4) from
``random.Random(s)`` and plays on with that generator. Options: ``map`` (a map name or file, §3.2),
``players``, ``width``, ``height``, ``capital_rule``, ``reset_rule``, ``tie_rule``, ``max_turns``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from common.game import TERMINAL
from motti.compose import Composer
from motti.mapfile import dump_map, find_map, load_map, parse_map
from motti.rules import CYCLE_ORDER, RULE_OPTIONS, Action, Game, GameOver, IllegalAction

__all__ = ["CELL", "CHOOSE", "GAME", "PASS", "PERFORM", "MottiGame", "MottiState"]

PASS = 0
PERFORM = 1
CHOOSE = 2
CELL = CHOOSE + len(CYCLE_ORDER)
_RULE_OPTIONS = tuple(option.field for option in RULE_OPTIONS)   # the rules' one declaration


class _Legal(Sequence[int]):
    """The legal actions of one state, computed when first asked (the cells from the board's masks)."""

    def __init__(self, composer: Composer) -> None:
        self._composer = composer
        self._head: list[int] | None = None
        self._mask: np.ndarray | None = None
        self._cells: np.ndarray | None = None

    def _load(self) -> tuple[list[int], np.ndarray, np.ndarray]:
        if self._head is None or self._mask is None or self._cells is None:
            c = self._composer
            if c.is_terminal():
                self._head, self._mask = [], np.zeros(c.board.land.shape, dtype=bool)
            else:
                self._head = [PASS] + ([PERFORM] if c.why_not_perform() is None else [])
                self._head += [CHOOSE + i for i, a in enumerate(CYCLE_ORDER)
                               if a is not c.selected and a in c.possible_actions()]
                self._mask = c.toggle_mask()
            self._cells = np.flatnonzero(self._mask) + CELL
        return self._head, self._mask, self._cells

    def __len__(self) -> int:
        head, _, cells = self._load()
        return len(head) + len(cells)

    def __getitem__(self, index: int) -> int:  # type: ignore[override]
        head, _, cells = self._load()
        if index < 0:
            index += len(self)
        if 0 <= index < len(head):
            return head[index]
        if len(head) <= index < len(head) + len(cells):
            return int(cells[index - len(head)])
        raise IndexError("legal action index out of range")

    def __iter__(self) -> Iterator[int]:
        head, _, cells = self._load()
        yield from head
        yield from (int(a) for a in cells)

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, (int, np.integer)) or isinstance(action, bool):
            return False
        head, mask, _ = self._load()
        a = int(action)
        if a < CELL:
            return a in head
        return a - CELL < mask.size and bool(mask.flat[a - CELL])


class MottiState:
    """One game of motti with a player's selection (motti/compose.py), through the interface of
    common/game.py. ``composer`` is the richer API (``composer.game`` the rules)."""

    def __init__(self, composer: Composer) -> None:
        self.composer = composer

    @property
    def game(self) -> Game:
        return self.composer.game

    def num_players(self) -> int:
        return self.game.board.players

    def current_player(self) -> int:
        return TERMINAL if self.game.is_terminal() else self.game.current_player - 1

    def legal_actions(self, player: int | None = None) -> Sequence[int]:
        """Every action :meth:`apply_action` accepts now (module docstring); empty once the game is over."""
        return _Legal(self.composer)

    def apply_action(self, action: Any) -> None:
        """Play one step. Raises :class:`IllegalAction` for an unlisted action, changing nothing."""
        if action not in _Legal(self.composer):
            raise IllegalAction(f"not a legal action now: {action!r}")
        a = int(action)
        c = self.composer
        if a == PASS:
            c.pass_turn()
        elif a == PERFORM:
            c.perform()
        elif a < CELL:
            c.choose(CYCLE_ORDER[a - CHOOSE])
        else:
            y, x = divmod(a - CELL, c.board.width)
            c.toggle_cross(x, y)

    def apply_actions(self, joint: Sequence[Any], order: Sequence[int] | None = None) -> None:
        raise IllegalAction("motti has no simultaneous steps: use apply_action")

    def is_terminal(self) -> bool:
        return self.game.is_terminal()

    def returns(self) -> list[float]:
        return self.game.returns()

    def clone(self) -> MottiState:
        return MottiState(self.composer.clone())

    def reseed(self, seed: int) -> MottiState:
        self.game.reseed(seed)
        return self

    def serialize(self) -> str:
        """The whole state as JSON: the board in the map format (§3.2), the turn, the rule options, the
        selection and the random generator's state."""
        g, c = self.game, self.composer
        version, internal, gauss = g.rng.getstate()
        return json.dumps({
            "motti": 1,
            "map": dump_map(g.board),
            "turn": g.current_player,
            "attacks": g.attacks_left,
            "turns": g.turns,
            "takeable": g.takeable,
            **{name: getattr(g, name) for name in _RULE_OPTIONS},
            "end": None if g.end is None else [g.end.winner, g.end.result, g.end.reason, g.end.turns,
                                                list(g.end.land)],
            "selected": c.selected.value,
            "crosses": [list(cell) for cell in c.crosses],
            "rng": [version, list(internal), gauss],
        }, separators=(",", ":"))

    def __str__(self) -> str:
        return dump_map(self.game.board)


class MottiGame:
    """The motti game for common/game.py."""

    name = "motti"

    def new_initial_state(self, seed: int | None = None, **options: Any) -> MottiState:
        """A fresh game (module docstring for the options). Raises ValueError for a bad option or map."""
        rng = random.Random(seed)
        unknown = set(options) - {"map", "players", "width", "height", *_RULE_OPTIONS}
        if unknown:
            raise ValueError(f"unknown motti option {sorted(unknown)[0]!r}")
        rules = {k: options[k] for k in _RULE_OPTIONS if k in options}
        if options.get("map") is not None:
            board = load_map(find_map(str(options["map"]))).board
        else:
            from motti.generate import generate

            board = generate(int(options.get("width", 20)), int(options.get("height", 15)),
                             int(options.get("players", 2)), rng)
        return MottiState(Composer(Game(board, rng, **rules)))

    def deserialize_state(self, text: str) -> MottiState:
        """The state :meth:`MottiState.serialize` wrote. Raises ValueError for text it cannot read."""
        try:
            data = json.loads(text)
            board = parse_map(data["map"], "<state>").board
            rng = random.Random()
            version, internal, gauss = data["rng"]
            rng.setstate((version, tuple(internal), gauss))
            game = Game(board, rng, turn=data["turn"], turns=data["turns"], takeable=data["takeable"],
                        **{name: data[name] for name in _RULE_OPTIONS})
            game.attacks_left = int(data["attacks"])
            if data["end"] is not None:
                winner, result, reason, turns, land = data["end"]
                game.end = GameOver(winner, result, reason, turns, tuple(land))
            crosses = [(int(x), int(y)) for x, y in data["crosses"]]
            return MottiState(Composer(game, Action(data["selected"]), crosses))
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a serialized motti state: {error}") from None


GAME = MottiGame()

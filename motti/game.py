"""motti through the one game interface (common/game.py): ``GAME``, loaded as ``load("motti")``.

Players are numbered from 0 here (motti's player 1 is player 0). An action is one step of a player composing
a turn (motti/compose.py, spec/motti.md §2.2), a small int:

====================  =================================================================================
``PASS`` = 0           end the turn at once, drawing nothing (§2.2 passing)
``PERFORM`` = 1        perform the selected action with the crosses: ONE attack, a Defend or a Guerilla
``CHOOSE + i`` = 2..4  choose Attack (2), Defend (3) or Guerilla (4)
``CELL + y·W + x``     cross the cell (x, y) (``CELL`` = 5, W the board width)
====================  =================================================================================

Two encodings of the same steps, the option ``actions``:

``"steps"`` (default), as a player composes at a window: ``CELL`` crosses a cell or uncrosses it when
crossed, ``CHOOSE`` selects any possible action not selected, and after an attack the crosses still legal
stay for the next one (§2.2 step 5). A turn can go on for ever (cross, uncross).

``"ordered"``, for a search: every decision path is one whole action and each whole action one path. A turn
is a sequence of whole actions, each composed as: at the start of the turn only, ``CHOOSE`` Defend or
Guerilla (Attack is selected); then the crosses in ascending cell order (each ``CELL`` above the last one
crossed, never uncrossed; a set of cells, not its orderings); then ``PERFORM``, after which no cross stays.
So an attack with k of n cells is one of C(n, k) paths, a turn lasts at most 6 × 7 = 42 actions (six
attacks of six crosses each) and ``GAME.game_info(actions="ordered")`` bounds a game at 42 × ``max_turns``.
:meth:`MottiState.actions_of` writes a whole action of the rules (:meth:`motti.rules.Game.apply` form,
what ``motti.thinking.decide`` answers) as these steps, in either encoding.

``legal_actions()`` lists exactly what ``apply_action`` accepts: ``PASS``, ``PERFORM`` when the selection can
be performed (Attack always, Defend with 1–3 crosses, Guerilla with one), the ``CHOOSE`` steps, then the
cells in row-major order; nothing for a player other than the one in turn. It is a lazy sequence (``len``,
indexing, ``in`` answered from the board's masks).

``scores()`` are the land cells each player owns (0 once out). ``returns()`` ranks the players
(:func:`common.game.rank_returns`): while the game runs by land, as the turn cap would (§2.9); a win puts
the winner first and the others by land; after a turn cap by land (tied leaders share, the draw of §2.9);
after any other draw (nobody can reach anybody, everyone left) the players still alive share the top.

``GAME.new_initial_state(seed=s)`` generates the default 20×15 map for 2 players (§4) from
``random.Random(s)`` and plays on with that generator. Options (``GAME.game_type``): ``map`` (a map name or
file, §3.2; its players), ``players`` (2..9, generated maps), ``width``, ``height``, ``capital_rule``
(§2.7), ``reset_rule`` (§2.8), ``tie_rule`` (§2.6), ``max_turns`` (§2.9; through the interface 1000 by
default, so that every game ends; ``None`` for none) and ``actions``.
"""

from __future__ import annotations

import dataclasses
import json
import operator
import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import PurePath
from typing import Any

import msgspec
import numpy as np

from common.game import TERMINAL, GameInfo, GameType, Parameter, check_options, rank_returns
from common.save import decode_text
from motti.announce import end_text
from motti.compose import Composer
from motti.generate import MAX_PLAYERS
from motti.mapfile import MapState, dump_map, find_map, load_map, parse_map
from motti.rules import (
    ATTACKS_PER_TURN,
    CYCLE_ORDER,
    MAX_CROSSES,
    RULE_OPTIONS,
    Action,
    Board,
    Game,
    GameOver,
    IllegalAction,
    SettingError,
)

__all__ = ["CELL", "CHOOSE", "ENCODINGS", "GAME", "GAME_TYPE", "PASS", "PERFORM", "MottiGame", "MottiState"]

PASS = 0
PERFORM = 1
CHOOSE = 2
CELL = CHOOSE + len(CYCLE_ORDER)
ENCODINGS = ("steps", "ordered")
DEFAULT_MAX_TURNS = 1000
"""The interface's turn cap (§2.9), so that every game through it ends; the program has none."""
TURN_LENGTH = ATTACKS_PER_TURN * (MAX_CROSSES[Action.ATTACK] + 1)
"""The most actions of one turn in the ``"ordered"`` encoding: six attacks of six crosses and a perform."""
_RULE_OPTIONS = tuple(option.field for option in RULE_OPTIONS)   # the rules' one declaration
#: What the errors of :meth:`MottiGame.deserialize_state` name the text they read.
STATE = "motti state"
#: The shape of :meth:`MottiState.serialize`'s JSON for the typed decoder (the rule options from their one
#: declaration): a field missing, unknown or of the wrong type is named by its JSON path.
_StateData = msgspec.defstruct("_StateData", [
    ("motti", int), ("map", str), ("turn", int), ("attacks", int), ("turns", int), ("takeable", int),
    *((option.field, str if option.variants else int | None) for option in RULE_OPTIONS),
    ("end", tuple[int | None, str, str, int, list[int]] | None), ("selected", str),
    ("crosses", list[tuple[int, int]]), ("actions", str, "steps"),
    ("rng", tuple[int, list[int], float | None]),
], kw_only=True, forbid_unknown_fields=True)

GAME_TYPE = GameType(
    short_name="motti",
    long_name="GNU motti",
    dynamics="sequential",
    chance_mode="sampled",
    min_num_players=2,
    max_num_players=MAX_PLAYERS,
    parameters=(
        Parameter("map", None, (str, PurePath), "a map name or file (spec/motti.md §3.2; its players play), "
                  "None: a generated map (§4)", optional=True),
        Parameter("players", 2, int, "players of a generated map, 2..9 (§4)", low=2, high=MAX_PLAYERS),
        Parameter("width", 20, int, "width of a generated map in cells (§4)", low=1, high=2000),
        Parameter("height", 15, int, "height of a generated map in cells (§4)", low=1, high=2000),
        *(Parameter(option.field, option.default, str, f"{option.help} ({option.section})",
                    variants=option.choices) if option.variants else
          Parameter(option.field, DEFAULT_MAX_TURNS, int, f"{option.help} ({option.section}); None: none",
                    low=option.lowest, optional=True)
          for option in RULE_OPTIONS),
        Parameter("actions", ENCODINGS[0], str, "the action encoding, steps or ordered (module docstring)",
                  variants=ENCODINGS),
    ),
    spec="spec/motti.md",
)


class _Legal(Sequence[int]):
    """The legal actions of one state, computed when first asked (the cells from the board's masks)."""

    def __init__(self, composer: Composer, ordered: bool, legal: Callable[[], np.ndarray]) -> None:
        self._composer = composer
        self._ordered = ordered
        self._legal = legal
        self._head: list[int] | None = None
        self._mask: np.ndarray | None = None
        self._cells: np.ndarray | None = None

    def _load(self) -> tuple[list[int], np.ndarray, np.ndarray]:
        if self._head is None or self._mask is None or self._cells is None:
            c = self._composer
            if c.is_terminal():
                self._head, self._mask = [], np.zeros(c.board.land.shape, dtype=bool)
            else:
                attack = c.selected is Action.ATTACK   # always performable while the game runs
                self._head = [PASS] + ([PERFORM] if attack or c.why_not_perform() is None else [])
                if not self._ordered or (attack and not c.crosses):
                    possible = c.possible_actions()
                    self._head += [CHOOSE + i for i, a in enumerate(CYCLE_ORDER)
                                   if a is not c.selected and a in possible]
                self._mask = c.toggle_mask(self._legal())
                if self._ordered and c.crosses:
                    above = max(y * c.board.width + x for x, y in c.crosses) + 1
                    self._mask.flat[:above] = False
            self._cells = np.flatnonzero(self._mask) + CELL
        return self._head, self._mask, self._cells

    def __len__(self) -> int:
        head, _, cells = self._load()
        return len(head) + len(cells)

    def __getitem__(self, index: int) -> int:  # type: ignore[override]
        head, _, cells = self._load()
        index = operator.index(index)
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

    def __init__(self, composer: Composer, actions: str = ENCODINGS[0]) -> None:
        if actions not in ENCODINGS:
            raise ValueError(f"actions must be one of {', '.join(ENCODINGS)}, not {actions!r}")
        self.composer = composer
        self.actions = actions
        """The action encoding, ``"steps"`` or ``"ordered"`` (module docstring)."""
        self._legal: tuple[tuple[Any, ...], _Legal] | None = None
        self._cells: tuple[tuple[Any, ...], np.ndarray] | None = None

    def _key(self) -> tuple[Any, ...]:
        """What the board and the selected action's legal cells can change with: the board changes only by an
        attack (one attack less), the end of a turn or a player leaving."""
        c, g = self.composer, self.composer.game
        return g.turns, g.current_player, g.attacks_left, g.end, len(g.alive), c.selected

    def _legal_cells(self) -> np.ndarray:
        """(H, W) bool, the cells legal for the selected action (never changed in place), kept while
        :meth:`_key` stays, and handed to clones: composing an attack cross by cross reads one mask."""
        key = self._key()
        if self._cells is None or self._cells[0] != key:
            self._cells = (key, self.composer.legal_mask())
        return self._cells[1]

    def _listed(self) -> _Legal:
        """The legal actions, kept while the selection, the turn and the players alive stay the same (a
        search lists them, then applies one)."""
        key = (*self._key(), tuple(self.composer.crosses))
        if self._legal is None or self._legal[0] != key:
            self._legal = (key, _Legal(self.composer, self.actions == "ordered", self._legal_cells))
        return self._legal[1]

    @property
    def game(self) -> Game:
        return self.composer.game

    def num_players(self) -> int:
        return self.game.board.players

    def current_player(self) -> int:
        return TERMINAL if self.game.is_terminal() else self.game.current_player - 1

    def legal_actions(self, player: int | None = None) -> Sequence[int]:
        """Every action :meth:`apply_action` accepts now (module docstring); empty once the game is over and
        for a ``player`` not in turn."""
        if player is not None and operator.index(player) != self.current_player():
            return []
        return self._listed()

    def apply_action(self, action: Any) -> None:
        """Play one step. Raises :class:`IllegalAction` for an unlisted action, changing nothing."""
        if action not in self._listed():
            raise IllegalAction(f"not a legal action now: {action!r}")
        a = int(action)
        c = self.composer
        if a == PASS:
            c.pass_turn()
        elif a == PERFORM:
            c.perform()
            if self.actions == "ordered":
                c.crosses = []
        elif a < CELL:
            c.choose(CYCLE_ORDER[a - CHOOSE])
        else:
            y, x = divmod(a - CELL, c.board.width)
            c.toggle_cross(x, y)

    def apply_actions(self, joint: Sequence[Any], order: Sequence[int] | None = None) -> None:
        raise IllegalAction("motti has no simultaneous steps: use apply_action")

    def is_terminal(self) -> bool:
        return self.game.is_terminal()

    def scores(self) -> list[float]:
        """Land cells owned per player (0 once out), §2.9's count."""
        counts = self.game.land_counts()
        return [float(counts.get(p, 0)) for p in range(1, self.num_players() + 1)]

    def returns(self) -> list[float]:
        """Rank-based values in [−1, 1] (module docstring): by land while running and after the turn cap, the
        winner first after a win, the players still alive sharing the top after another draw."""
        land = self.scores()
        end = self.game.end
        if end is None or end.reason == "land" or end.result == "land":
            return rank_returns(land)
        if end.winner is not None:
            return rank_returns([(p == end.winner - 1, v) for p, v in enumerate(land)])
        alive = set(self.game.alive)
        return rank_returns([p + 1 in alive for p in range(self.num_players())])

    def actions_of(self, move: tuple[Any, ...]) -> list[int]:
        """The steps that play ``move``, a whole action of :meth:`motti.rules.Game.apply` form (``("pass",)``,
        ``("attack", cells)``, ``("defend", cells)``, ``("guerilla", (x, y))``), from this state in its
        encoding: the crosses there are uncrossed first (``"steps"``), the action chosen, its cells crossed,
        and it is performed. Raises IllegalAction for a malformed move or, in the ``"ordered"`` encoding,
        while a composition is under way (crosses placed or an action chosen)."""
        c = self.composer
        try:
            verb = move[0]
            if verb == "pass":
                return [PASS]
            cells = [move[1]] if verb == "guerilla" else list(move[1])
            kind = {"attack": Action.ATTACK, "defend": Action.DEFEND, "guerilla": Action.GUERILLA}[verb]
            indices = [int(y) * c.board.width + int(x) for x, y in cells]
        except (IndexError, KeyError, TypeError, ValueError):
            raise IllegalAction(f"not a whole motti action: {move!r}") from None
        steps: list[int] = []
        if self.actions == "ordered":
            if c.crosses or c.selected is not Action.ATTACK:
                raise IllegalAction("a composition is under way: the ordered encoding cannot undo it")
            indices.sort()
        else:
            steps += [CELL + y * c.board.width + x for x, y in c.crosses]
        if kind is not c.selected:
            steps.append(CHOOSE + CYCLE_ORDER.index(kind))
        return [*steps, *(CELL + i for i in indices), PERFORM]

    def clone(self) -> MottiState:
        twin = MottiState(self.composer.clone(), self.actions)
        twin._cells = self._cells
        return twin

    def reseed(self, seed: int) -> MottiState:
        self.game.reseed(seed)
        return self

    def serialize(self) -> str:
        """The whole state as JSON: the board in the map format (§3.2), the turn, the rule options, the
        selection, the encoding and the random generator's state."""
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
            "actions": self.actions,
            "rng": [version, list(internal), gauss],
        }, separators=(",", ":"))

    def __str__(self) -> str:
        return dump_map(self.game.board)


def _map_board(name: str) -> Board:
    """The board of the map *name* (a file, else a shipped map; §3.1). Raises ValueError (``MapError`` for a
    file that does not load) naming the map, also when none is found."""
    try:
        path = find_map(name)
    except FileNotFoundError as error:
        raise ValueError(str(error)) from None
    return load_map(path).board


class MottiGame:
    """The motti game for common/game.py."""

    name = "motti"
    game_type = GAME_TYPE

    def new_initial_state(self, seed: int | None = None, **options: Any) -> MottiState:
        """A fresh game (module docstring for the options). Raises ValueError for a bad option or map (a map
        given with a ``players`` other than its own, too)."""
        rng = random.Random(seed)
        checked = check_options(GAME_TYPE, options)
        rules = {k: checked[k] for k in _RULE_OPTIONS}
        if checked["map"] is not None:
            board = _map_board(str(checked["map"]))
            if "players" in options and options["players"] != board.players:
                raise ValueError(f"players {options['players']!r}: the map {checked['map']!r} is for "
                                 f"{board.players} players")
        else:
            from motti.generate import generate

            board = generate(checked["width"], checked["height"], checked["players"], rng)
        return MottiState(Composer(Game(board, rng, **rules)), checked["actions"])

    def game_info(self, **options: Any) -> GameInfo:
        """The players and the longest game under ``options``: 42 × ``max_turns`` actions in the
        ``"ordered"`` encoding, unbounded in ``"steps"`` (cross, uncross) or without a turn cap. Raises
        ValueError for a bad option or map."""
        checked = check_options(GAME_TYPE, options)
        players = checked["players"]
        if checked["map"] is not None:
            players = _map_board(str(checked["map"])).players
        turns = checked["max_turns"]
        if turns is None:
            return GameInfo(players, None, "none: max_turns None")
        if checked["actions"] == "steps":
            return GameInfo(players, None, f"{turns} turns (max_turns, §2.9); a turn's steps are unbounded")
        return GameInfo(players, TURN_LENGTH * turns, f"{turns} turns (max_turns, §2.9) of at most "
                        f"{TURN_LENGTH} actions")

    def deserialize_state(self, text: str) -> MottiState:
        """The state :meth:`MottiState.serialize` wrote. Raises ValueError naming the fault: its line and
        column (``motti state:1:7: Input data was truncated``), its JSON path (``motti state: $.turns:
        expected int, got str``, also for a value no game reaches: ``motti state: $.turns: turns cannot be
        past max-turns 1000, found 2000``), with the line and column in the map (``motti state: $.map:2:5:
        ...``), or the rule it breaks (``motti state: player 9 cannot be in turn: not an alive player``)."""
        data = msgspec.structs.asdict(decode_text(text, _StateData, STATE))
        if data["motti"] != 1:
            raise ValueError(f"{STATE}: $.motti: this program writes version 1, not {data['motti']}")
        if not 1 <= data["attacks"] <= ATTACKS_PER_TURN:
            raise ValueError(f"{STATE}: $.attacks: attacks left are 1..{ATTACKS_PER_TURN}, "
                             f"not {data['attacks']}")
        parsed = parse_map(data["map"], f"{STATE}: $.map")
        board, bare = parsed.board, MapState(parsed.board)
        extra = [f.name for f in dataclasses.fields(parsed)
                 if f.name != "board" and getattr(parsed, f.name) != getattr(bare, f.name)]
        if extra:
            raise ValueError(f"{STATE}: $.map: holds the board only (the state is in the other fields), "
                             f"found {', '.join(extra)}")
        rng = random.Random()
        version, internal, gauss = data["rng"]
        try:
            rng.setstate((version, tuple(internal), gauss))
        except (TypeError, ValueError) as error:
            raise ValueError(f"{STATE}: $.rng: not a state of Python's generator ({error})") from None
        try:
            selected = Action(data["selected"])
        except ValueError:
            raise ValueError(f"{STATE}: $.selected: one of {', '.join(a.value for a in Action)}, not "
                             f"{data['selected']!r}") from None
        try:
            game = Game(board, rng, turn=data["turn"], turns=data["turns"], takeable=data["takeable"],
                        **{name: data[name] for name in _RULE_OPTIONS})
            game.attacks_left = data["attacks"]
            decided = game.end   # the board and the turns decide whether and how the game is over
            if data["end"] is not None:
                winner, result, reason, turns, land = data["end"]
                game.end = GameOver(winner, result, reason, turns, tuple(land))
            if _outcome(decided) != _outcome(game.end):
                raise ValueError(f"$.end: {data['end']}, but the board says "
                                 f"{'the game goes on' if decided is None else end_text(decided)}")
            state = MottiState(Composer(game, selected), data["actions"])
        except SettingError as error:
            raise ValueError(f"{STATE}: $.{error.setting}: {error}") from None
        except ValueError as error:
            raise ValueError(f"{STATE}: {error}") from None
        legal = game.legal_mask(selected)
        crosses = state.composer.crosses
        for i, (x, y) in enumerate(data["crosses"]):
            if i == MAX_CROSSES[selected] or not (board.inside(x, y) and legal[y, x]) or (x, y) in crosses:
                raise ValueError(f"{STATE}: $.crosses[{i}]: ({x}, {y}) is not a cross the player in turn "
                                 f"could add for {selected.value}")
            crosses.append((x, y))
        return state

def _outcome(end: GameOver | None) -> tuple[object, ...] | None:
    """What an end says, winner, result, reason and land (None while the game goes on), so that a state's
    ``$.end`` can be held against the end its board gives."""
    return None if end is None else (end.winner, end.result, end.reason, end.land)


GAME = MottiGame()

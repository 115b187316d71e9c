"""Star Lanes through the one game interface of :mod:`common.game` (entry point ``starlanes``).

``GAME.new_initial_state(seed=None, players=2, rules="1995", names=None)`` starts a game of 1–4 players under
the 1995 rules (spec/starlanes.md) or the 1977 original (spec/starlanes-1977.md); ``state.game`` is the
:class:`starlanes.rules.Game` with the richer API the front ends use.

Actions are tuples of ints:

- ``(MOVE_ACTION, i)``: take candidate ``i`` (0-based; the screen shows ``i + 1``);
- ``(TRADE_ACTION, company, amount)``: buy (``amount`` > 0) or sell (< 0) shares of company 0..4 (A..E);
  ``amount`` 0 is the pass of the 1977 trading, which asks every active company in turn;
- ``(END_ACTION,)``: end the 1995 trading (its ESC key).

``legal_actions()`` lists every one of them, every trade amount from −holdings to cash // price included, as
a lazy sequence (a rich player may have thousands of amounts to choose from).

``scores()`` are the players' net worths in dollars (§9: cash plus shares at their price); ``returns()`` ranks
by them (:func:`common.game.rank_returns`): (players poorer − players richer) / (players − 1), so +1 alone
at the top, −1 alone at the bottom (two players: +1/−1, 0 each on a tie); a one-player game returns
``[0.0]``. Defined throughout, final once the game is over.

``GAME.game_type`` declares the options; ``GAME.game_info(rules="1977")`` says a 1977 game lasts at most
48 × 6 actions (a move and one answer per company each move); a 1995 game has no bound (trading goes on as
long as the player buys and sells).
"""

from __future__ import annotations

import json
import operator
import random
from collections.abc import Iterator, Sequence
from typing import Any, TypeGuard, overload

from common.game import TERMINAL, GameInfo, GameType, IllegalAction, Parameter, check_options, rank_returns
from common.save import decode_text
from starlanes import rules as sl

MOVE_ACTION, TRADE_ACTION, END_ACTION = 0, 1, 2
DEFAULT_PLAYERS = 2
#: What the errors of :meth:`StarLanes.deserialize_state` name the text they read.
STATE = "Star Lanes state"

GAME_TYPE = GameType(
    short_name="starlanes",
    long_name="Star Lanes",
    dynamics="sequential",
    chance_mode="sampled",
    min_num_players=1,
    max_num_players=sl.MAX_PLAYERS,
    parameters=(
        Parameter("players", DEFAULT_PLAYERS, int, "players, 1..4 (spec/starlanes.md §1)",
                  low=1, high=sl.MAX_PLAYERS),
        Parameter("rules", "1995", str, "the rule set: 1995 (spec/starlanes.md) or the 1977 original "
                  "(spec/starlanes-1977.md)", variants=tuple(sl.RULE_SETS)),
        Parameter("names", None, (list, tuple), "the players' names (default Player 1...)", optional=True),
    ),
    spec="spec/starlanes.md, spec/starlanes-1977.md",
)


def _ints(action: object) -> TypeGuard[tuple[int, ...]]:
    """Whether ``action`` is a non-empty tuple of ints (``bool`` excluded)."""
    if type(action) is not tuple or not action:
        return False
    return all(type(value) is int for value in action)


_END = sl.EndTurn()


def decode(action: object) -> sl.Action | None:
    """The :mod:`starlanes.rules` action an interface action stands for, or None for anything malformed."""
    if not _ints(action):
        return None
    size, kind = len(action), action[0]
    if kind == TRADE_ACTION and size == 3 and 0 <= action[1] < sl.NUM_COMPANIES:
        return sl.Trade(action[1], action[2])
    if kind == MOVE_ACTION and size == 2:
        return sl.Move(action[1])
    if kind == END_ACTION and size == 1:
        return _END
    return None


def encode(action: sl.Action) -> tuple[int, ...]:
    """The interface action of a :mod:`starlanes.rules` action (the inverse of :func:`decode`)."""
    if isinstance(action, sl.Move):
        return (MOVE_ACTION, action.index)
    if isinstance(action, sl.Trade):
        return (TRADE_ACTION, action.company, action.amount)
    return (END_ACTION,)


class LegalActions(Sequence[tuple[int, ...]]):
    """Every legal action of a state, computed on demand: a head of single actions (the moves, or the end of
    trading), then for each tradable company the run of amounts from its lowest to its highest."""

    def __init__(self, game: sl.Game) -> None:
        self._head: list[tuple[int, ...]] = []
        self._runs: list[tuple[int, int, int]] = []
        if game.phase == sl.MOVE:
            self._head = [(MOVE_ACTION, i) for i in range(len(game.candidates))]
        elif game.phase == sl.TRADE:
            if game.can_end_trading():
                self._head = [(END_ACTION,)]
            player = game.players[game.current]
            cash, held, companies = player.cash, player.holdings, game.companies
            self._runs = [(c, -held[c], cash // companies[c].price) for c in game.tradable()]
        self._len = len(self._head) + sum(high - low + 1 for _, low, high in self._runs)

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> tuple[int, ...]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, ...]]: ...

    def __getitem__(self, index: int | slice) -> tuple[int, ...] | list[tuple[int, ...]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._len))]
        index = operator.index(index)
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("legal action index out of range")
        if index < len(self._head):
            return self._head[index]
        index -= len(self._head)
        for company, low, high in self._runs:
            if index <= high - low:
                return (TRADE_ACTION, company, low + index)
            index -= high - low + 1
        raise AssertionError("unreachable")

    def __contains__(self, action: object) -> bool:
        if not _ints(action):
            return False
        if action in self._head:
            return True
        if len(action) != 3 or action[0] != TRADE_ACTION:
            return False
        return any(action[1] == company and low <= action[2] <= high for company, low, high in self._runs)

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        yield from self._head
        for company, low, high in self._runs:
            for amount in range(low, high + 1):
                yield (TRADE_ACTION, company, amount)


class StarLanesState:
    """A game of Star Lanes as a :class:`common.game.State`; ``game`` is the :class:`starlanes.rules.Game`."""

    def __init__(self, game: sl.Game) -> None:
        self.game = game

    def num_players(self) -> int:
        return len(self.game.players)

    def current_player(self) -> int:
        """The player to act (0-based), or :data:`common.game.TERMINAL`."""
        return TERMINAL if self.game.is_terminal() else self.game.current

    def legal_actions(self, player: int | None = None) -> LegalActions | list[tuple[int, ...]]:
        """Every legal action (module docstring); empty for a player other than the one to act."""
        if player is not None and operator.index(player) != self.current_player():
            return []
        return LegalActions(self.game)

    def apply_action(self, action: Any) -> None:
        """Play ``action``. Raises :class:`starlanes.rules.IllegalAction` (a
        :class:`common.game.IllegalAction`) for anything :meth:`legal_actions` does not list, changing
        nothing."""
        decoded = decode(action)
        if decoded is None:
            raise sl.IllegalAction(f"not a Star Lanes action: {action!r}")
        self.game.apply(decoded)

    def apply_actions(self, joint: Sequence[Any], order: Sequence[int] | None = None) -> None:
        """Star Lanes has no simultaneous steps: always raises :class:`common.game.IllegalAction`."""
        raise IllegalAction("Star Lanes players act one at a time")

    def is_terminal(self) -> bool:
        return self.game.is_terminal()

    def returns(self) -> list[float]:
        """Rank-based values by net worth, in [−1, 1] (module docstring)."""
        return rank_returns(self.game.net_worths())

    def scores(self) -> list[float]:
        """Every player's net worth in dollars (spec/starlanes.md §9)."""
        return [float(w) for w in self.game.net_worths()]

    def clone(self) -> StarLanesState:
        """An independent copy (the generator's state included)."""
        return StarLanesState(self.game.clone())

    def reseed(self, seed: int) -> StarLanesState:
        """Replace the game's generator by ``random.Random(seed)``; returns ``self``."""
        self.game.rng = random.Random(seed)
        return self

    def serialize(self) -> str:
        """The state as JSON text (:meth:`starlanes.rules.Game.to_dict`, the rule set named in it)."""
        return json.dumps(self.game.to_dict(), separators=(",", ":"))

    def __str__(self) -> str:
        rows = [f"{self.game.rules.name} rules, move {self.game.moves + 1}, player {self.game.current + 1}"]
        width = sl.MAP_WIDTH
        rows += ["".join(self.game.grid[y * width:(y + 1) * width]) for y in range(self.game.rules.height)]
        return "\n".join(rows)


class StarLanes:
    """The Star Lanes :class:`common.game.Game`."""

    name = "starlanes"
    game_type = GAME_TYPE

    def _options(self, options: dict[str, Any]) -> dict[str, Any]:
        if isinstance(options.get("rules"), int) and not isinstance(options["rules"], bool):
            options = {**options, "rules": str(options["rules"])}
        checked = check_options(GAME_TYPE, options)
        names = checked["names"]
        if names is not None and (len(names) != checked["players"]
                                  or not all(isinstance(n, str) for n in names)):
            raise ValueError(f"names must be {checked['players']} texts, one per player, not {names!r}")
        problem = next((p for p in map(sl.name_problem, names or ()) if p is not None), None)
        if problem is not None:
            raise ValueError(f"names: {problem}")
        return checked

    def new_initial_state(self, seed: int | None = None, **options: Any) -> StarLanesState:
        """A new game of ``players`` (1–4) named ``names`` (default ``Player 1``…) under ``rules``
        (``"1995"`` or ``"1977"``, as a number too), its map, first player and candidates drawn from
        ``random.Random(seed)``. Raises ValueError for a bad option (:data:`GAME_TYPE`)."""
        checked = self._options(options)
        players = checked["players"]
        names = checked["names"]
        names = list(names) if names is not None else [f"Player {i + 1}" for i in range(players)]
        return StarLanesState(sl.Game.new(names, random.Random(seed), sl.rule_set(checked["rules"])))

    def game_info(self, **options: Any) -> GameInfo:
        """The players and the longest game under ``options`` (module docstring). Raises ValueError."""
        checked = self._options(options)
        limit = sl.rule_set(checked["rules"]).move_limit
        if limit is None:
            return GameInfo(checked["players"], None, "none: 1995 trading is unbounded")
        return GameInfo(checked["players"], limit * (1 + sl.NUM_COMPANIES), f"{limit} moves (1977 §11)")

    def deserialize_state(self, text: str) -> StarLanesState:
        """The state :meth:`StarLanesState.serialize` wrote. Raises ValueError naming the fault: its line and
        column (``Star Lanes state:1:7: Input data was truncated``), its JSON path (``Star Lanes state:
        $.players[0].cash: expected int, got float``) or the rule it breaks (``Star Lanes state: current: no
        such player``)."""
        from starlanes.save import GameData, game_of

        data = decode_text(text, GameData, STATE)
        try:
            return StarLanesState(game_of(data))
        except (KeyError, ValueError) as exc:
            raise ValueError(f"{STATE}: {exc}") from None


GAME = StarLanes()
"""The entry point ``starlanes`` of the ``motti_games.games`` group."""

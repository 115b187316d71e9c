"""Star Lanes rules: state, moves, mergers, splits, trading and the end of the game.

Implements spec/starlanes.md §1–§9 with the project decisions of §0. Pure and deterministic: every random
draw comes from the injected ``random.Random`` (``Game.rng``); money and shares are unbounded Python ``int``
(dollars and whole shares). Nothing here draws, reads keys or touches files.

The interface follows OpenSpiel: :attr:`Game.current_player`, :meth:`Game.legal_actions`, :meth:`Game.apply`,
:meth:`Game.is_terminal`, :meth:`Game.returns`. Every change of state returns a list of events (frozen
dataclasses) that front ends announce.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

MAP_WIDTH = 12
MAP_HEIGHT = 10
CELLS = MAP_WIDTH * MAP_HEIGHT
EMPTY, STAR, BLACK_HOLE, OUTPOST = ".", "*", "@", "+"
LETTERS = "ABCDE"
COMPANY_NAMES = (
    "Altair Starways",
    "Beetlejuice, Ltd.",
    "Capella Freight Co.",
    "Denebola Shippers",
    "Eridani Expediters",
)
NUM_COMPANIES = len(LETTERS)
INIT_CASH = 6000
INIT_CO_COST = 100
NEWCO_COST = 100
STAR_COST = 500
BLACK_HOLE_COST = 500
FOUNDER_BONUS = 5
SPLIT_PRICE = 3000
NUM_MOVES = 5
MAX_PLAYERS = 4
END_SECTORS = 65
MAX_NAME = 20

MOVE, TRADE, OVER = "move", "trade", "over"
TERMINAL = -4
_LETTER_INDEX = {letter: i for i, letter in enumerate(LETTERS)}
_RIPE = (STAR, OUTPOST)
# Merger pairs over the neighbours (N, S, W, E), spec §3 order: (N,S) (N,E) (N,W) (W,E) (E,S) (W,S).
_N, _S, _W, _E = 0, 1, 2, 3
_MERGE_PAIRS = ((_N, _S), (_N, _E), (_N, _W), (_W, _E), (_E, _S), (_W, _S))
_EXPANSION_PRIORITY = (_N, _S, _E, _W)


def cell_index(x: int, y: int) -> int:
    """Index of cell ``(x, y)`` (x = column 0..11, y = row 0..9): ``x + 12*y``."""
    return x + MAP_WIDTH * y


def cell_xy(index: int) -> tuple[int, int]:
    """``(x, y)`` of a cell index."""
    return index % MAP_WIDTH, index // MAP_WIDTH


def _neighbour_table() -> tuple[tuple[int, int, int, int], ...]:
    table = []
    for i in range(CELLS):
        x, y = cell_xy(i)
        table.append((
            cell_index(x, y - 1) if y > 0 else -1,
            cell_index(x, y + 1) if y < MAP_HEIGHT - 1 else -1,
            cell_index(x - 1, y) if x > 0 else -1,
            cell_index(x + 1, y) if x < MAP_WIDTH - 1 else -1,
        ))
    return tuple(table)


NEIGHBOURS = _neighbour_table()
"""Per cell index: the indices of its N, S, W, E neighbours, -1 off the map (which counts as ``.``)."""


# ---------------------------------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Outpost:
    """The move cell became an infant company ``+`` (§3 a; also the defensive path when A–E are active)."""

    cell: int


@dataclass(frozen=True)
class SuckedSite:
    """The new site touched a black hole and vanished; the cell stays ``.`` (§3 a)."""

    cell: int


@dataclass(frozen=True)
class NewCompany:
    """Company ``company`` (0..4) was founded at ``cell``; ``founder`` got 5 shares (§3)."""

    company: int
    cell: int
    founder: int


@dataclass(frozen=True)
class Stillborn:
    """The company that would have been founded had price ≤ 0 and vanished with its cells (§3)."""

    company: int


@dataclass(frozen=True)
class Expanded:
    """Company ``company`` grew into ``cell`` (§3)."""

    company: int
    cell: int


@dataclass(frozen=True)
class MergeRow:
    """One player's row of a merger's stock transactions (§6 step 4); ``bonus`` in dollars."""

    player: int
    old_stock: int
    new_stock: int
    total_holdings: int
    bonus: int


@dataclass(frozen=True)
class Merged:
    """``loser`` was merged into ``survivor`` (companies 0..4), with the transaction table (§6)."""

    loser: int
    survivor: int
    rows: tuple[MergeRow, ...]


@dataclass(frozen=True)
class Split:
    """The stock of ``company`` split two-for-one (§7)."""

    company: int


@dataclass(frozen=True)
class Destroyed:
    """``company`` fell to price ≤ 0 and was sucked into a black hole; all holdings lost (§3)."""

    company: int


@dataclass(frozen=True)
class HoldingBonus:
    """The mover's 5% holding bonus in dollars (§5); paid silently."""

    player: int
    amount: int


@dataclass(frozen=True)
class Traded:
    """``player`` bought (amount > 0) or sold (amount < 0) shares of ``company`` at ``price`` each (§8)."""

    player: int
    company: int
    amount: int
    price: int


@dataclass(frozen=True)
class GameOver:
    """The game ended: ``reason`` is ``"sectors"`` (65 company sectors) or ``"no moves"`` (§9 with §0)."""

    reason: str


Event = (
    Outpost | SuckedSite | NewCompany | Stillborn | Expanded | Merged | Split | Destroyed | HoldingBonus
    | Traded | GameOver
)


# ---------------------------------------------------------------------------------------------------- actions


@dataclass(frozen=True)
class Move:
    """Choose candidate ``index`` (0-based; the screen shows ``index + 1``)."""

    index: int


@dataclass(frozen=True)
class Trade:
    """Buy (``amount`` > 0) or sell (``amount`` < 0) shares of ``company`` (0..4) at its current price."""

    company: int
    amount: int


@dataclass(frozen=True)
class EndTurn:
    """End trading and the turn (the ESC key)."""


Action = Move | Trade | EndTurn


class IllegalAction(ValueError):
    """An action that the current state does not allow (wrong phase, bad index, amount out of range)."""


# ---------------------------------------------------------------------------------------------------- state


@dataclass
class Company:
    """A company's size in sectors and its price per share in dollars; active iff ``size > 0`` (§1)."""

    size: int = 0
    price: int = 0

    @property
    def active(self) -> bool:
        return self.size > 0


@dataclass
class Player:
    """A player's name (≤ 20 characters of any text), cash in dollars and shares held per company (5 ints)."""

    name: str
    cash: int = INIT_CASH
    holdings: list[int] = field(default_factory=lambda: [0] * NUM_COMPANIES)


def generate_map(rng: random.Random) -> list[str]:
    """A new 120-cell map (§2): per cell ``rng.randrange(60)``: 0 → ``@``, 1..3 → ``*``, else ``.``.

    The cells are drawn column by column (x outer, y inner), as the original. Returns the grid indexed by
    :func:`cell_index`.
    """
    grid = [EMPTY] * CELLS
    for x in range(MAP_WIDTH):
        for y in range(MAP_HEIGHT):
            n = rng.randrange(60)
            if n == 0:
                grid[cell_index(x, y)] = BLACK_HOLE
            elif n <= 3:
                grid[cell_index(x, y)] = STAR
    return grid


class Game:
    """One game of Star Lanes: map, companies, players, whose turn, phase and the candidate moves.

    ``grid`` is a list of 120 one-character strings; ``companies`` 5 :class:`Company`; ``players`` 1..4
    :class:`Player`; ``current`` the index of the player on turn; ``phase`` one of ``"move"``, ``"trade"``,
    ``"over"``; ``candidates`` the cell indices offered this turn (in the order drawn); ``history`` the
    players' net worths after every finished turn (the first row is the start of the game).
    """

    def __init__(
        self,
        grid: Sequence[str],
        players: Sequence[Player],
        rng: random.Random,
        companies: Sequence[Company] | None = None,
        current: int = 0,
        phase: str = MOVE,
        candidates: Sequence[int] | None = None,
        history: Sequence[Sequence[int]] | None = None,
    ) -> None:
        if len(grid) != CELLS:
            raise ValueError(f"the map must have {CELLS} cells, not {len(grid)}")
        if not 1 <= len(players) <= MAX_PLAYERS:
            raise ValueError(f"1 to {MAX_PLAYERS} players, not {len(players)}")
        self.grid = list(grid)
        self.players = list(players)
        self.rng = rng
        self.companies = list(companies) if companies is not None else [Company() for _ in LETTERS]
        self.current = current
        self.phase = phase
        self.candidates = list(candidates) if candidates is not None else []
        self.history = [list(row) for row in history] if history is not None else [self.net_worths()]

    @classmethod
    def new(cls, names: Sequence[str], rng: random.Random) -> Game:
        """Start a game (§2, §10): generate the map, pick the first player at random, draw the candidates."""
        grid = generate_map(rng)
        game = cls(grid, [Player(name) for name in names], rng)
        game.current = rng.randrange(len(names))
        game.begin_turn()
        return game

    # ------------------------------------------------------------------------------------------ queries

    @property
    def current_player(self) -> int:
        """The index of the player to act, or :data:`TERMINAL` once the game is over."""
        return TERMINAL if self.phase == OVER else self.current

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def active_companies(self) -> list[int]:
        """Indices (0..4) of the companies with size > 0, in A→E order."""
        return [i for i, company in enumerate(self.companies) if company.size > 0]

    def stock_value(self, player: int) -> int:
        """Σ over active companies of price × the player's holdings, in dollars."""
        holdings = self.players[player].holdings
        return sum(c.price * holdings[i] for i, c in enumerate(self.companies) if c.size > 0)

    def net_worth(self, player: int) -> int:
        """Cash + stock value, in dollars (§9)."""
        return self.players[player].cash + self.stock_value(player)

    def net_worths(self) -> list[int]:
        return [self.net_worth(i) for i in range(len(self.players))]

    def returns(self) -> list[int]:
        """Every player's net worth in dollars (the final result once the game is over)."""
        return self.net_worths()

    def standings(self) -> list[int]:
        """Player indices by net worth, highest first; ties by player number (§0)."""
        worths = self.net_worths()
        return sorted(range(len(self.players)), key=lambda i: (-worths[i], i))

    def company_worth(self, company: int) -> int:
        """Price × all players' holdings of ``company`` (the "total worth" of §6 and §10)."""
        return self.companies[company].price * sum(p.holdings[company] for p in self.players)

    def sectors(self) -> int:
        """The sum of all company sizes."""
        return sum(c.size for c in self.companies)

    def end_reason(self) -> str | None:
        """Why the game is over: ``"sectors"`` (65 company sectors) or ``"no moves"`` (no cell could be
        offered), as :class:`GameOver`; None while it goes on (§9)."""
        if self.phase != OVER:
            return None
        return "sectors" if self.sectors() >= END_SECTORS else "no moves"

    def sectors_remaining(self) -> int:
        """Company sectors left before the game ends: 65 − sum of sizes (§10 standings)."""
        return END_SECTORS - self.sectors()

    def neighbours(self, cell: int) -> list[str]:
        """The N, S, W, E neighbour symbols of ``cell``; off the map counts as ``.``."""
        grid = self.grid
        return [EMPTY if j < 0 else grid[j] for j in NEIGHBOURS[cell]]

    def is_legal_cell(self, cell: int) -> bool:
        """Whether a cell may be offered as a candidate (§2 rules 1 and 3)."""
        if self.grid[cell] != EMPTY:
            return False
        if all(c.size > 0 for c in self.companies):
            around = self.neighbours(cell)
            if any(s in _RIPE for s in around) and not any(s in _LETTER_INDEX for s in around):
                return False
        return True

    def legal_cells(self) -> list[int]:
        return [i for i in range(CELLS) if self.is_legal_cell(i)]

    def trade_limits(self, company: int) -> tuple[int, int]:
        """``(min, max)`` shares the current player may trade of a company: −holdings, cash // price."""
        player = self.players[self.current]
        return -player.holdings[company], player.cash // self.companies[company].price

    def legal_actions(self) -> list[Action]:
        """The actions of the current player.

        Move phase: one :class:`Move` per candidate. Trade phase: :class:`EndTurn`, then per active company
        the extreme trades (buy the maximum, sell everything) when they are not 0; every amount between those
        is legal too (:meth:`is_legal`). Over: nothing.
        """
        if self.phase == MOVE:
            return [Move(i) for i in range(len(self.candidates))]
        if self.phase == TRADE:
            actions: list[Action] = [EndTurn()]
            for company in self.active_companies():
                low, high = self.trade_limits(company)
                actions.extend(Trade(company, amount) for amount in (high, low) if amount != 0)
            return actions
        return []

    def is_legal(self, action: Action) -> bool:
        if isinstance(action, Move):
            return self.phase == MOVE and 0 <= action.index < len(self.candidates)
        if isinstance(action, EndTurn):
            return self.phase == TRADE
        if isinstance(action, Trade):
            if self.phase != TRADE or not 0 <= action.company < NUM_COMPANIES:
                return False
            if not self.companies[action.company].active:
                return False
            low, high = self.trade_limits(action.company)
            return low <= action.amount <= high
        return False

    # ------------------------------------------------------------------------------------------ actions

    def apply(self, action: Action) -> list[Event]:
        """Apply one action of the current player and return what happened.

        Raises :class:`IllegalAction` when :meth:`is_legal` is false (nothing changes then).
        """
        if not self.is_legal(action):
            raise IllegalAction(f"illegal action {action!r} in phase {self.phase!r}")
        if isinstance(action, Move):
            return self.place(self.candidates[action.index])
        if isinstance(action, Trade):
            return [self.trade(action.company, action.amount)]
        return self.end_turn()

    def begin_turn(self) -> list[Event]:
        """Draw the current player's candidates (§2); with no legal cell at all the game ends."""
        self.phase = MOVE
        self.candidates = self.draw_candidates()
        if not self.candidates:
            return self._finish("no moves", record=False)
        return []

    def draw_candidates(self) -> list[int]:
        """Up to 5 distinct legal cells by rejection sampling with ``rng.randrange(120)`` (§2).

        When fewer than 5 legal cells exist, the ones that exist are returned in the order drawn (§0); the
        draws are the same as plain rejection sampling until that many have been found.
        """
        chosen: list[int] = []
        target = NUM_MOVES
        rng = self.rng
        draws = 0
        check_at = 1 if self.grid.count(EMPTY) < NUM_MOVES else 256
        while len(chosen) < target:
            draws += 1
            if draws % check_at == 0:
                target = min(NUM_MOVES, len(self.legal_cells()))
                if len(chosen) >= target:
                    break
            cell = rng.randrange(CELLS)
            if cell not in chosen and self.is_legal_cell(cell):
                chosen.append(cell)
        return chosen

    def place(self, cell: int) -> list[Event]:
        """A move phase on ``cell``: resolve it (§3), pay the mover's holding bonus (§5), check the end (§9).

        Afterwards the phase is ``"over"``, ``"trade"`` (some company is active) or the next player's
        ``"move"``.
        """
        events = self.resolve(cell)
        events.append(self.holding_bonus())
        if self.sectors() >= END_SECTORS:
            events.extend(self._finish("sectors", record=True))
        elif self.active_companies():
            self.phase = TRADE
            self.candidates = []
        else:
            events.extend(self.end_turn())
        return events

    def end_turn(self) -> list[Event]:
        """Finish the turn: record net worths, pass to the next player and draw their candidates."""
        self.history.append(self.net_worths())
        self.current = (self.current + 1) % len(self.players)
        return self.begin_turn()

    def _finish(self, reason: str, record: bool) -> list[Event]:
        if record:
            self.history.append(self.net_worths())
        self.phase = OVER
        self.candidates = []
        return [GameOver(reason)]

    def trade(self, company: int, amount: int) -> Traded:
        """Buy or sell ``amount`` shares at the current price (§8).

        Raises :class:`IllegalAction` when the amount is out of range; nothing changes then.
        """
        if not self.is_legal(Trade(company, amount)):
            raise IllegalAction(f"invalid amount {amount} for company {LETTERS[company]}")
        price = self.companies[company].price
        player = self.players[self.current]
        player.cash -= amount * price
        player.holdings[company] += amount
        return Traded(self.current, company, amount, price)

    def holding_bonus(self) -> HoldingBonus:
        """Pay the current player 5% of price × holdings per active company, truncated (§5)."""
        player = self.players[self.current]
        amount = sum(
            player.holdings[i] * c.price // 20 for i, c in enumerate(self.companies) if c.size > 0
        )
        player.cash += amount
        return HoldingBonus(self.current, amount)

    def resolve(self, cell: int) -> list[Event]:
        """Resolve a move on ``cell`` (§3): outpost, black hole, mergers, founding or expansion, splits.

        No holding bonus and no phase change; the current player is the mover (founder shares).
        """
        grid = self.grid
        around = self.neighbours(cell)
        if all(s == EMPTY or s == BLACK_HOLE for s in around):
            if BLACK_HOLE in around:
                return [SuckedSite(cell)]
            grid[cell] = OUTPOST
            return [Outpost(cell)]
        events: list[Event] = []
        for a, b in _MERGE_PAIRS:
            first, second = around[a], around[b]
            if first in _LETTER_INDEX and second in _LETTER_INDEX and first != second:
                survivor, loser = self._merge(_LETTER_INDEX[first], _LETTER_INDEX[second], events)
                old, new = LETTERS[loser], LETTERS[survivor]
                around = [new if s == old else s for s in around]
        live = self.neighbours(cell)
        if any(s in _RIPE for s in live) and not any(s in _LETTER_INDEX for s in live):
            events.extend(self._found(cell))
        elif grid[cell] == EMPTY:
            letter = next(live[d] for d in _EXPANSION_PRIORITY if live[d] in _LETTER_INDEX)
            company = _LETTER_INDEX[letter]
            grid[cell] = letter
            self.companies[company].size += 1
            self.companies[company].price += NEWCO_COST
            self._calc_cost(cell, company)
            events.append(Expanded(company, cell))
            if self.companies[company].price <= 0:
                self._wipe(company)
                events.append(Destroyed(company))
            elif self.companies[company].price > SPLIT_PRICE:
                events.append(self._split(company))
        return events

    def _found(self, cell: int) -> list[Event]:
        free = next((i for i, c in enumerate(self.companies) if c.size == 0), None)
        if free is None:
            self.grid[cell] = OUTPOST
            return [Outpost(cell)]
        self.grid[cell] = LETTERS[free]
        company = self.companies[free]
        company.size = 1
        company.price = INIT_CO_COST
        self._calc_cost(cell, free)
        if company.price <= 0:
            self._wipe(free)
            return [Stillborn(free)]
        self.players[self.current].holdings[free] = FOUNDER_BONUS
        return [NewCompany(free, cell, self.current)]

    def _calc_cost(self, cell: int, company: int) -> None:
        grid = self.grid
        co = self.companies[company]
        for j in NEIGHBOURS[cell]:
            if j < 0:
                continue
            symbol = grid[j]
            if symbol == STAR:
                co.price += STAR_COST
            elif symbol == BLACK_HOLE:
                co.price -= BLACK_HOLE_COST
            elif symbol == OUTPOST:
                grid[j] = LETTERS[company]
                co.size += 1
                co.price += NEWCO_COST

    def _wipe(self, company: int) -> None:
        letter = LETTERS[company]
        self.grid[:] = [EMPTY if s == letter else s for s in self.grid]
        for player in self.players:
            player.holdings[company] = 0
        self.companies[company].size = 0
        self.companies[company].price = 0

    def _split(self, company: int) -> Split:
        co = self.companies[company]
        co.price = (co.price + 1) // 2
        for player in self.players:
            player.holdings[company] *= 2
        return Split(company)

    def _merge(self, c1: int, c2: int, events: list[Event]) -> tuple[int, int]:
        first, second = self.companies[c1], self.companies[c2]
        if first.size != second.size:
            survivor = c1 if first.size > second.size else c2
        else:
            worth1, worth2 = self.company_worth(c1), self.company_worth(c2)
            if worth1 != worth2:
                survivor = c1 if worth1 > worth2 else c2
            else:
                survivor = c2 if self.rng.randrange(2) == 1 else c1
        loser = c2 if survivor == c1 else c1
        win, lose = self.companies[survivor], self.companies[loser]
        old, new = LETTERS[loser], LETTERS[survivor]
        self.grid[:] = [new if s == old else s for s in self.grid]
        win.size += lose.size
        win.price += lose.price
        lose.size = 0
        total = sum(p.holdings[loser] for p in self.players) or 1
        rows = []
        for index, player in enumerate(self.players):
            held = player.holdings[loser]
            converted = (held + 1) // 2
            bonus = 10 * lose.price * held // total
            player.holdings[survivor] += converted
            player.holdings[loser] = 0
            player.cash += bonus
            rows.append(MergeRow(index, held, converted, player.holdings[survivor], bonus))
        events.append(Merged(loser, survivor, tuple(rows)))
        if win.price > SPLIT_PRICE:
            events.append(self._split(survivor))
        return survivor, loser

    # ------------------------------------------------------------------------------------------ copies, saves

    def clone(self) -> Game:
        """An independent copy, random generator state included."""
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        return Game(
            self.grid,
            [Player(p.name, p.cash, list(p.holdings)) for p in self.players],
            rng,
            [Company(c.size, c.price) for c in self.companies],
            self.current,
            self.phase,
            self.candidates,
            self.history,
        )

    def to_dict(self) -> dict:
        """The whole state as JSON-ready data (``rng`` is ``random.Random.getstate()`` as lists)."""
        version, internal, gauss = self.rng.getstate()
        return {
            "map": ["".join(self.grid[y * MAP_WIDTH:(y + 1) * MAP_WIDTH]) for y in range(MAP_HEIGHT)],
            "companies": [[c.size, c.price] for c in self.companies],
            "players": [{"name": p.name, "cash": p.cash, "holdings": list(p.holdings)} for p in self.players],
            "current": self.current,
            "phase": self.phase,
            "candidates": list(self.candidates),
            "history": [list(row) for row in self.history],
            "rng": [version, list(internal), gauss],
        }

    @classmethod
    def from_dict(cls, data: dict) -> Game:
        """Rebuild a game from :meth:`to_dict` data. Raises ValueError naming the first bad field."""
        try:
            rows = data["map"]
            if len(rows) != MAP_HEIGHT or any(len(row) != MAP_WIDTH for row in rows):
                raise ValueError(f"map: expected {MAP_HEIGHT} rows of {MAP_WIDTH} cells")
            grid = [s for row in rows for s in row]
            bad = next((s for s in grid if s not in ".*@+" + LETTERS), None)
            if bad is not None:
                raise ValueError(f"map: unknown symbol {bad!r}")
            companies = [Company(_int(size, "companies"), _int(price, "companies")) for size, price in
                         data["companies"]]
            if len(companies) != NUM_COMPANIES:
                raise ValueError(f"companies: expected {NUM_COMPANIES} entries")
            players = []
            for entry in data["players"]:
                name = entry["name"]
                if not isinstance(name, str) or not name or len(name) > MAX_NAME:
                    raise ValueError(f"players: bad name {name!r}")
                holdings = [_int(h, "holdings") for h in entry["holdings"]]
                if len(holdings) != NUM_COMPANIES or min(holdings) < 0:
                    raise ValueError("players: holdings must be 5 numbers ≥ 0")
                players.append(Player(name, _int(entry["cash"], "cash"), holdings))
            phase = data["phase"]
            if phase not in (MOVE, TRADE, OVER):
                raise ValueError(f"phase: unknown {phase!r}")
            current = _int(data["current"], "current")
            if not 0 <= current < len(players):
                raise ValueError("current: no such player")
            candidates = [_int(c, "candidates") for c in data["candidates"]]
            if any(not 0 <= c < CELLS for c in candidates):
                raise ValueError("candidates: must be cells of the map")
            history = [[_int(v, "history") for v in row] for row in data["history"]]
            version, internal, gauss = data["rng"]
            rng = random.Random()
            rng.setstate((version, tuple(internal), gauss))
            game = cls(grid, players, rng, companies, current, phase, candidates, history)
        except (KeyError, TypeError) as exc:
            raise ValueError(f"missing or malformed field {exc}") from None
        game.check()
        return game

    def check(self) -> None:
        """Check the invariants every reachable state keeps; raises ValueError naming the first one broken.

        Company sizes equal their letters on the map and an active company's price is above $0 (§3); cash
        and holdings are ≥ 0 and nobody holds shares of an inactive company; an outpost ``+`` has only
        ``.`` around it (§3); the phase fits the state: ``"move"`` offers 1–5 distinct legal cells,
        ``"trade"`` needs an active company, neither below 65 company sectors (§9); ``"over"`` needs 65
        sectors or no legal cell; ``history`` has a row of net worths ≥ 0 per player for every finished
        turn. Prices above the split price are allowed (they split at the next growth).
        """
        for letter, company in zip(LETTERS, self.companies, strict=True):
            if company.size < 0 or company.price < 0:
                raise ValueError(f"companies: {letter} has a negative size or price")
            if company.size != self.grid.count(letter):
                raise ValueError(f"companies: {letter} has size {company.size} but {self.grid.count(letter)} "
                                 "sectors on the map")
            if company.size and company.price == 0:
                raise ValueError(f"companies: active company {letter} has price $0")
        for player in self.players:
            if player.cash < 0:
                raise ValueError(f"players: {player.name!r} has negative cash")
            if any(held and not c.active for held, c in zip(player.holdings, self.companies, strict=True)):
                raise ValueError(f"players: {player.name!r} holds shares of an inactive company")
        for cell, symbol in enumerate(self.grid):
            if symbol == OUTPOST and any(s != EMPTY for s in self.neighbours(cell)):
                raise ValueError(f"map: the outpost at {cell_xy(cell)} has a neighbour other than '.'")
        full = self.sectors() >= END_SECTORS
        if self.phase == MOVE:
            if full:
                raise ValueError(f"phase: {self.sectors()} company sectors end the game")
            candidates = self.candidates
            if (not 1 <= len(candidates) <= NUM_MOVES or len(set(candidates)) != len(candidates)
                    or not all(self.is_legal_cell(c) for c in candidates)):
                raise ValueError(f"candidates: 1 to {NUM_MOVES} distinct legal cells in the move phase")
        elif self.candidates:
            raise ValueError(f"candidates: none in the {self.phase} phase")
        if self.phase == TRADE and (full or not self.active_companies()):
            raise ValueError("phase: trading needs an active company and fewer than 65 sectors")
        if self.phase == OVER and not full and self.legal_cells():
            raise ValueError("phase: the game is over with sectors left to offer")
        if not self.history or any(len(row) != len(self.players) or min(row) < 0 for row in self.history):
            raise ValueError(f"history: rows of {len(self.players)} net worths ≥ 0, at least one")


def _int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{what}: expected an integer, got {value!r}")
    return value

"""Star Lanes rules: state, moves, mergers, splits, trading and the end of the game, in two rule sets.

``RULES_1995`` implements spec/starlanes.md §1–§9 with the project decisions of §0 (the 1995 C game);
``RULES_1977`` implements spec/starlanes-1977.md with the decisions of its §16 (Steven Faber's 1977 BASIC
original). A rule set is a declared :class:`RuleSet`: its map, its parameters and the tuples of stages a
move, a turn's end and a state check run through, in order. Stages both rule sets share are written once;
where the rules differ each set names its own stage (compare ``RULES_1995`` and ``RULES_1977`` after the
stages).

Pure and deterministic: every random draw comes from the injected ``random.Random`` (``Game.rng``); money
and shares are unbounded Python ``int`` (dollars and whole shares). Nothing here draws, reads keys or touches
files.

The interface follows OpenSpiel: :attr:`Game.current_player`, :meth:`Game.legal_actions`, :meth:`Game.apply`,
:meth:`Game.is_terminal`, :meth:`Game.returns`. Every change of state returns a list of events (frozen
dataclasses) that front ends announce.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from common import game as common_game

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
#: The most company sectors one move adds: the move cell and the outposts on its four sides (§3), so no 1995
#: game ends with more than ``END_SECTORS - 1 + MOVE_SECTORS`` = 69.
MOVE_SECTORS = 5
#: Bits of the players' cash and shares together at the start: 4 × $6000 (+3, the slack of the growth bound)
#: is below 2**15.
START_BITS = 15
#: Bits the players' cash and shares together can grow by in one turn: below 2**17-fold (see check_growth).
TURN_BITS = 17

# The 1977 original (spec/starlanes-1977.md §1): 9 rows, stars only, a base price for inactive companies and
# 48 moves.
MAP_HEIGHT_1977 = 9
CELLS_1977 = MAP_WIDTH * MAP_HEIGHT_1977
STAR_ODDS_1977 = 20
BASE_PRICE_1977 = 100
MOVE_LIMIT_1977 = 48
COMPANY_NAMES_1977 = (
    "Altair Starways",
    "Betelgeuse, Ltd.",
    "Capella Freight Co.",
    "Denebola Shippers",
    "Eridani Expediters",
)

MOVE, TRADE, OVER = "move", "trade", "over"
TERMINAL = common_game.TERMINAL
_LETTER_INDEX = {letter: i for i, letter in enumerate(LETTERS)}
_RIPE = (STAR, OUTPOST)
# Neighbour tables list (N, S, W, E). Merger pairs of spec §3 (1995): (N,S) (N,E) (N,W) (W,E) (E,S) (W,S).
_N, _S, _W, _E = 0, 1, 2, 3
_MERGE_PAIRS = ((_N, _S), (_N, _E), (_N, _W), (_W, _E), (_E, _S), (_W, _S))
_EXPANSION_PRIORITY = (_N, _S, _E, _W)
# The 1977 listing reads neighbours N, S, E, W (spec/starlanes-1977.md §5, §7).
_ORDER_1977 = (_N, _S, _E, _W)


def cell_index(x: int, y: int) -> int:
    """Index of cell ``(x, y)`` (x = column 0..11, y = row 0..9, or 0..8 in 1977): ``x + 12*y``."""
    return x + MAP_WIDTH * y


def cell_xy(index: int) -> tuple[int, int]:
    """``(x, y)`` of a cell index."""
    return index % MAP_WIDTH, index // MAP_WIDTH


def neighbour_table(height: int) -> tuple[tuple[int, int, int, int], ...]:
    """Per cell index of a 12 × ``height`` map: the indices of its N, S, W, E neighbours, -1 off the map."""
    table = []
    for i in range(MAP_WIDTH * height):
        x, y = cell_xy(i)
        table.append((
            cell_index(x, y - 1) if y > 0 else -1,
            cell_index(x, y + 1) if y < height - 1 else -1,
            cell_index(x - 1, y) if x > 0 else -1,
            cell_index(x + 1, y) if x < MAP_WIDTH - 1 else -1,
        ))
    return tuple(table)


NEIGHBOURS = neighbour_table(MAP_HEIGHT)
"""Per cell index of the 1995 map: the N, S, W, E neighbours, -1 off the map (which counts as ``.``)."""
NEIGHBOURS_1977 = neighbour_table(MAP_HEIGHT_1977)
"""The same for the 1977 map of 9 rows."""


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
    """The game ended: ``reason`` is ``"sectors"`` (65 company sectors, 1995), ``"moves"`` (the 48th move,
    1977) or ``"no moves"`` (no cell could be offered; spec/starlanes.md §9 with §0, spec/starlanes-1977.md
    §11 with §16 decision 2)."""

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


class IllegalAction(common_game.IllegalAction):
    """An action that the current state does not allow (wrong phase, bad index, amount out of range)."""


# ---------------------------------------------------------------------------------------------------- state


@dataclass
class Company:
    """A company's size in sectors and its price per share in dollars; active iff ``size > 0`` (§1).

    In the 1977 rules ``size`` is the listing's size counter, which misses merger cells (1977 §7), and an
    inactive company rests at the base price of $100.
    """

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


def generate_map_1977(rng: random.Random) -> list[str]:
    """A new 108-cell map of the 1977 rules (1977 §2): row by row, each cell a star with odds 1 in 20
    (``rng.randrange(20) == 9``), otherwise ``.``; no black holes. Indexed by :func:`cell_index`."""
    return [STAR if rng.randrange(STAR_ODDS_1977) == 9 else EMPTY for _ in range(CELLS_1977)]


# ---------------------------------------------------------------------------------------------------- stages
# A move stage settles part of a move on ``cell`` and returns True once the move is resolved; a turn stage
# returns True once it has decided what comes next; a check raises ValueError naming the broken invariant.

MoveStage = Callable[["Game", int, list[Event]], bool]
TurnStage = Callable[["Game", list[Event]], bool]
Check = Callable[["Game"], None]


def settle_outpost(game: Game, cell: int, events: list[Event]) -> bool:
    """Both rule sets (§3 a; 1977 §5 case 1): with nothing but ``.`` (or off-map) around, the cell becomes an
    outpost ``+``; with a black hole among them (1995 maps only) the site is sucked in and stays ``.``."""
    around = game.neighbours(cell)
    if not all(s in (EMPTY, BLACK_HOLE) for s in around):
        return False
    if BLACK_HOLE in around:
        events.append(SuckedSite(cell))
    else:
        game.grid[cell] = OUTPOST
        events.append(Outpost(cell))
    return True


def merge_pairwise(game: Game, cell: int, events: list[Event]) -> bool:
    """1995 (§3, §6): every pair of differing neighbour companies, in the order (N,S) (N,E) (N,W) (W,E) (E,S)
    (W,S), merges (size, then worth, then a coin flip); the move cell then expands like any other."""
    around = game.neighbours(cell)
    for a, b in _MERGE_PAIRS:
        first, second = around[a], around[b]
        if first in _LETTER_INDEX and second in _LETTER_INDEX and first != second:
            survivor, loser = game.merge_pair(_LETTER_INDEX[first], _LETTER_INDEX[second], events)
            old, new = LETTERS[loser], LETTERS[survivor]
            around = [new if s == old else s for s in around]
    return False


def merge_into_largest(game: Game, cell: int, events: list[Event]) -> bool:
    """1977 (1977 §7, decision 4): with two different companies around, the one with the largest size counter
    (ties: the first in N, S, E, W) absorbs every other neighbour company in the order N, S, E, W, reading the
    map afresh after each; the move cell takes the survivor's letter and adds nothing else. The loser goes
    back to the base price. Resolves the move when there was a merger."""
    table = game.rules.neighbours[cell]
    around = [EMPTY if j < 0 else game.grid[j] for j in table]
    if len({s for s in around if s in _LETTER_INDEX}) < 2:
        return False
    survivor = -1
    for d in _ORDER_1977:
        if around[d] in _LETTER_INDEX:
            company = _LETTER_INDEX[around[d]]
            if survivor < 0 or game.companies[company].size > game.companies[survivor].size:
                survivor = company
    for d in _ORDER_1977:
        j = table[d]
        symbol = game.grid[j] if j >= 0 else EMPTY
        if symbol in _LETTER_INDEX and _LETTER_INDEX[symbol] != survivor:
            loser = _LETTER_INDEX[symbol]
            events.append(game.absorb(survivor, loser))
            if game.rules.splits_after_absorption(game.companies[survivor].price):
                events.append(game.split(survivor))
            game.companies[loser].price = game.rules.inactive_price
    game.grid[cell] = LETTERS[survivor]
    return True


def found_or_expand(game: Game, cell: int, events: list[Event]) -> bool:
    """Both rule sets (§3; 1977 §5 cases 3–4): next to a star or outpost and no company, the lowest free
    letter is founded (5 shares to the mover; with every letter in use the cell becomes ``+``); next to a
    company, the cell joins it (+1 size, +$100). Either way each star around adds $500 (a black hole takes
    $500 away) and each outpost around joins (+1, +$100); then a grown company splits at the rule set's
    threshold. Black holes and the price ≤ 0 outcomes only arise on 1995 maps; founding never reaches a split
    (at most $2100)."""
    grid = game.grid
    live = game.neighbours(cell)
    if any(s in _RIPE for s in live) and not any(s in _LETTER_INDEX for s in live):
        events.extend(game.found(cell))
    elif grid[cell] == EMPTY:
        letter = next(live[d] for d in _EXPANSION_PRIORITY if live[d] in _LETTER_INDEX)
        company = _LETTER_INDEX[letter]
        grid[cell] = letter
        game.companies[company].size += 1
        game.companies[company].price += NEWCO_COST
        game.add_surroundings(cell, company)
        events.append(Expanded(company, cell))
        if game.companies[company].price <= 0:
            game.wipe(company)
            events.append(Destroyed(company))
        elif game.rules.splits_after_growth(game.companies[company].price):
            events.append(game.split(company))
    return True


def pay_dividend(game: Game, events: list[Event]) -> bool:
    """Both rule sets (§5; 1977 §9): the mover's 5% holding bonus."""
    events.append(game.holding_bonus())
    return False


def end_at_sectors(game: Game, events: list[Event]) -> bool:
    """1995 (§9): 65 company sectors end the game at once, without trading."""
    if game.sectors() < END_SECTORS:
        return False
    events.extend(game.finish("sectors", record=True))
    return True


def open_trading(game: Game, events: list[Event]) -> bool:
    """Both rule sets (§8; 1977 §10): with a company active the mover trades."""
    if not game.active_companies():
        return False
    game.phase = TRADE
    game.candidates = []
    game.rules.trading.open(game)
    return True


def pass_the_turn(game: Game, events: list[Event]) -> bool:
    """Both rule sets: the turn ends (no company to trade)."""
    events.extend(game.end_turn())
    return True


def record_turn(game: Game, events: list[Event]) -> bool:
    """Both rule sets: a finished turn adds a row of net worths to the history and counts one move."""
    game.record()
    return False


def end_at_move_limit(game: Game, events: list[Event]) -> bool:
    """1977 (1977 §11): after the 48th move and its trading the game ends."""
    limit = game.rules.move_limit
    if limit is None or game.moves < limit:
        return False
    events.extend(game.finish("moves", record=False))
    return True


def next_player(game: Game, events: list[Event]) -> bool:
    """Both rule sets: the next player in number order draws candidates (none at all ends the game)."""
    game.current = (game.current + 1) % len(game.players)
    events.extend(game.begin_turn())
    return True


class FreeTrading:
    """1995 (§8): any active company, in any order, as often as wanted, from −holdings to cash // price;
    :class:`EndTurn` ends trading."""

    can_end = True

    def open(self, game: Game) -> None:
        game.asking = None

    def tradable(self, game: Game) -> list[int]:
        return game.active_companies()

    def may_trade(self, game: Game, company: int) -> bool:
        return 0 <= company < NUM_COMPANIES and game.companies[company].size > 0

    def passes(self, game: Game) -> list[Action]:
        return [EndTurn()]

    def after_trade(self, game: Game) -> list[Event]:
        return []


class TradingInOrder:
    """1977 (1977 §10, decisions 7 and 8): the active companies are asked in order A to E, one whole amount
    each, from −holdings (no short sales) to cash // price; 0 passes; the last answer ends the turn. The
    company asked is ``Game.asking``."""

    can_end = False

    def open(self, game: Game) -> None:
        game.asking = game.active_companies()[0]

    def tradable(self, game: Game) -> list[int]:
        return [] if game.asking is None else [game.asking]

    def may_trade(self, game: Game, company: int) -> bool:
        return company == game.asking

    def passes(self, game: Game) -> list[Action]:
        return [Trade(company, 0) for company in self.tradable(game)]

    def after_trade(self, game: Game) -> list[Event]:
        after = game.asking if game.asking is not None else -1
        game.asking = next((c for c in game.active_companies() if c > after), None)
        return game.end_turn() if game.asking is None else []


# ---------------------------------------------------------------------------------------------------- checks


def check_sizes_are_sectors(game: Game) -> None:
    """1995 (§3, §4, §7): a company's size equals its sectors on the map; an active company's price is above
    $0; no price is above $3000 (a price above it splits at once, and a company merged away keeps the price it
    had then)."""
    for letter, company in zip(LETTERS, game.companies, strict=True):
        if company.size < 0 or company.price < 0:
            raise ValueError(f"companies: {letter} has a negative size or price")
        if company.price > SPLIT_PRICE:
            raise ValueError(f"companies: {letter} has price ${_compact(company.price)}; no price stays "
                             f"above ${SPLIT_PRICE} (it splits at once)")
        if company.size != game.grid.count(letter):
            raise ValueError(f"companies: {letter} has size {company.size} but {game.grid.count(letter)} "
                             "sectors on the map")
        if company.size and company.price == 0:
            raise ValueError(f"companies: active company {letter} has price $0")


def check_size_counters(game: Game) -> None:
    """1977 (§6, §7): a size counter is 0 with no sectors on the map or between 1 and the company's sectors
    (merger cells are not counted); an inactive company rests at $100, an active one is priced $200–$3000."""
    for letter, company in zip(LETTERS, game.companies, strict=True):
        sectors = game.grid.count(letter)
        if company.size == 0:
            if sectors:
                raise ValueError(f"companies: {letter} has size 0 but {sectors} sectors on the map")
            if company.price != BASE_PRICE_1977:
                raise ValueError(f"companies: inactive company {letter} has price ${company.price}, not "
                                 f"${BASE_PRICE_1977}")
            continue
        if not 1 <= company.size <= sectors:
            raise ValueError(f"companies: {letter} has size counter {company.size} but {sectors} sectors on "
                             "the map (the counter is 1 to the sectors)")
        if not 2 * BASE_PRICE_1977 <= company.price <= SPLIT_PRICE:
            raise ValueError(f"companies: active company {letter} has price ${company.price} (expected "
                             f"${2 * BASE_PRICE_1977} to ${SPLIT_PRICE})")


def check_money(game: Game) -> None:
    """Both rule sets: cash and holdings are ≥ 0 and nobody holds shares of an inactive company."""
    for player in game.players:
        if player.cash < 0:
            raise ValueError(f"players: {player.name!r} has negative cash")
        if min(player.holdings) < 0:
            raise ValueError(f"players: {player.name!r} has negative holdings")
        if any(held and not c.active for held, c in zip(player.holdings, game.companies, strict=True)):
            raise ValueError(f"players: {player.name!r} holds shares of an inactive company")


def check_growth(game: Game) -> None:
    """Both rule sets: every player's cash and holdings stay within what ``game.moves`` finished turns and the
    turn under way can yield: below 2 ** (15 + 17 × (moves + 1)).

    Why (X = all players' cash + all their shares, prices $1–$3000 between actions): X starts at 4 × $6000 at
    most. In one turn a move adds 5 founder shares, or up to three mergers each pay at most 10 × $3000 in
    bonuses, and up to four splits (three mergers, the growth) double the survivor's shares; the dividend pays
    at most $150 a share; trading keeps the mover's worth, so the mover ends with at most that worth in cash
    and in shares (at $1 or more each). Together X' ≤ 100816 × X + 211505, so X + 3 grows at most 100816-fold
    (below 2**17) a turn, from at most 24003 (below 2**15). Real games stay far below: in 400 seeded games of
    each rule set between the computer levels and random players, and 300 of uniformly random play, about 1
    bit a turn at the most (18 bits under the bound at the closest).
    """
    limit = START_BITS + TURN_BITS * (game.moves + 1)
    turns = _turns(game.moves + 1)
    for player in game.players:
        if player.cash.bit_length() > limit:
            raise ValueError(f"players: {player.name!r} has cash ${_compact(player.cash)}, more than a game "
                             f"reaches in {turns} (below ${_compact(2 ** limit)})")
        for letter, held in zip(LETTERS, player.holdings, strict=True):
            if held.bit_length() > limit:
                raise ValueError(f"players: {player.name!r} holds {_compact(held)} shares of {letter}, more "
                                 f"than a game reaches in {turns} (below {_compact(2 ** limit)})")


def check_outposts_alone(game: Game) -> None:
    """1995 (§3): an outpost ``+`` has only ``.`` around it."""
    for cell, symbol in enumerate(game.grid):
        if symbol == OUTPOST and any(s != EMPTY for s in game.neighbours(cell)):
            raise ValueError(f"map: the outpost at {cell_xy(cell)} has a neighbour other than '.'")


def check_outposts_apart(game: Game) -> None:
    """1977 (§5 notes): an outpost ``+`` has no star or outpost around it (a merger may leave it next to a
    company)."""
    for cell, symbol in enumerate(game.grid):
        if symbol == OUTPOST and any(s in _RIPE for s in game.neighbours(cell)):
            raise ValueError(f"map: the outpost at {cell_xy(cell)} has a star or outpost next to it")


def check_phase_sectors(game: Game) -> None:
    """1995 (§9): no move or trading at 65 company sectors; trading needs an active company; the game is only
    over with 65 sectors or no cell to offer, and with at most 69 (the last move adds at most 5 to 64)."""
    full = game.sectors() >= END_SECTORS
    most = END_SECTORS - 1 + MOVE_SECTORS
    if game.sectors() > most:
        raise ValueError(f"companies: {game.sectors()} company sectors; no game goes past {most} (the game "
                         f"ends at {END_SECTORS} and a move adds at most {MOVE_SECTORS})")
    if game.phase == MOVE and full:
        raise ValueError(f"phase: {game.sectors()} company sectors end the game")
    if game.phase == TRADE and (full or not game.active_companies()):
        raise ValueError("phase: trading needs an active company and fewer than 65 sectors")
    if game.phase == OVER and not full and game.legal_cells():
        raise ValueError("phase: the game is over with sectors left to offer")


def check_counters_1995(game: Game) -> None:
    """1995 (§9): the moves counter is 0 or more and no company is asked (trading is free, not in order)."""
    if game.moves < 0:
        raise ValueError(f"moves: {game.moves} moves done (0 or more)")
    if game.asking is not None:
        raise ValueError("asking: the 1995 rules ask no company")


def check_phase_moves(game: Game) -> None:
    """1977 (§3, §10, §11): at most 48 moves; the move and trade phases come before the 48th move is done;
    trading asks an active company; the game is only over after 48 moves or with no cell to offer."""
    limit = MOVE_LIMIT_1977
    if not 0 <= game.moves <= limit:
        raise ValueError(f"moves: {game.moves} moves done (0 to {limit})")
    if game.phase != OVER and game.moves == limit:
        raise ValueError(f"phase: {limit} moves end the game")
    if game.phase == TRADE:
        if game.asking is None or not game.companies[game.asking].active:
            raise ValueError("asking: trading asks an active company")
    elif game.asking is not None:
        raise ValueError(f"asking: no company is asked in the {game.phase} phase")
    if game.phase == OVER and game.moves < limit and game.legal_cells():
        raise ValueError("phase: the game is over with moves left and cells to offer")


def check_candidates(game: Game) -> None:
    """Both rule sets: the move phase offers 1–5 distinct legal cells; no other phase offers any."""
    candidates = game.candidates
    if game.phase == MOVE:
        if (not 1 <= len(candidates) <= NUM_MOVES or len(set(candidates)) != len(candidates)
                or not all(0 <= c < game.rules.cells and game.is_legal_cell(c) for c in candidates)):
            raise ValueError(f"candidates: 1 to {NUM_MOVES} distinct legal cells in the move phase")
    elif candidates:
        raise ValueError(f"candidates: none in the {game.phase} phase")


def check_history(game: Game) -> None:
    """Both rule sets: a row of net worths ≥ 0 per player for the start and every finished turn (moves + 1
    rows), each below 2 ** (12 + 15 + 17 × (moves + 1)): cash and shares as :func:`check_growth` bounds them,
    a share worth at most $3000 (below 2**12)."""
    history = game.history
    if not history or set(map(len, history)) != {len(game.players)} or min(map(min, history)) < 0:
        raise ValueError(f"history: rows of {len(game.players)} net worths ≥ 0, at least one")
    if len(history) != game.moves + 1:   # the moves counter is checked before (0 or more)
        rows = f"{len(history)} row{'' if len(history) == 1 else 's'}"
        raise ValueError(f"history: {rows} for {game.moves} moves done (a row for the start and one a move)")
    limit = (SPLIT_PRICE - 1).bit_length() + START_BITS + TURN_BITS * (game.moves + 1)
    if max(map(max, history)).bit_length() > limit:
        turn, row = next((turn, row) for turn, row in enumerate(history) if max(row).bit_length() > limit)
        raise ValueError(f"history: row {turn} holds a net worth of ${_compact(max(row))}, more than a game "
                         f"reaches in {_turns(game.moves + 1)} (below ${_compact(2 ** limit)})")


# -------------------------------------------------------------------------------------------------- rule sets


@dataclass(frozen=True)
class RuleSet:
    """One rule set: the map, the numbers that differ, and the stages each step of play runs through in order.

    ``move`` resolves a move cell (a stage returning True ends the resolution); ``after_move`` follows every
    move (dividend, end checks, trading); ``turn_end`` follows the last trade; ``checks`` are the invariants
    of every reachable state (:meth:`Game.check`). ``split_price`` maps a price to the price after a 2-for-1
    split; ``splits_after_growth`` / ``splits_after_absorption`` say when one happens.
    """

    name: str
    height: int
    symbols: str
    company_names: tuple[str, ...]
    inactive_price: int
    make_map: Callable[[random.Random], list[str]]
    move: tuple[MoveStage, ...]
    after_move: tuple[TurnStage, ...]
    turn_end: tuple[TurnStage, ...]
    trading: FreeTrading | TradingInOrder
    checks: tuple[Check, ...]
    split_price: Callable[[int], int]
    splits_after_growth: Callable[[int], bool]
    splits_after_absorption: Callable[[int], bool]
    end_sectors: int | None = None
    move_limit: int | None = None

    @property
    def cells(self) -> int:
        return MAP_WIDTH * self.height

    @property
    def neighbours(self) -> tuple[tuple[int, int, int, int], ...]:
        return NEIGHBOURS if self.height == MAP_HEIGHT else NEIGHBOURS_1977


RULES_1995 = RuleSet(
    name="1995",
    height=MAP_HEIGHT,
    symbols=EMPTY + STAR + BLACK_HOLE + OUTPOST + LETTERS,
    company_names=COMPANY_NAMES,
    inactive_price=0,
    make_map=generate_map,
    move=(settle_outpost, merge_pairwise, found_or_expand),
    after_move=(pay_dividend, end_at_sectors, open_trading, pass_the_turn),
    turn_end=(record_turn, next_player),
    trading=FreeTrading(),
    checks=(check_sizes_are_sectors, check_money, check_outposts_alone, check_phase_sectors,
            check_counters_1995, check_growth, check_candidates, check_history),
    split_price=lambda price: (price + 1) // 2,
    splits_after_growth=lambda price: price > SPLIT_PRICE,
    splits_after_absorption=lambda price: price > SPLIT_PRICE,
    end_sectors=END_SECTORS,
)
"""spec/starlanes.md: the 1995 C game with the decisions of its §0."""

RULES_1977 = RuleSet(
    name="1977",
    height=MAP_HEIGHT_1977,
    symbols=EMPTY + STAR + OUTPOST + LETTERS,
    company_names=COMPANY_NAMES_1977,
    inactive_price=BASE_PRICE_1977,
    make_map=generate_map_1977,
    move=(settle_outpost, merge_into_largest, found_or_expand),
    after_move=(pay_dividend, open_trading, pass_the_turn),
    turn_end=(record_turn, end_at_move_limit, next_player),
    trading=TradingInOrder(),
    checks=(check_size_counters, check_money, check_outposts_apart, check_phase_moves, check_growth,
            check_candidates, check_history),
    split_price=lambda price: price // 2,
    splits_after_growth=lambda price: price >= SPLIT_PRICE,
    splits_after_absorption=lambda price: price > SPLIT_PRICE,
    move_limit=MOVE_LIMIT_1977,
)
"""spec/starlanes-1977.md: the 1977 BASIC original with the decisions of its §16."""

RULE_SETS = {rules.name: rules for rules in (RULES_1995, RULES_1977)}
"""The rule sets by name, as ``--rules`` and the save files name them."""


def rule_set(name: str) -> RuleSet:
    """The rule set called ``name`` (``"1995"`` or ``"1977"``). Raises ValueError naming the choices."""
    try:
        return RULE_SETS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown rules {_quoted(name)} (choose from {', '.join(RULE_SETS)})") from None


# ---------------------------------------------------------------------------------------------------- game


class Game:
    """One game of Star Lanes: map, companies, players, whose turn, phase and the candidate moves.

    ``rules`` is the :class:`RuleSet` played (default :data:`RULES_1995`); ``grid`` a list of ``rules.cells``
    one-character strings (120 in 1995, 108 in 1977); ``companies`` 5 :class:`Company`; ``players`` 1..4
    :class:`Player`; ``current`` the index of the player on turn; ``phase`` one of ``"move"``, ``"trade"``,
    ``"over"``; ``candidates`` the cell indices offered this turn (in the order drawn); ``history`` the
    players' net worths after every finished turn (the first row is the start of the game); ``moves`` the
    number of finished turns (the 1977 K); ``asking`` the company whose amount the 1977 trading asks for.
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
        rules: RuleSet = RULES_1995,
        moves: int = 0,
        asking: int | None = None,
    ) -> None:
        if len(grid) != rules.cells:
            raise ValueError(f"the map must have {rules.cells} cells, not {len(grid)}")
        if not 1 <= len(players) <= MAX_PLAYERS:
            raise ValueError(f"1 to {MAX_PLAYERS} players, not {len(players)}")
        self.rules = rules
        self.grid = list(grid)
        self.players = list(players)
        self.rng = rng
        self.companies = (list(companies) if companies is not None
                          else [Company(0, rules.inactive_price) for _ in LETTERS])
        self.current = current
        self.phase = phase
        self.candidates = list(candidates) if candidates is not None else []
        self.history = [list(row) for row in history] if history is not None else [self.net_worths()]
        self.moves = moves
        self.asking = asking

    @classmethod
    def new(cls, names: Sequence[str], rng: random.Random, rules: RuleSet = RULES_1995) -> Game:
        """Start a game (§2, §10; 1977 §2–§3): generate the map, pick the first player at random, draw the
        candidates."""
        grid = rules.make_map(rng)
        game = cls(grid, [Player(name) for name in names], rng, rules=rules)
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

    def company_name(self, company: int) -> str:
        """The name of company 0..4 in this rule set (B is Beetlejuice in 1995, Betelgeuse in 1977)."""
        return self.rules.company_names[company]

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

    def winners(self) -> list[int]:
        """Every player with the highest net worth (a shared win on a tie; 1977 §16 decision 10)."""
        worths = self.net_worths()
        return [i for i, worth in enumerate(worths) if worth == max(worths)]

    def company_worth(self, company: int) -> int:
        """Price × all players' holdings of ``company`` (the "total worth" of §6 and §10)."""
        return self.companies[company].price * sum(p.holdings[company] for p in self.players)

    def sectors(self) -> int:
        """The sum of all company sizes."""
        return sum(c.size for c in self.companies)

    def end_reason(self) -> str | None:
        """Why the game is over: ``"sectors"`` (65 company sectors, 1995), ``"moves"`` (48 moves, 1977) or
        ``"no moves"`` (no cell could be offered), as :class:`GameOver`; None while it goes on (§9)."""
        if self.phase != OVER:
            return None
        if self.rules.end_sectors is not None and self.sectors() >= self.rules.end_sectors:
            return "sectors"
        if self.rules.move_limit is not None and self.moves >= self.rules.move_limit:
            return "moves"
        return "no moves"

    def sectors_remaining(self) -> int:
        """Company sectors left before the game ends: 65 − sum of sizes (§10 standings)."""
        return END_SECTORS - self.sectors()

    def moves_remaining(self) -> int | None:
        """Moves left before the game ends, this one included (1977: 48 − moves done); None without one."""
        limit = self.rules.move_limit
        return None if limit is None else max(limit - self.moves, 0)

    def neighbours(self, cell: int) -> list[str]:
        """The N, S, W, E neighbour symbols of ``cell``; off the map counts as ``.``."""
        grid = self.grid
        return [EMPTY if j < 0 else grid[j] for j in self.rules.neighbours[cell]]

    def is_legal_cell(self, cell: int) -> bool:
        """Whether a cell may be offered as a candidate (§2 rules 1 and 3; 1977 §4, the same rule)."""
        if self.grid[cell] != EMPTY:
            return False
        if all(c.size > 0 for c in self.companies):
            around = self.neighbours(cell)
            if any(s in _RIPE for s in around) and not any(s in _LETTER_INDEX for s in around):
                return False
        return True

    def legal_cells(self) -> list[int]:
        return [i for i in range(self.rules.cells) if self.is_legal_cell(i)]

    def trade_limits(self, company: int) -> tuple[int, int]:
        """``(min, max)`` shares the current player may trade of a company: −holdings, cash // price."""
        player = self.players[self.current]
        return -player.holdings[company], player.cash // self.companies[company].price

    def tradable(self) -> list[int]:
        """The companies the current player may trade now: every active one (1995), the one asked (1977)."""
        return self.rules.trading.tradable(self) if self.phase == TRADE else []

    def can_end_trading(self) -> bool:
        """Whether :class:`EndTurn` is legal now (the 1995 trade phase; 1977 asks each company instead)."""
        return self.phase == TRADE and self.rules.trading.can_end

    def legal_actions(self) -> list[Action]:
        """The actions of the current player that matter most (not every legal trade).

        Move phase: one :class:`Move` per candidate. Trade phase: the pass (:class:`EndTurn` in 1995, an
        amount of 0 for the company asked in 1977), then per tradable company the extreme trades (buy the
        maximum, sell everything) when they are not 0; every amount between those is legal too
        (:meth:`is_legal`). Over: nothing.
        """
        if self.phase == MOVE:
            return [Move(i) for i in range(len(self.candidates))]
        if self.phase == TRADE:
            actions: list[Action] = list(self.rules.trading.passes(self))
            for company in self.tradable():
                low, high = self.trade_limits(company)
                actions.extend(Trade(company, amount) for amount in (high, low) if amount != 0)
            return actions
        return []

    def is_legal(self, action: Action) -> bool:
        if isinstance(action, Trade):
            if (self.phase != TRADE or not isinstance(action.amount, int)
                    or not self.rules.trading.may_trade(self, action.company)):
                return False
            low, high = self.trade_limits(action.company)
            return low <= action.amount <= high
        if isinstance(action, Move):
            return self.phase == MOVE and 0 <= action.index < len(self.candidates)
        if isinstance(action, EndTurn):
            return self.can_end_trading()
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
            return [self._trade(action.company, action.amount), *self.rules.trading.after_trade(self)]
        return self.end_turn()

    def begin_turn(self) -> list[Event]:
        """Draw the current player's candidates (§2); with no legal cell at all the game ends."""
        self.phase = MOVE
        self.asking = None
        self.candidates = self.draw_candidates()
        if not self.candidates:
            return self.finish("no moves", record=False)
        return []

    def draw_candidates(self) -> list[int]:
        """Up to 5 distinct legal cells by rejection sampling with ``rng.randrange(cells)`` (§2, 1977 §4).

        When fewer than 5 legal cells exist, the ones that exist are returned in the order drawn (§0, 1977
        decision 2); the draws are the same as plain rejection sampling until that many have been found.
        """
        chosen: list[int] = []
        target = NUM_MOVES
        rng = self.rng
        cells = self.rules.cells
        draws = 0
        check_at = 1 if self.grid.count(EMPTY) < NUM_MOVES else 256
        while len(chosen) < target:
            draws += 1
            if draws % check_at == 0:
                target = min(NUM_MOVES, len(self.legal_cells()))
                if len(chosen) >= target:
                    break
            cell = rng.randrange(cells)
            if cell not in chosen and self.is_legal_cell(cell):
                chosen.append(cell)
        return chosen

    def place(self, cell: int) -> list[Event]:
        """A move on ``cell``: resolve it (§3), then the rule set's ``after_move`` stages: the mover's holding
        bonus (§5), the end of the game (§9) and trading.

        Afterwards the phase is ``"over"``, ``"trade"`` (some company is active) or the next player's
        ``"move"``.
        """
        events = self.resolve(cell)
        for stage in self.rules.after_move:
            if stage(self, events):
                break
        return events

    def end_turn(self) -> list[Event]:
        """Finish the turn through the rule set's ``turn_end`` stages: record net worths, end the game at the
        move limit (1977), pass to the next player and draw their candidates."""
        events: list[Event] = []
        for stage in self.rules.turn_end:
            if stage(self, events):
                break
        return events

    def record(self) -> None:
        """Count a finished turn and add its row of net worths to the history."""
        self.history.append(self.net_worths())
        self.moves += 1

    def finish(self, reason: str, record: bool) -> list[Event]:
        """End the game (``reason`` as :class:`GameOver`), recording the turn that ended it if ``record``."""
        if record:
            self.record()
        self.phase = OVER
        self.candidates = []
        self.asking = None
        return [GameOver(reason)]

    def trade(self, company: int, amount: int) -> Traded:
        """Buy or sell ``amount`` shares at the current price (§8; 1977 §10). The 1977 walk to the next
        company is :meth:`apply`'s.

        Raises :class:`IllegalAction` when the amount is out of range; nothing changes then.
        """
        if not self.is_legal(Trade(company, amount)):
            raise IllegalAction(f"invalid amount {amount} for company {LETTERS[company]}")
        return self._trade(company, amount)

    def _trade(self, company: int, amount: int) -> Traded:
        price = self.companies[company].price
        player = self.players[self.current]
        player.cash -= amount * price
        player.holdings[company] += amount
        return Traded(self.current, company, amount, price)

    def holding_bonus(self) -> HoldingBonus:
        """Pay the current player 5% of price × holdings per active company, each truncated (§5; 1977 §9)."""
        player = self.players[self.current]
        amount = sum(
            player.holdings[i] * c.price // 20 for i, c in enumerate(self.companies) if c.size > 0
        )
        player.cash += amount
        return HoldingBonus(self.current, amount)

    def resolve(self, cell: int) -> list[Event]:
        """Resolve a move on ``cell`` through the rule set's ``move`` stages (§3; 1977 §5): outpost, mergers,
        founding or expansion, splits.

        No holding bonus and no phase change; the current player is the mover (founder shares).
        """
        events: list[Event] = []
        for stage in self.rules.move:
            if stage(self, cell, events):
                break
        return events

    def found(self, cell: int) -> list[Event]:
        """Found the lowest free company on ``cell`` (the cell becomes ``+`` when every letter is in use)."""
        free = next((i for i, c in enumerate(self.companies) if c.size == 0), None)
        if free is None:
            self.grid[cell] = OUTPOST
            return [Outpost(cell)]
        self.grid[cell] = LETTERS[free]
        company = self.companies[free]
        company.size = 1
        company.price = INIT_CO_COST
        self.add_surroundings(cell, free)
        if company.price <= 0:
            self.wipe(free)
            return [Stillborn(free)]
        self.players[self.current].holdings[free] = FOUNDER_BONUS
        return [NewCompany(free, cell, self.current)]

    def add_surroundings(self, cell: int, company: int) -> None:
        """Price the stars (+$500) and black holes (−$500) around a new cell and take in its outposts."""
        grid = self.grid
        co = self.companies[company]
        for j in self.rules.neighbours[cell]:
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

    def wipe(self, company: int) -> None:
        """A company's cells, holdings, size and price vanish (a black hole, 1995 §3)."""
        letter = LETTERS[company]
        self.grid[:] = [EMPTY if s == letter else s for s in self.grid]
        for player in self.players:
            player.holdings[company] = 0
        self.companies[company].size = 0
        self.companies[company].price = 0

    def split(self, company: int) -> Split:
        """A 2-for-1 split: the rule set's split price, every holding doubled (§7; 1977 §8)."""
        co = self.companies[company]
        co.price = self.rules.split_price(co.price)
        for player in self.players:
            player.holdings[company] *= 2
        return Split(company)

    def absorb(self, survivor: int, loser: int) -> Merged:
        """``loser`` joins ``survivor`` (§6; 1977 §7): its cells, size and price are added; every holder gets
        ⌊(h+1)/2⌋ survivor shares and a bonus of ⌊10 × price × h / total⌋ dollars (total 0 counts as 1)."""
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
        return Merged(loser, survivor, tuple(rows))

    def merge_pair(self, c1: int, c2: int, events: list[Event]) -> tuple[int, int]:
        """Merge two companies by the 1995 rule (§6): the larger survives, then the one of greater worth, then
        a coin flip; a split follows above $3000. Returns ``(survivor, loser)``."""
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
        events.append(self.absorb(survivor, loser))
        if self.rules.splits_after_absorption(self.companies[survivor].price):
            events.append(self.split(survivor))
        return survivor, loser

    # ------------------------------------------------------------------------------------------ copies, saves

    def clone(self) -> Game:
        """An independent copy, random generator state included (history rows are shared: never changed)."""
        copy = Game.__new__(Game)
        copy.rules = self.rules
        copy.grid = list(self.grid)
        copy.players = [Player(p.name, p.cash, list(p.holdings)) for p in self.players]
        copy.rng = random.Random.__new__(random.Random)  # no seeding from the OS: setstate replaces it all
        copy.rng.setstate(self.rng.getstate())
        copy.companies = [Company(c.size, c.price) for c in self.companies]
        copy.current = self.current
        copy.phase = self.phase
        copy.candidates = list(self.candidates)
        copy.history = list(self.history)
        copy.moves = self.moves
        copy.asking = self.asking
        return copy

    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-ready data (``rng`` is ``random.Random.getstate()`` as lists)."""
        version, internal, gauss = self.rng.getstate()
        height = self.rules.height
        return {
            "rules": self.rules.name,
            "map": ["".join(self.grid[y * MAP_WIDTH:(y + 1) * MAP_WIDTH]) for y in range(height)],
            "companies": [[c.size, c.price] for c in self.companies],
            "players": [{"name": p.name, "cash": p.cash, "holdings": list(p.holdings)} for p in self.players],
            "current": self.current,
            "phase": self.phase,
            "candidates": list(self.candidates),
            "moves": self.moves,
            "asking": self.asking,
            "history": list(self.history),  # rows are never changed (clone shares them too)
            "rng": [version, list(internal), gauss],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """Rebuild a game from :meth:`to_dict` data (a save without ``"rules"`` plays the 1995 rules). Raises
        ValueError naming the first bad field, or the first invariant of the rule set's checks broken."""
        try:
            try:
                rules = rule_set(data.get("rules", RULES_1995.name))
            except ValueError as exc:
                raise ValueError(f"rules: {exc}") from None
            rows = data["map"]
            if len(rows) != rules.height or any(len(row) != MAP_WIDTH for row in rows):
                raise ValueError(f"map: expected {rules.height} rows of {MAP_WIDTH} cells "
                                 f"({rules.name} rules)")
            grid = [s for row in rows for s in row]
            bad = next((s for s in grid if s not in rules.symbols), None)
            if bad is not None:
                raise ValueError(f"map: unknown symbol {bad!r} in the {rules.name} rules")
            companies = [Company(_int(size, "companies"), _int(price, "companies")) for size, price in
                         data["companies"]]
            if len(companies) != NUM_COMPANIES:
                raise ValueError(f"companies: expected {NUM_COMPANIES} entries")
            players = []
            for entry in data["players"]:
                name = entry["name"]
                problem = name_problem(name)
                if problem is not None:
                    raise ValueError(f"players: {problem}")
                holdings = [_int(h, "holdings") for h in entry["holdings"]]
                if len(holdings) != NUM_COMPANIES or min(holdings) < 0:
                    raise ValueError("players: holdings must be 5 numbers ≥ 0")
                players.append(Player(name, _int(entry["cash"], "cash"), holdings))
            phase = data["phase"]
            if phase not in (MOVE, TRADE, OVER):
                raise ValueError(f"phase: unknown {_quoted(phase)}")
            current = _int(data["current"], "current")
            if not 0 <= current < len(players):
                raise ValueError("current: no such player")
            candidates = [_int(c, "candidates") for c in data["candidates"]]
            if any(not 0 <= c < rules.cells for c in candidates):
                raise ValueError("candidates: must be cells of the map")
            history = _int_rows(data["history"], "history")
            moves = _int(data.get("moves", len(history) - 1), "moves")
            asking = data.get("asking")
            if asking is not None and not 0 <= _int(asking, "asking") < NUM_COMPANIES:
                raise ValueError("asking: not a company")
            version, internal, gauss = data["rng"]
            rng = random.Random()
            try:
                rng.setstate((version, tuple(internal), gauss))
            except (OverflowError, ValueError, TypeError):
                raise ValueError("rng: not a state of Python's random generator") from None
            game = cls(grid, players, rng, companies, current, phase, candidates, history, rules, moves,
                       asking)
        except (KeyError, TypeError) as exc:
            raise ValueError(f"missing or malformed field {exc}") from None
        game.check()
        return game

    def check(self) -> None:
        """Check the invariants every reachable state keeps (the rule set's ``checks``); raises ValueError
        naming the first one broken.

        1995: company sizes equal their letters on the map, an active company's price is above $0 and no
        price is above $3000 (§3, §7); cash and holdings are ≥ 0 and nobody holds shares of an inactive
        company; an outpost ``+`` has only ``.`` around it (§3); the phase fits the state: ``"move"`` offers
        1–5 distinct legal cells, ``"trade"`` needs an active company, neither at 65 company sectors (§9);
        ``"over"`` needs 65 sectors (69 at most) or no legal cell; ``history`` has a row of net worths ≥ 0 per
        player for every finished turn; the moves counter is ≥ 0 and no company is asked. 1977: a size
        counter lies between 1 and the company's sectors (0 with none), prices are $100 inactive and
        $200–$3000 active, outposts have no star or outpost around, at most 48 moves, and trading asks an
        active company. Both: cash, holdings and the history's net worths stay below what the turns played can
        yield (:func:`check_growth`, :func:`check_history`); the 1995 rules bound neither money nor the number
        of turns (a move into a black hole changes nothing and can be made again and again).
        """
        for check in self.rules.checks:
            check(self)


def _turns(count: int) -> str:
    """``1 turn``, ``2 turns``."""
    return f"{count} turn{'' if count == 1 else 's'}"


def _compact(value: int) -> str:
    """A number of any size in at most 15 digits: ``123456``, or ``1.234e20`` (truncated) beyond."""
    digits = str(value)
    if len(digits) <= 15:
        return digits
    return f"{digits[0]}.{digits[1:4]}e{len(digits) - 1}"


def name_problem(name: object) -> str | None:
    """Why *name* cannot be a player's name (text of 1 to :data:`MAX_NAME` characters, spec §10), or None
    when it can: ``a name is text of 1 to 20 characters, not ''``."""
    if isinstance(name, str) and 0 < len(name) <= MAX_NAME:
        return None
    return f"a name is text of 1 to {MAX_NAME} characters, not {_quoted(name)}"


def _quoted(value: object, most: int = 30) -> str:
    """``value`` as Python writes it, cut to about ``most`` characters with "…" (a 10,000-letter name in a
    save is named in a one-line error, not printed whole)."""
    text = repr(value)
    return text if len(text) <= most else text[:most] + "…"


def _int_rows(rows: Sequence[Sequence[object]], what: str) -> Sequence[Sequence[int]]:
    """*rows*, checked to hold only integers (a Star Lanes save may hold 200,000 history rows: the types are
    gathered in one pass, each value checked only to name a bad one). Raises ValueError naming *what*."""
    if not set(map(type, itertools.chain.from_iterable(rows))) <= {int}:
        for row in rows:
            for v in row:
                _int(v, what)
    return rows  # type: ignore[return-value]


def _int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{what}: expected an integer, got {value!r}")
    return value

"""Computer players for Star Lanes (spec/starlanes.md §0 "Beyond the original"), on the rules' Game alone.

Three strengths, the names of motti's levels, all deterministic (they never draw from the game's generator, so
a seeded game with computer players replays exactly). Each level is a way to move and a way to trade
(:data:`STYLES`):

- ``easy``: moves to the candidate that raises its own net worth most right now; spends its cash on the
  dearest companies it can afford and never sells.
- ``medium``: moves as ``hard`` does; buys the companies with the best expected growth per dollar (stars and
  room around them) first, but never sells.
- ``hard``: moves to the candidate that best improves its net worth over the richest opponent, counting the
  growth its holdings can expect; each turn it moves its money into the company with the best expected growth
  per dollar and sells out of the others, and out of companies that one black hole could destroy.

Their strength is measured by ``bench/starlanes_levels.py`` (2-player games, seats alternated, both rule
sets).

Under the 1977 rules (spec/starlanes-1977.md) the same plans are walked through the companies in order A to E,
one amount each, each amount cut to what the cash at that point allows; and since that game ends after 48
moves, the hard player values a company's room to grow less as the end nears (none on the last round).
"""

from __future__ import annotations

from starlanes.rules import (
    BLACK_HOLE,
    BLACK_HOLE_COST,
    EMPTY,
    LETTERS,
    MOVE,
    NEWCO_COST,
    STAR,
    STAR_COST,
    TRADE,
    Action,
    EndTurn,
    Game,
    Move,
    Trade,
)

LEVELS = ("easy", "medium", "hard")
#: Per level: how it moves (``"worth"``: its own net worth now; ``"lead"``: its lead over the richest opponent
#: plus the growth its holdings can expect) and how it trades (``"dearest"``: buys the dearest companies,
#: never sells; ``"growth"``: buys by expected growth per dollar, never sells; ``"switch"``: sells all but the
#: best company by growth per dollar and buys that).
STYLES = {"easy": ("worth", "dearest"), "medium": ("lead", "growth"), "hard": ("lead", "switch")}


def choose(game: Game, level: str) -> list[Action]:
    """The current player's actions for this phase, in order.

    Move phase: ``[Move(i)]``. Trade phase: the trades, then ``EndTurn()`` (1995); or one amount for each
    company still to be asked, in order (1977). Raises ValueError for an unknown level or a finished game.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown computer level {level!r} (choose from {', '.join(LEVELS)})")
    moving, trading = STYLES[level]
    if game.phase == MOVE:
        return [choose_move(game, moving)]
    if game.phase == TRADE:
        trades = _dearest_trades(game) if trading == "dearest" else _growth_trades(game, trading == "switch")
        return [*trades, EndTurn()] if game.can_end_trading() else _in_order(game, trades)
    raise ValueError("the game is over")


def choose_move(game: Game, style: str) -> Move:
    """The best candidate by a one-move look-ahead on a copy of the game (ties: the lower number); ``style``
    as in :data:`STYLES`."""
    me = game.current
    best, best_value = 0, None
    for index, cell in enumerate(game.candidates):
        trial = game.clone()
        trial.place(cell)
        worths = trial.net_worths()
        value = worths[me]
        if style == "lead":
            others = [w for i, w in enumerate(worths) if i != me]
            value = 2 * value - max(others, default=0) + _potential(trial, me)
        if best_value is None or value > best_value:
            best, best_value = index, value
    return Move(best)


def _in_order(game: Game, trades: list[Trade]) -> list[Action]:
    """A plan as the 1977 trading asks for it: one amount for the company asked and each active one after it,
    in order, each within the limits the cash reached by then allows."""
    planned: dict[int, int] = {}
    for trade in trades:
        planned[trade.company] = planned.get(trade.company, 0) + trade.amount
    player = game.players[game.current]
    cash = player.cash
    walk: list[Action] = []
    for company in game.active_companies():
        if game.asking is None or company < game.asking:
            continue
        price = game.companies[company].price
        amount = max(-player.holdings[company], min(planned.get(company, 0), cash // price))
        cash -= amount * price
        walk.append(Trade(company, amount))
    return walk


def _dearest_trades(game: Game) -> list[Trade]:
    cash = game.players[game.current].cash
    trades = []
    for company in sorted(game.active_companies(), key=lambda c: -game.companies[c].price):
        amount = cash // game.companies[company].price
        if amount > 0:
            trades.append(Trade(company, amount))
            cash -= amount * game.companies[company].price
    return trades


_COMPANY_OF = {letter: company for company, letter in enumerate(LETTERS)}


def _frontiers(game: Game) -> list[set[int]]:
    """Per company (0..4): the empty cells next to its sectors, found in one pass over the map."""
    grid = game.grid
    table = game.rules.neighbours
    found: list[set[int]] = [set() for _ in LETTERS]
    for cell, symbol in enumerate(grid):
        company = _COMPANY_OF.get(symbol)
        if company is not None:
            found[company].update(j for j in table[cell] if j >= 0 and grid[j] == EMPTY)
    return found


def _growth(game: Game, company: int, frontier: set[int]) -> tuple[int, bool]:
    """Expected price gain of ``company`` over its ``frontier``, and whether one move could destroy it."""
    price = game.companies[company].price
    grid = game.grid
    table = game.rules.neighbours
    gain = 0
    risky = False
    for cell in frontier:
        around = [grid[j] for j in table[cell] if j >= 0]
        step = NEWCO_COST + STAR_COST * around.count(STAR) - BLACK_HOLE_COST * around.count(BLACK_HOLE)
        gain += step
        risky = risky or price + step <= 0
    return gain, risky


def _potential(game: Game, player: int) -> int:
    holdings = game.players[player].holdings
    frontiers = _frontiers(game)
    gain = sum(holdings[c] * max(_growth(game, c, frontiers[c])[0], 0) // 4 for c in game.active_companies()
               if holdings[c])
    return gain * _rounds_left(game) // _HORIZON


_HORIZON = 4


def _rounds_left(game: Game) -> int:
    """Rounds of moves left to profit from growth, at most :data:`_HORIZON` (always that without a move
    limit; 0 once the game is over)."""
    left = game.moves_remaining()
    if left is None:
        return _HORIZON
    return min(_HORIZON, left // len(game.players))


def _growth_trades(game: Game, switch: bool) -> list[Trade]:
    player = game.players[game.current]
    active = game.active_companies()
    scores: dict[int, float] = {}
    frontiers = _frontiers(game)
    for company in active:
        gain, risky = _growth(game, company, frontiers[company])
        if not risky:
            scores[company] = gain / game.companies[company].price
    ranked = sorted((c for c in active if scores.get(c, 0) > 0), key=lambda c: -scores[c])
    keep = set(ranked[:1])
    trades = []
    cash = player.cash
    for company in active:
        held = player.holdings[company]
        if held and switch and company not in keep:
            trades.append(Trade(company, -held))
            cash += held * game.companies[company].price
    for company in ranked:
        amount = cash // game.companies[company].price
        if amount > 0:
            trades.append(Trade(company, amount))
            cash -= amount * game.companies[company].price
    return trades

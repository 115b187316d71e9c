"""Computer players for Star Lanes (spec/starlanes.md §0 "Beyond the original"), on the game interface only.

Two strengths, both deterministic (they never draw from the game's generator, so a seeded game with computer
players replays exactly):

- ``easy``: moves to the candidate that raises its own net worth most right now; spends its cash on the
  dearest companies it can afford and never sells.
- ``hard``: moves to the candidate that best improves its net worth over the richest opponent; each turn it
  moves its money into the company with the best expected growth per dollar (stars and room around it), and
  sells out of companies that one black hole could destroy.

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

LEVELS = ("easy", "hard")


def choose(game: Game, level: str) -> list[Action]:
    """The current player's actions for this phase, in order.

    Move phase: ``[Move(i)]``. Trade phase: the trades, then ``EndTurn()`` (1995); or one amount for each
    company still to be asked, in order (1977). Raises ValueError for an unknown level or a finished game.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown computer level {level!r} (choose from {', '.join(LEVELS)})")
    if game.phase == MOVE:
        return [choose_move(game, level)]
    if game.phase == TRADE:
        trades = _easy_trades(game) if level == "easy" else _hard_trades(game)
        return [*trades, EndTurn()] if game.can_end_trading() else _in_order(game, trades)
    raise ValueError("the game is over")


def choose_move(game: Game, level: str) -> Move:
    """The best candidate by a one-move look-ahead on a copy of the game (ties: the lower number)."""
    me = game.current
    best, best_value = 0, None
    for index, cell in enumerate(game.candidates):
        trial = game.clone()
        trial.place(cell)
        worths = trial.net_worths()
        value = worths[me]
        if level == "hard":
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


def _easy_trades(game: Game) -> list[Trade]:
    cash = game.players[game.current].cash
    trades = []
    for company in sorted(game.active_companies(), key=lambda c: -game.companies[c].price):
        amount = cash // game.companies[company].price
        if amount > 0:
            trades.append(Trade(company, amount))
            cash -= amount * game.companies[company].price
    return trades


def _frontier(game: Game, company: int) -> set[int]:
    letter = LETTERS[company]
    grid = game.grid
    cells = [i for i, s in enumerate(grid) if s == letter]
    table = game.rules.neighbours
    return {j for i in cells for j in table[i] if j >= 0 and grid[j] == EMPTY}


def _growth(game: Game, company: int) -> tuple[int, bool]:
    """Expected price gain of ``company`` over its frontier, and whether one move could destroy it."""
    price = game.companies[company].price
    gain = 0
    risky = False
    for cell in _frontier(game, company):
        around = [game.grid[j] for j in game.rules.neighbours[cell] if j >= 0]
        step = NEWCO_COST + STAR_COST * around.count(STAR) - BLACK_HOLE_COST * around.count(BLACK_HOLE)
        gain += step
        risky = risky or price + step <= 0
    return gain, risky


def _potential(game: Game, player: int) -> int:
    holdings = game.players[player].holdings
    gain = sum(holdings[c] * max(_growth(game, c)[0], 0) // 4 for c in game.active_companies())
    return gain * _rounds_left(game) // _HORIZON


_HORIZON = 4


def _rounds_left(game: Game) -> int:
    """Rounds of moves left to profit from growth, at most :data:`_HORIZON` (always that without a move
    limit; 0 once the game is over)."""
    left = game.moves_remaining()
    if left is None:
        return _HORIZON
    return min(_HORIZON, left // len(game.players))


def _hard_trades(game: Game) -> list[Trade]:
    player = game.players[game.current]
    active = game.active_companies()
    scores = {}
    for company in active:
        gain, risky = _growth(game, company)
        scores[company] = None if risky else gain / game.companies[company].price
    ranked = sorted((c for c in active if scores[c] is not None and scores[c] > 0), key=lambda c: -scores[c])
    keep = set(ranked[:1])
    trades = []
    cash = player.cash
    for company in active:
        held = player.holdings[company]
        if held and company not in keep:
            trades.append(Trade(company, -held))
            cash += held * game.companies[company].price
    for company in ranked:
        amount = cash // game.companies[company].price
        if amount > 0:
            trades.append(Trade(company, amount))
            cash -= amount * game.companies[company].price
    return trades

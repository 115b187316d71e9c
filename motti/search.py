"""A two-ply search of motti (spec/motti.md §2): capital windows, reset timing. It was the ``medium`` level
until motti/rollout.py took its place (issue 28); bench/motti_levels.py and its tests still measure it.

An occupied capital cannot be attacked, so a capital falls only between a global reset (§2.8) and its owner's
next turn. The cells orthogonally next to a capital are its *ring*: one occupied ring cell makes the capital
attackable. With ``a`` attacks left and ``r`` crossable ring cells, crossing every ring cell, and the capital
as soon as one of them is conquered, captures with the probability :func:`strike_odds` (each attack conquers
each cross with probability 1/6, §2.2). On top of the ``medium`` player (motti/ai.py) the hard player, in this
order:

1. at a fresh turn takes an enemy capital with a Guerilla whenever it can (a certain capture);
2. at a fresh turn defends its own unoccupied capital when the enemy holds one of its ring cells or has an
   occupied cell within 2 cells (Chebyshev distance), unless its own strike now is worth more than the risk;
   of the defences it prefers one that does not bring the global reset (which would free the capital again
   for the enemy's whole next turn);
3. strikes while an enemy capital is unoccupied and a ring cell (or the capital) can be crossed; the crosses
   a strike leaves free guard its own capital when an enemy owns one of its ring cells (they take only draws
   that would fail);
4. at a fresh turn takes a certain Guerilla onto an enemy's ring cell (it makes the next window its own);
5. times the reset: an attack that would bring the global reset is crossed first when the strike after it,
   with the attacks left, is worth it (:func:`_worth_resetting`), and left out otherwise — late in a turn,
   or when the window would be the enemy's — unless nothing else is left to attack at a fresh turn (passing
   for ever would stall the game); nor does it choose a Defend or Guerilla that would bring it while an enemy
   owns a ring cell of its capital (but for the last defence of rule 2);
6. otherwise, at the start of its turns, chooses between the medium player's best Attack, Defend and
   Guerilla by a search: each candidate is played on clones reseeded from its own ``random.Random`` — its
   whole turn, then the next player's reply turn, both played by a fast policy with the same
   capital-window rules — and the mean :func:`motti.evaluate.evaluate` after the reply decides. The number of
   simulations is fixed (``budget``, fewer on large boards: :func:`simulations`), so a seed gives the same
   game on any machine.

Deterministic given its ``random.Random``.
"""

from __future__ import annotations

import random
from fractions import Fraction
from functools import cache

import numpy as np

from motti import ai, evaluate
from motti.rules import ATTACKS_PER_TURN, MAX_CROSSES, Action, Cell, Game, Move, Reset, legal_mask

#: Simulations of the search per decision at the start of a turn (about 0.15 s of CPU on a 20x15 map, under
#: 1 s at worst; 288 took 0.8 s and 3 s at worst, 64 up to 1.1 s: bench/README.md).
DEFAULT_BUDGET = 48
#: Land cells up to which the search runs its whole budget (a default 20x15 map has about 200).
SEARCH_LAND = 600
#: At most this many reachable cells (§2.8 strict) or unoccupied cells (empty) make the reset worth timing.
TRIGGER_CANDIDATES = 8
#: A reset in the middle of a turn is brought only when the strike after it has at least this share of the
#: odds of a strike with the five attacks left after a first attack.
STRIKE_SHARE = 0.6
#: A Guerilla is searched only when it wins at least this many cells (it closes a pocket): a turn of six
#: attacks with six crosses conquers six, and a lone Guerilla by an enemy capital is walled in again.
GUERILLA_CELLS = 3
#: Prior malus per land step between a target and the weakest enemy capital: the walls march towards it.
MARCH = 0.3
#: Prior bonus for an own cell next to an enemy wall: occupying it stops that wall there.
BLOCK = 1.5


@cache
def strike_odds(attacks: int, ring: int, capital_open: bool = False) -> Fraction:
    """Exact probability that a strike captures an unoccupied capital within *attacks* attacks.

    *ring* is the number of ring cells crossable now (0..4), *capital_open* whether the capital itself is
    crossable (an occupied own cell is next to it). Each attack conquers each of its crosses with probability
    1/6 (§2.2): the ring cells are crossed until one falls, then the capital. For example
    ``strike_odds(5, 1) == 0.196...`` and ``strike_odds(5, 4) == 0.466...``.
    """
    if attacks <= 0:
        return Fraction(0)
    if capital_open:
        return 1 - Fraction(5, 6) ** attacks
    if ring <= 0:
        return Fraction(0)
    ring = min(ring, MAX_CROSSES[Action.ATTACK])
    hit = Fraction(ring, 6)
    return hit * strike_odds(attacks - 1, ring - 1, True) + (1 - hit) * strike_odds(attacks - 1, ring, False)


def _enemy_capitals(game: Game, me: int) -> list[tuple[int, Cell]]:
    return [(p, c) for p, c in game.board.capitals.items() if c is not None and p != me and p in game.alive]


def _strike(game: Game, me: int, attacks: int) -> tuple[float, list[Cell]]:
    """The best strike of *me* against an unoccupied enemy capital: (odds with *attacks* attacks, the crosses
    that must be in the next attack: every crossable ring cell, or the capital once it is crossable)."""
    board = game.board
    mask = legal_mask(board, me, Action.ATTACK)
    best: tuple[float, list[Cell]] = (0.0, [])
    for _p, capital in _enemy_capitals(game, me):
        cx, cy = capital
        if board.occupied[cy, cx]:
            continue
        if mask[cy, cx]:
            odds, crosses = strike_odds(attacks, 0, True), [capital]
        else:
            crosses = [c for c in evaluate.ring_of(game, capital) if mask[c[1], c[0]]]
            odds = strike_odds(attacks, len(crosses))
        if crosses and float(odds) > best[0]:
            best = (float(odds), crosses)
    return best


def _threat(game: Game, me: int) -> float:
    """How likely an enemy's next fresh turn takes *me*'s capital if it stays unoccupied (0 when occupied)."""
    board = game.board
    capital = board.capitals.get(me)
    if capital is None or board.occupied[capital[1], capital[0]]:
        return 0.0
    cx, cy = capital
    worst = 0.0
    for enemy in game.alive:
        if enemy == me:
            continue
        if legal_mask(board, enemy, Action.GUERILLA)[cy, cx]:
            return 1.0
        mask = legal_mask(board, enemy, Action.ATTACK)
        ring = [c for c in evaluate.ring_of(game, capital)
                if mask[c[1], c[0]] or board.owner[c[1], c[0]] == enemy]
        worst = max(worst, float(strike_odds(ATTACKS_PER_TURN, len(ring))))
    return worst


def _certain_guerilla(game: Game, me: int, ring: bool) -> Cell | None:
    """A Guerilla cell onto an unoccupied enemy capital (or, with *ring*, onto an enemy-owned cell of an enemy
    capital's ring), or None."""
    board = game.board
    mask = legal_mask(board, me, Action.GUERILLA)
    for enemy, capital in _enemy_capitals(game, me):
        cells = evaluate.ring_of(game, capital) if ring else [capital]
        for x, y in cells:
            if not (mask[y, x] and board.owner[y, x] == enemy):
                continue
            if not (ring and evaluate.futile(game, ("guerilla", (x, y)))):
                return (x, y)
    return None


def _defence(game: Game, me: int, rng: random.Random) -> list[Cell]:
    """Defend: the own capital first, then own unoccupied ring cells of enemy capitals an enemy could attack,
    then the medium player's choice (cells next to enemy occupied cells)."""
    board = game.board
    capital = board.capitals[me]
    assert capital is not None
    cells = [capital]
    attackable = np.zeros(board.land.shape, dtype=bool)
    for enemy in game.alive:
        if enemy != me:
            attackable |= legal_mask(board, enemy, Action.ATTACK)
    own = legal_mask(board, me, Action.DEFEND)
    for _p, enemy_capital in _enemy_capitals(game, me):
        cells += [c for c in evaluate.ring_of(game, enemy_capital)
                  if own[c[1], c[0]] and attackable[c[1], c[0]]]
    planned, _value = ai.Planner(game, rng).best_defend()
    cells += planned
    out: list[Cell] = []
    for cell in cells:
        if cell not in out:
            out.append(cell)
    return out[: MAX_CROSSES[Action.DEFEND]]


def _ring_counts(game: Game, me: int) -> tuple[int, int]:
    """(ring cells of enemy capitals that *me* owns, ring cells of *me*'s capital that enemies own): what each
    side can strike with right after a reset, when nobody occupies anything."""
    board = game.board
    mine = max((sum(board.owner[y, x] == me for x, y in evaluate.ring_of(game, c))
                for _p, c in _enemy_capitals(game, me)), default=0)
    capital = board.capitals.get(me)
    theirs = 0
    if capital is not None:
        theirs = sum(board.owner[y, x] not in (0, me) for x, y in evaluate.ring_of(game, capital))
    return int(mine), int(theirs)


def _reset_triggers(game: Game, me: int) -> list[Cell]:
    """Cells whose conquest by *me*'s next attack brings the global reset (§2.8), found on clones; only
    looked for when few cells hold the reset back."""
    board = game.board
    pending = game.rules.reset.holding(board)
    count = int(np.count_nonzero(pending))
    if count == 0 or count > TRIGGER_CANDIDATES:
        return []
    mask = legal_mask(board, me, Action.ATTACK) & pending
    out = []
    for cell in evaluate.cells_of(mask):
        trial = game.clone()
        if any(isinstance(event, Reset) for event in trial.attack([cell], draw=0)):
            out.append(cell)
    return out


def clone(game: Game, rng: random.Random) -> Game:
    """An independent copy of *game* (``Game.clone``, no deepcopy) drawing from *rng*."""
    twin = game.clone()
    twin.rng = rng
    return twin


def _fill(crosses: list[Cell], more: list[Cell], avoid: set[Cell] = frozenset()) -> list[Cell]:  # type: ignore[assignment]
    out = list(crosses)
    for cell in more:
        if len(out) >= MAX_CROSSES[Action.ATTACK]:
            break
        if cell not in out and cell not in avoid:
            out.append(cell)
    return out


def _quick_targets(game: Game, me: int, rng: random.Random, enemy_only: bool = False) -> list[Cell]:
    """Attack targets of *me* by a static prior, best first, at most six (no simulation): an enemy cell is
    worth more with more own occupied cells around it (it may close a pocket), a cell between two walls
    (a cut point) more, a cell next to an enemy capital more still, an enemy capital most; own cells least
    (none with *enemy_only*). Computed at the legal cells only: the search calls it for every simulated
    attack."""
    board = game.board
    legal = game.legal_mask(Action.ATTACK)
    own = board.owner == me
    if enemy_only:
        legal = legal & ~own
    ys, xs = np.nonzero(legal)
    if ys.size == 0:
        return []
    h, w = legal.shape
    walls = np.zeros((h + 2, w + 2), dtype=bool)
    walls[1:-1, 1:-1] = own & board.occupied
    barrier = np.ones((h + 2, w + 2), dtype=bool)
    barrier[1:-1, 1:-1] = walls[1:-1, 1:-1] | ~board.land
    around = [barrier[1 + dy:1 + dy + h, 1 + dx:1 + dx + w] for dx, dy in evaluate.RING8]
    runs = np.zeros((h, w), dtype=np.int8)
    near = np.zeros((h, w), dtype=np.int8)
    for i, (dx, dy) in enumerate(evaluate.RING8):
        runs += around[i] & ~around[i - 1]
        near += walls[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
    runs, near = runs[ys, xs], near[ys, xs]
    theirs = ~own[ys, xs]
    exposed = evaluate.shift_any(board.occupied & ~own & board.land, diagonal=False)[ys, xs]
    values = np.where(theirs, 2.0 + 0.5 * near, evaluate.OCCUPIED + BLOCK * exposed)
    values += evaluate.CUT_POINT * (runs >= 2)
    bonus = np.zeros((h, w))
    for _p, (x, y) in _enemy_capitals(game, me):
        bonus[y, x] += 100.0
        extra = evaluate.RING if board.occupied[y, x] else evaluate.RING_OPEN
        for rx, ry in evaluate.ring_of(game, (x, y)):
            bonus[ry, rx] += extra
    target = evaluate.weakest_enemy(game, me)
    aim = None if target is None else board.capitals[target]
    if aim is not None:
        steps = evaluate.land_distance(board.land, aim)[ys, xs]
        values -= MARCH * np.minimum(steps, h + w)
    salt = rng.getrandbits(16)
    values += bonus[ys, xs] + ((ys * 7919 + xs * 104729 + salt) % 997) * 1e-6
    order = np.argsort(-values)[: MAX_CROSSES[Action.ATTACK]]
    return [(int(xs[i]), int(ys[i])) for i in order]


def _window_move(game: Game, me: int, rng: random.Random, fast: bool) -> Move | None:
    """Rules 1–4 of the module docstring: the move they dictate now, or None."""
    fresh = not game.attacked
    if fresh:
        cell = _certain_guerilla(game, me, ring=False)
        if cell is not None:
            return ("guerilla", cell)
    odds, crosses = _strike(game, me, game.attacks_left)
    if fresh and evaluate.capital_in_danger(game, me) and odds <= (1 - odds) * _threat(game, me):
        capital = game.board.capitals[me]
        assert capital is not None
        if fast:
            return ("defend", (capital,))
        options = [tuple(_defence(game, me, rng)), (capital,)]
        safe = [cells for cells in options if not _gives_window(game, me, ("defend", cells))]
        # When every defence brings the reset, the enemy strikes at a free capital either way: defending
        # still spares it the surer blow of this position (a Guerilla onto the capital, say).
        return ("defend", (safe or options[-1:])[0])
    if crosses:
        return _filled(game, me, _fill(crosses, _guard(game, me)), rng)
    if not fresh and _threat(game, me) > 0:
        # Later in a turn (after a reset, say) the capital can only be occupied by an attack: cross it and
        # its own free ring cells first, before the enemy's whole next turn strikes at it.
        return _filled(game, me, _shield(game, me), rng)
    if fresh:
        cell = _certain_guerilla(game, me, ring=True)
        if cell is not None:
            return ("guerilla", cell)
    return None


def _shield(game: Game, me: int) -> list[Cell]:
    """*me*'s free capital, then its own free ring cells: the crosses that occupy them."""
    capital = game.board.capitals[me]
    assert capital is not None
    legal = game.legal_mask(Action.ATTACK)
    own = legal & (game.board.owner == me)
    return [c for c in [capital, *evaluate.ring_of(game, capital)] if own[c[1], c[0]]]


def _guard(game: Game, me: int) -> list[Cell]:
    """*me*'s own capital as a cross when it is free and an enemy owns one of its ring cells: behind a
    strike's crosses it takes only draws that would fail, and an occupied capital survives the enemy's next
    turn."""
    capital = game.board.capitals.get(me)
    if capital is None or game.board.occupied[capital[1], capital[0]] or _ring_counts(game, me)[1] == 0:
        return []
    return [capital]


def _timed(game: Game, me: int, crosses: list[Cell], rng: random.Random) -> list[Cell]:
    """Rule 5: put reset-bringing cells first when the window after the reset is ours, leave them out when it
    would be the enemy's or would come too late in the turn to strike, but for a fresh turn with nothing else
    to attack."""
    triggers = _reset_triggers(game, me)
    if not triggers:
        return crosses
    mine, theirs = _ring_counts(game, me)
    if mine == 0 and theirs == 0:
        return crosses
    if _worth_resetting(game.attacks_left - 1, mine, theirs):
        return _fill(triggers[: MAX_CROSSES[Action.ATTACK]], crosses)
    kept = [c for c in crosses if c not in triggers]
    if kept or game.attacked:
        return kept
    # Nothing but the reset to attack at a fresh turn: holding it back, the player would pass for ever while
    # the enemy, whose walls hold everything else, has no move that brings it either.
    return crosses


def _worth_resetting(left: int, mine: int, theirs: int) -> bool:
    """Whether a reset now, with *left* attacks of the turn after it, is worth more to the player than to the
    enemy: its strike with *mine* ring cells takes at least :data:`STRIKE_SHARE` of what a strike at the start
    of its next turn would, and at least what the enemy's whole turn with *theirs* ring cells takes after a
    failed one."""
    odds = float(strike_odds(left, mine))
    enemy = float(strike_odds(ATTACKS_PER_TURN, theirs))
    return mine > 0 and odds >= STRIKE_SHARE * float(strike_odds(ATTACKS_PER_TURN - 1, mine)) \
        and odds >= (1 - odds) * enemy


def _gives_window(game: Game, me: int, move: Move) -> bool:
    """Whether *move* (a Defend or a Guerilla, which end the turn) brings the global reset while an enemy owns
    a ring cell of *me*'s capital: the enemy's next turn would then strike at a free capital with all its
    attacks."""
    trial = game.clone()
    if not any(isinstance(event, Reset) for event in trial.apply(move)):
        return False
    return not trial.is_terminal() and _ring_counts(trial, me)[1] > 0


def fast_action(game: Game, rng: random.Random) -> Move:
    """The search's policy for every simulated turn: the capital-window rules, then the six best targets by
    the static prior (``Game.apply`` form)."""
    me = game.current_player
    move = _window_move(game, me, rng, fast=True)
    if move is not None:
        return move
    targets = _quick_targets(game, me, rng)
    if not targets:
        return ("pass",)
    return ("attack", tuple(targets[: MAX_CROSSES[Action.ATTACK]]))


def _rollout(game: Game, first: Move, me: int, seed: int) -> float:
    """Play *first* and the rest of *me*'s turn, then the next player's turn (the reply), on a clone reseeded
    with *seed*; return :func:`motti.evaluate.evaluate` for *me*."""
    rng = random.Random(seed)
    trial = clone(game, random.Random(seed ^ 0x5BD1E995))
    trial.apply(first)
    while not trial.is_terminal() and trial.current_player == me:
        trial.apply(fast_action(trial, rng))
    replying = trial.current_player
    while not trial.is_terminal() and trial.current_player == replying:
        trial.apply(fast_action(trial, rng))
    return evaluate.evaluate(trial, me)


def simulations(game: Game, budget: int) -> int:
    """The search's simulations on this board: *budget* up to :data:`SEARCH_LAND` land cells, proportionally
    fewer above (a simulated turn costs more on more land), 0 (no search) below 2. Depends only on the board,
    so a seed still gives the same game."""
    land = int(np.count_nonzero(game.board.land))
    runs = budget if land <= SEARCH_LAND else budget * SEARCH_LAND // land
    return runs if runs >= 2 else 0


def _candidates(game: Game, rng: random.Random) -> list[Move]:
    """The medium player's best Attack (its first attack), Defend and Guerilla, in ``Game.apply`` form."""
    planner = ai.Planner(game, rng)
    cells, _value = planner.best_attack()
    out: list[Move] = [("attack", tuple(_timed(game, game.current_player, cells, rng)))]
    possible = game.possible_actions()
    if Action.GUERILLA in possible:
        guerilla, _value = planner.best_guerilla()
        if guerilla and evaluate.cells_won(game, ("guerilla", guerilla[0])) >= GUERILLA_CELLS:
            out.append(("guerilla", guerilla[0]))
    if Action.DEFEND in possible:
        defend, _value = planner.best_defend()
        if defend:
            out.append(("defend", tuple(defend)))
    me = game.current_player
    return [out[0]] + [move for move in out[1:] if not _gives_window(game, me, move)]


def search(game: Game, candidates: list[Move], rng: random.Random, budget: int) -> Move:
    """The candidate with the best mean evaluation after the reply, over ``budget // len(candidates)``
    reseeded simulations each (the same seeds for every candidate); ties go to the earlier candidate."""
    if len(candidates) == 1:
        return candidates[0]
    me = game.current_player
    runs = max(1, budget // len(candidates))
    seeds = [rng.getrandbits(32) for _ in range(runs)]
    best, best_value = candidates[0], -np.inf
    for candidate in candidates:
        value = sum(_rollout(game, candidate, me, seed) for seed in seeds) / runs
        if value > best_value:
            best, best_value = candidate, value
    return best


def choose_action(game: Game, rng: random.Random, budget: int = DEFAULT_BUDGET) -> Move:
    """The hard player's next action for the player in turn, in ``Game.apply`` form (see module docstring).

    *budget* is the number of simulations of the search at the start of a turn (0 = no search: the medium
    player's choice). Raises ``IllegalAction`` if the game is over."""
    if game.is_terminal():
        return ai.choose_action(game, rng)
    me = game.current_player
    move = _window_move(game, me, rng, fast=False)
    if move is not None:
        return move
    budget = simulations(game, budget)
    if game.attacked or budget <= 0:
        action = ai.choose_action(game, rng)
        if action[0] not in ("attack", "pass") and not _gives_window(game, me, action):
            return action
        if action[0] not in ("attack", "pass"):
            action = ("attack", tuple(ai.Planner(game, rng).best_attack()[0]))
        crosses = _timed(game, me, list(action[1]) if action[0] == "attack" else [], rng)
        return _filled(game, me, crosses, rng)
    chosen = search(game, _candidates(game, rng), rng, budget)
    if chosen[0] == "attack":
        return _filled(game, me, list(chosen[1]), rng)
    return chosen


def _filled(game: Game, me: int, crosses: list[Cell], rng: random.Random) -> Move:
    """The attack with *crosses*, its free crosses on the best enemy cells by the static prior (a draw that
    would fail conquers one instead; of six crosses all on its own cells, the last), but for the cells that
    would bring the reset rule 5 leaves out. With no cross at a fresh turn it fills its own land rather than
    pass: that brings the reset, and a player who passed at every fresh turn would stall the game.
    ``("pass",)`` when nothing is legal."""
    triggers = set(_reset_triggers(game, me)) - set(crosses)
    enemy = [c for c in _quick_targets(game, me, rng, enemy_only=True) if c not in triggers]
    owner = game.board.owner
    if enemy and len(crosses) >= MAX_CROSSES[Action.ATTACK] and all(owner[y, x] == me for x, y in crosses):
        # Six crosses on its own cells while an enemy cell is crossable: the last one goes to the enemy.
        crosses = crosses[:-1]
    crosses = _fill(crosses, enemy)
    if not crosses and not game.attacked:
        targets = _quick_targets(game, me, rng)
        crosses = [c for c in targets if c not in triggers] or targets
    return ("attack", tuple(crosses)) if crosses else ("pass",)

"""The ``medium`` and ``hard`` computer players of motti: a march, with each turn's first move chosen by
playing the candidates out (spec/motti.md §2). ``medium`` plays out the plain march of ``easy``, ``hard``
the guarded march (:func:`motti.march.choose_action` with ``guarded=True``: it also times the global reset
and, with two players, keeps its capital out of reach; among three or more every march presses on,
:data:`motti.march.CROWD`), with more and longer playouts (:data:`MEDIUM`, :data:`HARD`).

At the start of a turn (before its first attack) the player lists a few candidate moves:

* the move of its march (an enemy capital taken by Guerilla, its own open capital defended while an enemy
  wall is within :attr:`Budget.danger` cells, a foothold, or an attack marching its walls at the enemy
  capital);
* Defend its open capital and two cells next to it (:func:`motti.march.defence`);
* Defend its three cells an enemy wall could attack, those nearest its capital first;
* the Guerillas that win the most cells (3 or more) and that the next player cannot undo at once
  (:func:`motti.evaluate.futile`).

Each candidate is played out on copies of the game, every player then moving as its march, until
:attr:`Budget.turns` turns have been played (its own turn counted); a playout is worth the player's land
minus the largest enemy's (§2.9), or ±1000 when the game ended in it. Every candidate meets the same draws
(the same generator seeds), so that they differ only by the move. Each plays the first half of the
:attr:`Budget.rollouts` seeds; the march's own move and the :data:`FINALISTS` others with the best average
so far play the second half too, and the best average over all the seeds wins (this bounds the think time
when many candidates are weighed). The march's own move wins ties and gets :data:`LOYALTY` cells of credit,
so that only a clearly better move replaces it. A capital taken by Guerilla is played at once. The rest of
an attack turn is the march's.

What it leaves out: it looks only a few turns ahead, through a model of every player (its own march) that
is not the opponent; the candidates hold no attack of its own invention. The default budgets are printed by
bench/motti_levels.py with the CPU time of a decision; deterministic given its ``random.Random``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from motti import march
from motti.evaluate import cells_of, cells_won, futile, land_distance
from motti.rules import MAX_CROSSES, Action, Game, Move

#: Cells of credit the march's own move gets over the other candidates.
LOYALTY = 0.5
#: The value of a playout that ends the game: won, lost (a draw is 0).
WON = 1000.0
#: A Guerilla is a candidate when it wins at least this many cells (its cell included).
GUERILLA_CELLS = 3
#: Guerillas kept as candidates, those winning most first.
GUERILLAS = 2
#: Candidates besides the march's own move that play the second half of the playouts.
FINALISTS = 2
#: Land cells up to which a level plays its whole budget out; on more land its playouts shrink in proportion
#: (a playout's turn costs more on a bigger board), and below two it plays its march alone.
FULL_LAND = 400


@dataclass(frozen=True)
class Budget:
    """How hard a level thinks: ``rollouts`` playouts per candidate, each ``turns`` turns long, and the march
    it plays them out with and plays the rest of its turns by: the guarded one (``guarded``), or the plain
    march of ``easy``. At the start of its own turn, while an enemy occupied cell lies within ``danger`` cells
    of its open capital (Chebyshev distance; two among three or more players, :data:`motti.march.CROWD`), its
    march's move is the Defend of the capital, whichever march it plays: the attacks are then left out of the
    candidates."""

    rollouts: int
    turns: int
    guarded: bool = True
    danger: int = march.GUARD_DANGER


#: Medium plays the plain march, but is on guard from three cells out as hard is (bench/README.md).
MEDIUM = Budget(rollouts=6, turns=4, guarded=False)
HARD = Budget(rollouts=16, turns=6)


def policy(game: Game, rng: random.Random, guarded: bool = True) -> Move:
    """The march (:func:`motti.march.choose_action`), *guarded* or plain: the model every player follows in a
    playout, and the rest of an attack turn."""
    return march.choose_action(game, rng, guarded=guarded)


def value(game: Game, me: int) -> float:
    """A playout's worth for player *me*: ±:data:`WON` once the game is over (0 for a draw), else its land
    minus the largest enemy's (cells)."""
    if game.is_terminal():
        winner = game.winner
        return 0.0 if winner is None else WON if winner == me else -WON
    if me not in game.alive:
        return -WON
    land = game.land_counts()
    return float(land[me] - max(n for p, n in land.items() if p != me))


def playout(game: Game, me: int, move: Move, seed: int, end: int, guarded: bool = True) -> float:
    """Play *move* on a copy of *game* with generator seed *seed*, then the march (:func:`policy`, *guarded*
    or plain) for every player until *end* turns have been played; the :func:`value` for *me*. *game* is
    untouched."""
    trial = game.clone().reseed(seed)
    rng = random.Random(seed)
    trial.apply(move)
    while not trial.is_terminal() and trial.turns < end:
        trial.apply(policy(trial, rng, guarded))
    return value(trial, me)


def candidates(game: Game, first: Move) -> list[Move]:
    """The moves weighed at the start of a turn (module docstring), *first* (the march's move) first,
    no two the same."""
    board = game.board
    me = game.current_player
    moves = [first]
    capital = board.capitals[me]
    assert capital is not None
    if Action.DEFEND in game.possible_actions():
        if not board.occupied[capital[1], capital[0]]:
            moves.append(march.defence(game, me))
        exposed = cells_of(march.under_fire(game, me) & game.legal_mask(Action.DEFEND))
        if exposed:
            steps = land_distance(board.land, capital)
            exposed.sort(key=lambda c: float(steps[c[1], c[0]]))
            moves.append(("defend", tuple(exposed[: MAX_CROSSES[Action.DEFEND]])))
    guerillas = cells_of(game.legal_mask(Action.GUERILLA) & (board.owner != me))
    won = sorted(((cells_won(game, ("guerilla", c)), c) for c in guerillas), key=lambda wc: -wc[0])
    kept = [("guerilla", c) for n, c in won if n >= GUERILLA_CELLS and not futile(game, ("guerilla", c))]
    moves += kept[:GUERILLAS]
    unique: list[Move] = []
    for move in moves:
        if move not in unique:
            unique.append(move)
    return unique


def choose_action(game: Game, rng: random.Random, budget: Budget = HARD) -> Move:
    """The next action of the player in turn, in ``Game.apply`` form (spec §2.2): at the start of a turn the
    candidate with the best playouts (module docstring; fewer on more than :data:`FULL_LAND` land cells),
    later in the turn the attack of the *budget*'s march. The game must not be over
    (:func:`motti.levels.choose_action` checks that)."""
    if game.attacked:
        return policy(game, rng, budget.guarded)
    me = game.current_player
    first = march.choose_action(game, rng, budget.guarded, budget.danger)
    capitals = {c for p, c in game.board.capitals.items() if p != me}
    land = int(game.board.land.sum())
    rollouts = budget.rollouts if land <= FULL_LAND else budget.rollouts * FULL_LAND // land
    if rollouts < 2 or (first[0] == "guerilla" and first[1] in capitals):
        return first
    moves = candidates(game, first)
    if len(moves) == 1:
        return first
    seeds = [rng.getrandbits(32) for _ in range(rollouts)]
    end = game.turns + budget.turns
    half = rollouts // 2
    worth = [[playout(game, me, move, seed, end, budget.guarded) for seed in seeds[:half]] for move in moves]
    ranked = sorted(range(1, len(moves)), key=lambda i: -float(np.mean(worth[i])))
    for i in [0, *ranked[:FINALISTS]]:
        worth[i] += [playout(game, me, moves[i], seed, end, budget.guarded) for seed in seeds[half:]]
    finalists = [i for i in range(len(moves)) if len(worth[i]) == rollouts]
    score = {i: float(np.mean(worth[i])) + (LOYALTY if i == 0 else 0.0) for i in finalists}
    return moves[max(finalists, key=lambda i: (score[i], -i))]

"""A Monte Carlo tree search that knows no game: it plays any game through common/game.py alone.

UCT (UCB1 on the mean of the mover's ``returns()``) with uniformly random playouts; at a simultaneous step
(``current_player() == SIMULTANEOUS``, arena's rounds) decoupled UCT: each player picks its own action by
UCB1 over its own statistics at that node, the node's children are the joint actions. The tree is open-loop:
a node is a sequence of actions, and every simulation replays it on a clone of the root given a fresh
generator (``state.clone().reseed(s)``), so chance (motti's attack draws, Star Lanes' candidates, arena's
start cells) is sampled anew each time and the search never draws the real game's future.

A playout stops at the end of the game or after ``playout_steps`` actions, and is worth ``returns()`` there:
rank-based in [−1, 1] in every game, final at the end and the standing so far before it (common/game.py).
The decision is the root's most visited action (for the player asked, at a simultaneous root).

Imports nothing but the standard library and :mod:`common.game`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from common.game import SIMULTANEOUS, State

EXPLORATION = 2.0
"""UCB1's constant c in mean + c·sqrt(ln N / n), for returns in [−1, 1] (OpenSpiel's default uct_c)."""
PLAYOUT_STEPS = 20
"""Random actions a playout takes at most before it is valued by ``returns()``."""


class _Stats:
    """Visits and the summed return of one action for one player."""

    __slots__ = ("total", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.total = 0.0


class _Node:
    """One open-loop node: per player, the statistics of the actions tried there; the children by action
    (a joint action, as a tuple, at a simultaneous step)."""

    __slots__ = ("children", "stats", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.stats: dict[int, dict[Any, _Stats]] = {}
        self.children: dict[Any, _Node] = {}


def _pick(node: _Node, player: int, legal: Sequence[Any], rng: random.Random, c: float) -> Any:
    """An untried legal action of ``player`` at ``node`` (uniformly), else the UCB1 best of the legal ones."""
    tried = node.stats.setdefault(player, {})
    n = len(legal)
    if len(tried) < n:
        for _ in range(8):
            a = legal[rng.randrange(n)]
            if a not in tried:
                return a
    log_n = math.log(max(node.visits, 1))
    best, best_value = None, -math.inf
    for a in legal:
        s = tried.get(a)
        if s is None:
            return a
        value = s.total / s.visits + c * math.sqrt(log_n / s.visits)
        if value > best_value:
            best, best_value = a, value
    return best


def _random_step(state: State, rng: random.Random) -> None:
    if state.current_player() == SIMULTANEOUS:
        state.apply_actions([_choice(state.legal_actions(p), rng) for p in range(state.num_players())])
    else:
        state.apply_action(_choice(state.legal_actions(), rng))


def _choice(legal: Sequence[Any], rng: random.Random) -> Any:
    return legal[rng.randrange(len(legal))]


class MCTS:
    """``MCTS(simulations=1000).decide(state, player)``: the action of ``player`` in ``state``.

    ``simulations`` per decision; ``exploration`` UCB1's c; ``playout_steps`` the playout cap; ``seed`` the
    search's own generator (tree policy, playouts, the clones' seeds)."""

    def __init__(self, simulations: int = 1000, exploration: float = EXPLORATION,
                 playout_steps: int = PLAYOUT_STEPS, seed: int = 0) -> None:
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, not {simulations}")
        self.simulations = simulations
        self.exploration = exploration
        self.playout_steps = playout_steps
        self.rng = random.Random(seed)

    def decide(self, state: State, player: int | None = None) -> Any:
        """The most visited root action of the player to move (of ``player`` at a simultaneous step).
        ``state`` is left as it was."""
        simultaneous = state.current_player() == SIMULTANEOUS
        me = player if simultaneous and player is not None else state.current_player()
        legal = state.legal_actions(me) if simultaneous else state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        root = _Node()
        for _ in range(self.simulations):
            self._simulate(root, state.clone().reseed(self.rng.getrandbits(64)))
        tried = root.stats.get(me, {})
        return max(tried.items(), key=lambda item: (item[1].visits, item[1].total))[0]

    def _simulate(self, root: _Node, state: State) -> None:
        rng, c = self.rng, self.exploration
        path: list[tuple[_Node, list[tuple[int, Any]]]] = []
        node = root
        expanded = False
        while not state.is_terminal() and not expanded:
            mover = state.current_player()
            if mover == SIMULTANEOUS:
                picks = [(p, _pick(node, p, state.legal_actions(p), rng, c))
                         for p in range(state.num_players())]
                key: Any = tuple(a for _, a in picks)
                state.apply_actions(list(key))
            else:
                key = _pick(node, mover, state.legal_actions(), rng, c)
                picks = [(mover, key)]
                state.apply_action(key)
            path.append((node, picks))
            child = node.children.get(key)
            if child is None:
                child = node.children[key] = _Node()
                expanded = True
            node = child
        for _ in range(self.playout_steps):
            if state.is_terminal():
                break
            _random_step(state, rng)
        values = state.returns()
        node.visits += 1
        for visited, picks in path:
            visited.visits += 1
            for p, a in picks:
                s = visited.stats[p].get(a)
                if s is None:
                    s = visited.stats[p][a] = _Stats()
                s.visits += 1
                s.total += values[p]

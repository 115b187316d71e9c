"""The one-ply computer player of motti (spec/motti.md §2), playing through the Game's public state and
moves, and the candidates of motti/search.py; the ``easy`` level until issue 28 (the levels are dispatched by
motti/levels.py), the evaluation is motti/evaluate.py's.

The player looks one action ahead: it plays each candidate move on a clone of the game (``Game.clone``,
reseeded so that it never draws the real game's future), an attack with the outcome that conquers its first
cross (``Game.attack(cells, draw=0)``), and scores the result with :func:`motti.evaluate.evaluate`
(material, occupied walls, the safety of its own capital, the reach towards the weakest enemy capital,
eliminations). From that it

* captures an enemy capital at once when a Guerilla can (a certain capture);
* defends its own unoccupied cells next to enemy occupied cells, its capital first, when that is worth
  more than attacking;
* uses Guerilla to complete an encirclement (cut off a pocket) when that beats the other actions;
* otherwise attacks: each of the six attacks crosses the (up to six) targets of highest positive value, since
  with k crosses each one is conquered with probability 1/6 (§2.2), and passes when nothing is worth it.

How games end. An occupied capital cannot be attacked, and only a global reset (§2.8) frees it; right after a
reset nobody holds an occupied cell, so a capital falls only to a player who owns cells orthogonally next to
it (its *ring*) and attacks first: one attack occupies a ring cell, a later one the capital. Therefore the
player is pulled towards the weakest enemy capital (``SIEGE``: every own cell weighs ``exp(-steps / 2)``,
steps over land to that capital, so conquests near it count most) and values ring cells highly; while that
capital is occupied every player fills land to bring the next reset;
after a reset the ring cells and then the capital are crossed first. A Guerilla is valued after the
opponent's best Guerilla in reply, since that can often take its cell, or the pocket it closed, straight
back (two players swapping cells like that for ever never reach a reset).

Deterministic given its ``random.Random`` (used only to break ties between equal candidates).
"""

from __future__ import annotations

import random

from motti.evaluate import (
    WIN,
    cells_of,
    clone,
    evaluate,
    futile,
    leads,
    rank,
    shift_any,
    static_scores,
)
from motti.rules import ATTACKS_PER_TURN, MAX_CROSSES, Action, Game, IllegalAction, Move

FILL_ATTACKS = 3                # attacks left for a player behind to start filling towards a reset
SIMULATED_ATTACKS = 14          # attack targets tried on a copy per attack (the rest scored statically)
SIMULATED_GUERILLAS = 12
ATTACK_CERTAINTY = 0.8          # an attack only may gain; the opponent can close what it missed
GUERILLA_MARGIN = 2.0           # a Guerilla's one cell must beat a turn of attacks by this much
GUERILLAS_CHECKED = 3           # best Guerillas whose value is checked against the opponent's Guerilla reply
SIMULATED_REPLIES = 8           # the opponent's Guerillas tried in that check
CONQUER_ODDS = 1 - (5 / 6) ** ATTACKS_PER_TURN   # a cross kept for a whole turn is conquered with this chance


class Planner:
    """Scores candidate moves of the player in turn by playing them on clones."""

    def __init__(self, game: Game, rng: random.Random) -> None:
        self.game = game
        self.rng = rng
        self.me = game.current_player
        self.base = evaluate(game, self.me)

    def gain(self, move: str, cells: list[tuple[int, int]]) -> float:
        copy_ = clone(self.game)
        try:
            if move == "attack":
                copy_.attack(cells, draw=0)
            elif move == "defend":
                copy_.defend(cells)
            else:
                copy_.guerilla(cells[0])
        except IllegalAction:
            return -WIN
        return evaluate(copy_, self.me) - self.base

    def attack_values(self) -> list[tuple[float, tuple[int, int]]]:
        """Value of conquering each legal Attack target, best first (ties in rng order)."""
        cells = cells_of(self.game.legal_mask(Action.ATTACK))
        if not cells:
            return []
        prior = static_scores(self.game, self.me, cells)
        ranked = rank(prior, self.rng)
        values = [(self.gain("attack", [c]), c) for c in ranked[:SIMULATED_ATTACKS]]
        floor = min((v for v, _ in values), default=0.0)
        values += [(min(prior[c] * 0.5, floor), c) for c in ranked[SIMULATED_ATTACKS:]]
        order = {c: i for i, c in enumerate(ranked)}
        return sorted(values, key=lambda vc: (-vc[0], order[vc[1]]))

    def best_attack(self) -> tuple[list[tuple[int, int]], float]:
        """The crosses of the next attack (up to 6 positive targets) and the turn's expected gain."""
        values = self.attack_values()
        chosen = [(v, c) for v, c in values if v > 0][: MAX_CROSSES[Action.ATTACK]]
        if not chosen and (self._leading() or self.game.attacks_left >= FILL_ATTACKS):
            # Nothing gains at once: fill own land, which brings the global reset (§2.8) that frees occupied
            # enemy capitals (otherwise a board of walls would stall for ever). The leader always does; the
            # others only with attacks to spare, since the attacks left after a reset take the initiative.
            own = self.game.board.owner == self.me
            chosen = [(v, c) for v, c in values if own[c[1], c[0]]][: MAX_CROSSES[Action.ATTACK]]
            return [c for _, c in chosen], 0.0
        rest = [v for v, _ in values[len(chosen):] if v > 0][: MAX_CROSSES[Action.ATTACK]]
        expected = CONQUER_ODDS * sum(v for v, _ in chosen)
        if rest:
            expected += (ATTACKS_PER_TURN * (1 - CONQUER_ODDS)) * (sum(rest) / len(rest))
        return [c for _, c in chosen], expected

    def _leading(self) -> bool:
        return leads(self.game.board.owner, self.me, [p for p in self.game.alive if p != self.me])

    def best_defend(self) -> tuple[list[tuple[int, int]], float]:
        """Up to 3 own unoccupied cells next to enemy occupied cells (capital first) and the gain."""
        board = self.game.board
        legal = self.game.legal_mask(Action.DEFEND)
        enemy_walls = board.occupied & (board.owner != self.me) & board.land
        capital = board.capitals.get(self.me)
        near = legal & shift_any(enemy_walls, diagonal=True)
        priority: dict[tuple[int, int], float] = {}
        orth = shift_any(enemy_walls, diagonal=False)
        for c in cells_of(near):
            priority[c] = 2.0 if orth[c[1], c[0]] else 1.0
        if capital is not None and legal[capital[1], capital[0]]:
            priority[capital] = 10.0
        if not priority:
            return [], -WIN
        cells = rank(priority, self.rng)[: MAX_CROSSES[Action.DEFEND]]
        return cells, self.gain("defend", cells)

    def best_guerilla(self) -> tuple[list[tuple[int, int]], float]:
        """The enemy cell whose Guerilla gains most (capital captures and encirclements) and the gain."""
        board = self.game.board
        legal = self.game.legal_mask(Action.GUERILLA) & (board.owner != self.me)
        cells = cells_of(legal)
        if not cells:
            return [], -WIN
        prior = static_scores(self.game, self.me, cells)
        ranked = rank(prior, self.rng)[:SIMULATED_GUERILLAS]
        gains = sorted(((self.gain("guerilla", [c]), c) for c in ranked), key=lambda vc: -vc[0])
        if gains[0][0] >= WIN / 2:
            return [gains[0][1]], gains[0][0]
        # A Guerilla that changes nothing, or that the next player undoes at once, is a pass in disguise.
        lasting = [(v, c) for v, c in gains[:GUERILLAS_CHECKED * 2] if not futile(self.game, ("guerilla", c))]
        if not lasting:
            return [], -WIN
        best_value, best_cell = -WIN, lasting[0][1]
        for value, cell in lasting[:GUERILLAS_CHECKED]:
            if value <= best_value:
                break
            value = min(value, self.after_reply(cell))
            if value > best_value:
                best_value, best_cell = value, cell
        return [best_cell], best_value

    def after_reply(self, cell: tuple[int, int]) -> float:
        """The gain of a Guerilla on *cell* once the next player has answered with its best Guerilla against
        us (it can often take the cell, or the pocket it closed, straight back)."""
        copy_ = clone(self.game)
        copy_.guerilla(cell)
        if copy_.is_terminal() or Action.GUERILLA not in copy_.possible_actions():
            return evaluate(copy_, self.me) - self.base
        them = copy_.current_player
        legal = copy_.legal_mask(Action.GUERILLA) & (copy_.board.owner != them)
        replies = cells_of(legal)
        if not replies:
            return evaluate(copy_, self.me) - self.base
        prior = static_scores(copy_, them, replies)
        worst = WIN
        for reply in sorted(replies, key=lambda c: -prior[c])[:SIMULATED_REPLIES]:
            answered = clone(copy_)
            answered.guerilla(reply)
            worst = min(worst, evaluate(answered, self.me) - self.base)
        return worst


def plan(game: Game, rng: random.Random) -> tuple[Action | None, list[tuple[int, int]]]:
    """The move the player in turn should make now: (action, cells); (None, []) = pass the turn.

    ATTACK means one attack with those crosses (0 to 6); DEFEND 1 to 3 cells; GUERILLA one cell.
    """
    planner = Planner(game, rng)
    attack_cells, attack_value = planner.best_attack()
    if game.attacked or not (game.possible_actions() - {Action.ATTACK}):
        return (Action.ATTACK, attack_cells) if attack_cells else (None, [])
    options = [(ATTACK_CERTAINTY * attack_value, Action.ATTACK, attack_cells)]
    possible = game.possible_actions()
    if Action.GUERILLA in possible:
        cells, value = planner.best_guerilla()
        if cells:
            options.append((value - GUERILLA_MARGIN, Action.GUERILLA, cells))
    if Action.DEFEND in possible:
        cells, value = planner.best_defend()
        if cells:
            options.append((value, Action.DEFEND, cells))
    value, action, cells = max(options, key=lambda o: o[0])
    if action is Action.ATTACK and not cells:
        return None, []
    return action, cells




def choose_action(game: Game, rng: random.Random) -> Move:
    """The ``medium`` player's next action for the player in turn, in ``Game.apply`` form (spec §2.2,
    rules.legal_actions); any level's: :func:`motti.levels.choose_action`.

    ``("attack", cells)`` with 0..6 cells is ONE attack, ``("defend", cells)`` 1..3 cells,
    ``("guerilla", (x, y))``, or ``("pass",)`` when nothing is worth attacking. Raises ``IllegalAction`` if
    the game is over.
    """
    if game.is_terminal():
        raise IllegalAction("the game is over")
    action, cells = plan(game, rng)
    if action is None:
        return ("pass",)
    if action is Action.GUERILLA:
        return ("guerilla", cells[0])
    return (action.value, tuple(cells))

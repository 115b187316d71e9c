"""The computer player of motti as it was before the three levels, frozen for bench/motti_levels.py.

Its evaluation raised the penalty per unoccupied land cell from 1.0 to 3.0 as soon as it owned a cell next to
the enemy capital, so it never besieged a capital. bench/motti_levels.py measures the levels against it on
request (``--pairings hard-baseline``). Do not change it: it is the fixed yardstick.
"""

from __future__ import annotations

import hashlib
import random

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path

from motti.rules import ATTACKS_PER_TURN, MAX_CROSSES, Action, Event, Game, IllegalAction

WIN = 1e6
ELIMINATION = 300.0
CAPITAL_ATTACKABLE = 400.0      # own unoccupied capital next to an enemy occupied cell (orthogonally)
CAPITAL_GUERILLA = 600.0        # own unoccupied capital diagonal to an enemy occupied cell (a certain loss)
CAPITAL_OPEN = 3.0              # own capital unoccupied at all
OCCUPIED = 0.4                  # an occupied cell cannot be attacked and walls pockets in
EXPOSED = 0.3                   # own unoccupied cell an enemy can attack next turn
ENEMY_CAPITAL_IN_REACH = 15.0   # the weakest enemy's capital is attackable by us
RESET_PRESSURE = 1.0            # per unoccupied land cell while the target enemy capital is occupied
RESET_PRESSURE_SIEGE = 3.0      # the same for a player owning cells next to that capital
APPROACH = 0.6                  # per step between our occupied cells and the weakest enemy capital
FILL_ATTACKS = 3                # attacks left for a player behind to start filling towards a reset
CUT_POINT = 3.0                 # prior bonus for a cell between two walls (it may close a pocket)
SIMULATED_ATTACKS = 14          # attack targets tried on a copy per attack (the rest scored statically)
SIMULATED_GUERILLAS = 12
ATTACK_CERTAINTY = 0.8          # an attack only may gain; the opponent can close what it missed
GUERILLA_MARGIN = 2.0           # a Guerilla's one cell must beat a turn of attacks by this much
GUERILLAS_CHECKED = 3           # best Guerillas whose value is checked against the opponent's Guerilla reply
SIMULATED_REPLIES = 8           # the opponent's Guerillas tried in that check
CONQUER_ODDS = 1 - (5 / 6) ** ATTACKS_PER_TURN   # a cross kept for a whole turn is conquered with this chance
SIEGE = 150.0                   # per own cell, times exp(-steps to the target capital / SIEGE_STEPS)
SIEGE_STEPS = 2.0               # land steps over which that pull towards the target capital falls by e
TARGET_NEIGHBOUR = 12.0         # per own cell orthogonally next to the target capital
RING = 10.0                     # prior bonus for a cell orthogonally next to an enemy capital
RING_OPEN = 60.0                # the same when that capital is unoccupied (occupy the cell, then the capital)


class _FirstCross(random.Random):
    """The throwaway rng of the copies: every attack draw is 0, so the first cross is conquered."""

    def randrange(self, *args: object, **kwargs: object) -> int:
        return 0


def clone(game: Game) -> Game:
    """A copy of *game* (``Game.clone``) whose rng always draws 0 (the first cross is conquered); *game* is
    untouched."""
    twin = game.clone()
    twin.rng = _FirstCross(0)
    return twin


_distance_cache: dict[tuple[bytes, tuple[int, ...], tuple[int, int]], np.ndarray] = {}


def land_distance(land: np.ndarray, start: tuple[int, int]) -> np.ndarray:
    """Steps over land (4-neighbour) from *start* = (x, y): ``(H, W)`` float, inf where unreachable.

    A breadth-first search over the land graph (scipy.sparse.csgraph). Land never changes during a game, so
    results are cached per land mask and start cell.
    """
    key = (hashlib.blake2b(land.tobytes(), digest_size=16).digest(), land.shape, start)
    found = _distance_cache.get(key)
    if found is not None:
        return found
    h, w = land.shape
    index = np.arange(h * w).reshape(h, w)
    right = land[:, :-1] & land[:, 1:]
    down = land[:-1, :] & land[1:, :]
    tails = np.concatenate([index[:, :-1][right], index[:-1, :][down]])
    heads = np.concatenate([index[:, 1:][right], index[1:, :][down]])
    graph = coo_matrix((np.ones(tails.size), (tails, heads)), shape=(h * w, h * w)).tocsr()
    x, y = start
    dist = shortest_path(graph, directed=False, unweighted=True, indices=y * w + x).reshape(h, w)
    if len(_distance_cache) >= 32:
        _distance_cache.clear()
    _distance_cache[key] = dist
    return dist


def _shift_any(mask: np.ndarray, diagonal: bool) -> np.ndarray:
    """Cells with a True neighbour in *mask* (4 neighbours, or 8 with *diagonal*), ``(H, W)`` bool."""
    out = np.zeros_like(mask)
    out[1:, :] |= mask[:-1, :]
    out[:-1, :] |= mask[1:, :]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    if diagonal:
        out[1:, 1:] |= mask[:-1, :-1]
        out[1:, :-1] |= mask[:-1, 1:]
        out[:-1, 1:] |= mask[1:, :-1]
        out[:-1, :-1] |= mask[1:, 1:]
    return out


def _weakest_enemy(game: Game, me: int) -> int | None:
    """The enemy to go for: an unoccupied capital first, then the fewest cells, then the lowest number."""
    board = game.board
    enemies = [p for p in game.alive if p != me and board.capitals.get(p) is not None]
    if not enemies:
        return None
    def weakness(p: int) -> tuple[bool, int, int]:
        x, y = board.capitals[p]
        return bool(board.occupied[y, x]), int(np.count_nonzero(board.owner == p)), p

    return min(enemies, key=weakness)


def evaluate(game: Game, me: int) -> float:
    """How good *game* is for player *me* with an opponent to move next (higher is better; a float score)."""
    if game.winner is not None:
        return WIN if game.winner == me else -WIN
    if me not in game.alive:
        return -WIN
    board = game.board
    owner, occupied = board.owner, board.occupied
    mine = owner == me
    enemies = [p for p in game.alive if p != me]
    score = ELIMINATION * (board.players - len(game.alive))
    score += float(np.count_nonzero(mine)) + OCCUPIED * float(np.count_nonzero(mine & occupied))
    if enemies:
        theirs = board.land & ~mine & (owner > 0)
        enemy_total = float(np.count_nonzero(theirs)) + OCCUPIED * float(np.count_nonzero(theirs & occupied))
        score -= enemy_total / len(enemies)
    enemy_walls = occupied & ~mine & board.land
    capital = board.capitals.get(me)
    if capital is not None:
        cx, cy = capital
        if not occupied[cy, cx]:
            score -= CAPITAL_OPEN
            around = _neighbourhood(enemy_walls, cx, cy)
            if around[0]:
                score -= CAPITAL_ATTACKABLE
            elif around[1]:
                score -= CAPITAL_GUERILLA
    exposed = mine & ~occupied & _shift_any(enemy_walls, diagonal=False)
    score -= EXPOSED * float(np.count_nonzero(exposed))
    target = _weakest_enemy(game, me)
    if target is not None:
        tx, ty = board.capitals[target]
        my_walls = mine & occupied
        if not occupied[ty, tx] and _neighbourhood(my_walls, tx, ty)[0]:
            score += ENEMY_CAPITAL_IN_REACH
        dist = land_distance(board.land, (tx, ty))
        ring = int(np.count_nonzero(mine & (dist == 1)))
        if occupied[ty, tx]:
            # Only a global reset (§2.8) frees an occupied capital: fill the board to bring it, all the more
            # when owning cells next to that capital (after the reset they let us attack it).
            pressure = RESET_PRESSURE_SIEGE if ring else RESET_PRESSURE
            score -= pressure * float(np.count_nonzero(board.land & ~occupied))
        closeness = np.exp(-dist / SIEGE_STEPS)
        score += SIEGE * float(closeness[mine].sum())
        score += TARGET_NEIGHBOUR * ring
        far = float(board.width + board.height)
        steps = float(dist[my_walls].min()) if my_walls.any() else far
        score -= APPROACH * min(steps, far)
    return score


def _leads(owner: np.ndarray, me: int, enemies: list[int]) -> bool:
    """True when *me* owns strictly more land than each of *enemies*."""
    mine = int(np.count_nonzero(owner == me))
    return all(mine > int(np.count_nonzero(owner == p)) for p in enemies)


def _neighbourhood(mask: np.ndarray, x: int, y: int) -> tuple[bool, bool]:
    """(any orthogonal neighbour of (x, y) in *mask*, any diagonal neighbour in *mask*)."""
    h, w = mask.shape
    orth = any(0 <= nx < w and 0 <= ny < h and mask[ny, nx]
               for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)))
    diag = any(0 <= nx < w and 0 <= ny < h and mask[ny, nx]
               for nx, ny in ((x + 1, y + 1), (x - 1, y - 1), (x - 1, y + 1), (x + 1, y - 1)))
    return orth, diag


def _cells(mask: np.ndarray) -> list[tuple[int, int]]:
    ys, xs = np.nonzero(mask)
    return [(int(x), int(y)) for x, y in zip(xs, ys, strict=True)]


def _static_scores(game: Game, me: int, cells: list[tuple[int, int]]) -> dict[tuple[int, int], float]:
    """A cheap prior for ordering targets: gain, nearby own walls (pocket closing), enemy capitals."""
    board = game.board
    mine_walls = (board.owner == me) & board.occupied
    enemy_walls = board.occupied & (board.owner != me) & board.land
    walls8 = np.zeros(mine_walls.shape, dtype=np.int16)
    padded = np.pad(mine_walls, 1).astype(np.int16)
    h, w = mine_walls.shape
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dx or dy:
                walls8 += padded[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
    threatened = _shift_any(enemy_walls, diagonal=True)
    capitals = {c: p for p, c in board.capitals.items() if c is not None}
    barrier = np.pad(mine_walls | ~board.land, 1, constant_values=True)
    ring: dict[tuple[int, int], bool] = {}   # cells next to an enemy capital -> that capital is unoccupied
    for p, cell in board.capitals.items():
        if cell is None or p == me:
            continue
        free = not board.occupied[cell[1], cell[0]]
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            ring[(cell[0] + dx, cell[1] + dy)] = ring.get((cell[0] + dx, cell[1] + dy), False) or free
    scores = {}
    for x, y in cells:
        owner = int(board.owner[y, x])
        if owner == me:
            value = OCCUPIED + (1.0 if threatened[y, x] else 0.0)
        else:
            value = 2.0 + 0.5 * float(walls8[y, x])
        if _wall_runs(barrier, x + 1, y + 1) >= 2:
            value += CUT_POINT
        if (x, y) in capitals:
            value += 100.0
        if (x, y) in ring:
            value += RING_OPEN if ring[(x, y)] else RING
        scores[(x, y)] = value
    return scores


_RING = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))


def _wall_runs(barrier: np.ndarray, x: int, y: int) -> int:
    """Separate runs of barrier cells around (x, y) in *barrier* (padded by one): 2 or more = a cut point."""
    ring = [bool(barrier[y + dy, x + dx]) for dx, dy in _RING]
    return sum(1 for i in range(8) if ring[i] and not ring[i - 1])


def _ranked(scores: dict[tuple[int, int], float], rng: random.Random) -> list[tuple[int, int]]:
    cells = list(scores)
    rng.shuffle(cells)
    return sorted(cells, key=lambda c: -scores[c])


class _Planner:
    """Scores candidate moves of the player in turn by playing them on rigged copies."""

    def __init__(self, game: Game, rng: random.Random) -> None:
        self.game = game
        self.rng = rng
        self.me = game.current_player
        self.base = evaluate(game, self.me)

    def gain(self, move: str, cells: list[tuple[int, int]]) -> float:
        copy_ = clone(self.game)
        try:
            if move == "attack":
                copy_.attack(cells)
            elif move == "defend":
                copy_.defend(cells)
            else:
                copy_.guerilla(cells[0])
        except IllegalAction:
            return -WIN
        return evaluate(copy_, self.me) - self.base

    def attack_values(self) -> list[tuple[float, tuple[int, int]]]:
        """Value of conquering each legal Attack target, best first (ties in rng order)."""
        cells = _cells(self.game.legal_mask(Action.ATTACK))
        if not cells:
            return []
        prior = _static_scores(self.game, self.me, cells)
        ranked = _ranked(prior, self.rng)
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
        return _leads(self.game.board.owner, self.me, [p for p in self.game.alive if p != self.me])

    def best_defend(self) -> tuple[list[tuple[int, int]], float]:
        """Up to 3 own unoccupied cells next to enemy occupied cells (capital first) and the gain."""
        board = self.game.board
        legal = self.game.legal_mask(Action.DEFEND)
        enemy_walls = board.occupied & (board.owner != self.me) & board.land
        capital = board.capitals.get(self.me)
        near = legal & _shift_any(enemy_walls, diagonal=True)
        priority: dict[tuple[int, int], float] = {}
        orth = _shift_any(enemy_walls, diagonal=False)
        for c in _cells(near):
            priority[c] = 2.0 if orth[c[1], c[0]] else 1.0
        if capital is not None and legal[capital[1], capital[0]]:
            priority[capital] = 10.0
        if not priority:
            return [], -WIN
        cells = _ranked(priority, self.rng)[: MAX_CROSSES[Action.DEFEND]]
        return cells, self.gain("defend", cells)

    def best_guerilla(self) -> tuple[list[tuple[int, int]], float]:
        """The enemy cell whose Guerilla gains most (capital captures and encirclements) and the gain."""
        board = self.game.board
        legal = self.game.legal_mask(Action.GUERILLA) & (board.owner != self.me)
        cells = _cells(legal)
        if not cells:
            return [], -WIN
        prior = _static_scores(self.game, self.me, cells)
        ranked = _ranked(prior, self.rng)[:SIMULATED_GUERILLAS]
        gains = sorted(((self.gain("guerilla", [c]), c) for c in ranked), key=lambda vc: -vc[0])
        best_value, best_cell = gains[0]
        if best_value >= WIN / 2:
            return [best_cell], best_value
        best_value = -WIN
        for value, cell in gains[:GUERILLAS_CHECKED]:
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
        replies = _cells(legal)
        if not replies:
            return evaluate(copy_, self.me) - self.base
        prior = _static_scores(copy_, them, replies)
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
    planner = _Planner(game, rng)
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


def choose_action(game: Game, rng: random.Random) -> tuple:
    """The next action of the player in turn, in ``Game.apply`` form (spec §2.2, rules.legal_actions).

    ``("attack", cells)`` with 0..6 cells is ONE attack, ``("defend", cells)`` 1..3 cells,
    ``("guerilla", (x, y))``, or ``("pass",)`` when nothing is worth attacking. Raises ``IllegalAction``
    if the game is over.
    """
    if game.is_terminal():
        raise IllegalAction("the game is over")
    action, cells = plan(game, rng)
    if action is None:
        return ("pass",)
    if action is Action.GUERILLA:
        return ("guerilla", cells[0])
    return (action.value, tuple(cells))


def play_turn(game: Game, rng: random.Random) -> list[Event]:
    """Play the whole turn of the player in turn (every attack, or one Defend/Guerilla); return the events."""
    player = game.current_player
    events: list[Event] = []
    while not game.is_terminal() and game.current_player == player:
        events += game.apply(choose_action(game, rng))
    return events

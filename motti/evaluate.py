"""How good a motti position is for a player, and the board helpers the computer players share
(spec/motti.md §2): the one evaluation of the one-ply player (motti/ai.py) and of the search
(motti/search.py), and the board arithmetic of the march (motti/march.py) and the playouts (motti/rollout.py).

:func:`evaluate` scores a game for a player (material, occupied walls, the safety of its own capital, the
reach towards the weakest enemy capital, eliminations) with the weights below; :func:`static_scores` is the
cheap prior that orders attack targets; :func:`land_distance`, :func:`shift_any`, :func:`neighbourhood`,
:func:`cells_of` and :func:`wall_runs` are the board arithmetic both players use. Deterministic: the only
randomness is the ``random.Random`` handed to :func:`rank` (ties between equal targets).
"""

from __future__ import annotations

import hashlib
import random

import numpy as np

from motti.rules import Action, Cell, Game, Move

WIN = 1e6
ELIMINATION = 300.0
CAPITAL_ATTACKABLE = 400.0      # own unoccupied capital next to an enemy occupied cell (orthogonally)
CAPITAL_GUERILLA = 600.0        # own unoccupied capital diagonal to an enemy occupied cell (a certain loss)
CAPITAL_OPEN = 3.0              # own capital unoccupied at all
OCCUPIED = 0.4                  # an occupied cell cannot be attacked and walls pockets in
EXPOSED = 0.3                   # own unoccupied cell an enemy can attack next turn
ENEMY_CAPITAL_IN_REACH = 15.0   # the weakest enemy's capital is attackable by us
RESET_PRESSURE = 1.0            # per unoccupied land cell while the target enemy capital is occupied
APPROACH = 0.6                  # per step between our occupied cells and the weakest enemy capital
CUT_POINT = 3.0                 # prior bonus for a cell between two walls (it may close a pocket)
SIEGE = 150.0                   # per own cell, times exp(-steps to the target capital / SIEGE_STEPS)
SIEGE_STEPS = 2.0               # land steps over which that pull towards the target capital falls by e
TARGET_NEIGHBOUR = 12.0         # per own cell orthogonally next to the target capital
RING = 10.0                     # prior bonus for a cell orthogonally next to an enemy capital
RING_OPEN = 60.0                # the same when that capital is unoccupied (occupy the cell, then the capital)


def clone(game: Game) -> Game:
    """An independent copy of *game* with a generator of its own (``Game.clone().reseed``); *game* is
    untouched."""
    return game.clone().reseed(0)


def changes_nothing(game: Game, move: Move) -> bool:
    """Whether *move* (``Game.apply`` form) is a pass in disguise (spec/motti.md §2.2, §2.5): every outcome
    leaves every cell's owner and occupation as they were, once the encirclement it triggers is resolved. A
    Guerilla whose cell is encircled straight back is one; ``("pass",)`` and an attack with no crosses are
    passes. An attack's outcomes are its crosses conquered one by one (``Game.attack(draw=i)``); *game* is
    untouched. Raises ``IllegalAction`` for a move that is not legal now."""
    verb = move[0]
    if verb == "pass" or (verb == "attack" and not move[1]):
        return True
    draws = range(len(move[1])) if verb == "attack" else (None,)
    board = game.board
    for draw in draws:
        trial = clone(game)
        if draw is None:
            trial.apply(move)
        else:
            trial.attack(list(move[1]), draw=draw)
        if not (np.array_equal(trial.board.owner, board.owner)
                and np.array_equal(trial.board.occupied, board.occupied)):
            return False
    return True


def undone_at_once(game: Game, move: Move) -> bool:
    """Whether the next player can undo *move* (a Guerilla, ``Game.apply`` form) with one Guerilla of its own:
    after the pair every cell's owner and occupation are as they were, so two players answering each other
    like that swap the same cells for ever and never reach a reset (spec/motti.md §2.5, §2.8). The replies
    tried are the Guerillas onto the cells the move changed and their 8 neighbours. Other moves are never
    undone at once (a Defend cannot be, an Attack's turn is six attacks). *game* is untouched; raises
    ``IllegalAction`` for an illegal move."""
    if move[0] != "guerilla":
        return False
    board = game.board
    trial = clone(game)
    trial.apply(move)
    if trial.is_terminal():
        return False
    changed = (trial.board.owner != board.owner) | (trial.board.occupied != board.occupied)
    legal = trial.legal_mask(Action.GUERILLA)
    for cell in cells_of((changed | shift_any(changed, diagonal=True)) & legal):
        answered = clone(trial)
        answered.guerilla(cell)
        if (np.array_equal(answered.board.owner, board.owner)
                and np.array_equal(answered.board.occupied, board.occupied)):
            return True
    return False


def futile(game: Game, move: Move) -> bool:
    """A pass in disguise (:func:`changes_nothing`) or a Guerilla the next player undoes at once
    (:func:`undone_at_once`): the computer players treat both as passes."""
    return changes_nothing(game, move) or undone_at_once(game, move)


def cells_won(game: Game, move: Move) -> int:
    """How many more cells the player in turn owns after *move* (``Game.apply`` form, an attack with its first
    cross conquered), its encirclements resolved; *game* is untouched."""
    me = game.current_player
    trial = clone(game)
    if move[0] == "attack":
        trial.attack(list(move[1]), draw=0)
    else:
        trial.apply(move)
    return int(np.count_nonzero(trial.board.owner == me)) - int(np.count_nonzero(game.board.owner == me))


#: The orthogonal neighbours of a cell, in the order right, left, down, up.
ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
#: An enemy occupied cell this near to an open capital (Chebyshev distance, cells) endangers it: from two
#: cells away an enemy can take the cell between and then the capital in one turn (§2.2).
DANGER = 2


def ring_of(game: Game, cell: Cell) -> list[Cell]:
    """The land cells orthogonally next to *cell* ((x, y); of a capital: its ring), in :data:`ORTHOGONAL`
    order."""
    board = game.board
    x, y = cell
    return [(x + dx, y + dy) for dx, dy in ORTHOGONAL
            if board.inside(x + dx, y + dy) and board.land[y + dy, x + dx]]


def capital_in_danger(game: Game, me: int) -> bool:
    """Whether player *me*'s capital is open (unoccupied) and an enemy occupied cell lies within
    :data:`DANGER` cells of it (Chebyshev distance), or an enemy owns a cell orthogonally next to it (from
    there it can occupy that cell and take the capital in one turn, even right after a reset, §2.8)."""
    board = game.board
    capital = board.capitals.get(me)
    if capital is None:
        return False
    cx, cy = capital
    if board.occupied[cy, cx]:
        return False
    near = (slice(max(cy - DANGER, 0), cy + DANGER + 1), slice(max(cx - DANGER, 0), cx + DANGER + 1))
    enemy = board.land & (board.owner != me)
    if (enemy[near] & board.occupied[near]).any():
        return True
    return any(enemy[y, x] for x, y in ring_of(game, capital))


_distance_cache: dict[tuple[bytes, tuple[int, ...], tuple[int, int]], np.ndarray] = {}


def land_distance(land: np.ndarray, start: tuple[int, int]) -> np.ndarray:
    """Steps over land (4-neighbour) from *start* = (x, y): ``(H, W)`` float, inf where unreachable.

    A breadth-first search over the land graph (scipy.sparse.csgraph). Land never changes during a game, so
    results are cached per land mask and start cell. scipy is imported here, at the first search, so that the
    command line's ``--help`` never loads it.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import shortest_path

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
    dist: np.ndarray = shortest_path(graph, directed=False, unweighted=True, indices=y * w + x).reshape(h, w)
    if len(_distance_cache) >= 32:
        _distance_cache.clear()
    _distance_cache[key] = dist
    return dist


def shift_any(mask: np.ndarray, diagonal: bool) -> np.ndarray:
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


def weakest_enemy(game: Game, me: int) -> int | None:
    """The enemy to go for: an unoccupied capital first, then the fewest cells, then the lowest number."""
    board = game.board
    capitals = {p: capital for p in game.alive if p != me and (capital := board.capitals.get(p)) is not None}
    if not capitals:
        return None
    def weakness(p: int) -> tuple[bool, int, int]:
        x, y = capitals[p]
        return bool(board.occupied[y, x]), int(np.count_nonzero(board.owner == p)), p

    return min(capitals, key=weakness)


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
            around = neighbourhood(enemy_walls, cx, cy)
            if around[0]:
                score -= CAPITAL_ATTACKABLE
            elif around[1]:
                score -= CAPITAL_GUERILLA
    exposed = mine & ~occupied & shift_any(enemy_walls, diagonal=False)
    score -= EXPOSED * float(np.count_nonzero(exposed))
    target = weakest_enemy(game, me)
    target_capital = None if target is None else board.capitals[target]
    if target_capital is not None:
        tx, ty = target_capital
        my_walls = mine & occupied
        if not occupied[ty, tx] and neighbourhood(my_walls, tx, ty)[0]:
            score += ENEMY_CAPITAL_IN_REACH
        dist = land_distance(board.land, (tx, ty))
        ring = int(np.count_nonzero(mine & (dist == 1)))
        if occupied[ty, tx]:
            # Only a global reset (§2.8) frees an occupied capital: fill the board to bring it. The pressure
            # is the same with or without cells next to that capital: a pressure that grew with the first
            # such cell would make conquering it cost more than it gains, and the computer never besieged.
            score -= RESET_PRESSURE * float(np.count_nonzero(board.land & ~occupied))
        closeness = np.exp(-dist / SIEGE_STEPS)
        score += SIEGE * float(closeness[mine].sum())
        score += TARGET_NEIGHBOUR * ring
        far = float(board.width + board.height)
        steps = float(dist[my_walls].min()) if my_walls.any() else far
        score -= APPROACH * min(steps, far)
    return score


def leads(owner: np.ndarray, me: int, enemies: list[int]) -> bool:
    """True when *me* owns strictly more land than each of *enemies*."""
    mine = int(np.count_nonzero(owner == me))
    return all(mine > int(np.count_nonzero(owner == p)) for p in enemies)


def neighbourhood(mask: np.ndarray, x: int, y: int) -> tuple[bool, bool]:
    """(any orthogonal neighbour of (x, y) in *mask*, any diagonal neighbour in *mask*)."""
    h, w = mask.shape
    orth = any(0 <= nx < w and 0 <= ny < h and mask[ny, nx]
               for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)))
    diag = any(0 <= nx < w and 0 <= ny < h and mask[ny, nx]
               for nx, ny in ((x + 1, y + 1), (x - 1, y - 1), (x - 1, y + 1), (x + 1, y - 1)))
    return orth, diag


def cells_of(mask: np.ndarray) -> list[tuple[int, int]]:
    ys, xs = np.nonzero(mask)
    return [(int(x), int(y)) for x, y in zip(xs, ys, strict=True)]


def static_scores(game: Game, me: int, cells: list[tuple[int, int]]) -> dict[tuple[int, int], float]:
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
    threatened = shift_any(enemy_walls, diagonal=True)
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
        if wall_runs(barrier, x + 1, y + 1) >= 2:
            value += CUT_POINT
        if (x, y) in capitals:
            value += 100.0
        if (x, y) in ring:
            value += RING_OPEN if ring[(x, y)] else RING
        scores[(x, y)] = value
    return scores


RING8 = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))


def wall_runs(barrier: np.ndarray, x: int, y: int) -> int:
    """Separate runs of barrier cells around (x, y) in *barrier* (padded by one): 2 or more = a cut point."""
    ring = [bool(barrier[y + dy, x + dx]) for dx, dy in RING8]
    return sum(1 for i in range(8) if ring[i] and not ring[i - 1])


def rank(scores: dict[tuple[int, int], float], rng: random.Random) -> list[tuple[int, int]]:
    cells = list(scores)
    rng.shuffle(cells)
    return sorted(cells, key=lambda c: -scores[c])

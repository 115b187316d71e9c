"""The ``easy`` computer player of motti: it marches its walls at the enemy capital (spec/motti.md §2), the
march that the ``medium`` level plays out; and the guarded march that the ``hard`` level plays out
(motti/rollout.py).

What it does, turn by turn:

* it takes an enemy capital by Guerilla whenever it can (an open capital next to, or diagonal to, one of its
  occupied cells);
* it defends its own capital when the capital is open (unoccupied) and in danger: an enemy occupied cell
  within two cells of it, or an enemy owning a cell next to it. It occupies the capital and up to two of the
  cells next to it, those touching enemy land first;
* otherwise it attacks, going for the enemy capitals. An open enemy capital it can cross comes first, then
  the cells next to an open enemy capital (its own to occupy, the enemy's to take), then the enemy cells
  nearest an enemy capital; its own cells fill the six crosses, first up to two of those an enemy wall
  could attack, then those nearest an enemy capital, so that its walls march towards the enemy. While an
  enemy cell can be crossed, every attack crosses one;
* when it can cross no cell at all for an attack, it takes a foothold by Guerilla on the enemy cell nearest
  an enemy capital that stays its own, unless that Guerilla brings the global reset on while an enemy owns a
  cell next to its capital; it passes only when there is none.

The guarded march (``guarded=True``) defends its open capital already against an enemy occupied cell
:data:`GUARD_DANGER` (three) cells away, keeps its capital out of reach (:func:`fortress`) and times the
global reset (:func:`reset_timing`): it brings the reset on early in its turn when it owns a cell next to an
enemy capital, and holds it back late in its turn when an enemy owns one next to its own.

With three or more players alive every march presses on (:data:`CROWD`): it defends its open capital only
against an enemy wall within two cells, not against an enemy merely owning a cell next to it, mends none of
its own cells, and the guarded march keeps no fortress; an attack the timing leaves as it is also quiets its
fronts (:func:`quiet_fronts`).

What the plain march leaves out: it looks no move ahead; it never times the global reset (§2.8), so it
fills the board without caring who gets the first turn after it, and it strikes only from the cells it
happens to hold; it does not look for the Guerilla that would encircle a pocket; it spreads its crosses over
the front instead of closing one pocket at a time. It never plays a pass in disguise, a move that changes
nothing once the encirclement it triggers is resolved (§2.5): a conquered cross joins the land of its own
wall next to it, so the encirclement never takes it straight back, and a foothold is checked with
:func:`motti.evaluate.changes_nothing`. It decides in well under a millisecond of CPU on a 20x15 map, and is
deterministic given its ``random.Random`` (which only breaks ties)."""

from __future__ import annotations

import random

import numpy as np

from motti.evaluate import (
    DANGER,
    brings_reset,
    capital_in_danger,
    cells_of,
    changes_nothing,
    land_distance,
    per_land,
    ring_of,
    shift_any,
)
from motti.rules import MAX_CROSSES, Action, Cell, Game, Move, reach

#: At most this many crosses of an attack go to its own cells an enemy wall could attack.
MENDED = 2
#: The guarded march brings the global reset on (§2.8) with at least this many attacks left in its turn...
BRING_FROM = 4
#: ... and holds it back with at most this many left.
HOLD_UP_TO = 3
#: The guarded march defends its open capital while an enemy occupied cell is this near (Chebyshev distance):
#: from three cells away a keen enemy takes an open capital within one turn in a few games out of a hundred.
GUARD_DANGER = 3
#: With at least this many players alive every march presses on (:func:`crowded`): it defends its open
#: capital only against an enemy occupied cell within :data:`motti.evaluate.DANGER`, mends none of its own
#: cells, keeps no :func:`fortress`, and the guarded march's attacks first quiet its fronts
#: (:func:`quiet_fronts`) when the reset timing leaves them as they are. With more players a reset comes only
#: once every front is quiet, and a capital falls only after one: a turn spent guarding lets the others grow.
CROWD = 3

# The order of an attack's crosses (lowest first); within a group, steps over land to the nearest enemy
# capital, ties in the rng's order.
_CAPITAL, _OPEN_RING, _ENEMY, _OWN_EXPOSED, _OWN = range(5)
# An odd multiplier: (i ^ salt) * _MIX mod 2**32 orders the cells 0..n-1 in one of 2**32 ways (both steps
# are bijections), from a single draw of the rng instead of a shuffle's n draws.
_MIX = np.uint64(0x9E3779B1)
_LOW32 = np.uint64(0xFFFFFFFF)
# :func:`attack`'s key of a cell: its group << _GROUP_SHIFT | its steps << _STEP_SHIFT | its tie-break (32
# bits); a cell no enemy capital is reached from counts _FAR steps, more than any board has.
_STEP_SHIFT = 32
_GROUP_SHIFT = 59
_FAR = 1 << (_GROUP_SHIFT - _STEP_SHIFT - 1)


def crowded(game: Game) -> bool:
    """Whether :data:`CROWD` or more players are alive: the marches then press on (:data:`CROWD`)."""
    return len(game.alive) >= CROWD


def _enemy_capitals(game: Game, me: int) -> list[Cell]:
    return [c for p, c in sorted(game.board.capitals.items()) if c is not None and p != me]


def _steps(game: Game, targets: list[Cell]) -> np.ndarray:
    """(H, W) float: steps over land (4-neighbour) to the nearest of *targets*, inf where none is reached.
    The caller must not change the array."""
    land = game.board.land

    def work_out() -> np.ndarray:
        steps: np.ndarray = np.minimum.reduce([land_distance(land, t) for t in targets])
        return steps

    return per_land(land, ("steps", *targets), work_out)


def _step_keys(game: Game, targets: list[Cell]) -> np.ndarray:
    """(H*W,) int64, row by row: :func:`_steps` as whole steps (:data:`_FAR` where no target is reached)
    shifted :data:`_STEP_SHIFT` bits left, the high part of :func:`attack`'s keys. The caller must not change
    the array."""

    def work_out() -> np.ndarray:
        steps = _steps(game, targets)
        whole = np.where(np.isinf(steps), _FAR, steps).astype(np.int64)
        keys: np.ndarray = (whole << _STEP_SHIFT).ravel()
        return keys

    return per_land(game.board.land, ("step keys", *targets), work_out)


def _capital_groups(game: Game, targets: list[Cell]) -> np.ndarray:
    """(H, W) int: the group of :func:`attack`'s order that the enemy capitals *targets* give a cell: their
    own cells ``_CAPITAL``, the rings of the open ones ``_OPEN_RING``, ``_OWN`` elsewhere (the last of the
    groups). The caller must not change the array."""
    board = game.board
    opened = tuple(not board.occupied[y, x] for x, y in targets)

    def work_out() -> np.ndarray:
        groups = np.full(board.land.shape, _OWN)
        for (x, y), open_ in zip(targets, opened, strict=True):
            if open_:
                for rx, ry in ring_of(game, (x, y)):
                    groups[ry, rx] = _OPEN_RING
        for x, y in targets:
            groups[y, x] = _CAPITAL
        return groups

    return per_land(board.land, ("groups", *targets, *opened), work_out)


def defence(game: Game, me: int) -> Move:
    """``("defend", cells)``: player *me*'s capital and up to two of its own open cells next to it, those
    touching enemy land first (ties in :func:`motti.evaluate.ring_of` order). Raises ``KeyError`` for an
    eliminated player."""
    board = game.board
    capital = board.capitals[me]
    if capital is None:
        raise KeyError(f"player {me} has no capital")
    touching = shift_any(board.land & (board.owner != me), diagonal=False)
    ring = [(x, y) for x, y in ring_of(game, capital) if board.owner[y, x] == me and not board.occupied[y, x]]
    ring.sort(key=lambda c: not touching[c[1], c[0]])
    return ("defend", (capital, *ring[: MAX_CROSSES[Action.DEFEND] - 1]))


def under_fire(game: Game, me: int) -> np.ndarray:
    """(H, W) bool: the cells orthogonally next to an occupied cell of another player than *me*, those an
    enemy wall could attack (spec §2.2) were they *me*'s and unoccupied."""
    board = game.board
    fire: np.ndarray = shift_any(board.land & board.occupied & (board.owner != me), diagonal=False)
    return fire


def attack(game: Game, me: int, rng: random.Random, legal: np.ndarray | None = None,
           fire: np.ndarray | None = None) -> Move:
    """The next attack of player *me* (in turn): ``("attack", cells)`` with up to six crosses in the order of
    the module docstring, ties broken by one draw of *rng*; ``("pass",)`` when no cell can be crossed or no
    enemy is left. *legal* and *fire* are ``game.legal_mask(Action.ATTACK)`` and :func:`under_fire` when the
    caller has them already."""
    board = game.board
    targets = _enemy_capitals(game, me)
    if legal is None:
        legal = game.legal_mask(Action.ATTACK)
    if not legal.any() or not targets:
        return ("pass",)
    # Each crossable cell gets one int64 key, ordered as the crosses are: its group, then its steps to the
    # nearest enemy capital, then its tie-break; the cells row by row (np.flatnonzero) are numbered for the
    # tie-break.
    cells = np.flatnonzero(legal)
    ties = ((np.arange(cells.size, dtype=np.uint64) ^ np.uint64(rng.getrandbits(32))) * _MIX) & _LOW32
    near = _step_keys(game, targets)[cells] | ties.view(np.int64)
    own = board.owner.ravel()[cells] == me
    group = np.where(own, _OWN, _ENEMY)
    mended = 0 if crowded(game) else MENDED
    if mended:
        if fire is None:
            fire = under_fire(game, me)
        exposed = np.flatnonzero(fire.ravel()[cells] & own)
        if exposed.size > mended:  # nearest the enemy
            exposed = exposed[np.argpartition(near[exposed], mended - 1)[:mended]]
        group[exposed] = _OWN_EXPOSED
    np.minimum(group, _capital_groups(game, targets).ravel()[cells], out=group)
    key = (group << _GROUP_SHIFT) | near
    limit = MAX_CROSSES[Action.ATTACK]
    first = np.argpartition(key, limit - 1)[:limit] if key.size > limit else np.arange(key.size)
    first = first[np.argsort(key[first])]
    width = legal.shape[1]
    crosses = [(c % width, c // width) for c in cells[first].tolist()]
    if own[first].all() and not own.all():
        # Its cells next to open enemy capitals took every cross: the nearest enemy cell gets the last.
        foreign = np.flatnonzero(~own)
        nearest = int(cells[foreign[np.argmin(key[foreign])]])
        crosses[-1] = (nearest % width, nearest // width)
    return ("attack", tuple(crosses))


def foothold(game: Game, me: int) -> Move | None:
    """When player *me* (in turn, before its first attack) can cross no cell at all for an attack: the
    Guerilla onto the enemy cell nearest an enemy capital that the encirclement does not take straight back
    (:func:`motti.evaluate.changes_nothing`; a cell its capital reaches, :func:`motti.rules.reach`, never
    is), or None when there is none. While an enemy owns a cell next to *me*'s capital (:func:`ringed`), a
    Guerilla that brings the global reset on (:func:`motti.evaluate.brings_reset`) is none: the turn ends
    with it, and that enemy would move first on the reset board, a step from the open capital (§2.8)."""
    board = game.board
    targets = _enemy_capitals(game, me)
    if not targets or game.legal_mask(Action.ATTACK).any():
        return None
    cells = cells_of(game.legal_mask(Action.GUERILLA) & (board.owner != me))
    steps = _steps(game, targets)
    cells.sort(key=lambda c: float(steps[c[1], c[0]]))
    held = reach(board, me)
    ringed_now = ringed(game, me)
    return next((("guerilla", c) for c in cells
                 if (held[c[1], c[0]] or not changes_nothing(game, ("guerilla", c)))
                 and not (ringed_now and brings_reset(game, ("guerilla", c)))), None)


def ringed(game: Game, me: int) -> bool:
    """Whether another alive player owns a cell orthogonally next to player *me*'s capital (False without a
    capital): right after a global reset it strikes from there (§2.7, §2.8)."""
    capital = game.board.capitals.get(me)
    if capital is None:
        return False
    owner = game.board.owner
    alive = game.alive
    return any(owner.item(y, x) != me and owner.item(y, x) in alive for x, y in ring_of(game, capital))


def fortress(game: Game, me: int, legal: np.ndarray | None = None,
             fire: np.ndarray | None = None) -> list[Cell]:
    """The crosses that keep player *me*'s capital out of reach (spec §2.7, §2.8), in this order: the enemy
    cells among the capital's 8 neighbours that *me* can cross (taken back, an enemy owning one strikes from
    it after every reset), its own cells among those 8 that an enemy wall could attack now, and the capital
    itself while it is open and an enemy owns a cell within :data:`motti.evaluate.DANGER` of it. *legal* and
    *fire* as for :func:`attack`."""
    board = game.board
    capital = board.capitals[me]
    if capital is None:
        return []
    cx, cy = capital
    legal = game.legal_mask(Action.ATTACK) if legal is None else legal
    attackable = under_fire(game, me) if fire is None else fire
    h, w = legal.shape
    around = [(cx + dx, cy + dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
              if (dx or dy) and 0 <= cx + dx < w and 0 <= cy + dy < h and legal[cy + dy, cx + dx]]
    taken = [c for c in around if board.owner[c[1], c[0]] != me]
    mended = [c for c in around if board.owner[c[1], c[0]] == me and attackable[c[1], c[0]]]
    if not legal[cy, cx]:
        return taken + mended
    near = (slice(max(cy - DANGER, 0), cy + DANGER + 1), slice(max(cx - DANGER, 0), cx + DANGER + 1))
    foreign = board.land[near] & (board.owner[near] != me)
    return taken + mended + ([capital] if foreign.any() else [])


def strikes(game: Game, striker: int, target: int) -> int:
    """How many cells orthogonally next to player *target*'s capital player *striker* owns: right after a
    global reset (§2.8) a striker moving first can occupy one of them and take the capital from it in the same
    turn (§2.2, §2.7). 0 when *target* has no capital."""
    board = game.board
    capital = board.capitals.get(target)
    if capital is None:
        return 0
    return sum(1 for x, y in ring_of(game, capital) if board.owner[y, x] == striker)


def reset_timing(game: Game, me: int, move: Move, legal: np.ndarray | None = None) -> Move:
    """Player *me*'s attack *move* (in turn) timed against the global reset (spec §2.8), when the cells
    that hold it back (:meth:`motti.rules.Game.holding`: under ``strict`` those another player can take, under
    ``empty`` the free ones) number :data:`MAX_CROSSES` or fewer:

    * if *me* owns a cell next to an enemy capital (:func:`strikes`) and no enemy owns one next to its own,
      and at least :data:`BRING_FROM` attacks are left, the attack crosses exactly those cells (when it can
      cross them all), so that the reset comes while it still has attacks to strike with;
    * if an enemy owns a cell next to its capital and at most :data:`HOLD_UP_TO` attacks are left, those cells
      are left out of the crosses, so that the reset does not hand the enemy the first move; with no cross
      left the turn is passed.

    Any other move is returned as it is. *legal* as for :func:`attack`."""
    if move[0] != "attack" or not move[1]:
        return move
    theirs = ringed(game, me)
    bring = (not theirs and game.attacks_left >= BRING_FROM
             and any(strikes(game, me, p) for p in game.alive if p != me))
    if not bring and not (theirs and game.attacks_left <= HOLD_UP_TO):
        return move
    held = game.holding()
    if not 0 < np.count_nonzero(held) <= MAX_CROSSES[Action.ATTACK]:
        return move
    cells = cells_of(held)
    if bring:
        legal = game.legal_mask(Action.ATTACK) if legal is None else legal
        return ("attack", tuple(cells)) if all(legal[y, x] for x, y in cells) else move
    kept = tuple(c for c in move[1] if not held[c[1], c[0]])
    return ("attack", kept) if kept else ("pass",)


def quiet_fronts(game: Game, me: int, move: Move) -> Move:
    """Player *me*'s attack *move* (in turn) with, right after its first cross on another player's land, its
    own cells that hold the global reset back (:meth:`motti.rules.Game.holding`: under ``strict`` those
    another player could take), so that its fronts fall quiet and the reset comes sooner; the rest of *move*'s
    crosses follow, up to :data:`MAX_CROSSES`. With three or more players a reset comes only once every
    front is quiet, and a capital falls only after one (spec §2.7, §2.8). Any other move is returned as it
    is."""
    if move[0] != "attack" or not move[1]:
        return move
    board = game.board
    ys, xs = np.nonzero(game.holding() & (board.owner == me))
    if not xs.size:
        return move
    limit = MAX_CROSSES[Action.ATTACK]
    held = list(zip(xs[:limit].tolist(), ys[:limit].tolist(), strict=True))  # its own: never *first*
    first = [c for c in move[1] if board.owner[c[1], c[0]] != me][:1]
    crosses = [*first, *held]
    crosses += [c for c in move[1] if c not in crosses]
    return ("attack", tuple(crosses[: MAX_CROSSES[Action.ATTACK]]))


def choose_action(game: Game, rng: random.Random, guarded: bool = False, danger: int | None = None) -> Move:
    """The ``easy`` player's next action for the player in turn, in ``Game.apply`` form (spec §2.2):
    ``("guerilla", (x, y))``, ``("defend", cells)`` with 1..3 cells, ``("attack", cells)`` with 1..6 cells
    (ONE attack), or ``("pass",)`` when no cell can be crossed. With *guarded* (the policy the ``hard`` level
    searches with, motti/rollout.py) every attack crosses the :func:`fortress` cells first and
    is timed against the global reset (:func:`reset_timing`); one the timing leaves as it is quiets its
    fronts (:func:`quiet_fronts`) while :data:`CROWD` or more players are alive. It defends its open
    capital while an enemy occupied cell is within *danger* cells (Chebyshev distance; default
    :data:`GUARD_DANGER` guarded, :data:`motti.evaluate.DANGER` plain), or an enemy owns a cell next to it;
    while :data:`CROWD` or more players are alive it presses on (:data:`CROWD`), whatever *danger*.
    The game must not be over (:func:`motti.levels.choose_action` checks that)."""
    me = game.current_player
    crowd = crowded(game)
    if not game.attacked:
        guerilla = game.legal_mask(Action.GUERILLA)
        for x, y in _enemy_capitals(game, me):
            if guerilla[y, x]:
                return ("guerilla", (x, y))
        if crowd:
            danger = DANGER
        elif danger is None:
            danger = GUARD_DANGER if guarded else DANGER
        if capital_in_danger(game, me, danger, ring=not crowd):
            return defence(game, me)
        hold = foothold(game, me)
        if hold is not None:
            return hold
    legal = game.legal_mask(Action.ATTACK)
    fire = None if crowd else under_fire(game, me)
    move = attack(game, me, rng, legal, fire)
    if not guarded or move[0] != "attack":
        return move
    first = [] if crowd else fortress(game, me, legal, fire)
    if first:
        board = game.board
        crosses = [*first, *(c for c in move[1] if c not in first)][: MAX_CROSSES[Action.ATTACK]]
        foreign = [c for c in move[1] if board.owner[c[1], c[0]] != me]
        if foreign and all(board.owner[y, x] == me for x, y in crosses):
            crosses[-1] = foreign[0]
        move = ("attack", tuple(crosses))
    timed = reset_timing(game, me, move, legal)
    if timed is move and crowd:
        return quiet_fronts(game, me, move)
    return timed

"""The rules of motti: board, actions, and the resolution pipeline (spec/motti.md §1–§2).

Everything here is pure and deterministic: the only randomness is ``rng.randrange(6)`` per attack, drawn from
the ``random.Random`` handed to :class:`Game` (§2.3). Boards are numpy arrays of shape ``(H, W)`` indexed
``[y, x]``; every cell in the public API is an ``(x, y)`` tuple, x = column, y = row from the top (§1).

After each single attack, each Defend and each Guerilla the resolution pipeline of §2.4 runs as a fixed
sequence of small stages over one :class:`_Resolution` record (capital capture §2.7, encirclement §2.5–§2.6,
global reset §2.8, game end §2.9); every stage returns the events it caused, in order.

Encirclement is connected-component labelling with 4-connectivity (``scipy.ndimage.label``). Only pockets that
touch a changed cell can be new (anything else was already resolved by the previous run), so the labelling
runs on windows around the changed cells first, then on a window that also holds the player's capital, and on
the whole board only when none decides."""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import ndimage


class Action(enum.Enum):
    """The three actions of a turn (§2.2)."""

    ATTACK = "attack"
    DEFEND = "defend"
    GUERILLA = "guerilla"


MAX_CROSSES: dict[Action, int] = {Action.ATTACK: 6, Action.DEFEND: 3, Action.GUERILLA: 1}
ATTACKS_PER_TURN = 6
CYCLE_ORDER = (Action.ATTACK, Action.DEFEND, Action.GUERILLA)
CAPITAL_RULES = ("v3", "v2")
RESET_RULES = ("empty", "strict")
TIE_RULES = ("mover", "lowest")

Cell = tuple[int, int]

# Margins (cells) around the changed cells for the local labelling windows, tried in this order.
_LOCAL_MARGINS = (24, 96)


class IllegalAction(ValueError):
    """An action or cross the rules do not allow now; the message says why, e.g. ``(3,4) is occupied``."""


@dataclass(eq=False)
class Board:
    """A motti board (§1).

    ``land`` (H, W) bool; ``owner`` (H, W) int8, 0 = none (sea), 1..9 = player; ``occupied`` (H, W) bool;
    ``capitals`` maps every player 1..``players`` to its capital ``(x, y)``, or ``None`` once eliminated;
    ``players`` counts eliminated players too. Boards compare by identity (numpy arrays have no single truth
    value); compare the arrays to compare contents.
    """

    land: np.ndarray
    owner: np.ndarray
    occupied: np.ndarray
    capitals: dict[int, Cell | None]
    players: int

    @property
    def width(self) -> int:
        return int(self.land.shape[1])

    @property
    def height(self) -> int:
        return int(self.land.shape[0])

    def copy(self) -> Board:
        return Board(
            self.land.copy(), self.owner.copy(), self.occupied.copy(), dict(self.capitals), self.players
        )

    def alive_players(self) -> list[int]:
        """Players that still have a capital, ascending."""
        return [p for p in range(1, self.players + 1) if self.capitals.get(p) is not None]

    def inside(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height


# ---------------------------------------------------------------------------------------------------- events


@dataclass(frozen=True)
class AttackDrawn:
    """One attack's draw ``rng.randrange(6)``; ``cell`` is the conquered cross, ``None`` for a failed attack.
    """

    player: int
    draw: int
    cell: Cell | None


@dataclass(frozen=True)
class CellsChanged:
    """Cells whose owner or occupied flag changed (front ends redraw these)."""

    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Encircled:
    """``victim``'s cells ``cells`` were handed to player ``to``, unoccupied (§2.5–§2.7)."""

    cells: tuple[Cell, ...]
    to: int
    victim: int


@dataclass(frozen=True)
class CapitalCaptured:
    player: int
    by: int
    cell: Cell


@dataclass(frozen=True)
class Eliminated:
    """``cause`` is ``"capital"``, ``"closed"`` or ``"quit"``."""

    player: int
    cause: str


@dataclass(frozen=True)
class Reset:
    """Global reset (§2.8): all land became unoccupied."""


@dataclass(frozen=True)
class TurnPassed:
    to: int


@dataclass(frozen=True)
class GameOver:
    """``winner`` is ``None`` only if every player was defeated at once."""

    winner: int | None


Event = AttackDrawn | CellsChanged | Encircled | CapitalCaptured | Eliminated | Reset | TurnPassed | GameOver


# ---------------------------------------------------------------------------------------------- array helpers


def _dilate4(mask: np.ndarray) -> np.ndarray:
    """The mask plus its orthogonal neighbours (same shape, no wrap-around)."""
    out = mask.copy()
    out[1:] |= mask[:-1]
    out[:-1] |= mask[1:]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


def _dilate8(mask: np.ndarray) -> np.ndarray:
    """The mask plus its orthogonal and diagonal neighbours."""
    rows = mask.copy()
    rows[1:] |= mask[:-1]
    rows[:-1] |= mask[1:]
    out = rows.copy()
    out[:, 1:] |= rows[:, :-1]
    out[:, :-1] |= rows[:, 1:]
    return out


def _cells(ys: np.ndarray, xs: np.ndarray) -> tuple[Cell, ...]:
    """(x, y) tuples in row-major order."""
    order = np.lexsort((xs, ys))
    return tuple(zip(xs[order].tolist(), ys[order].tolist(), strict=True))


def nearest_capital(ys: np.ndarray, xs: np.ndarray, capitals: Sequence[tuple[int, Cell]]) -> np.ndarray:
    """For each cell the player whose capital is nearest by Euclidean distance, ties to the lowest number.

    ``capitals`` is ``[(player, (x, y)), ...]``; returns an int8 array like ``ys``.
    """
    ordered = sorted(capitals)
    players = np.array([p for p, _ in ordered], dtype=np.int8)
    cx = np.array([c[0] for _, c in ordered], dtype=np.int64)
    cy = np.array([c[1] for _, c in ordered], dtype=np.int64)
    d2 = (xs.astype(np.int64)[:, None] - cx[None, :]) ** 2 + (ys.astype(np.int64)[:, None] - cy[None, :]) ** 2
    return players[np.argmin(d2, axis=1)]


# ------------------------------------------------------------------------------------------------- legality


def legal_mask(board: Board, player: int, action: Action) -> np.ndarray:
    """(H, W) bool: the cells ``player`` may cross for ``action`` (§2.2 table)."""
    unoccupied = board.land & ~board.occupied
    own = board.owner == player
    if action is Action.DEFEND:
        return unoccupied & own
    own_occupied = own & board.occupied
    near = _dilate4(own_occupied) if action is Action.ATTACK else _dilate8(own_occupied)
    return unoccupied & (own | near)


def why_illegal(board: Board, player: int, action: Action, x: int, y: int) -> str | None:
    """``None`` if ``player`` may cross (x, y) for ``action``, else the reason in words (§2.2)."""
    if not board.inside(x, y):
        return f"({x},{y}) is outside the {board.width}x{board.height} board"
    if not board.land[y, x]:
        return f"({x},{y}) is sea"
    if board.occupied[y, x]:
        return f"({x},{y}) is occupied"
    if board.owner[y, x] == player:
        return None
    if action is Action.DEFEND:
        return f"({x},{y}) is not your land (Defend takes only your own cells)"
    steps = ((1, 0), (-1, 0), (0, 1), (0, -1))
    if action is Action.GUERILLA:
        steps += ((1, 1), (1, -1), (-1, 1), (-1, -1))
    for dx, dy in steps:
        nx, ny = x + dx, y + dy
        if board.inside(nx, ny) and board.occupied[ny, nx] and board.owner[ny, nx] == player:
            return None
    kind = "orthogonally" if action is Action.ATTACK else "orthogonally or diagonally"
    return f"({x},{y}) is not {kind} next to an occupied cell of yours"


# ------------------------------------------------------------------------------------------------- division


def _divide(
    board: Board,
    region: tuple[slice, slice],
    area: np.ndarray,
    heirs: Iterable[int],
    mover: int,
    tie_rule: str,
) -> np.ndarray:
    """Multi-source BFS of §2.6 inside ``area`` (bool mask over ``board[region]``), vectorised by distance
    layer.

    Distance 0 are the area cells orthogonally next to an occupied cell of an heir; distance d takes the
    labels of its distance d-1 neighbours; ties go to the mover (``tie_rule="mover"``) and then to the lowest
    number. Returns an int8 array over the region: the heir of every area cell (0 outside the area)."""
    owner = board.owner[region]
    occupied = board.occupied[region] & board.land[region]
    order = sorted(set(heirs))
    if tie_rule == "mover" and mover in order:
        order.remove(mover)
        order.insert(0, mover)
    label = np.zeros(area.shape, dtype=np.int8)
    done = np.zeros(area.shape, dtype=bool)
    fronts = [area & _dilate4(occupied & (owner == h)) for h in order]
    while True:
        layer = np.zeros(area.shape, dtype=bool)
        for i, h in enumerate(order):
            new = fronts[i] & ~done & ~layer
            label[new] = h
            layer |= new
            fronts[i] = new
        if not layer.any():
            return label
        done |= layer
        fronts = [_dilate4(f) & area & ~done for f in fronts]


def _heirs_around(
    board: Board, region: tuple[slice, slice], area: np.ndarray, exclude: Iterable[int]
) -> set[int]:
    """Owners of occupied cells orthogonally next to ``area``, minus ``exclude``."""
    ring = _dilate4(area) & ~area & board.occupied[region] & board.land[region]
    found = {int(p) for p in np.unique(board.owner[region][ring])}
    return found - set(exclude) - {0}


def _grow(sl: tuple[slice, slice], shape: tuple[int, int], by: int = 1) -> tuple[slice, slice]:
    ys, xs = sl
    return (
        slice(max(ys.start - by, 0), min(ys.stop + by, shape[0])),
        slice(max(xs.start - by, 0), min(xs.stop + by, shape[1])),
    )


@dataclass
class _Handover:
    """Cells of ``victim`` inside ``region`` (mask ``cells``) going to the players in ``heir`` (int8 over
    region)."""

    victim: int
    region: tuple[slice, slice]
    cells: np.ndarray
    heir: np.ndarray


def _apply_handovers(board: Board, handovers: list[_Handover]) -> tuple[list[Event], list[np.ndarray]]:
    """Apply the handovers (cells become unoccupied cells of their heir); return events and changed (ys, xs).
    """
    events: list[Event] = []
    changed: list[np.ndarray] = []
    for h in handovers:
        y0, x0 = h.region[0].start, h.region[1].start
        board.owner[h.region][h.cells] = h.heir[h.cells]
        board.occupied[h.region][h.cells] = False
        ys, xs = np.nonzero(h.cells)
        ys, xs = ys + y0, xs + x0
        changed.append(np.stack([ys, xs]))
        heirs = h.heir[h.cells]
        for to in sorted({int(p) for p in heirs}):
            pick = heirs == to
            events.append(Encircled(_cells(ys[pick], xs[pick]), to, h.victim))
    return events, changed


def _divide_player(
    board: Board,
    victim: int,
    mover: int,
    tie_rule: str,
    fallback: Callable[[np.ndarray, np.ndarray], np.ndarray],
    exclude: Iterable[int] = (),
) -> list[_Handover]:
    """§2.7: make every cell of ``victim`` unoccupied and divide each 4-connected component of them as in
    §2.6.

    Heirs of a component are the owners of occupied cells next to it (minus ``victim`` and ``exclude``); a
    component without any gets ``fallback(ys, xs)`` (global coordinates) as its per-cell heirs."""
    mine = board.land & (board.owner == victim)
    if not mine.any():
        return []
    board.occupied[mine] = False
    labels, n = ndimage.label(mine)
    out = []
    for i, sl in enumerate(ndimage.find_objects(labels), start=1):
        region = _grow(sl, mine.shape)
        area = labels[region] == i
        heirs = _heirs_around(board, region, area, {victim, *exclude})
        if heirs:
            heir = _divide(board, region, area, heirs, mover, tie_rule)
        else:
            ys, xs = np.nonzero(area)
            heir = np.zeros(area.shape, dtype=np.int8)
            heir[ys, xs] = fallback(ys + region[0].start, xs + region[1].start)
        out.append(_Handover(victim, region, area, heir))
    return out


# ----------------------------------------------------------------------------------------------- encirclement


def _passable(board: Board, player: int, window: tuple[slice, slice]) -> np.ndarray:
    """§2.5: land owned by ``player`` plus other players' unoccupied land, over ``window``."""
    return board.land[window] & ((board.owner[window] == player) | ~board.occupied[window])


def _open_border_ids(labels: np.ndarray, window: tuple[slice, slice], shape: tuple[int, int]) -> set[int]:
    """Component ids on the window's edges that are not board edges (components that may continue outside)."""
    ids: set[int] = set()
    ys, xs = window
    if ys.start > 0:
        ids.update(np.unique(labels[0]).tolist())
    if ys.stop < shape[0]:
        ids.update(np.unique(labels[-1]).tolist())
    if xs.start > 0:
        ids.update(np.unique(labels[:, 0]).tolist())
    if xs.stop < shape[1]:
        ids.update(np.unique(labels[:, -1]).tolist())
    ids.discard(0)
    return ids


def _bbox_window(ys: np.ndarray, xs: np.ndarray, shape: tuple[int, int], margin: int) -> tuple[slice, slice]:
    return (
        slice(max(int(ys.min()) - margin, 0), min(int(ys.max()) + 1 + margin, shape[0])),
        slice(max(int(xs.min()) - margin, 0), min(int(xs.max()) + 1 + margin, shape[1])),
    )


def _pockets_of(
    board: Board, player: int, seeds: np.ndarray | None, mover: int, tie_rule: str
) -> list[_Handover]:
    """Encircled pockets of ``player`` (§2.5) that contain a seed cell (``seeds`` (2, n) ys/xs; None =
    anywhere), each with its division (§2.6), computed on the board as it is (the caller applies them
    together)."""
    shape = board.land.shape
    capital = board.capitals[player]
    assert capital is not None
    cx, cy = capital
    whole = (slice(0, shape[0]), slice(0, shape[1]))
    if seeds is None:
        windows = [whole]
    else:
        sy, sx = seeds
        windows = [_bbox_window(sy, sx, shape, margin) for margin in _LOCAL_MARGINS]
        windows += [_bbox_window(np.append(sy, cy), np.append(sx, cx), shape, _LOCAL_MARGINS[0]), whole]
    out: list[_Handover] = []
    previous = None
    for window in windows:
        if window == previous:
            continue
        previous = window
        y0, x0 = window[0].start, window[1].start
        passable = _passable(board, player, window)
        labels, n = ndimage.label(passable)
        if n == 0:
            return out
        if seeds is None:
            wanted = set(range(1, n + 1))
        else:
            inside = (sy >= y0) & (sy < window[0].stop) & (sx >= x0) & (sx < window[1].stop)
            wanted = set(np.unique(labels[sy[inside] - y0, sx[inside] - x0]).tolist()) - {0}
        if window[0].start <= cy < window[0].stop and window[1].start <= cx < window[1].stop:
            wanted.discard(int(labels[cy - y0, cx - x0]))
        open_ids = _open_border_ids(labels, window, shape)
        undecided = wanted & open_ids
        wanted -= open_ids
        if wanted:
            own = board.owner[window] == player
            with_own = set(np.unique(labels[own & passable]).tolist())
            enemy = board.occupied[window] & board.land[window] & ~own
            touched = set(np.unique(labels[_dilate4(enemy) & passable]).tolist())
            pockets = sorted(wanted & with_own & touched)
            if pockets:
                objects = ndimage.find_objects(labels)
                for i in pockets:
                    local = _grow(objects[i - 1], labels.shape)
                    region = (
                        slice(local[0].start + y0, local[0].stop + y0),
                        slice(local[1].start + x0, local[1].stop + x0),
                    )
                    area = labels[local] == i
                    heirs = _heirs_around(board, region, area, {player})
                    heir = _divide(board, region, area, heirs, mover, tie_rule)
                    cells = area & (board.owner[region] == player)
                    out.append(_Handover(player, region, cells, heir))
        if not undecided:
            return out
        keep = np.isin(labels[sy[inside] - y0, sx[inside] - x0], list(undecided))
        sy, sx = sy[inside][keep], sx[inside][keep]
    return out


def _neighbourhood(changed: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The changed cells (2, n) plus their orthogonal neighbours, clipped to the board."""
    ys, xs = changed
    all_y = np.concatenate([ys, ys + 1, ys - 1, ys, ys])
    all_x = np.concatenate([xs, xs, xs, xs + 1, xs - 1])
    ok = (all_y >= 0) & (all_y < shape[0]) & (all_x >= 0) & (all_x < shape[1])
    return np.stack([all_y[ok], all_x[ok]])


# ---------------------------------------------------------------------------------------- the pipeline (§2.4)


@dataclass
class _Resolution:
    """What the stages of one pipeline run share. ``changed`` holds (2, n) arrays of (ys, xs)."""

    board: Board
    mover: int
    capital_rule: str
    reset_rule: str
    tie_rule: str
    changed: list[np.ndarray]
    whole_board: bool = False
    reset_count: int = 0
    over: bool = False
    winner: int | None = None
    eliminated: list[int] = field(default_factory=list)


def _changed_events(changed: list[np.ndarray]) -> list[Event]:
    if not changed:
        return []
    ys, xs = np.concatenate(changed, axis=1)
    flat = np.unique(ys * (1 << 32) + xs)
    return [CellsChanged(_cells(flat >> 32, flat & 0xFFFFFFFF))]


def stage_capital_capture(res: _Resolution) -> list[Event]:
    """§2.7: a capital cell owned by someone else is captured; its player is eliminated and its cells divided.
    """
    board = res.board
    events: list[Event] = []
    for player in board.alive_players():
        x, y = board.capitals[player]  # type: ignore[misc]
        by = int(board.owner[y, x])
        if by == player:
            continue
        board.capitals[player] = None
        res.eliminated.append(player)
        events.append(CapitalCaptured(player, by, (x, y)))
        if res.capital_rule == "v2":
            mine = board.land & (board.owner == player)
            ys, xs = np.nonzero(mine)
            board.owner[mine] = by
            board.occupied[mine] = False
            changed = [np.stack([ys, xs])]
            events.append(Encircled(_cells(ys, xs), by, player))
        else:
            handovers = _divide_player(
                board, player, res.mover, res.tie_rule, lambda ys, xs, by=by: np.full(ys.shape, by, np.int8)
            )
            more, changed = _apply_handovers(board, handovers)
            events += more
        res.changed += changed
        events += _changed_events(changed)
        events.append(Eliminated(player, "capital"))
    return events


def stage_encirclement(res: _Resolution) -> list[Event]:
    """§2.5–§2.6 for all alive players on one snapshot, applied together; repeated until nothing changes."""
    board = res.board
    events: list[Event] = []
    changed = res.changed
    whole = res.whole_board
    while whole or changed:
        seeds = None if whole else _neighbourhood(np.concatenate(changed, axis=1), board.land.shape)
        handovers: list[_Handover] = []
        for player in board.alive_players():
            handovers += _pockets_of(board, player, seeds, res.mover, res.tie_rule)
        if not handovers:
            break
        more, changed = _apply_handovers(board, handovers)
        events += more + _changed_events(changed)
        whole = False
    return events


def count_reachable_foreign(board: Board) -> int:
    """§2.8 strict rule: how many alive players can reach, by the guerilla rule, an unoccupied foreign cell.
    """
    unoccupied = board.land & ~board.occupied
    count = 0
    for player in board.alive_players():
        own = board.owner == player
        if (unoccupied & ~own & _dilate8(own & board.occupied)).any():
            count += 1
    return count


def stage_global_reset(res: _Resolution) -> list[Event]:
    """§2.8: ``"empty"`` resets when no unoccupied land is left; ``"strict"`` when the count of
    :func:`count_reachable_foreign` drops from above 0 to 0. A reset makes all land unoccupied."""
    board = res.board
    if res.reset_rule == "strict":
        before, res.reset_count = res.reset_count, count_reachable_foreign(board)
        fire = before > 0 and res.reset_count == 0
    else:
        fire = not (board.land & ~board.occupied).any()
    if not fire:
        return []
    ys, xs = np.nonzero(board.occupied & board.land)
    board.occupied[:] = False
    if res.reset_rule == "strict":
        res.reset_count = count_reachable_foreign(board)
    return [Reset(), CellsChanged(_cells(ys, xs))]


def stage_game_end(res: _Resolution) -> list[Event]:
    """§2.9: at most one alive player left ends the game."""
    alive = res.board.alive_players()
    if len(alive) > 1:
        return []
    res.over = True
    res.winner = alive[0] if alive else None
    return [GameOver(res.winner)]


PIPELINE: tuple[Callable[[_Resolution], list[Event]], ...] = (
    stage_capital_capture,
    stage_encirclement,
    stage_global_reset,
    stage_game_end,
)


def find_encircled(board: Board, mover: int, tie_rule: str = "mover") -> list[tuple[int, tuple[Cell, ...]]]:
    """Pockets (§2.5) anywhere on ``board`` that would be encircled now: ``[(victim, cells), ...]``."""
    out = []
    for player in board.alive_players():
        for h in _pockets_of(board, player, None, mover, tie_rule):
            ys, xs = np.nonzero(h.cells)
            out.append((player, _cells(ys + h.region[0].start, xs + h.region[1].start)))
    return out


# ------------------------------------------------------------------------------------------------------- game


def _too_many_crosses(action: Action) -> str:
    """The refusal of one cross too many: ``Defend takes at most 3 crosses``, ``Guerilla takes at most 1
    cross``."""
    limit = MAX_CROSSES[action]
    return f"{action.value.capitalize()} takes at most {limit} cross{'' if limit == 1 else 'es'}"


class Game:
    """One game of motti (§2): the board, whose turn it is, crosses, and the actions.

    ``capital_rule`` ``"v3"`` (default) or ``"v2"`` (§2.7); ``reset_rule`` ``"empty"`` or ``"strict"`` (§2.8);
    ``tie_rule`` ``"mover"`` or ``"lowest"`` (§2.6). ``turn`` is the player in turn (default: the lowest
    alive), ``attacks`` the attacks left in this turn (below 6 means this turn has attacked already). Every
    state change returns its events in order. Raises ``ValueError`` for bad settings, :class:`IllegalAction`
    for moves the rules refuse (the state is then unchanged)."""

    def __init__(
        self,
        board: Board,
        rng: random.Random,
        *,
        capital_rule: str = "v3",
        reset_rule: str = "empty",
        tie_rule: str = "mover",
        turn: int | None = None,
        attacks: int = ATTACKS_PER_TURN,
    ) -> None:
        for name, value, allowed in (
            ("capital_rule", capital_rule, CAPITAL_RULES),
            ("reset_rule", reset_rule, RESET_RULES),
            ("tie_rule", tie_rule, TIE_RULES),
        ):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
        if board.players < 2:
            raise ValueError("motti needs at least 2 players")
        if not 1 <= attacks <= ATTACKS_PER_TURN:
            raise ValueError(f"attacks left must be 1..{ATTACKS_PER_TURN}, not {attacks}")
        alive = board.alive_players()
        if not alive:
            raise ValueError("no player has a capital")
        if turn is None:
            turn = alive[0]
        if turn not in alive:
            raise ValueError(f"player {turn} cannot be in turn: not an alive player")
        self.board = board
        self.rng = rng
        self.capital_rule = capital_rule
        self.reset_rule = reset_rule
        self.tie_rule = tie_rule
        self.current_player = turn
        self.attacks_left = attacks
        self.attacked = attacks < ATTACKS_PER_TURN
        self.selected = Action.ATTACK
        self.crosses: list[Cell] = []
        self.winner: int | None = alive[0] if len(alive) == 1 else None
        self._over = len(alive) == 1
        # A loaded state may hold a pocket that is already encircled; then the first run checks the whole
        # board.
        self._whole_board = bool(find_encircled(board, turn, tie_rule))
        self._reset_count = count_reachable_foreign(board) if reset_rule == "strict" else 0

    # ----------------------------------------------------------------------------------------- queries

    @property
    def alive(self) -> list[int]:
        return self.board.alive_players()

    def legal_mask(self, action: Action | None = None) -> np.ndarray:
        """(H, W) bool: cells the player in turn may cross for ``action`` (default: the selected one), crossed
        cells included; all False once the game is over."""
        if self._over:
            return np.zeros(self.board.land.shape, dtype=bool)
        return legal_mask(self.board, self.current_player, action or self.selected)

    def is_legal_cross(self, x: int, y: int, action: Action | None = None) -> bool:
        return (
            not self._over
            and why_illegal(self.board, self.current_player, action or self.selected, x, y) is None
        )

    def possible_actions(self) -> set[Action]:
        """Actions performable now: Attack always (0 crosses is a failed attack); Defend and Guerilla only
        before the first attack of the turn and only with some legal cell. Empty once the game is over."""
        if self._over:
            return set()
        out = {Action.ATTACK}
        if not self.attacked:
            for action in (Action.DEFEND, Action.GUERILLA):
                if legal_mask(self.board, self.current_player, action).any():
                    out.add(action)
        return out

    def crosses_left(self) -> int:
        return MAX_CROSSES[self.selected] - len(self.crosses)

    def is_terminal(self) -> bool:
        return self._over

    def returns(self) -> list[float]:
        """Per player 1..N (index 0 = player 1): +1 winner, -1 others when over; all 0 while running."""
        if not self._over:
            return [0.0] * self.board.players
        return [1.0 if p == self.winner else -1.0 for p in range(1, self.board.players + 1)]

    # ------------------------------------------------------------------------------------------ crosses

    def _running(self) -> None:
        if self._over:
            raise IllegalAction("the game is over")

    def _check(self, action: Action, x: int, y: int) -> None:
        why = why_illegal(self.board, self.current_player, action, x, y)
        if why is not None:
            raise IllegalAction(why)

    def toggle_cross(self, x: int, y: int) -> None:
        """Add a cross on (x, y) for the selected action, or remove it if present (§2.2). Raises
        IllegalAction.
        """
        self._running()
        if (x, y) in self.crosses:
            self.crosses.remove((x, y))
            return
        self._check(self.selected, x, y)
        if self.crosses_left() <= 0:
            raise IllegalAction(_too_many_crosses(self.selected))
        self.crosses.append((x, y))

    def select(self, action: Action) -> None:
        """Select ``action``; drop crosses illegal for it and keep the oldest up to its limit (§2.2)."""
        self.selected = action
        kept = [c for c in self.crosses if self.is_legal_cross(*c, action)]
        self.crosses = kept[: MAX_CROSSES[action]]

    def why_impossible(self, action: Action) -> str | None:
        """Why *action* cannot be performed now (one line), or None when it is possible (§2.2, §6)."""
        if self._over:
            return "the game is over"
        if action in self.possible_actions():
            return None
        if self.attacked:
            return f"{action.value.capitalize()} is impossible after an attack this turn"
        return f"{action.value.capitalize()} is impossible: player {self.current_player} has no cell for it"

    def choose(self, action: Action) -> None:
        """Select *action* as a player does (a toolbar click, a console key): like :meth:`select`, but an
        impossible action is refused. Raises IllegalAction saying why (:meth:`why_impossible`)."""
        reason = self.why_impossible(action)
        if reason is not None:
            raise IllegalAction(reason)
        self.select(action)

    def cycle_action(self) -> None:
        """Select the next possible action in the order Attack -> Defend -> Guerilla -> Attack (§6 middle
        button), skipping impossible ones (Attack is always possible while the game runs)."""
        possible = self.possible_actions()
        start = CYCLE_ORDER.index(self.selected)
        for step in range(1, len(CYCLE_ORDER) + 1):
            action = CYCLE_ORDER[(start + step) % len(CYCLE_ORDER)]
            if action in possible:
                self.select(action)
                return

    # ------------------------------------------------------------------------------------------ actions

    def perform(self) -> list[Event]:
        """Perform the selected action with the current crosses; Attack is ONE attack (§2.2)."""
        self._running()
        if self.selected is Action.ATTACK:
            return self.attack()
        if self.selected is Action.DEFEND:
            return self.defend(list(self.crosses))
        if len(self.crosses) != 1:
            raise IllegalAction("Guerilla needs exactly one cross")
        return self.guerilla(self.crosses[0])

    def _validate(self, action: Action, cells: Sequence[Cell]) -> list[Cell]:
        cells = [(int(x), int(y)) for x, y in cells]
        if len(cells) > MAX_CROSSES[action]:
            raise IllegalAction(_too_many_crosses(action))
        if len(set(cells)) != len(cells):
            raise IllegalAction("a cell is crossed twice")
        for x, y in cells:
            self._check(action, x, y)
        return cells

    def attack(self, cells: Sequence[Cell] | None = None) -> list[Event]:
        """One attack (§2.2 steps 1–6). ``cells`` (0..6), if given, replace the crosses first (script mode).
        Draws ``rng.randrange(6)``: the draw-th cross is conquered if there is one, else the attack fails."""
        self._running()
        if cells is not None:
            self.crosses = self._validate(Action.ATTACK, cells)
        self.select(Action.ATTACK)
        player = self.current_player
        draw = self.rng.randrange(6)
        cell = self.crosses[draw] if draw < len(self.crosses) else None
        self.attacks_left -= 1
        self.attacked = True
        events: list[Event] = [AttackDrawn(player, draw, cell)]
        changed = []
        if cell is not None:
            del self.crosses[draw]
            x, y = cell
            self.board.owner[y, x] = player
            self.board.occupied[y, x] = True
            changed.append(np.array([[y], [x]]))
            events.append(CellsChanged((cell,)))
        events += self._resolve(changed)
        if self._over:
            return events
        self.crosses = [c for c in self.crosses if self.is_legal_cross(*c, Action.ATTACK)]
        if self.attacks_left == 0:
            events += self._end_turn()
        return events

    def defend(self, cells: Sequence[Cell]) -> list[Event]:
        """Occupy 1..3 own unoccupied cells; the turn ends (§2.2)."""
        self._running()
        if self.attacked:
            raise IllegalAction("Defend is impossible after an attack this turn")
        cells = self._validate(Action.DEFEND, cells)
        if not cells:
            raise IllegalAction("Defend needs 1 to 3 crosses")
        self.selected = Action.DEFEND
        for x, y in cells:
            self.board.occupied[y, x] = True
        return self._finish_turn_action(cells)

    def guerilla(self, cell: Cell) -> list[Event]:
        """Occupy and own one cell reachable by the guerilla rule; the turn ends (§2.2)."""
        self._running()
        if self.attacked:
            raise IllegalAction("Guerilla is impossible after an attack this turn")
        ((x, y),) = self._validate(Action.GUERILLA, [cell])
        self.selected = Action.GUERILLA
        self.board.owner[y, x] = self.current_player
        self.board.occupied[y, x] = True
        return self._finish_turn_action([(x, y)])

    def _finish_turn_action(self, cells: list[Cell]) -> list[Event]:
        self.crosses = []
        changed = [np.array([[y for _, y in cells], [x for x, _ in cells]])]
        events: list[Event] = [CellsChanged(tuple(sorted(cells, key=lambda c: (c[1], c[0]))))]
        events += self._resolve(changed)
        if not self._over:
            events += self._end_turn()
        return events

    def pass_turn(self) -> list[Event]:
        """End the turn at once, drawing nothing (§3.3 ``pass``)."""
        self._running()
        return self._end_turn()

    def defeat(self, players: Iterable[int], cause: str = "closed") -> list[Event]:
        """Defeat ``players`` (window closed or quit, §2.7): each one's cells become unoccupied and are
        divided among the occupied neighbours (§2.6), or cell by cell to the nearest alive capital; the turn
        order then skips them. Players already out are ignored.

        When nobody is left alive there is no heir (§2.7 hands the land to *alive* players only): every cell
        keeps its owner and occupation, the players are eliminated and the game ends with ``GameOver(None)``.
        """
        if self._over:
            return []
        board = self.board
        beaten = sorted({p for p in players if board.capitals.get(p) is not None})
        if not beaten:
            return []
        for p in beaten:
            board.capitals[p] = None
        alive = [(p, c) for p, c in board.capitals.items() if c is not None]
        if not alive:
            self._over = True
            self.winner = None
            self.crosses = []
            return [*(Eliminated(p, cause) for p in beaten), GameOver(None)]

        def nearest(ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
            return nearest_capital(ys, xs, alive)

        events: list[Event] = []
        changed: list[np.ndarray] = []
        for p in beaten:
            board.occupied[board.owner == p] = False
        for p in beaten:
            handovers = _divide_player(board, p, self.current_player, self.tie_rule, nearest, exclude=beaten)
            more, ch = _apply_handovers(board, handovers)
            events += more + _changed_events(ch)
            changed += ch
            events.append(Eliminated(p, cause))
        events += self._resolve(changed)
        if not self._over and self.current_player in beaten:
            events += self._end_turn()
        return events

    def _resolve(self, changed: list[np.ndarray]) -> list[Event]:
        res = _Resolution(
            self.board,
            self.current_player,
            self.capital_rule,
            self.reset_rule,
            self.tie_rule,
            list(changed),
            whole_board=self._whole_board,
            reset_count=self._reset_count,
        )
        events: list[Event] = []
        for stage in PIPELINE:
            events += stage(res)
        self._whole_board = False
        self._reset_count = res.reset_count
        if res.over:
            self._over = True
            self.winner = res.winner
            self.crosses = []
        return events

    def _end_turn(self) -> list[Event]:
        alive = self.board.alive_players()
        later = [p for p in alive if p > self.current_player]
        self.current_player = later[0] if later else alive[0]
        self.attacks_left = ATTACKS_PER_TURN
        self.attacked = False
        self.crosses = []
        self.selected = Action.ATTACK
        return [TurnPassed(self.current_player)]

    # ------------------------------------------------------------------------------ OpenSpiel-style interface

    def legal_actions(self) -> list[tuple]:
        """Actions for :meth:`apply`: ``("pass",)``, ``("attack", ((x, y),))`` per Attack cell, and before the
        first attack ``("defend", ((x, y),))`` and ``("guerilla", (x, y))`` per legal cell. :meth:`apply` also
        takes ``("attack", cells)`` with 0..6 cells and ``("defend", cells)`` with 1..3 cells."""
        if self._over:
            return []
        out: list[tuple] = [("pass",)]
        player = self.current_player
        ys, xs = np.nonzero(legal_mask(self.board, player, Action.ATTACK))
        out += [("attack", ((x, y),)) for y, x in zip(ys.tolist(), xs.tolist(), strict=True)]
        if not self.attacked:
            ys, xs = np.nonzero(legal_mask(self.board, player, Action.DEFEND))
            out += [("defend", ((x, y),)) for y, x in zip(ys.tolist(), xs.tolist(), strict=True)]
            ys, xs = np.nonzero(legal_mask(self.board, player, Action.GUERILLA))
            out += [("guerilla", (x, y)) for y, x in zip(ys.tolist(), xs.tolist(), strict=True)]
        return out

    def apply(self, action: tuple) -> list[Event]:
        """Apply one action tuple of :meth:`legal_actions` form. Raises IllegalAction."""
        if not action:
            raise IllegalAction("empty action")
        verb = action[0]
        if verb == "pass" and len(action) == 1:
            return self.pass_turn()
        if verb == "attack" and len(action) == 2:
            return self.attack(list(action[1]))
        if verb == "defend" and len(action) == 2:
            return self.defend(list(action[1]))
        if verb == "guerilla" and len(action) == 2:
            return self.guerilla(tuple(action[1]))
        raise IllegalAction(f"unknown action {action!r}")

"""arena rules: one round as a declared tuple of small pure stages (spec/arena.md §2).

:data:`ROUND` runs: moves in arrival order (§2.4), toxicity damage with the stay multiplier (§2.5), energy
switches (§2.6 phase 3), catches on a snapshot (phase 4), forced switch (phase 5), end check and the MAXR
cap. A rule variant is another tuple of stages (``Game(..., stages=...)``). Energy and toxicity are integer
hundredths; points are exact :class:`fractions.Fraction` values (§2.8). Who is connected is the server's
business, not the rules'.

This module is pure: no sockets, no windows; randomness comes only from the injected :class:`random.Random`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any, TypeVar

import numpy as np

DIRECTIONS = ("NORTH", "NORTH_EAST", "EAST", "SOUTH_EAST", "SOUTH", "SOUTH_WEST", "WEST", "NORTH_WEST")
#: Unit steps (dx, dy) of the eight directions; origin top-left, y grows southwards (§2.1).
VECTORS: dict[str, tuple[int, int]] = {
    "NORTH": (0, -1),
    "NORTH_EAST": (1, -1),
    "EAST": (1, 0),
    "SOUTH_EAST": (1, 1),
    "SOUTH": (0, 1),
    "SOUTH_WEST": (-1, 1),
    "WEST": (-1, 0),
    "NORTH_WEST": (-1, -1),
}
#: The "no move" movement; never a facing (§2.1).
NONE = "NONE"
MOVES = (*DIRECTIONS, NONE)
BLUE, RED = "BLUE", "RED"
#: Start energy in hundredths (100.00, §2.3).
START_ENERGY = 10000
#: Default F, the quiet rounds before a forced switch (§2.6, §6).
QUIET_ROUNDS = 30
#: Team-change causes (§2.6).
ENERGY, CAUGHT, FORCED, CAP = "ENERGY", "CAUGHT", "FORCED", "CAP"
#: Why a move is refused (§2.4): the target is a wall or off the map, holds another player, or a diagonal
#: passes a wall or off-map corner.
WALL, PLAYER, CORNER = "wall", "player", "corner"
REFUSALS = (WALL, PLAYER, CORNER)


_Derived = TypeVar("_Derived")


@dataclass
class Arena:
    """A loaded map (spec §2.2).

    ``walls``: ``(H, W)`` bool, True = wall. ``toxicity``: ``(H, W)`` int16 in hundredths (1..20; values
    on wall cells are meaningless). ``name``: the map's name (file stem). ``path``: the ``.map`` file it came
    from (None when built in memory). The grids are read-only once the arena is in use: lookups are cached.
    """

    walls: np.ndarray
    toxicity: np.ndarray
    name: str = "arena"
    path: str | None = None
    _derived: dict[Callable[[Arena], Any], Any] = field(default_factory=dict, init=False, repr=False,
                                                        compare=False)

    def derived(self, make: Callable[[Arena], _Derived]) -> _Derived:
        """``make(self)``, made on the first call with this *make* and kept with the arena: what another
        module works out from the grids once per map (vision's octant grids, the server's ``TOXIC`` texts)."""
        if make not in self._derived:
            self._derived[make] = make(self)
        value: _Derived = self._derived[make]
        return value

    @property
    def width(self) -> int:
        return int(self.walls.shape[1])

    @property
    def height(self) -> int:
        return int(self.walls.shape[0])

    def exists(self, x: int, y: int) -> bool:
        """Whether cell (x, y) lies on the map."""
        return 0 <= x < self.width and 0 <= y < self.height

    def is_free(self, x: int, y: int) -> bool:
        """Whether (x, y) exists and is not a wall (players are not considered)."""
        return (x, y) in self.free_set

    @cached_property
    def free_set(self) -> frozenset[tuple[int, int]]:
        """The free cells as a set of (x, y)."""
        return frozenset(self.free_cells())

    @cached_property
    def toxicity_rows(self) -> list[list[int]]:
        """``toxicity`` as plain lists, ``toxicity_rows[y][x]`` (hundredths)."""
        return [[int(v) for v in row] for row in self.toxicity.tolist()]

    def free_cells(self) -> list[tuple[int, int]]:
        """All free cells as (x, y), in reading order (row by row, top to bottom, left to right)."""
        ys, xs = np.nonzero(~self.walls)
        return [(int(x), int(y)) for y, x in zip(ys, xs, strict=True)]


@dataclass
class Player:
    """One player (spec §2.3).

    ``energy`` in hundredths, floor 0; ``stay`` = consecutive rounds on the current cell counting the current
    one (0 before round 1); ``points`` exact; ``switch_round`` = the round it left BLUE (None while blue);
    ``catches`` = catches credited to it.
    """

    id: int
    x: int
    y: int
    facing: str = "NORTH"
    team: str = BLUE
    energy: int = START_ENERGY
    stay: int = 0
    points: Fraction = field(default_factory=Fraction)
    switch_round: int | None = None
    catches: int = 0

    def copy(self) -> Player:
        """An independent copy (all fields are immutable values)."""
        return Player(self.id, self.x, self.y, self.facing, self.team, self.energy, self.stay, self.points,
                      self.switch_round, self.catches)


@dataclass(frozen=True)
class TeamChange:
    """A player left BLUE. ``cause``: "ENERGY" | "CAUGHT" | "FORCED" | "CAP" (§2.6)."""

    id: int
    team: str
    cause: str


@dataclass
class RoundResult:
    """What one round did.

    ``changes``: team changes in phase order, ids ascending within a phase. ``catches``: (caught blue id,
    credited red ids ascending). ``refused``: ids whose (non-NONE) move was refused, in application order;
    ``reasons``: why, per refused id (:data:`REFUSALS`).
    ``moved``: ids that changed cell. ``awarded``: points gained this round per id (exact). ``over``: the game
    has ended. ``order``: every player's (id, direction, facing) in application order (received moves in
    arrival order, then the silent players' NONE in id order, §2.4).
    """

    round: int
    order: list[tuple[int, str, str]] = field(default_factory=list)
    changes: list[TeamChange] = field(default_factory=list)
    catches: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    refused: list[int] = field(default_factory=list)
    reasons: dict[int, str] = field(default_factory=dict)
    moved: list[int] = field(default_factory=list)
    awarded: dict[int, Fraction] = field(default_factory=dict)
    over: bool = False


def format_hundredths(v: int) -> str:
    """Integer hundredths as a decimal with two places: 9873 -> "98.73", 5 -> "0.05"."""
    sign = "-" if v < 0 else ""
    v = abs(v)
    return f"{sign}{v // 100}.{v % 100:02d}"


def format_points(p: Fraction) -> str:
    """Exact points shown to two decimals, rounding half up (away from zero): 125/8 -> "15.63" (§2.8)."""
    p = Fraction(p)
    sign = "-" if p < 0 else ""
    cents = int(abs(p) * 100 + Fraction(1, 2))
    return f"{sign}{cents // 100}.{cents % 100:02d}"


Stage = Callable[["Game", RoundResult], None]
"""One step of a round: reads and changes the game, records what happened in the result."""


class Game:
    """The state of one arena game and its round (spec §2.3–§2.8).

    ``players``: list indexed by id (0..n-1). ``round``: last round played (0 before the first). ``quiet``:
    consecutive rounds without a team change. ``quiet_rounds``: F. ``max_rounds``: MAXR = n × F. ``stages``:
    the round's stages in order (default :data:`ROUND`).
    """

    def __init__(self, arena: Arena, n_players: int, rng: random.Random | None = None, *,
                 quiet_rounds: int = QUIET_ROUNDS, positions: Sequence[tuple[int, int]] | None = None,
                 stages: tuple[Stage, ...] | None = None) -> None:
        """``n_players`` BLUE players facing NORTH (§2.3) on ``positions`` (x, y) when given, else on distinct
        free cells drawn with ``rng``.

        Raises ValueError if there are fewer free cells than players, n_players < 1, quiet_rounds < 1, or
        ``positions`` has the wrong length, a wall, an off-map or a shared cell (or neither it nor ``rng``
        is given).
        """
        if n_players < 1:
            raise ValueError("a game needs at least one player")
        if quiet_rounds < 1:
            raise ValueError("quiet_rounds must be at least 1")
        if positions is None:
            if rng is None:
                raise ValueError("a game needs start positions or a random generator to draw them")
            free = arena.free_cells()
            if len(free) < n_players:
                raise ValueError(f"map {arena.name} has {len(free)} free cells, "
                                 f"too few for {n_players} players")
            positions = rng.sample(free, n_players)
        else:
            if len(positions) != n_players:
                raise ValueError(f"{len(positions)} start positions for {n_players} players")
            if len(set(positions)) != len(positions):
                raise ValueError("players must start on distinct cells")
            for x, y in positions:
                if not arena.is_free(x, y):
                    raise ValueError(f"({x},{y}) is not a free cell of map {arena.name}")
        self.arena = arena
        self.quiet_rounds = quiet_rounds
        self.max_rounds = n_players * quiet_rounds
        self.round = 0
        self.quiet = 0
        self.stages: tuple[Stage, ...] = ROUND if stages is None else stages
        self.players = [Player(id=i, x=x, y=y) for i, (x, y) in enumerate(positions)]

    @classmethod
    def with_positions(cls, arena: Arena, positions: list[tuple[int, int]], *,
                       quiet_rounds: int = QUIET_ROUNDS) -> Game:
        """A game whose players 0..n-1 start on the given (x, y) cells (BLUE, facing NORTH), for scenarios and
        tests. Raises ValueError for a wall, an off-map or a shared cell."""
        return cls(arena, len(positions), quiet_rounds=quiet_rounds, positions=positions)

    def copy(self) -> Game:
        """An independent copy sharing the (read-only) arena and stages; cheap: players are flat records."""
        game = Game.__new__(Game)
        game.arena = self.arena
        game.quiet_rounds = self.quiet_rounds
        game.max_rounds = self.max_rounds
        game.round = self.round
        game.quiet = self.quiet
        game.stages = self.stages
        game.players = [p.copy() for p in self.players]
        return game

    # ----------------------------------------------------------------- queries
    def legal_move(self, pid: int, direction: str) -> bool:
        """Whether player ``pid`` may move in ``direction`` now (§2.4).

        NONE always; otherwise the target must exist, be no wall and hold no player, and a diagonal also needs
        both orthogonal corner cells to exist and be no walls (players do not block corners).
        """
        if direction == NONE:
            return True
        p = self.players[pid]
        occupied = {(q.x, q.y) for q in self.players}
        return self.step_ok(p.x, p.y, direction) and (p.x + VECTORS[direction][0],
                                                      p.y + VECTORS[direction][1]) not in occupied

    def step_ok(self, x: int, y: int, direction: str) -> bool:
        """Whether the walls allow a step from (x, y) in ``direction`` (§2.4, players not considered): the
        target exists and is no wall, and for a diagonal both orthogonal corner cells too."""
        dx, dy = VECTORS[direction]
        free = self.arena.free_set
        if (x + dx, y + dy) not in free:
            return False
        return not (dx and dy) or ((x + dx, y) in free and (x, y + dy) in free)

    def refusal(self, x: int, y: int, direction: str, occupied: set[tuple[int, int]]) -> str | None:
        """Why a move from (x, y) in *direction* (not NONE) is refused with the cells in *occupied* taken:
        WALL (the target is a wall or off the map), PLAYER (it holds a player) or CORNER (a diagonal past a
        wall or off-map corner), or None when the move is legal (§2.4)."""
        dx, dy = VECTORS[direction]
        tx, ty = x + dx, y + dy
        if not self.arena.is_free(tx, ty):
            return WALL
        if (tx, ty) in occupied:
            return PLAYER
        if not self.step_ok(x, y, direction):
            return CORNER
        return None

    def is_over(self) -> bool:
        """True once a round has ended with no BLUE left (§2.6 end check, including the MAXR cap)."""
        return self.round > 0 and not any(p.team == BLUE for p in self.players)

    def standings(self) -> list[tuple[int, int, Fraction]]:
        """(rank, id, points), higher total first; equal totals share a place (1, 1, 3), ids ascending."""
        order = sorted(self.players, key=lambda p: (-p.points, p.id))
        table: list[tuple[int, int, Fraction]] = []
        for i, p in enumerate(order):
            rank = table[-1][0] if table and table[-1][2] == p.points else i + 1
            table.append((rank, p.id, p.points))
        return table

    def can_catch(self, red: Player, blue: Player) -> bool:
        """Whether ``red`` is placed to catch ``blue`` (§2.6 phase 4).

        King-neighbours; a diagonal pair also needs one of the two shared corner cells open (existing, no
        wall, no player). Teams are not checked.
        """
        dx, dy = blue.x - red.x, blue.y - red.y
        if max(abs(dx), abs(dy)) != 1:
            return False
        if dx == 0 or dy == 0:
            return True
        occupied = {(p.x, p.y) for p in self.players}
        for cx, cy in ((red.x + dx, red.y), (red.x, red.y + dy)):
            if self.arena.is_free(cx, cy) and (cx, cy) not in occupied:
                return True
        return False

    # ------------------------------------------------------------------- round
    def play_round(self, moves: Sequence[tuple[int, str, str]]) -> RoundResult:
        """Play one round through :attr:`stages`.

        ``moves``: (player id, direction or "NONE", facing) in ARRIVAL order. Players absent from the list
        get ("NONE", facing kept) after all received moves, in id order (§2.4). Raises ValueError for an
        unknown id, direction or facing, a second move of one player, or when the game is over; the game is
        then unchanged.
        """
        if self.is_over():
            raise ValueError("the game is over")
        order = self._order(moves)
        self.round += 1
        result = RoundResult(round=self.round, order=order)
        for stage in self.stages:
            stage(self, result)
        result.over = self.is_over()
        return result

    def _order(self, moves: Sequence[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
        n = len(self.players)
        seen = [False] * n
        order: list[tuple[int, str, str]] = []
        for pid, direction, facing in moves:
            if not isinstance(pid, int) or not 0 <= pid < n:
                raise ValueError(f"unknown player id {pid!r}")
            if direction not in _MOVE_SET:
                raise ValueError(f"unknown direction {direction!r}")
            if facing not in VECTORS:
                raise ValueError(f"unknown facing {facing!r}")
            if seen[pid]:
                raise ValueError(f"second move of player {pid} in one round")
            seen[pid] = True
            order.append((pid, direction, facing))
        if len(order) < n:
            order.extend((p.id, NONE, p.facing) for p in self.players if not seen[p.id])
        return order

    def switch(self, switching: list[Player], cause: str, result: RoundResult) -> None:
        """Turn ``switching`` (all BLUE) RED in one phase; each gets r × R / 10, R = reds before (§2.8)."""
        if not switching:
            return
        reds = sum(1 for p in self.players if p.team == RED)
        gain = Fraction(self.round * reds, 10)
        for p in sorted(switching, key=lambda q: q.id):
            self.award(p, gain, result)
            p.team = RED
            p.switch_round = self.round
            result.changes.append(TeamChange(p.id, RED, cause))

    @staticmethod
    def award(p: Player, gain: Fraction, result: RoundResult) -> None:
        """Add ``gain`` to ``p``'s points and to this round's ``awarded``."""
        p.points += gain
        result.awarded[p.id] = result.awarded.get(p.id, Fraction(0)) + gain

    # --------------------------------------------------------------- snapshots
    def snapshot(self) -> dict[str, Any]:
        """The exact state as JSON-able data (points as "num/den" strings)."""
        return {
            "round": self.round,
            "quiet": self.quiet,
            "quiet_rounds": self.quiet_rounds,
            "max_rounds": self.max_rounds,
            "players": [
                {
                    "id": p.id,
                    "x": p.x,
                    "y": p.y,
                    "facing": p.facing,
                    "team": p.team,
                    "energy": p.energy,
                    "stay": p.stay,
                    "points": f"{p.points.numerator}/{p.points.denominator}",
                    "switch_round": p.switch_round,
                    "catches": p.catches,
                }
                for p in self.players
            ],
        }

    @classmethod
    def from_snapshot(cls, arena: Arena, data: dict[str, Any], *,
                      stages: tuple[Stage, ...] | None = None) -> Game:
        """Rebuild a game from :meth:`snapshot` output (no randomness used). Raises ValueError (or KeyError
        for a missing field) for data no snapshot of ``arena`` can hold."""
        records = data["players"]
        game = cls(arena, len(records), quiet_rounds=int(data["quiet_rounds"]),
                   positions=[(int(d["x"]), int(d["y"])) for d in records], stages=stages)
        if int(data["max_rounds"]) != game.max_rounds:
            raise ValueError(f"max_rounds {data['max_rounds']} is not {len(records)} × {game.quiet_rounds}")
        game.round = int(data["round"])
        game.quiet = int(data["quiet"])
        if not 0 <= game.round <= game.max_rounds:
            raise ValueError(f"round {game.round} is not 0..{game.max_rounds} (max_rounds)")
        if not 0 <= game.quiet < game.quiet_rounds or game.quiet > game.round:
            raise ValueError(f"quiet {game.quiet} is not 0..{min(game.quiet_rounds - 1, game.round)} "
                             f"(quiet_rounds - 1, and the rounds played)")
        for p, d in zip(game.players, records, strict=True):
            if int(d["id"]) != p.id:
                raise ValueError(f"players[{p.id}]: id {d['id']}, not {p.id} (the players are listed by id)")
            if d["facing"] not in VECTORS or d["team"] not in (BLUE, RED):
                raise ValueError(f"players[{p.id}]: no facing {d['facing']!r} or no team {d['team']!r}")
            if not 0 <= int(d["stay"]) <= game.round or Fraction(d["points"]) < 0:
                raise ValueError(f"players[{p.id}]: stay {d['stay']} or points {d['points']} no game reaches "
                                 f"in round {game.round}")
            p.facing = d["facing"]
            p.team = d["team"]
            p.energy = int(d["energy"])
            p.stay = int(d["stay"])
            p.points = Fraction(d["points"])
            p.switch_round = None if d["switch_round"] is None else int(d["switch_round"])
            p.catches = int(d["catches"])
        return game


_MOVE_SET = frozenset(MOVES)


# ------------------------------------------------------------------------------------------------- stages
def stage_moves(game: Game, result: RoundResult) -> None:
    """Phase 1 (§2.4): ``result.order`` one move at a time against the current occupancy; the facing is always
    applied; a refused move counts as staying (``stay`` grows)."""
    players = game.players
    occupied = {(p.x, p.y) for p in players}
    moved = [False] * len(players)
    for pid, direction, facing in result.order:
        p = players[pid]
        p.facing = facing
        if direction == NONE:
            continue
        dx, dy = VECTORS[direction]
        target = (p.x + dx, p.y + dy)
        if target not in occupied and game.step_ok(p.x, p.y, direction):
            occupied.discard((p.x, p.y))
            p.x, p.y = target
            occupied.add(target)
            moved[pid] = True
            result.moved.append(pid)
        else:
            result.refused.append(pid)
            result.reasons[pid] = game.refusal(p.x, p.y, direction, occupied) or WALL
    for p in players:
        p.stay = 1 if moved[p.id] else p.stay + 1


def stage_damage(game: Game, result: RoundResult) -> None:
    """Phase 2 (§2.5): everyone loses toxicity × stay, floor 0."""
    toxicity = game.arena.toxicity_rows
    for p in game.players:
        p.energy = max(0, p.energy - toxicity[p.y][p.x] * p.stay)


def stage_energy(game: Game, result: RoundResult) -> None:
    """Phase 3 (§2.6): every BLUE at energy 0 turns RED (ENERGY)."""
    game.switch([p for p in game.players if p.team == BLUE and p.energy <= 0], ENERGY, result)


def stage_catch(game: Game, result: RoundResult) -> None:
    """Phase 4 (§2.6, §2.8): catches on the snapshot after phase 3, no chain reactions.

    Each credited catcher gets (MAXR − r) / B / RF.
    """
    blues = [p for p in game.players if p.team == BLUE]
    reds = [p for p in game.players if p.team == RED]
    if not blues or not reds:
        return
    b_count = len(blues)
    caught: list[Player] = []
    for b in blues:
        catchers = tuple(r.id for r in reds if abs(r.x - b.x) <= 1 and abs(r.y - b.y) <= 1
                         and game.can_catch(r, b))
        if catchers:
            caught.append(b)
            result.catches.append((b.id, catchers))
            share = Fraction(game.max_rounds - game.round, b_count * len(catchers))
            for rid in catchers:
                game.award(game.players[rid], share, result)
                game.players[rid].catches += 1
    game.switch(caught, CAUGHT, result)


def stage_forced(game: Game, result: RoundResult) -> None:
    """Phase 5 (§2.6): after F quiet rounds the lowest-energy BLUE (ties: lowest id) turns RED."""
    if result.changes:
        game.quiet = 0
        return
    game.quiet += 1
    if game.quiet < game.quiet_rounds:
        return
    blues = [p for p in game.players if p.team == BLUE]
    if blues:
        game.switch([min(blues, key=lambda p: (p.energy, p.id))], FORCED, result)
    game.quiet = 0


def stage_end(game: Game, result: RoundResult) -> None:
    """End check (§2.6): at the MAXR cap every remaining BLUE switches as at MAXR (cause CAP)."""
    if game.round >= game.max_rounds:
        game.switch([p for p in game.players if p.team == BLUE], CAP, result)


ROUND: tuple[Stage, ...] = (stage_moves, stage_damage, stage_energy, stage_catch, stage_forced, stage_end)
"""The round of spec §2.4–§2.6, stage by stage. A variant is another tuple, e.g. without ``stage_forced``."""

"""arena rules: one round as a fixed pipeline of small pure stages (spec/arena.md §2).

A round runs: moves in arrival order (§2.4), toxicity damage with the stay multiplier (§2.5), energy
switches (§2.6 phase 3), catches on a snapshot (phase 4), forced switch (phase 5), end check and the MAXR
cap. Energy and toxicity are integer hundredths; points are exact :class:`fractions.Fraction` values (§2.8).

This module is pure: no sockets, no windows; randomness comes only from the injected :class:`random.Random`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction

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


@dataclass
class Arena:
    """A loaded map (spec §2.2).

    ``walls``: ``(H, W)`` bool, True = wall. ``toxicity``: ``(H, W)`` int16 in hundredths (1..20; values
    on wall cells are meaningless). ``name``: the map's name (file stem). ``path``: the ``.map`` file it came
    from (None when built in memory).
    """

    walls: np.ndarray
    toxicity: np.ndarray
    name: str = "arena"
    path: str | None = None

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
        return self.exists(x, y) and not bool(self.walls[y, x])

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
    connected: bool = True


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
    credited red ids ascending). ``refused``: ids whose (non-NONE) move was refused, in application order.
    ``moved``: ids that changed cell. ``awarded``: points gained this round per id (exact). ``over``: the game
    has ended.
    """

    round: int
    changes: list[TeamChange] = field(default_factory=list)
    catches: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    refused: list[int] = field(default_factory=list)
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


def _fraction_text(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _parse_fraction(text: str) -> Fraction:
    return Fraction(text)


class Game:
    """The state of one arena game and its round pipeline (spec §2.3–§2.8).

    ``players``: list indexed by id (0..n-1). ``round``: last round played (0 before the first). ``quiet``:
    consecutive rounds without a team change. ``quiet_rounds``: F. ``max_rounds``: MAXR = n × F.
    """

    def __init__(self, arena: Arena, n_players: int, rng: random.Random, *, quiet_rounds: int = QUIET_ROUNDS):
        """Place ``n_players`` on distinct random free cells, all BLUE, facing NORTH (§2.3).

        Raises ValueError if there are fewer free cells than players, n_players < 1 or quiet_rounds < 1.
        """
        if n_players < 1:
            raise ValueError("a game needs at least one player")
        if quiet_rounds < 1:
            raise ValueError("quiet_rounds must be at least 1")
        free = arena.free_cells()
        if len(free) < n_players:
            raise ValueError(f"map {arena.name} has {len(free)} free cells, too few for {n_players} players")
        self.arena = arena
        self.quiet_rounds = quiet_rounds
        self.max_rounds = n_players * quiet_rounds
        self.round = 0
        self.quiet = 0
        cells = rng.sample(free, n_players)
        self.players = [Player(id=i, x=x, y=y) for i, (x, y) in enumerate(cells)]

    @classmethod
    def with_positions(cls, arena: Arena, positions: list[tuple[int, int]], *,
                       quiet_rounds: int = QUIET_ROUNDS) -> Game:
        """A game whose players 0..n-1 start on the given (x, y) cells (BLUE, facing NORTH), for scenarios and
        tests. Raises ValueError for a wall, an off-map or a shared cell."""
        if len(set(positions)) != len(positions):
            raise ValueError("players must start on distinct cells")
        for x, y in positions:
            if not arena.is_free(x, y):
                raise ValueError(f"({x},{y}) is not a free cell of map {arena.name}")
        game = cls(arena, len(positions), random.Random(0), quiet_rounds=quiet_rounds)
        for p, (x, y) in zip(game.players, positions, strict=True):
            p.x, p.y = x, y
        return game

    # ----------------------------------------------------------------- queries
    def occupant(self, x: int, y: int) -> int | None:
        """The id of the player on (x, y), or None."""
        for p in self.players:
            if p.x == x and p.y == y:
                return p.id
        return None

    def blues(self) -> list[Player]:
        return [p for p in self.players if p.team == BLUE]

    def reds(self) -> list[Player]:
        return [p for p in self.players if p.team == RED]

    def legal_move(self, pid: int, direction: str) -> bool:
        """Whether player ``pid`` may move in ``direction`` now (§2.4).

        NONE always; otherwise the target must exist, be no wall and hold no player, and a diagonal also needs
        both orthogonal corner cells to exist and be no walls (players do not block corners).
        """
        if direction == NONE:
            return True
        p = self.players[pid]
        occupied = {(q.x, q.y) for q in self.players}
        return self._legal(p.x, p.y, direction, occupied)

    def _legal(self, x: int, y: int, direction: str, occupied: set[tuple[int, int]]) -> bool:
        dx, dy = VECTORS[direction]
        tx, ty = x + dx, y + dy
        if not self.arena.is_free(tx, ty) or (tx, ty) in occupied:
            return False
        if dx and dy:
            return self.arena.is_free(tx, y) and self.arena.is_free(x, ty)
        return True

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

    # ---------------------------------------------------------------- pipeline
    def play_round(self, moves: list[tuple[int, str, str]]) -> RoundResult:
        """Play one round.

        ``moves``: (player id, direction or "NONE", facing) in ARRIVAL order. Players absent from the list
        get ("NONE", facing kept) after all received moves, in id order (§2.4). Raises ValueError for an
        unknown id, direction or facing, a second move of one player, or when the game is over.
        """
        if self.is_over():
            raise ValueError("the game is over")
        order = self._order(moves)
        self.round += 1
        result = RoundResult(round=self.round)
        self._stage_moves(order, result)
        self._stage_damage()
        self._stage_energy(result)
        self._stage_catch(result)
        self._stage_forced(result)
        self._stage_end(result)
        result.over = self.is_over()
        return result

    def _order(self, moves: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
        seen: set[int] = set()
        order: list[tuple[int, str, str]] = []
        for pid, direction, facing in moves:
            if not isinstance(pid, int) or not 0 <= pid < len(self.players):
                raise ValueError(f"unknown player id {pid!r}")
            if direction not in MOVES:
                raise ValueError(f"unknown direction {direction!r}")
            if facing not in DIRECTIONS:
                raise ValueError(f"unknown facing {facing!r}")
            if pid in seen:
                raise ValueError(f"second move of player {pid} in one round")
            seen.add(pid)
            order.append((pid, direction, facing))
        for p in self.players:
            if p.id not in seen:
                order.append((p.id, NONE, p.facing))
        return order

    def _stage_moves(self, order: list[tuple[int, str, str]], result: RoundResult) -> None:
        """Phase 1 (§2.4): one move at a time against the current occupancy; facing always applied."""
        occupied = {(p.x, p.y) for p in self.players}
        moved: set[int] = set()
        for pid, direction, facing in order:
            p = self.players[pid]
            p.facing = facing
            if direction == NONE:
                continue
            if self._legal(p.x, p.y, direction, occupied):
                dx, dy = VECTORS[direction]
                occupied.discard((p.x, p.y))
                p.x, p.y = p.x + dx, p.y + dy
                occupied.add((p.x, p.y))
                moved.add(pid)
                result.moved.append(pid)
            else:
                result.refused.append(pid)
        for p in self.players:
            p.stay = 1 if p.id in moved else p.stay + 1

    def _stage_damage(self) -> None:
        """Phase 2 (§2.5): everyone loses toxicity × stay, floor 0."""
        for p in self.players:
            loss = int(self.arena.toxicity[p.y, p.x]) * p.stay
            p.energy = max(0, p.energy - loss)

    def _switch(self, switching: list[Player], cause: str, result: RoundResult) -> None:
        """Turn ``switching`` (all BLUE) RED in one phase; each gets r × R / 10, R = reds before (§2.8)."""
        reds = sum(1 for p in self.players if p.team == RED)
        for p in sorted(switching, key=lambda q: q.id):
            gain = Fraction(self.round * reds, 10)
            self._award(p, gain, result)
            p.team = RED
            p.switch_round = self.round
            result.changes.append(TeamChange(p.id, RED, cause))

    @staticmethod
    def _award(p: Player, gain: Fraction, result: RoundResult) -> None:
        p.points += gain
        result.awarded[p.id] = result.awarded.get(p.id, Fraction(0)) + gain

    def _stage_energy(self, result: RoundResult) -> None:
        """Phase 3 (§2.6): every BLUE at energy 0 turns RED (ENERGY)."""
        self._switch([p for p in self.players if p.team == BLUE and p.energy <= 0], ENERGY, result)

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

    def _stage_catch(self, result: RoundResult) -> None:
        """Phase 4 (§2.6, §2.8): catches on the snapshot after phase 3, no chain reactions.

        Each credited catcher gets (MAXR − r) / B / RF.
        """
        blues = [p for p in self.players if p.team == BLUE]
        reds = [p for p in self.players if p.team == RED]
        if not blues or not reds:
            return
        b_count = len(blues)
        caught: list[Player] = []
        for b in blues:
            catchers = tuple(r.id for r in reds if self.can_catch(r, b))
            if catchers:
                caught.append(b)
                result.catches.append((b.id, catchers))
                share = Fraction(self.max_rounds - self.round, b_count * len(catchers))
                for rid in catchers:
                    self._award(self.players[rid], share, result)
                    self.players[rid].catches += 1
        self._switch(caught, CAUGHT, result)

    def _stage_forced(self, result: RoundResult) -> None:
        """Phase 5 (§2.6): after F quiet rounds the lowest-energy BLUE (ties: lowest id) turns RED."""
        if result.changes:
            self.quiet = 0
            return
        self.quiet += 1
        if self.quiet < self.quiet_rounds:
            return
        blues = [p for p in self.players if p.team == BLUE]
        if blues:
            victim = min(blues, key=lambda p: (p.energy, p.id))
            self._switch([victim], FORCED, result)
        self.quiet = 0

    def _stage_end(self, result: RoundResult) -> None:
        """End check (§2.6): at the MAXR cap every remaining BLUE switches as at MAXR (cause CAP)."""
        if self.round >= self.max_rounds:
            left = [p for p in self.players if p.team == BLUE]
            if left:
                self._switch(left, CAP, result)

    # --------------------------------------------------------------- snapshots
    def snapshot(self) -> dict:
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
                    "points": _fraction_text(p.points),
                    "switch_round": p.switch_round,
                    "catches": p.catches,
                    "connected": p.connected,
                }
                for p in self.players
            ],
        }

    @classmethod
    def from_snapshot(cls, arena: Arena, data: dict) -> Game:
        """Rebuild a game from :meth:`snapshot` output (no randomness used)."""
        game = cls.__new__(cls)
        game.arena = arena
        game.round = int(data["round"])
        game.quiet = int(data["quiet"])
        game.quiet_rounds = int(data["quiet_rounds"])
        game.max_rounds = int(data["max_rounds"])
        game.players = [
            Player(
                id=int(d["id"]),
                x=int(d["x"]),
                y=int(d["y"]),
                facing=d["facing"],
                team=d["team"],
                energy=int(d["energy"]),
                stay=int(d["stay"]),
                points=_parse_fraction(d["points"]),
                switch_round=d["switch_round"],
                catches=int(d["catches"]),
                connected=bool(d.get("connected", True)),
            )
            for d in data["players"]
        ]
        return game

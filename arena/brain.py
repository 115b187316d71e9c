"""What every bot of the arena keeps, example or one of your own (spec/arena.md §3): the sans-I/O
:class:`Brain` (protocol messages in, replies out, with what they reveal), the eight facings' vectors
(:data:`VECTORS`) and :func:`facing_towards`. The example strategies (:mod:`arena.bots`) and the smart
planner (:mod:`arena.smart`) both build on it; it imports neither.
"""

from __future__ import annotations

import random

from arena import protocol as wire
from arena.maptext import read_file, split_rows

VECTORS: dict[str, tuple[int, int]] = {
    "NORTH": (0, -1), "NORTH_EAST": (1, -1), "EAST": (1, 0), "SOUTH_EAST": (1, 1),
    "SOUTH": (0, 1), "SOUTH_WEST": (-1, 1), "WEST": (-1, 0), "NORTH_WEST": (-1, -1),
}
MEMORY_ROUNDS = 12
"""How long a bot trusts a last-seen opponent position (rounds)."""

Walls = tuple[tuple[bool, ...], ...]
"""A map's wall grid, ``walls[y][x]`` True for a wall; every row as wide as the widest (plain tuples, not
numpy: a bot starts in every game of a tournament and numpy's import would double its start-up time)."""


class BotError(Exception):
    """Why a bot could not play: ``str()`` is one line (cannot connect, cannot read the map)."""


def read_map(path: str) -> Walls:
    """The H rows of W cells of a ``.map`` file (``#`` wall, else free), with the rows the server uses
    (:func:`arena.maptext.split_rows`: trailing rows of spaces are free rows, spec/arena.md §2.2).

    Raises OSError when the file cannot be read or is no map file (:func:`arena.maptext.read_file`)."""
    rows = split_rows(read_file(path).decode("ascii", errors="replace"))
    width = max((len(r) for r in rows), default=0)
    return tuple(tuple(c == "#" for c in r.ljust(width)) for r in rows)


def facing_towards(dx: int, dy: int) -> str:
    """The facing whose vector is closest in angle to (dx, dy); NORTH for (0, 0)."""
    if dx == 0 and dy == 0:
        return "NORTH"
    best = max(VECTORS, key=lambda d: (VECTORS[d][0] * dx + VECTORS[d][1] * dy)
               / (VECTORS[d][0] ** 2 + VECTORS[d][1] ** 2) ** 0.5)
    return best


class Seen:
    """Where a player was last seen (``SEE_PLAYER``) and in which round."""

    __slots__ = ("round", "x", "y")

    def __init__(self, x: int, y: int, round: int) -> None:
        self.x, self.y, self.round = x, y, round

    def __repr__(self) -> str:
        return f"Seen(x={self.x}, y={self.y}, round={self.round})"


class Neighbours(dict[tuple[int, int], tuple[tuple[int, int], ...]]):
    """``neighbours[cell]``: the cells one step from *cell* (:meth:`Brain.steps`), worked out the first time
    a search asks (a plain dictionary look-up after that: path searches ask thousands of times a round)."""

    def __init__(self, brain: Brain) -> None:
        super().__init__()
        self.brain = brain

    def __missing__(self, cell: tuple[int, int]) -> tuple[tuple[int, int], ...]:
        found = tuple(nxt for _, nxt in self.brain.steps(cell))
        if self.brain.walls is not None:
            self[cell] = found
        return found

class Brain:
    """Sans-I/O bot: ``handle(message)`` returns the messages to send back (§3); raises BotError when the
    ``MAP`` file cannot be read. It keeps what the protocol reveals and answers each ``START`` with
    :meth:`choose`, which a bot of your own overrides (this one stands still); the example strategies are
    :class:`arena.bots.Example`.

    ``rng`` drives every random choice (seeded for benchmarks). A plain class, no dataclass: ``arena bot``
    starts with every game of a tournament, and the dataclass machinery's import was a good part of its
    start-up.
    """

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random()
        self.rng = rng if rng is not None else random.Random()
        self.id: int | None = None
        """The wire id (``ID``), None before it arrives."""
        self.walls: Walls | None = None
        """The map (``MAP``), None before it is read."""
        self.x, self.y, self.facing = 0, 0, "NORTH"
        """Own cell and facing (``SET``)."""
        self.energy = 10000
        """Own energy in hundredths (``LIFE``)."""
        self.toxic = 1
        """Toxicity of the own cell in hundredths (``TOXIC``)."""
        self.round = 0
        """The round being decided (``START``)."""
        self.team: dict[int, str] = {}
        """Team by wire id, from ``TEAMCHANGE`` (a player not in it is BLUE)."""
        self.seen: dict[int, Seen] = {}
        """Last sighting by wire id (``SEE_PLAYER``)."""
        self.toxicity: dict[tuple[int, int], int] = {}
        """Toxicity of every cell stood on."""
        self.visited: dict[tuple[int, int], int] = {}
        """Last round each cell was stood on."""
        self.stay = 0
        """Rounds on the current cell."""
        self.done = False
        """True once ``DISCONNECT`` has arrived."""
        self._steps: dict[tuple[int, int], list[tuple[str, tuple[int, int]]]] = {}
        self.neighbours = Neighbours(self)
        """The cells one step away from a cell, ``neighbours[cell]`` (:meth:`steps` without directions), for
        the path searches."""

    # --- protocol -------------------------------------------------------------------------------------------

    def handle(self, message: wire.Message) -> list[wire.Message]:
        match message:
            case wire.Id(n):
                self.id = n
                return [wire.IdOkay()]
            case wire.Map(path):
                try:
                    self.walls = read_map(path)
                except OSError as exc:
                    raise BotError(f"cannot read the map {path}: {exc.strerror or exc}") from None
            case wire.Set(x, y, view):
                self.stay = self.stay + 1 if (x, y) == (self.x, self.y) else 1
                self.x, self.y, self.facing = x, y, view
                self.visited[(x, y)] = self.round + 1
            case wire.SeePlayer(x, y, _view, n):
                self.seen[n] = Seen(x, y, self.round + 1)
            case wire.Toxic(x, y, value):
                self.toxic = value
                self.toxicity[(x, y)] = value
            case wire.Life(value, n):
                if n == self.id:
                    self.energy = value
            case wire.TeamChange(team, n):
                self.team[n] = team
            case wire.Start(r):
                self.round = r
                direction, view = self.choose()
                if direction not in wire.MOVES or view not in wire.DIRECTIONS:
                    raise ValueError(f"choose() returned ({direction!r}, {view!r}): expected a direction or "
                                     f"NONE, then a facing, among {' '.join(wire.DIRECTIONS)}")
                return [wire.Move(direction, view)]
            case wire.Disconnect():
                self.done = True
        return []

    # --- decisions ------------------------------------------------------------------------------------------

    @property
    def my_team(self) -> str:
        """``"BLUE"`` or ``"RED"``: the bot's own team (``TEAMCHANGE``)."""
        return "BLUE" if self.id is None else self.team.get(self.id, "BLUE")

    def is_free(self, x: int, y: int) -> bool:
        """Whether (x, y) is a cell of the map and no wall (False before the map is known)."""
        walls = self.walls
        return walls is not None and 0 <= y < len(walls) and 0 <= x < len(walls[y]) and not walls[y][x]

    def _step_ok(self, x: int, y: int, direction: str) -> bool:
        dx, dy = VECTORS[direction]
        if not self.is_free(x + dx, y + dy):
            return False
        return not (dx and dy) or (self.is_free(x + dx, y) and self.is_free(x, y + dy))

    def steps(self, cell: tuple[int, int]) -> list[tuple[str, tuple[int, int]]]:
        """(direction, target) of every step the walls allow from *cell* (§2.4), worked out once per cell
        (path searches ask for the same cells round after round); none before the map is known."""
        found = self._steps.get(cell)
        if found is None:
            x, y = cell
            found = [(d, (x + dx, y + dy)) for d, (dx, dy) in VECTORS.items() if self._step_ok(x, y, d)]
            if self.walls is not None:
                self._steps[cell] = found
        return found

    def _occupied(self) -> set[tuple[int, int]]:
        return {(s.x, s.y) for s in self.seen.values() if s.round == self.round}

    def legal(self) -> list[str]:
        """Directions that look legal from what the bot knows (walls, corners, players seen this round)."""
        if self.walls is None:
            return []
        occupied = self._occupied()
        return [d for d in VECTORS if self._step_ok(self.x, self.y, d)
                and (self.x + VECTORS[d][0], self.y + VECTORS[d][1]) not in occupied]

    def known(self, team: str) -> list[tuple[int, Seen]]:
        """Opponents/team-mates of *team* seen within :data:`MEMORY_ROUNDS`, nearest first."""
        out = [(n, s) for n, s in self.seen.items()
               if n != self.id and self.team.get(n, "BLUE") == team and self.round - s.round <= MEMORY_ROUNDS]
        out.sort(key=lambda item: max(abs(item[1].x - self.x), abs(item[1].y - self.y)))
        return out

    def distances(self, sources: list[tuple[int, int]], limit: int | None = None, *,
                  around_self: bool = True) -> dict[tuple[int, int], int]:
        """Moves from any of *sources* to the cells around (movement rules of §2.4, players ignored), in the
        order a breadth-first search reaches them.

        The search stops beyond *limit* moves and, with *around_self*, once the bot's own cell and its
        neighbours are labelled."""
        dist = {s: 0 for s in sources if self.is_free(*s)}
        here = (self.x, self.y) if around_self else None
        neighbours = self.neighbours
        layer, d = list(dist), 0
        while layer:  # one distance at a time: the cells of *layer* are d moves away
            d += 1
            if (limit is not None and d > limit) or (here in dist and d > dist[here] + 2):
                break
            reached = []
            for cell in layer:
                for nxt in neighbours[cell]:
                    if nxt not in dist:
                        dist[nxt] = d
                        reached.append(nxt)
            layer = reached
        return dist
    def choose(self) -> tuple[str, str]:
        """The (direction or NONE, facing) to send for the current round, as the words of ``MOVE`` (§3);
        this one stays put with its facing: override it."""
        return "NONE", self.facing

    def frontier(self) -> list[tuple[int, int]]:
        """A few free cells not visited recently, to explore towards when no blue is known."""
        if self.walls is None:
            return []
        height, width = len(self.walls), len(self.walls[0]) if self.walls else 0
        picks = []
        for _ in range(12):
            x, y = self.rng.randrange(width), self.rng.randrange(height)
            if self.is_free(x, y) and self.visited.get((x, y), -99) < self.round - 20:
                picks.append((x, y))
        return picks[:3]

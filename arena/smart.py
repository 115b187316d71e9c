"""The ``smart`` example bot's decisions (``arena bot --strategy smart``; spec/arena.md §2, §3).

A worked example for bot authors: everything it knows comes from the wire protocol, kept by
:class:`arena.brain.Brain` (the map file, its own ``SET``/``TOXIC``/``LIFE``, ``SEE_PLAYER`` and
``TEAMCHANGE``). On top of that it

- **remembers** every opponent it has seen, with the round it was seen in, and the toxicity of every cell it
  has stood on (a cell never stood on is guessed like the nearest known cell around it, and like a toxic cell
  in line with it up to a wall: toxic areas are rooms and corridors; else at 0.01);
- **plans paths** over the known map with breadth-first search under the movement rules of §2.4 (both
  orthogonal neighbours free for a diagonal step);
- **weighs toxicity and the stay multiplier** (§2.5): staying costs toxicity × (rounds on the cell + 1), a
  step costs the new cell's toxicity, and it keeps walking to and fro between two clean cells while no one
  threatens it (one clean cell among toxic ones is no place to stay: it looks for a clean pair);
- **predicts** who can reach whom first: a red seen ``a`` rounds ago may be ``a`` steps closer, so as BLUE it
  stays at least three steps from every red when it can (a red two steps away catches it next round; round
  a wall corner a red catches from a cell it could not step from, for a catch needs one open corner and a
  diagonal step two) and takes the step that leaves it the most room to run: the most cells it reaches
  before any red (a dead end the reds are coming into has little; its way out has plenty); as RED it picks
  the blue it reaches soonest that no other red is much closer to, and cuts it off by walking towards where
  it is heading; a few steps from a blue in sight it corners it, taking the step that leaves the blue the
  fewest cells it reaches before any red (the reds close in together); with no blue in memory it checks the
  latest sighting it has not been to, else explores towards a goal it keeps until it gets there;
- **counts the rounds to the forced switch** (§2.6: after 30 rounds without a team change the blue with
  the least energy turns red, and catches from the next round on): in the last three rounds before it, a blue
  with no red about keeps out of the reach of every other blue within six cells as if they were reds, for any
  of them may be the one switched.

Its facing follows the danger or the prey; with nothing in sight it sweeps the two halves of the view in
turn (the cone is 179°, §2.7).
"""

from __future__ import annotations

from arena.brain import VECTORS, Brain, facing_towards

Cell = tuple[int, int]

MEMORY = 10
"""Rounds a sighting of an opponent is trusted for the chase or the escape."""
HORIZON = 40
"""Steps a path search looks ahead (keeps a round's thinking short on the 204×204 map)."""
SAFE = 3
"""Steps between a blue and a red after the blue's move that are safe for one round (a red two steps away
reaches a neighbouring cell and catches)."""
UNKNOWN_TOXICITY = 1
"""What a cell never stood on is guessed to cost (hundredths): the cleanest value, most cells' (§2.2)."""
GUESS_RADIUS = 2
"""How far (in cells, both ways) a known toxicity is taken as the guess for cells never stood on."""
RIVAL = 6
"""Extra steps a red counts for a blue that another red is at least three steps closer to (leave it to that
one)."""
ROOM = 60
"""Cells of room left to run (:meth:`Planner.territory`) beyond which more room is worth nothing more when
fleeing (weighed 2 each: being out of reach this round, 100 a step up to :data:`SAFE`, comes first)."""
LINE = 12
"""How far along a row or column a toxic cell's value is guessed for cells never stood on, up to a wall."""
CLOSE = 4
"""Steps to a blue in sight within which a red corners it (:meth:`Planner.room_left`) instead of heading it
off."""
FAR = 2
"""Weight of each step a red needs beyond :data:`SAFE` (up to 12) when fleeing."""
FORCED_AFTER = 30
"""Rounds without a team change after which the server moves the blue with the least energy to RED (the
default F of spec/arena.md §2.6)."""
SWITCH_WATCH = 2
"""A blue with no red about keeps out of every other blue's reach while :meth:`Planner.rounds_to_switch` is
at most this: the last three rounds before a forced switch, the switch ending the last of them."""
NEAR_SWITCH = 6
"""Cells (either way) within which another blue counts as a threat before a forced switch: further away it
cannot reach the bot in the round after, and keeping away from it would only cost energy."""
DIRS = tuple(VECTORS)
"""The eight directions clockwise from NORTH."""
KEPT_SEARCHES = 512
"""Path searches kept for later rounds (:meth:`Planner.first_steps`): the walls never change, and the same few
cells (its own, the opponents') come back round after round."""


class RoundCorners(dict[Cell, tuple[Cell, ...]]):
    """``round_corner[cell]``: the diagonal neighbours of *cell* that a red catches from but cannot step from,
    for one shared corner cell is a wall and the other free (a catch needs one open corner, a step both, §2.4
    and §2.6); worked out the first time a cell is asked for."""

    def __init__(self, brain: Brain) -> None:
        super().__init__()
        self.free = brain.is_free

    def __missing__(self, cell: Cell) -> tuple[Cell, ...]:
        free = self.free
        x, y = cell
        found = self[cell] = tuple((x + dx, y + dy) for dx in (-1, 1) for dy in (-1, 1)
                                   if free(x + dx, y + dy) and free(x + dx, y) != free(x, y + dy))
        return found


class Planner:
    """The smart strategy over one bot's memory; :meth:`choose` gives the (direction or NONE, facing)."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self._guess: dict[Cell, int] = {}
        self._near: dict[Cell, int] = {}
        self._explore: Cell | None = None
        self._spread = 0
        self._searches: dict[tuple[Cell, int], tuple[dict[Cell, int], dict[Cell, str]]] = {}
        self.round_corner = RoundCorners(brain)
        """``round_corner[cell]``: the cells a red catches *cell* from round a wall corner."""
        self._reds = 0
        self._last_change = 0

    # --- the map ------------------------------------------------------------------------------------------

    def steps(self, cell: Cell) -> list[tuple[str, Cell]]:
        """(direction, target) of every step the walls allow from *cell* (§2.4, :meth:`Brain.steps`)."""
        return self.brain.steps(cell)

    def distances(self, start: Cell, limit: int = HORIZON) -> dict[Cell, int]:
        """Steps from *start* to every cell within *limit* steps (walls only; players move); kept and shared
        as :meth:`first_steps` keeps it: the caller must not change it."""
        return self.first_steps(start, limit)[0]

    def first_steps(self, start: Cell, limit: int = HORIZON) -> tuple[dict[Cell, int], dict[Cell, str]]:
        """Like :meth:`distances`, and for every cell the first step of one shortest path to it. The result is
        kept (:data:`KEPT_SEARCHES`) and shared: the caller must not change it."""
        kept = self._searches.get((start, limit))
        if kept is not None:
            return kept
        if len(self._searches) >= KEPT_SEARCHES:
            self._searches.clear()
        dist = {start: 0}
        first = {start: "NONE"}
        layer = []
        for direction, nxt in self.steps(start) if limit > 0 else ():
            dist[nxt], first[nxt] = 1, direction
            layer.append(nxt)
        neighbours = self.brain.neighbours
        for d in range(2, limit + 1):  # breadth first, one distance at a time: *layer* is d - 1 steps away
            reached = []
            for cell in layer:
                via = first[cell]
                for nxt in neighbours[cell]:
                    if nxt not in dist:
                        dist[nxt], first[nxt] = d, via
                        reached.append(nxt)
            layer = reached
        self._searches[(start, limit)] = dist, first
        return dist, first

    def toxicity(self, cell: Cell) -> int:
        """The toxicity of *cell* in hundredths: known if the bot stood on it, else guessed, as the nearest
        known cell (toxic areas come as rooms and corridors): the value of a known cell up to
        :data:`GUESS_RADIUS` cells away, of a toxic one also along its row and column up to :data:`LINE` cells
        (not past a wall); else :data:`UNKNOWN_TOXICITY`."""
        known = self.brain.toxicity
        if len(known) > self._spread:
            free, guess, near = self.brain.is_free, self._guess, self._near
            for x, y in list(known)[self._spread:]:
                value = known[(x, y)]
                for dy in range(-GUESS_RADIUS, GUESS_RADIUS + 1):
                    for dx in range(-GUESS_RADIUS, GUESS_RADIUS + 1):
                        cell_ = (x + dx, y + dy)
                        if max(abs(dx), abs(dy)) <= near.get(cell_, LINE + 1):
                            guess[cell_], near[cell_] = value, max(abs(dx), abs(dy))
                if value > UNKNOWN_TOXICITY:
                    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                        for k in range(GUESS_RADIUS + 1, LINE + 1):
                            cell_ = (x + k * dx, y + k * dy)
                            if not free(*cell_):
                                break
                            if k <= near.get(cell_, LINE + 1):
                                guess[cell_], near[cell_] = value, k
            self._spread = len(known)
        return known.get(cell, self._guess.get(cell, UNKNOWN_TOXICITY))

    def cost(self, cell: Cell) -> int:
        """Energy (hundredths) lost by standing on *cell* after this round's move (§2.5)."""
        toxic = self.toxicity(cell)
        here = (self.brain.x, self.brain.y)
        return toxic * (self.brain.stay + 1) if cell == here else toxic

    # --- what it knows of the others ----------------------------------------------------------------------

    def sightings(self, team: str, memory: int | None = None) -> list[tuple[Cell, int, int]]:
        """(last seen cell, rounds since, id) of the other players of *team* seen within *memory* rounds
        (default :data:`MEMORY`): opponents when *team* is not the bot's own, else team-mates (whom the
        server reports every round)."""
        b = self.brain
        memory = MEMORY if memory is None else memory
        return [((s.x, s.y), b.round - s.round, n) for n, s in b.seen.items()
                if n != b.id and b.team.get(n, "BLUE") == team and b.round - s.round <= memory]

    def options(self) -> list[tuple[str, Cell]]:
        """NONE and every step not into a player seen this round."""
        b = self.brain
        here = (b.x, b.y)
        taken = {(s.x, s.y) for n, s in b.seen.items() if s.round == b.round and n != b.id}
        return [("NONE", here), *((d, c) for d, c in self.steps(here) if c not in taken)]

    # --- decisions ----------------------------------------------------------------------------------------

    def choose(self) -> tuple[str, str]:
        self._note_changes()
        if self.brain.my_team == "RED":
            return self.hunt()
        return self.escape()

    def _note_changes(self) -> None:
        """Keep the round of the latest team change (each ``TEAMCHANGE`` tells of the round before): the
        forced switch comes :data:`FORCED_AFTER` rounds after it (§2.6)."""
        b = self.brain
        reds = sum(1 for team in b.team.values() if team == "RED")
        if reds != self._reds:
            self._reds, self._last_change = reds, b.round - 1

    def rounds_to_switch(self) -> int:
        """Rounds left before the next forced switch: 0 when it comes at the end of this round."""
        return self._last_change + FORCED_AFTER - self.brain.round

    def switch_threats(self) -> list[tuple[Cell, int, int]]:
        """In the last :data:`SWITCH_WATCH` rounds before a forced switch, the other blues (as
        :meth:`sightings`) within :data:`NEAR_SWITCH` cells: any of them may be the one switched, and catch
        the bot the round after; else none."""
        if not 0 <= self.rounds_to_switch() <= SWITCH_WATCH:
            return []
        here = (self.brain.x, self.brain.y)
        blues = self.sightings("BLUE", memory=0)  # team-mates: reported every round
        return [blue for blue in blues if _chebyshev(blue[0], here) <= NEAR_SWITCH]

    def escape(self) -> tuple[str, str]:
        """BLUE: stay out of reach, on clean cells, moving. With no red about in the last rounds before a
        forced switch, out of reach of every other blue too: the bot cannot tell whose energy is the lowest,
        and the one switched catches whoever stands next to it the round after (§2.6)."""
        b = self.brain
        here = (b.x, b.y)
        reds = self.sightings("RED")
        if not reds:
            reds = self.switch_threats()
        danger = self.danger(reds)
        if not danger:
            return self._wander()
        best, best_score = "NONE", None
        for direction, cell in self.options():
            near = danger.get(cell, 99)
            score = 100 * min(near, SAFE) + 2 * min(self.territory(cell, danger), ROOM) \
                + FAR * min(near, 12) + b.rng.random()
            score -= 10 * self.cost(cell)
            if best_score is None or score > best_score:
                best, best_score = direction, score
        nearest = min(reds, key=lambda r: _chebyshev(r[0], here))[0]
        return best, _facing(nearest[0] - here[0], nearest[1] - here[1], b.facing)

    def danger(self, reds: list[tuple[Cell, int, int]]) -> dict[Cell, int]:
        """The rounds the nearest of *reds* (:meth:`sightings`) may need to reach each cell within
        ``HORIZON // 2`` steps, or to get next to it round a wall corner (one step fewer than to reach it
        then: a catch needs one open corner, a step both, §2.4 and §2.6): a red seen ``age`` rounds ago may
        be ``age`` steps closer."""
        danger: dict[Cell, int] = {}
        for cell, age, _ in reds:
            for c, d in self.distances(cell, HORIZON // 2).items():
                need = d - age if d > age else 0
                if need < danger.get(c, 99):
                    danger[c] = need
        round_corner = self.round_corner
        for c, need in list(danger.items()):
            for n in round_corner[c]:
                if need + 1 < danger.get(n, 99):
                    danger[n] = need + 1
        return danger

    def territory(self, start: Cell, danger: dict[Cell, int]) -> int:
        """How many cells the bot, stepping onto *start* this round, can reach before any red can reach them
        or a cell next to them (*danger*: the rounds a red needs to reach each cell), counting only paths
        through such cells: the room left to run. A dead end the reds are coming into has little of it left
        while its way out still has plenty."""
        neighbours, reds_need = self.brain.neighbours, danger.get
        seen = {start}
        layer = [start]
        count = 0
        for d in range(1, HORIZON // 2 + 1):  # breadth first: the cells of *layer* are reached in d rounds
            ahead = [cell for cell in layer if d + 1 < reds_need(cell, 99)]
            count += len(ahead)
            if d == HORIZON // 2:
                break
            layer = []
            for cell in ahead:
                for nxt in neighbours[cell]:
                    if nxt not in seen:
                        seen.add(nxt)
                        layer.append(nxt)
        return count

    def _wander(self) -> tuple[str, str]:
        """BLUE with no red known: towards a clean place to walk to and fro, a cell and its cleanest neighbour
        (a long way round if the bot stands in a toxic room or on a clean cell among toxic ones), then the
        cleanest step, away from where reds were last seen, scanning around."""
        b = self.brain
        here = (b.x, b.y)
        dist, first = self.first_steps(here)
        toxic_here = self.toxicity(here)  # brings the guesses up to date: read directly below
        known, guessed, neighbours = b.toxicity, self._guess, b.neighbours

        def toxic(c: Cell) -> int:
            return known[c] if c in known else guessed.get(c, UNKNOWN_TOXICITY)

        # a place to walk to and fro: a cell and its cleanest neighbour, each stood on every other round
        goal, least = here, 1 << 30
        for c, d in dist.items():  # nearest first: no cell further away weighs less than the cleanest can
            if 40 * UNKNOWN_TOXICITY + d * toxic_here > least:
                break
            weight = 20 * (toxic(c) + min(map(toxic, neighbours[c]), default=20)) + d * toxic_here
            if weight < least:
                goal, least = c, weight
        if dist[goal] > 1:
            step = first[goal]
            if step in {d for d, _ in self.options()}:
                return step, _sweep(b.facing, step)
        old = self.sightings("RED", memory=60)
        best, best_score = "NONE", None
        for direction, cell in self.options():
            score = -3.0 * self.cost(cell) - 2 * (cell not in b.toxicity)
            for seen, _, _ in old:
                score += 0.3 * min(_chebyshev(seen, cell), 15)
            score += len(self.steps(cell)) * 0.05 + b.rng.random() * 0.1
            if best_score is None or score > best_score:
                best, best_score = direction, score
        return best, _sweep(b.facing, best)

    def hunt(self) -> tuple[str, str]:
        """RED: the blue it reaches first, cut off on its way out."""
        b = self.brain
        here = (b.x, b.y)
        blues = self.sightings("BLUE")
        if not blues:
            return self._search()
        mine = self.distances(here)
        reds = [cell for cell, _, _ in self.sightings("RED", memory=0)]  # the other reds, where they stand

        def reach(blue: tuple[Cell, int, int]) -> int:
            cell, age, _ = blue
            d = mine.get(cell, HORIZON + _chebyshev(cell, here))
            rival = min((_chebyshev(r, cell) for r in reds), default=99)
            return d + age + (RIVAL if rival + 3 <= d else 0)

        (tx, ty), age, _ = min(blues, key=reach)
        goal = self._heading((tx, ty), age)
        towards = self.distances(goal)
        if here not in towards:
            towards = self.distances((tx, ty))
        close = age == 0 and mine.get((tx, ty), 99) <= CLOSE
        best, best_score = "NONE", None
        for direction, cell in self.options():
            # close by, corner it: the step that leaves it the least room, the other reds where they are
            left = self.room_left((tx, ty), [cell, *reds]) if close else towards.get(cell, 10 ** 4)
            score = left * 10 + _chebyshev(cell, (tx, ty)) + b.rng.random()
            if best_score is None or score < best_score:
                best, best_score = direction, score
        dx, dy = VECTORS.get(best, (0, 0))
        return best, _facing(tx - here[0] - dx, ty - here[1] - dy, b.facing)

    def room_left(self, blue: Cell, reds: list[Cell]) -> int:
        """How many cells within ``CLOSE + 2`` steps of a blue on *blue* it reaches before any red on *reds*
        could: the room it has left to run (the reds close in together to leave it none)."""
        maps = [self.distances(red, CLOSE + 2) for red in reds]
        ahead = self.distances(blue, CLOSE + 2)
        return sum(1 for c, d in ahead.items() if all(d < m.get(c, 99) for m in maps))

    def _heading(self, cell: Cell, age: int) -> Cell:
        """Where a blue last seen on *cell* is going: the free cell up to two steps further away from this
        bot (it flees), or *cell* itself when it is close (then the chase goes straight at it)."""
        b = self.brain
        here = (b.x, b.y)
        if _chebyshev(cell, here) <= 2 and age == 0:
            return cell
        best, far = cell, _chebyshev(cell, here)
        for _, one in self.steps(cell):
            for _, two in self.steps(one):
                d = _chebyshev(two, here)
                if d > far:
                    best, far = one, d
        return best

    def _search(self) -> tuple[str, str]:
        """RED with no blue in memory: towards the latest blue sighting it has not been to since, else
        towards a cell it has not stood on lately, kept as its goal until it gets there (a new goal every
        round would only make it wander)."""
        b = self.brain
        here = (b.x, b.y)
        old = [o for o in self.sightings("BLUE", memory=80) if b.visited.get(o[0], -99) <= b.round - o[1]]
        if old:
            goal = min(old, key=lambda o: o[1])[0]
        else:
            reach = self.distances(here)
            if self._explore is None or self._explore == here or self._explore not in reach:
                picks = [c for c in b.frontier() if c in reach]
                self._explore = picks[0] if picks else None
            goal = self._explore or here
        towards = self.distances(goal)
        if here not in towards:
            towards = {}
        best, best_score = "NONE", None
        for direction, cell in self.options():
            score = towards.get(cell, 0) * 10 + 3 * (b.visited.get(cell, -99) >= b.round - 8) + b.rng.random()
            if best_score is None or score < best_score:
                best, best_score = direction, score
        return best, _sweep(b.facing, best)


def _chebyshev(a: Cell, b: Cell) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _facing(dx: int, dy: int, keep: str) -> str:
    """The facing closest in angle to (dx, dy); *keep* for (0, 0)."""
    return keep if dx == 0 and dy == 0 else facing_towards(dx, dy)


def _sweep(facing: str, moving: str) -> str:
    """With nothing in sight: look the way it moves and back, in turn, so that both halves are watched."""
    ahead = moving if moving != "NONE" else facing
    behind = DIRS[(DIRS.index(ahead) + 4) % 8]
    return behind if facing == ahead else ahead

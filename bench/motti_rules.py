"""Benchmark: the cost of motti's rules (spec/motti.md §2.4), in two parts.

1. **A simulated attack on 20x15**, as the hard computer player's search plays it: ``Game.clone()``, a
   generator of its own, then ``apply(("attack", crosses))`` with up to 6 crosses. Positions come from seeded
   2-player games on default generated 20x15 maps, played by a simple front-line policy (attack crosses on
   enemy cells next to the front first, now and then a Defend or a Guerilla). Baseline: the rules as they
   were before the shortcuts for searches (bench/frozen/motti_rules_before.py) on the same positions with
   the same draws, measured in the same run; both must leave identical boards. Under the default reset rule
   ``strict``, with ``empty`` beside. Bar: median <= 80 µs of CPU time per simulated attack under ``strict``
   (CPU time, as the machine is shared; the wall-clock time is printed beside).

2. **One action on a 1000x1000 board with 8 players.** The board is all land; 8 capitals on a 4x2 grid,
   every cell owned by its nearest capital, half of the cells occupied at random (seeded). The actions are
   single successful attacks: some close a pocket (encirclement and division), some do not. Timed:
   ``Game.attack`` (the draw, the cell change, capital check, encirclement, reset and end check), under
   ``strict`` and under ``empty``, beside the frozen rules of part 1 on the same actions. Baseline: the same
   resolution written as plain-Python breadth-first searches over the cells, on the same boards, measured in
   the same run; all must leave identical boards.
   Bar: median <= 5 ms per action under ``strict`` and >= 50x faster than the baseline.

Printed, never asserted."""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections import deque
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "frozen"))

import motti_rules_before as before
from _bars import bar

from motti.generate import generate
from motti.rules import Board, Game

SIZE = 1000
CAPITALS = {i + 1: (125 + 250 * (i % 4), 250 + 500 * (i // 4)) for i in range(8)}
RUNS = 5
BASELINE_ACTIONS = 4
BAR_MS = 5.0
BAR_RATIO = 50.0

SEARCH_GAMES = 6          # seeded games the 20x15 positions come from
SEARCH_POSITIONS = 80     # positions taken from each game
SEARCH_REPEATS = 7        # timed passes over all positions, alternating engine and baseline
SEARCH_BAR_US = 80.0


class Draw(random.Random):
    """Every attack draws 0, so the first cross is conquered."""

    def randrange(self, *args, **kwargs):  # type: ignore[override]
        return 0


def make_board(seed: int) -> Board:
    ys, xs = np.mgrid[0:SIZE, 0:SIZE]
    best = np.full((SIZE, SIZE), np.iinfo(np.int64).max)
    owner = np.zeros((SIZE, SIZE), dtype=np.int8)
    for p, (cx, cy) in CAPITALS.items():
        d2 = (xs - cx) ** 2 + (ys - cy) ** 2
        closer = d2 < best
        owner[closer] = p
        best[closer] = d2[closer]
    occupied = np.random.default_rng(seed).random((SIZE, SIZE)) < 0.5
    land = np.ones((SIZE, SIZE), dtype=bool)
    return Board(land, owner, occupied, dict(CAPITALS), 8)


def add_pocket(board: Board, mover: int, x0: int, y0: int, side: int) -> tuple[int, int]:
    """Surround a side x side square right of the mover's region at (x0, y0) with the mover's occupied cells,
    leaving one gap of the neighbour's unoccupied land; return the gap (attacking it closes the pocket)."""
    ring = np.zeros(board.land.shape, dtype=bool)
    ring[y0 - 1 : y0 + side + 1, x0 - 1 : x0 + side + 1] = True
    ring[y0 : y0 + side, x0 : x0 + side] = False
    board.owner[ring] = mover
    board.occupied[ring] = True
    gap = (x0 + side, y0 + side // 2)
    board.owner[gap[1], gap[0]] = board.owner[gap[1], gap[0] + 1]
    board.occupied[gap[1], gap[0]] = False
    return gap


def plain_attack(rng: random.Random, board: Board, mover: int) -> tuple[int, int]:
    """A legal attack target of ``mover`` that encircles nothing: an unoccupied cell of its own region next to
    one of its occupied cells, away from the region's border."""
    cx, cy = CAPITALS[mover]
    while True:
        x, y = cx + rng.randrange(-80, 80), cy + rng.randrange(-80, 80)
        if (board.owner[y, x] == mover and not board.occupied[y, x] and board.occupied[y, x - 1]
                and board.owner[y, x - 1] == mover):
            return (x, y)


def scenario(seed: int) -> tuple[Board, list[tuple[int, tuple[int, int]]]]:
    """The board plus the actions [(mover, cell)]; half close a pocket (5x5 up to 60x60), half do not."""
    board = make_board(seed)
    rng = random.Random(seed)
    actions = []
    for i, (mover, side) in enumerate([(1, 5), (2, 20), (5, 60), (6, 8), (3, 40), (7, 12)]):
        border_x = 250 * (((mover - 1) % 4) + 1)
        y0 = 60 + 60 * i + (500 if mover > 4 else 0)
        actions.append((mover, add_pocket(board, mover, border_x, y0, side)))
        other = rng.choice([p for p in CAPITALS if p != mover])
        actions.append((other, plain_attack(rng, board, other)))
    return board, actions


# ------------------------------------------------------------------------------------- plain-Python baseline


def python_resolve(land: list, owner: list, occ: list, caps: dict, mover: int, cell: tuple[int, int]) -> None:
    """Attack ``cell`` for ``mover`` and resolve it (§2.4) with Python BFS over the flat cell lists."""
    w, h = SIZE, SIZE
    i = cell[1] * w + cell[0]
    owner[i], occ[i] = mover, True

    def neighbours(j: int):
        x = j % w
        if x > 0:
            yield j - 1
        if x < w - 1:
            yield j + 1
        if j >= w:
            yield j - w
        if j < w * (h - 1):
            yield j + w

    for p, c in list(caps.items()):
        if c is not None and owner[c[1] * w + c[0]] != p:
            raise NotImplementedError("capital capture is not part of this benchmark")
    while True:
        handovers = []
        for p, c in caps.items():
            if c is None:
                continue

            def passable(j: int, p: int = p) -> bool:
                return land[j] and (owner[j] == p or not occ[j])

            start = c[1] * w + c[0]
            reach = {start}
            queue = deque([start])
            while queue:
                j = queue.popleft()
                for k in neighbours(j):
                    if k not in reach and passable(k):
                        reach.add(k)
                        queue.append(k)
            seen: set[int] = set()
            for j in range(w * h):
                if owner[j] != p or not land[j] or j in reach or j in seen:
                    continue
                pocket = [j]
                seen.add(j)
                queue = deque([j])
                while queue:
                    a = queue.popleft()
                    for k in neighbours(a):
                        if k not in seen and k not in reach and passable(k):
                            seen.add(k)
                            pocket.append(k)
                            queue.append(k)
                members = set(pocket)
                encirclers = {
                    owner[k] for a in pocket for k in neighbours(a) if occ[k] and land[k] and owner[k] != p
                }
                if not encirclers:
                    continue
                order = sorted(encirclers)
                if mover in order:
                    order.remove(mover)
                    order.insert(0, mover)
                rank = {q: r for r, q in enumerate(order)}
                label: dict[int, int] = {}
                layer = []
                for a in pocket:
                    cands = [owner[k] for k in neighbours(a) if occ[k] and land[k] and owner[k] in rank]
                    if cands:
                        label[a] = min(cands, key=rank.__getitem__)
                        layer.append(a)
                while layer:
                    nxt: dict[int, int] = {}
                    for a in layer:
                        for k in neighbours(a):
                            if k in members and k not in label:
                                q = label[a]
                                if k not in nxt or rank[q] < rank[nxt[k]]:
                                    nxt[k] = q
                    label.update(nxt)
                    layer = list(nxt)
                handovers.append([(a, label[a]) for a in pocket if owner[a] == p])
        if not handovers:
            break
        for group in handovers:
            for a, q in group:
                owner[a], occ[a] = q, False
    if not any(land[j] and not occ[j] for j in range(w * h)):
        for j in range(w * h):
            occ[j] = False


# ------------------------------------------------------------------------------------------ 20x15 search part


def front_line_action(game: Game, rng: random.Random) -> tuple[object, ...]:
    """The policy that makes the positions: mostly an Attack with up to 6 crosses, enemy cells first (the
    front), own cells after; sometimes a Defend of up to 3 cells or a Guerilla when the turn is fresh."""
    options = game.legal_actions()
    if not game.attacked and rng.random() < 0.15:
        others = [a for a in options if a[0] in ("defend", "guerilla")]
        if others:
            return rng.choice(others)
    return ("attack", attack_crosses(game, rng))


def attack_crosses(game: Game, rng: random.Random) -> tuple[tuple[int, int], ...]:
    """Up to 6 legal Attack crosses, enemy cells (in random order) before own ones."""
    me = game.current_player
    cells = [a[1][0] for a in game.legal_actions() if a[0] == "attack"]
    rng.shuffle(cells)
    cells.sort(key=lambda c: game.board.owner[c[1], c[0]] == me)
    return tuple(cells[:6])


Position = tuple[Game, tuple[tuple[int, int], ...], int]


def search_positions(rule: str) -> list[Position]:
    """(game, crosses, seed) at every few actions of :data:`SEARCH_GAMES` seeded games on generated 20x15
    maps: the game to clone, the crosses of the simulated attack, the seed of the clone's generator."""
    out: list[Position] = []
    for seed in range(SEARCH_GAMES):
        game = Game(generate(20, 15, 2, random.Random(seed)), random.Random(seed), reset_rule=rule)
        rng = random.Random(1000 + seed)
        taken = 0
        while not game.is_terminal() and taken < SEARCH_POSITIONS:
            game.apply(front_line_action(game, rng))
            if game.is_terminal() or rng.random() < 0.5:
                continue
            crosses = attack_crosses(game, rng)
            if crosses:
                out.append((game.clone(), crosses, rng.getrandbits(32)))
                taken += 1
    return out


def frozen_twin(game: Game) -> before.Game:
    """The same position in the frozen rules."""
    b = game.board
    board = before.Board(b.land, b.owner.copy(), b.occupied.copy(), dict(b.capitals), b.players)
    return before.Game(board, random.Random(0), reset_rule=game.reset_rule, turn=game.current_player,
                       attacks=game.attacks_left, turns=game.turns, takeable=game.takeable)


def simulate(games: list, positions: list[Position]) -> tuple[float, float, list]:
    """One pass of simulated attacks over ``games`` (one per position): CPU seconds and wall-clock seconds
    per attack, and the clones."""
    clones = []
    cpu, wall = time.process_time(), time.perf_counter()
    for game, (_, crosses, seed) in zip(games, positions, strict=True):
        twin = game.clone()
        twin.rng = random.Random(seed)
        twin.apply(("attack", crosses))
        clones.append(twin)
    return (time.process_time() - cpu) / len(games), (time.perf_counter() - wall) / len(games), clones


def search_part() -> bool:
    """Part 1; prints the figures and returns whether the bar is met."""
    ok = True
    for rule in ("strict", "empty"):
        positions = search_positions(rule)
        ours = [p[0] for p in positions]
        theirs = [frozen_twin(g) for g in ours]
        engine: list[tuple[float, float]] = []
        baseline: list[tuple[float, float]] = []
        for _ in range(SEARCH_REPEATS):
            cpu, wall, new = simulate(ours, positions)
            engine.append((cpu, wall))
            cpu, wall, old = simulate(theirs, positions)
            baseline.append((cpu, wall))
        for a, b in zip(new, old, strict=True):
            if not ((a.board.owner == b.board.owner).all() and (a.board.occupied == b.board.occupied).all()
                    and a.takeable == b.takeable and a.is_terminal() == b.is_terminal()):
                return bar("motti engine and frozen rules agree on every simulated attack", "they disagree",
                           False)
        us = [statistics.median(t[i] for t in engine) * 1e6 for i in (0, 1)]
        base_us = [statistics.median(t[i] for t in baseline) * 1e6 for i in (0, 1)]
        print(f"20x15 simulated attack ({rule:6}), median µs CPU / wall: engine {us[0]:5.1f} / {us[1]:5.1f}, "
              f"before {base_us[0]:5.1f} / {base_us[1]:5.1f} ({base_us[0] / us[0]:.1f}x CPU); "
              f"{len(positions)} positions x {SEARCH_REPEATS} passes, same results")
        if rule == "strict":
            ok = bar(f"motti 20x15 simulated attack <= {SEARCH_BAR_US:.0f} µs CPU (strict)",
                     f"{us[0]:.1f} µs (before: {base_us[0]:.1f} µs)", us[0] <= SEARCH_BAR_US)
    return ok


# ------------------------------------------------------------------------------------------------------ main


def big_board_part() -> bool:
    """Part 2; prints the figures and returns whether the bar is met."""
    base, actions = scenario(seed=1)
    medians = {}
    results = []
    encircling = 0
    for rule in ("strict", "empty"):
        times = []
        closing = []
        frozen = []
        for run in range(RUNS):
            for mover, cell in actions:
                old = before.Game(base.copy(), Draw(), turn=mover, reset_rule=rule)
                t0 = time.perf_counter()
                old.attack([cell])
                frozen.append(time.perf_counter() - t0)
                game = Game(base.copy(), Draw(), turn=mover, reset_rule=rule)
                t0 = time.perf_counter()
                events = game.attack([cell])
                times.append(time.perf_counter() - t0)
                if not ((old.board.owner == game.board.owner).all()
                        and (old.board.occupied == game.board.occupied).all()):
                    return bar("motti engine and frozen rules agree on the big board", "they disagree", False)
                encircles = any(type(e).__name__ == "Encircled" for e in events)
                if encircles:
                    closing.append(times[-1])
                if run == 0 and rule == "strict":
                    encircling += encircles
                    results.append(game.board)
        medians[rule] = statistics.median(times) * 1000
        fastest, slowest = min(times) * 1000, max(times) * 1000
        closing_ms = statistics.median(closing) * 1000
        print(f"engine ({rule:6}): median {medians[rule]:6.2f} ms per action, {RUNS} runs "
              f"(min {fastest:.2f}, max {slowest:.2f}); encircling: median {closing_ms:.2f} ms")
        frozen_ms = statistics.median(frozen) * 1000
        print(f"before ({rule:6}): median {frozen_ms:6.2f} ms per action (frozen rules, same actions, same "
              "results)")
    ours = medians["strict"]

    baseline_times = []
    for (mover, cell), expected in list(zip(actions, results, strict=True))[:BASELINE_ACTIONS]:
        land = base.land.ravel().tolist()
        owner = base.owner.ravel().tolist()
        occ = base.occupied.ravel().tolist()
        t0 = time.perf_counter()
        python_resolve(land, owner, occ, dict(base.capitals), mover, cell)
        baseline_times.append(time.perf_counter() - t0)
        same = owner == expected.owner.ravel().tolist() and occ == expected.occupied.ravel().tolist()
        if not same:
            return bar("motti engine and plain-Python baseline agree on the big board", "they disagree",
                       False)
    baseline = statistics.median(baseline_times) * 1000
    ratio = baseline / ours
    print(f"board {SIZE}x{SIZE}, 8 players, half occupied; {len(actions)} actions, {encircling} encircle")
    print(f"baseline: median {baseline:8.1f} ms per action (plain-Python BFS, {len(baseline_times)} actions)")
    print(f"ratio:    {ratio:8.0f}x under strict (results identical)")
    ok = bar(f"motti {SIZE}x{SIZE} action <= {BAR_MS:.0f} ms (strict)", f"{ours:.2f} ms", ours <= BAR_MS)
    ok &= bar(f"motti {SIZE}x{SIZE} action >= {BAR_RATIO:.0f}x faster than plain Python", f"{ratio:.0f}x",
              ratio >= BAR_RATIO)
    return ok


def main() -> int:
    start = time.perf_counter()
    ok = search_part()
    ok &= big_board_part()
    print(f"total {time.perf_counter() - start:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Edges of motti's rules beyond the worked scenarios: crosses, actions, passing, reset and capital options,
the OpenSpiel-style interface (spec/motti.md §2)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from motti.compose import Composer
from motti.mapfile import dump_map, parse_map
from motti.rules import (
    ATTACKS_PER_TURN,
    MAX_CROSSES,
    RULE_OPTIONS,
    Action,
    AttackDrawn,
    Board,
    CapitalCaptured,
    CellsChanged,
    Eliminated,
    Encircled,
    Game,
    GameOver,
    IllegalAction,
    Reset,
    Rules,
    SettingError,
    TurnPassed,
    count_takeable,
    find_encircled,
    pipeline,
    reach,
    stage_capital_capture_v2,
    stage_capital_capture_v3,
    stage_encirclement,
    stage_game_end,
    stage_reset_empty,
    stage_reset_strict,
    stage_unreachable,
)


class Scripted(random.Random):
    def __init__(self, draws: list[int]) -> None:
        super().__init__(0)
        self.draws = list(draws)

    def randrange(self, *args, **kwargs):  # type: ignore[override]
        assert args == (6,) and not kwargs
        assert self.draws, "no scripted draw left"
        return self.draws.pop(0)


def board(grid: str, caps: dict[int, tuple[int, int]]) -> Board:
    rows = grid.split("/")
    lines = ["motti-map 1", f"size {len(rows[0])} {len(rows)}", f"players {max(caps)}"]
    lines += [f"capital {k} {x} {y}" for k, (x, y) in sorted(caps.items())]
    return parse_map("\n".join([*lines, "grid", *rows]) + "\n").board


def grid(b: Board) -> str:
    return "/".join(dump_map(b).split("grid\n", 1)[1].split())


T1 = ("aabb/aAbb/aabb", {1: (0, 0), 2: (3, 0)})
WIDE = ("aaaaaaabbb/aAAAAAAbbb/aaaaaaabbb", {1: (0, 0), 2: (9, 0)})


def test_constants():
    assert MAX_CROSSES == {Action.ATTACK: 6, Action.DEFEND: 3, Action.GUERILLA: 1}
    assert ATTACKS_PER_TURN == 6


def test_attack_cross_limit_is_six():
    g = Composer(Game(board(*WIDE), Scripted([])))
    own = [(x, 0) for x in range(6)]
    for cell in own:
        g.toggle_cross(*cell)
    assert g.crosses_left() == 0
    with pytest.raises(IllegalAction, match=r"^Attack takes at most 6 crosses$"):
        g.toggle_cross(6, 0)
    with pytest.raises(IllegalAction, match="at most 6"):
        g.attack([(x, 0) for x in range(7)])
    assert g.crosses == own


def test_guerilla_takes_one_cross():
    g = Composer(Game(board(*T1), Scripted([])))
    g.select(Action.GUERILLA)
    g.toggle_cross(2, 0)
    with pytest.raises(IllegalAction, match=r"^Guerilla takes at most 1 cross$"):
        g.toggle_cross(0, 0)
    g.toggle_cross(2, 0)
    with pytest.raises(IllegalAction, match="exactly one"):
        g.perform()


def test_toggle_off_and_reasons():
    g = Composer(Game(board(*T1), Scripted([])))
    g.toggle_cross(0, 0)
    g.toggle_cross(0, 0)
    assert g.crosses == []
    with pytest.raises(IllegalAction, match=r"\(1,1\) is occupied"):
        g.toggle_cross(1, 1)
    with pytest.raises(IllegalAction, match=r"\(3,0\) is not orthogonally next"):
        g.toggle_cross(3, 0)
    with pytest.raises(IllegalAction, match="outside"):
        g.toggle_cross(9, 9)
    sea = Composer(Game(board("a.bb/aabb", {1: (0, 0), 2: (3, 0)}), Scripted([])))
    with pytest.raises(IllegalAction, match=r"\(1,0\) is sea"):
        sea.toggle_cross(1, 0)


def test_select_drops_illegal_and_keeps_oldest():
    g = Composer(Game(board(*T1), Scripted([])))
    for cell in [(2, 1), (0, 0), (0, 1), (0, 2), (1, 0)]:
        g.toggle_cross(*cell)
    g.select(Action.DEFEND)
    assert g.crosses == [(0, 0), (0, 1), (0, 2)]
    assert g.crosses_left() == 0
    g.select(Action.GUERILLA)
    assert g.crosses == [(0, 0)]


def test_cycle_action_order():
    g = Composer(Game(board(*T1), Scripted([])))
    seen = []
    for _ in range(4):
        seen.append(g.selected)
        g.cycle_action()
    assert seen == [Action.ATTACK, Action.DEFEND, Action.GUERILLA, Action.ATTACK]


def test_cycle_skips_actions_without_a_legal_cell_and_choose_says_why():
    # player 1 owns only its occupied capital, walled in by sea and player 2's occupied cell: no cell to
    # defend, none for a guerilla.
    g = Composer(Game(board("ABbb/..bb", {1: (0, 0), 2: (3, 0)}), Scripted([])))
    assert g.possible_actions() == {Action.ATTACK}
    g.cycle_action()
    assert g.selected is Action.ATTACK
    with pytest.raises(IllegalAction, match=r"^Defend is impossible: player 1 has no cell for it$"):
        g.choose(Action.DEFEND)
    assert g.why_impossible(Action.ATTACK) is None and g.selected is Action.ATTACK
    g2 = Composer(Game(board(*T1), Scripted([])))
    g2.choose(Action.GUERILLA)
    assert g2.selected is Action.GUERILLA


def test_possible_actions_after_an_attack():
    g = Composer(Game(board(*T1), Scripted([5])))
    assert g.possible_actions() == set(Action)
    g.attack([(0, 0)])
    assert g.possible_actions() == {Action.ATTACK}
    assert g.crosses == [(0, 0)]
    g.select(Action.DEFEND)
    with pytest.raises(IllegalAction, match="after an attack"):
        g.perform()
    with pytest.raises(IllegalAction, match="after an attack"):
        g.guerilla((0, 0))
    assert g.attacks_left == 5 and grid(g.board) == T1[0]


def test_defend_needs_a_cross():
    g = Composer(Game(board(*T1), Scripted([])))
    g.select(Action.DEFEND)
    with pytest.raises(IllegalAction, match="1 to 3"):
        g.perform()
    with pytest.raises(IllegalAction, match="twice"):
        g.defend([(0, 0), (0, 0)])


def test_pass_draws_nothing():
    g = Composer(Game(board(*T1), Scripted([])))
    g.toggle_cross(0, 0)
    assert g.pass_turn() == [TurnPassed(2)]
    assert g.current_player == 2 and g.crosses == [] and g.attacks_left == 6
    assert g.pass_turn() == [TurnPassed(1)]


def test_pass_after_attacks_resets_the_turn():
    g = Game(board(*T1), Scripted([5, 5]))
    g.attack([])
    g.attack([])
    g.pass_turn()
    assert g.attacks_left == 6 and not g.attacked and g.possible_actions() == set(Action)


def test_conquered_cross_removed_others_kept():
    g = Composer(Game(board(*T1), Scripted([1])))
    events = g.attack([(0, 0), (2, 1), (0, 1)])
    assert CellsChanged(((2, 1),)) in events
    assert g.crosses == [(0, 0), (0, 1)]


def test_cross_made_illegal_by_encirclement_is_dropped():
    g = Composer(Game(board("aAbbbb/AbAbbb/aabbbb", {1: (0, 0), 2: (5, 0)}), Scripted([0])))
    g.attack([(1, 2), (0, 0)])
    assert grid(g.board) == "aAbbbb/AaAbbb/aAbbbb"
    assert g.crosses == [(0, 0)]


def test_saved_turn_and_attacks():
    g = Game(board(*T1), Scripted([]), turn=2, attacks=3)
    assert g.current_player == 2 and g.attacked and g.possible_actions() == {Action.ATTACK}
    with pytest.raises(ValueError, match=r"^attacks left must be 1\.\.6, not 0$"):
        Game(board(*T1), Scripted([]), attacks=0)
    with pytest.raises(ValueError, match=r"^player 3 cannot be in turn"):
        Game(board(*T1), Scripted([]), turn=3)
    with pytest.raises(ValueError, match=r"^capital_rule must be one of"):
        Game(board(*T1), Scripted([]), capital_rule="v9")


def test_strict_reset_is_edge_triggered():
    caps = {1: (0, 0), 2: (3, 0)}
    g = Game(board("aAbB", caps), Scripted([0]), reset_rule="strict")
    events = g.attack([(2, 0)])
    assert Reset() in events
    assert grid(g.board) == "aaab"
    g = Game(board("aAbB", caps), Scripted([0]), reset_rule="empty")
    assert Reset() not in g.attack([(2, 0)])
    assert grid(g.board) == "aAAB"


def test_strict_reset_does_not_fire_on_the_opening_position():
    g = Game(board("aabb", {1: (0, 0), 2: (3, 0)}), Scripted([5] * 6), reset_rule="strict")
    for _ in range(6):
        assert Reset() not in g.attack([])
    g.defend([(3, 0)])
    assert grid(g.board) == "aabB"


def test_empty_reset_on_a_failed_attack_of_a_full_board():
    g = Game(board("AB", {1: (0, 0), 2: (1, 0)}), Scripted([3]), reset_rule="empty")
    assert Reset() in g.attack([])
    assert grid(g.board) == "ab"


def test_defeat_without_occupied_neighbours_goes_to_nearest_capital():
    g = Game(board("aabbcc", {1: (0, 0), 2: (2, 0), 3: (5, 0)}), Scripted([]))
    events = g.defeat([2], cause="quit")
    assert grid(g.board) == "aaaccc"
    assert Eliminated(2, "quit") in events
    assert Encircled(((2, 0),), 1, 2) in events and Encircled(((3, 0),), 3, 2) in events


def test_defeat_of_the_current_player_passes_the_turn():
    g = Game(board("aabbcc", {1: (0, 0), 2: (2, 0), 3: (5, 0)}), Scripted([]), turn=2)
    events = g.defeat([2])
    assert events[-1] == TurnPassed(3)
    assert g.defeat([2]) == []


def test_defeat_down_to_one_player_ends_the_game():
    g = Game(board(*T1), Scripted([]))
    events = g.defeat([1])
    assert grid(g.board) == "bbbb/bbbb/bbbb"
    assert events[-1] == GameOver(2, "win", "", 1) and g.winner == 2
    assert g.legal_actions() == [] and g.possible_actions() == set()
    assert not any(g.legal_mask(action).any() for action in Action)


def test_defeat_of_another_player_down_to_one_counts_no_turn():
    # Player 2's display is lost during player 1's first turn: nobody has played a turn yet.
    g = Game(board(*T1), Scripted([]))
    events = g.defeat([2])
    assert events[-1] == GameOver(1, "win", "", 0) and g.turns == 0


def test_defeat_of_every_player_at_once_leaves_the_board_as_it_was():
    # §2.7 hands a leaver's land to alive players only: with no heir, nothing changes hands (no sea).
    g = Composer(Game(board("aAbbB/aabBb", {1: (0, 0), 2: (4, 0)}), Scripted([]), turn=2))
    g.toggle_cross(2, 0)
    events = g.defeat([1, 2], cause="quit")
    assert grid(g.board) == "aAbbB/aabBb"
    assert events == [Eliminated(1, "quit"), Eliminated(2, "quit"), GameOver(None, "draw", "left", 1)]
    assert g.winner is None and g.alive == [] and g.crosses == []
    assert g.game.legal_actions() == [] and g.defeat([1]) == []


def test_loaded_encircled_pocket_resolves_on_first_action():
    b = board("aAbbb/AbAbb/aAbbb", {1: (0, 0), 2: (4, 0)})
    assert find_encircled(b, 1) == [(2, ((1, 1),))]
    g = Game(b, Scripted([5]))
    events = g.attack([])
    assert Encircled(((1, 1),), 1, 2) in events
    assert grid(g.board) == "aAbbb/AaAbb/aAbbb"


def test_encirclement_far_from_the_change_on_a_large_board():
    """A pocket closed by a conquest; the board is large enough that labelling starts on a local window."""
    size = 300
    land = np.ones((size, size), dtype=bool)
    owner = np.full((size, size), 2, dtype=np.int8)
    owner[:, :150] = 1
    occupied = np.zeros((size, size), dtype=bool)
    ring = np.zeros((size, size), dtype=bool)
    ring[100:201, 200:261] = True
    ring[101:200, 201:260] = False
    owner[ring] = 1
    occupied[ring] = True
    gap = (230, 100)
    owner[gap[1], gap[0]] = 2
    occupied[gap[1], gap[0]] = False
    owner[100:200, 150:200] = 1
    occupied[100:200, 199] = True
    b = Board(land, owner, occupied, {1: (0, 0), 2: (299, 299)}, 2)
    g = Game(b, Scripted([0]))
    events = g.attack([gap])
    inside = (slice(101, 200), slice(201, 260))
    assert (g.board.owner[inside] == 1).all() and not g.board.occupied[inside].any()
    encircled = [e for e in events if isinstance(e, Encircled)]
    assert len(encircled) == 1 and len(encircled[0].cells) == 99 * 59


def random_self_play(seed: int, grid_text: str, caps: dict[int, tuple[int, int]], limit: int) -> Game:
    chooser = random.Random(seed)
    g = Game(board(grid_text, caps), random.Random(seed + 1))
    for _ in range(limit):
        if g.is_terminal():
            break
        actions = g.legal_actions()
        verbs = sorted({a[0] for a in actions})
        verb = chooser.choice(verbs)
        g.apply(chooser.choice([a for a in actions if a[0] == verb]))
    return g


@pytest.mark.parametrize("seed", range(5))
def test_random_self_play_terminates_with_a_winner(seed):
    caps = {1: (0, 0), 2: (5, 3), 3: (0, 3)}
    g = random_self_play(seed, "aaabbb/aaabbb/cccbbb/cccbbb", caps, 20000)
    assert g.is_terminal()
    assert g.winner in (1, 2, 3)
    assert g.alive == [g.winner]
    assert sorted(g.returns()) == [-1.0, -1.0, 1.0]
    assert (g.board.owner[g.board.land] == g.winner).all()


def test_apply_rejects_malformed_actions():
    g = Game(board(*T1), Scripted([0]))
    with pytest.raises(IllegalAction):
        g.apply(("fly",))
    with pytest.raises(IllegalAction):
        g.apply(())
    assert ("pass",) in g.legal_actions()
    assert ("attack", ((2, 1),)) in g.legal_actions()
    assert ("guerilla", (2, 0)) in g.legal_actions()
    g.apply(("attack", ((2, 1), (0, 0))))
    assert grid(g.board) == "aabb/aAAb/aabb"
    assert not [a for a in g.legal_actions() if a[0] in ("defend", "guerilla")]


def random_board(seed: int, width: int = 120, height: int = 90, players: int = 4) -> Board:
    """Voronoi territories with sea blobs and about half of the land occupied."""
    gen = np.random.default_rng(seed)
    ys, xs = np.mgrid[0:height, 0:width]
    caps = {p: (int(gen.integers(width)), int(gen.integers(height))) for p in range(1, players + 1)}
    d2 = np.stack([(xs - x) ** 2 + (ys - y) ** 2 for x, y in caps.values()])
    owner = (np.argmin(d2, axis=0) + 1).astype(np.int8)
    land = gen.random((height, width)) > 0.15
    for x, y in caps.values():
        land[y, x] = True
    owner[~land] = 0
    occupied = land & (gen.random((height, width)) < 0.55)
    return Board(land, owner, occupied, caps, players)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_local_windows_agree_with_whole_board_labelling(seed):
    """The windowed encirclement search gives the same boards and events as labelling the whole board."""
    fast = Game(random_board(seed), random.Random(seed))
    full = Game(random_board(seed), random.Random(seed))
    chooser = random.Random(100 + seed)
    encircled = 0
    for _ in range(300):
        if fast.is_terminal():
            break
        actions = fast.legal_actions()
        attacks = [a for a in actions if a[0] == "attack"]
        action = chooser.choice(attacks if attacks and chooser.random() < 0.8 else actions)
        full._whole_board = True
        events = fast.apply(action)
        assert full.apply(action) == events
        assert (fast.board.owner == full.board.owner).all() and (
            fast.board.occupied == full.board.occupied
        ).all()
        encircled += sum(isinstance(e, Encircled) for e in events)
    assert encircled > 0


def reference_encirclement(board: Board, mover: int) -> None:
    """§2.5–§2.6 written out as plain breadth-first searches over cells (no capital capture, no reset)."""
    h, w = board.land.shape
    land, owner, occ = board.land, board.owner, board.occupied

    def around(x: int, y: int):
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if 0 <= nx < w and 0 <= ny < h:
                yield nx, ny

    while True:
        changes = []
        for p, cap in board.capitals.items():
            if cap is None:
                continue

            def passable(c, p=p):
                return land[c[1], c[0]] and (owner[c[1], c[0]] == p or not occ[c[1], c[0]])

            reach, todo = {cap}, [cap]
            while todo:
                for n in around(*todo.pop()):
                    if n not in reach and passable(n):
                        reach.add(n)
                        todo.append(n)
            seen: set = set()
            for y in range(h):
                for x in range(w):
                    if owner[y, x] != p or not land[y, x] or (x, y) in reach or (x, y) in seen:
                        continue
                    pocket, todo = [(x, y)], [(x, y)]
                    seen.add((x, y))
                    while todo:
                        for n in around(*todo.pop()):
                            if n not in seen and n not in reach and passable(n):
                                seen.add(n)
                                pocket.append(n)
                                todo.append(n)
                    heirs = {
                        int(owner[n[1], n[0]])
                        for c in pocket
                        for n in around(*c)
                        if occ[n[1], n[0]] and land[n[1], n[0]] and owner[n[1], n[0]] != p
                    }
                    if not heirs:
                        continue
                    rank = sorted(heirs, key=lambda q: (q != mover, q))
                    label = {}
                    for c in pocket:
                        found = [int(owner[n[1], n[0]]) for n in around(*c) if occ[n[1], n[0]]]
                        found = [q for q in found if q in heirs]
                        if found:
                            label[c] = min(found, key=rank.index)
                    layer = list(label)
                    members = set(pocket)
                    while layer:
                        nxt: dict = {}
                        for c in layer:
                            for n in around(*c):
                                if n in members and n not in label and (
                                        n not in nxt or rank.index(label[c]) < rank.index(nxt[n])):
                                    nxt[n] = label[c]
                        label.update(nxt)
                        layer = list(nxt)
                    changes += [(c, label[c]) for c in pocket if owner[c[1], c[0]] == p]
        if not changes:
            return
        for (x, y), q in changes:
            owner[y, x] = q
            occ[y, x] = False


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 3, 4, 5])
def test_encirclement_matches_a_plain_reference(seed):
    """Random conquests on random boards: the engine's result equals the cell-by-cell reference of §2.5–§2.6.
    """
    game = Game(random_board(seed, 40, 30, 3), Scripted([0] * 300))
    chooser = random.Random(seed)
    checked = encircled = 0
    while checked < 250 and not game.is_terminal():
        capitals = set(game.board.capitals.values())
        targets = [a[1][0] for a in game.legal_actions() if a[0] == "attack" and a[1][0] not in capitals]
        if not targets:
            game.pass_turn()
            continue
        cell = chooser.choice(targets)
        expected = game.board.copy()
        expected.owner[cell[1], cell[0]] = game.current_player
        expected.occupied[cell[1], cell[0]] = True
        reference_encirclement(expected, game.current_player)
        events = game.attack([cell])
        if Reset() in events:
            expected.occupied[:] = False
        assert (game.board.owner == expected.owner).all() and (game.board.occupied == expected.occupied).all()
        encircled += any(isinstance(e, Encircled) for e in events)
        checked += 1
    assert checked == 250 and encircled > 0


# ------------------------------------------------------------------------------- whole actions, clones, §2.9


def test_clone_is_independent_and_carries_the_generator():
    g = Game(board(*WIDE), random.Random(5))
    g.attack([(0, 0)])
    c = g.clone()
    assert c.rng is not g.rng and c.rng.getstate() == g.rng.getstate()
    assert c.board.owner is not g.board.owner and c.board.occupied is not g.board.occupied
    for game in (g, c):
        for _ in range(5):
            game.attack([(x, 0) for x in range(10) if game.is_legal_cross(x, 0, Action.ATTACK)][:6])
    assert grid(c.board) == grid(g.board) and c.rng.getstate() == g.rng.getstate()
    assert c.turns == g.turns == 1 and c.current_player == g.current_player == 2
    c.pass_turn()
    assert c.current_player == 1 and g.current_player == 2 and g.turns == 1


def test_reseed_replaces_only_the_clones_generator():
    g = Game(board(*WIDE), random.Random(5))
    before = g.rng.getstate()
    a, b = g.clone().reseed(9), g.clone().reseed(9)
    a.attack([(0, 0)])
    b.attack([(0, 0)])
    assert a.rng.getstate() == b.rng.getstate() != before
    assert g.rng.getstate() == before and g.attacks_left == 6


def test_attack_with_a_given_draw_draws_nothing():
    g = Game(board(*T1), Scripted([]))
    events = g.attack([(2, 1), (0, 0)], draw=1)
    assert events[0] == AttackDrawn(1, 1, (0, 0)) and grid(g.board) == "Aabb/aAbb/aabb"
    with pytest.raises(IllegalAction, match=r"0\.\.5"):
        g.attack([], draw=6)
    assert g.attacks_left == 5


def test_pipeline_is_built_from_the_options():
    assert pipeline() == (stage_capital_capture_v3, stage_encirclement, stage_reset_strict, stage_game_end,
                          stage_unreachable)
    assert pipeline("v2", "empty") == (stage_capital_capture_v2, stage_encirclement, stage_reset_empty,
                                       stage_game_end, stage_unreachable)
    with pytest.raises(ValueError, match="reset_rule must be one of strict, empty, not 'loose'"):
        pipeline("v3", "loose")
    with pytest.raises(ValueError, match="capital_rule"):
        Game(board(*T1), Scripted([]), capital_rule="v9")


def test_the_rule_options_are_one_frozen_declaration():
    import dataclasses

    assert [(o.field, o.word, o.choices) for o in RULE_OPTIONS] == [
        ("reset_rule", "reset-rule", ("strict", "empty")), ("capital_rule", "capital-rule", ("v3", "v2")),
        ("tie_rule", "tie-rule", ("mover", "lowest")), ("max_turns", "max-turns", ())]
    assert Rules() == Rules("strict", "v3", "mover", None)
    rules = Rules(reset_rule="empty", tie_rule="lowest", max_turns=300)
    assert rules.save_lines() == ["reset-rule empty", "capital-rule v3", "tie-rule lowest", "max-turns 300"]
    assert rules.options() == {"reset_rule": "empty", "capital_rule": "v3", "tie_rule": "lowest",
                               "max_turns": 300}
    assert rules.pipeline() == pipeline("v3", "empty")
    assert not rules.reset.counts_takeable and Rules().reset.counts_takeable and not rules.tie.mover_first
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.max_turns = 3  # type: ignore[misc]
    with pytest.raises(ValueError, match="tie_rule must be one of mover, lowest, not 'first'"):
        Rules(tie_rule="first")
    with pytest.raises(ValueError, match="max_turns must be at least 1, not 0"):
        Rules(max_turns=0)
    g = Game(board(*T1), Scripted([]), rules=rules)
    assert (g.reset_rule, g.capital_rule, g.tie_rule, g.max_turns, g.rules) == ("empty", "v3", "lowest", 300,
                                                                                 rules)
    assert g.clone().rules is rules
    assert Game(board(*T1), Scripted([]), tie_rule="lowest").rules == Rules(tie_rule="lowest")


def test_strict_is_the_default_reset_rule():
    g = Game(board(*T1), Scripted([]))
    assert g.reset_rule == "strict" and g.takeable == count_takeable(g.board) == 1


def test_islands_end_at_once_in_a_draw():
    g = Game(board("aa.bb/aa.bb", {1: (0, 0), 2: (4, 0)}), Scripted([]))
    assert g.is_terminal() and g.end == GameOver(None, "draw", "unreachable", 0)
    assert g.winner is None and g.result == "draw" and g.returns() == [0.0, 0.0]
    assert g.legal_actions() == []
    with pytest.raises(IllegalAction, match="over"):
        g.pass_turn()


def test_diagonal_contact_is_not_an_island():
    g = Game(board("a./.b", {1: (0, 0), 2: (1, 1)}), Scripted([]))
    assert not g.is_terminal()
    assert g.guerilla((0, 0)) == [CellsChanged(((0, 0),)), TurnPassed(2)]
    assert g.is_legal_cross(0, 0, Action.GUERILLA) is False


def test_a_game_that_becomes_unreachable_ends_in_a_draw():
    # Players 1 and 3 share one land mass, player 2 sits alone on an island: once player 1 has taken player
    # 3's capital, no alive player can reach another (§2.9).
    g = Game(board("aAcc.bb", {1: (0, 0), 2: (6, 0), 3: (2, 0)}), Scripted([0]))
    assert not g.is_terminal()
    events = g.attack([(2, 0)])
    assert CapitalCaptured(3, 1, (2, 0)) in events
    # Nobody can take anything from anybody any more: the strict reset fires before the draw is found.
    assert grid(g.board) == "aaaa.bb" and Reset() in events
    assert events[-1] == GameOver(None, "draw", "unreachable", 1)
    assert g.end == events[-1] and g.winner is None and g.alive == [1, 2] and g.returns() == [0.0, 0.0, 0.0]


def test_turn_cap_ends_on_land():
    g = Game(board(*T1), Scripted([0]), max_turns=3)
    g.attack([(2, 1)])
    assert g.pass_turn() == [TurnPassed(2)]
    assert g.turns == 1
    g.pass_turn()
    events = g.pass_turn()
    assert events == [GameOver(1, "land", "", 3, (7, 5))]
    assert g.is_terminal() and g.winner == 1 and g.result == "land" and g.returns() == [1.0, -1.0]
    assert g.turns == 3


def test_turn_cap_with_equal_land_is_a_draw():
    g = Game(board("aabb/aabb", {1: (0, 0), 2: (3, 0)}), Scripted([]), max_turns=2)
    g.pass_turn()
    assert g.pass_turn() == [GameOver(None, "draw", "land", 2, (4, 4))]
    assert g.returns() == [0.0, 0.0]


def test_a_loaded_game_past_its_cap_is_over():
    g = Game(board("aabb/aaab", {1: (0, 0), 2: (3, 0)}), Scripted([]), max_turns=10, turns=10)
    assert g.end == GameOver(1, "land", "", 10, (5, 3))
    with pytest.raises(ValueError, match="max_turns"):
        Game(board(*T1), Scripted([]), max_turns=0)


def test_turns_and_takeable_no_game_reaches_are_refused():
    with pytest.raises(SettingError, match=r"^turns cannot be past max-turns 3, found 5$") as error:
        Game(board(*T1), Scripted([]), max_turns=3, turns=5)
    assert error.value.setting == "turns"
    for takeable in (-1, 3):
        with pytest.raises(SettingError, match=r"^takeable counts the players who can take a cell \(0 to 2 "
                           rf"here\), found {takeable}$") as error:
            Game(board(*T1), Scripted([]), takeable=takeable)
        assert error.value.setting == "takeable"
    with pytest.raises(SettingError, match=r"^takeable is kept only under reset-rule strict, not under "
                       r"reset-rule empty$"):
        Game(board(*T1), Scripted([]), reset_rule="empty", takeable=1)


def test_the_count_of_takeable_is_0_under_empty_and_stays_once_one_player_is_left():
    caps = {1: (0, 0), 2: (3, 0)}
    assert Game(board("AbaB", caps), Scripted([]), reset_rule="empty").takeable == 0
    assert Game(board("AbaB", caps), Scripted([]), reset_rule="empty", takeable=0).takeable == 0
    g = Game(board("AbaB", caps), Scripted([]))
    assert g.takeable == 2
    g.defeat([2])
    assert g.is_terminal() and g.alive == [1] and g.takeable == 2
    assert Game(g.board, Scripted([]), takeable=2).is_terminal()
    with pytest.raises(SettingError, match=r"\(0 to 2 here\), found 3$"):
        Game(g.board, Scripted([]), takeable=3)


def test_turns_count_every_turn_and_the_last():
    g = Game(board("aaAbbb/aaAbbb/aaAbbb", {1: (0, 0), 2: (3, 1)}), Scripted([5, 0]))
    g.pass_turn()
    g.pass_turn()
    assert g.turns == 2
    g.attack([])
    events = g.attack([(3, 1)])
    assert events[-1] == GameOver(1, "win", "", 3)


def test_a_defeat_s_events_name_exactly_the_cells_that_changed_and_the_outlook_follows_the_board():
    from motti.generate import generate
    from motti.rules import Cells, takeable_by_player

    g = Game(generate(120, 90, 5, random.Random(7)), random.Random(7))
    rng = random.Random(8)
    for _ in range(60):
        g.apply(rng.choice(g.legal_actions()))
        assert g.reset_outlook().takeable == takeable_by_player(g.board)
    owner, occupied = g.board.owner.copy(), g.board.occupied.copy()
    leaver = next(p for p in g.alive if p != g.current_player)
    events = g.defeat([leaver], "quit")
    encircled = [e for e in events if isinstance(e, Encircled)]
    assert all(isinstance(e.cells, Cells) and e.victim == leaver for e in encircled)
    handed = {cell: e.to for e in encircled for cell in e.cells}
    assert set(handed) == {(int(x), int(y)) for y, x in zip(*np.nonzero(owner == leaver), strict=True)}
    assert all(g.board.owner[y, x] == to and not g.board.occupied[y, x] for (x, y), to in handed.items())
    changed = {cell for e in events if isinstance(e, CellsChanged) for cell in e.cells}
    moved = (g.board.owner != owner) | (g.board.occupied != occupied)
    assert changed == {(int(x), int(y)) for y, x in zip(*np.nonzero(moved), strict=True)}
    assert g.reset_outlook().takeable == takeable_by_player(g.board)


def test_an_event_s_cells_read_as_the_tuple_of_the_same_cells():
    from motti.rules import Cells

    cells = Cells(np.array([0, 0, 2]), np.array([1, 3, 0]))
    same = ((1, 0), (3, 0), (0, 2))
    assert cells == same and same == cells      # the tuple on the left asks Cells for the answer
    assert cells == [(1, 0), (3, 0), (0, 2)] and cells != ((1, 0),)
    assert (len(cells), cells[0], cells[-1]) == (3, (1, 0), (0, 2))
    assert (3, 0) in cells and (0, 0) not in cells
    assert hash(cells) == hash(((1, 0), (3, 0), (0, 2))) and list(cells) == [(1, 0), (3, 0), (0, 2)]
    assert Encircled(cells, 1, 2) == Encircled(((1, 0), (3, 0), (0, 2)), 1, 2)
    assert repr(Cells(np.array([4]), np.array([5]))) == "((5, 4),)"


def small_random_board(rng: np.random.Generator, owners: int, players: int | None = None) -> Board:
    """A random board of 2 to 12 cells a side: land 85 %, each land cell owned by one of players 1..*owners*
    and occupied 40 % of the time; *players* (default *owners*) players, none with a capital."""
    h, w = rng.integers(2, 13, size=2)
    owner = rng.integers(1, owners + 1, size=(h, w)).astype(np.int8)
    land = rng.random((h, w)) < 0.85
    owner[~land] = 0
    occupied = land & (rng.random((h, w)) < 0.4)
    players = owners if players is None else players
    return Board(land, owner, occupied, dict.fromkeys(range(1, players + 1)), players)


@pytest.mark.parametrize("tie_rule", ["mover", "lowest"])
def test_a_small_pocket_is_divided_as_the_labelling_divides_it(tie_rule):
    """§2.6: the division of a pocket found around one cell (a search over its cells) gives every cell the
    heir the division over arrays gives it, on random boards and areas of every size up to the board."""
    from scipy import ndimage

    from motti import rules

    rng = np.random.default_rng(11)
    compared = 0
    for _ in range(60):
        b = small_random_board(rng, 4)
        h, w = b.land.shape
        land = b.land
        views = rules._views(b)
        mover = int(rng.integers(1, 5))
        for player in range(1, 5):
            labels, count = ndimage.label(rules._passable(b, player, (slice(0, h), slice(0, w))))
            for i in range(1, count + 1):
                ys, xs = np.nonzero(labels == i)
                cells = [(int(x), int(y)) for y, x in zip(ys, xs, strict=True)]
                small = rules._searched_handover(b, views, player, cells, mover, tie_rule)
                area = np.zeros(land.shape, dtype=bool)
                area[ys, xs] = True
                region = small.region
                big = rules._handover(b, player, region, area[region], mover, tie_rule)
                assert (small.cells == big.cells).all()
                assert (small.heir[area[region]] == big.heir[area[region]]).all(), (player, cells)
                compared += 1
    assert compared > 500


def test_a_lone_heir_takes_the_whole_pocket_as_the_layered_search_gives_it():
    """§2.6 with one encircler: the division's shortcut (the heir takes every cell of the 4-connected pocket)
    gives what the layer-by-layer search gives when a second heir with no cells near takes part, on random
    two-player boards, over arrays and by the search over cells."""
    from scipy import ndimage

    from motti import rules

    rng = np.random.default_rng(5)
    compared = 0
    for _ in range(80):
        b = small_random_board(rng, 2, players=3)   # player 3 owns no cell
        h, w = b.land.shape
        whole = (slice(0, h), slice(0, w))
        labels, count = ndimage.label(rules._passable(b, 1, whole))
        for i in range(1, count + 1):
            area = labels == i
            if not rules._heirs_around(b, whole, area, {1}):
                continue
            alone = rules._divide(b, whole, area, {2}, 1, "mover")
            layered = rules._divide(b, whole, area, {2, 3}, 1, "mover")
            assert (alone == layered).all() and (alone[area] == 2).all()
            ys, xs = np.nonzero(area)
            cells = [(int(x), int(y)) for y, x in zip(ys, xs, strict=True)]
            searched = rules._searched_handover(b, rules._views(b), 1, cells, 1, "mover")
            assert (searched.heir[area[searched.region]] == 2).all()
            compared += 1
    assert compared > 100


def test_reach_is_the_land_a_capital_holds_together() -> None:
    # Player 1's capital (0,0). Player 2's wall (2,0),(2,1),(2,2) is occupied: player 1 reaches its own cells
    # left of it and player 2's open cell (1,2), but not its cell (3,2) behind the wall (spec §2.5). Player 1
    # occupies nothing, so player 2 passes through all of its land.
    board = parse_map("motti-map 1\nsize 4 3\nplayers 2\ncapital 1 0 0\ncapital 2 3 0\ngrid\n"
                      "aaBb\naaBb\nabBa\n").board
    assert reach(board, 1).astype(int).tolist() == [[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 0, 0]]
    assert reach(board, 2).all()

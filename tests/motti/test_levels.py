"""motti's three computer levels (motti/levels.py, motti/ai.py, motti/search.py): the evaluation fix, the
capital-window play of ``hard`` with its exact odds, legal moves at every level, the command line and the
worker thread."""

from __future__ import annotations

import random
import re
from fractions import Fraction

import numpy as np
import pytest

from common.cli import UsageError
from common.loop import Command, Inbox
from motti import ai, cli, evaluate, levels, search
from motti.compose import Composer
from motti.generate import generate
from motti.mapfile import parse_map
from motti.rules import Action, Game, Reset
from motti.thinking import SOURCE, Thinker

#: The search budget of the medium level in these tests (its default is search.DEFAULT_BUDGET).
SEARCH_BUDGET = 4


class Draws(random.Random):
    """A game rng whose every attack draws *draw*."""

    def __init__(self, draw: int) -> None:
        super().__init__(0)
        self.draw = draw

    def randrange(self, *args: object, **kwargs: object) -> int:
        return self.draw


def header(w: int, h: int, capitals: list[tuple[int, int]]) -> str:
    lines = ["motti-map 1", f"size {w} {h}", f"players {len(capitals)}"]
    lines += [f"capital {k} {x} {y}" for k, (x, y) in enumerate(capitals, start=1)]
    return "\n".join([*lines, "grid"]) + "\n"


def game_of(text: str, **kwargs) -> Game:
    return Game(parse_map(text).board, random.Random(0), **kwargs)


def move(game: Game, level: str, rng: random.Random) -> tuple:
    if level == "medium":
        return search.choose_action(game, rng, SEARCH_BUDGET)
    return levels.choose_action(game, rng, level)


# ------------------------------------------------------------------------------------------ medium: the fix


def test_conquering_a_ring_cell_scores_positively() -> None:
    # Player 2's capital (4,1) is occupied; player 1's wall (2,1) can attack (3,1), a cell of its ring. Owning
    # that cell is what lets player 1 strike after the next reset, so it must score above the board before.
    text = header(6, 3, [(0, 1), (4, 1)]) + "aaabbb\naaAbBb\naaabbb\n"
    game = game_of(text, reset_rule="strict")
    before = evaluate.evaluate(game, 1)
    after = evaluate.clone(game)
    after.attack([(3, 1)], draw=0)
    assert after.board.owner[1, 3] == 1
    assert evaluate.evaluate(after, 1) > before
    values = dict((cell, value) for value, cell in ai.Planner(game, random.Random(1)).attack_values())
    assert values[(3, 1)] > 0


# ------------------------------------------------------------------------------------------ the exact strike


def reset_position(ring: int) -> Game:
    """Right after a reset (nothing occupied), player 1 to move with 5 attacks left, owning *ring* of the four
    cells next to player 2's capital (4,2); its own capital (0,0) lies beyond the sea."""
    rows = [list(row) for row in ("a......", "....b..", "...bbb.", "....b..", ".......")]
    for x, y in [(3, 2), (5, 2), (4, 1), (4, 3)][:ring]:
        rows[y][x] = "a"
    text = header(7, 5, [(0, 0), (4, 2)]) + "\n".join("".join(r) for r in rows) + "\n"
    return game_of(text, attacks=5, reset_rule="strict")


def capture_count(game: Game, rng: random.Random, seen: dict[tuple, int]) -> int:
    """Over every sequence of the remaining draws of the turn (6 per attack), how many capture player 2's
    capital with hard playing player 1. A game over or a passed turn stands for all the sequences that share
    its draws so far; positions reached by several sequences are played once (*seen*)."""
    key = (game.board.owner.tobytes(), game.board.occupied.tobytes(), game.attacks_left)
    if key in seen:
        return seen[key]
    action = search.choose_action(game, rng, 0)
    assert action[0] == "attack"
    count = 0
    for draw in range(6):
        child = search.clone(game, Draws(draw))
        child.apply(action)
        left = child.attacks_left if child.current_player == 1 else 0
        if child.winner == 1:
            count += 6 ** left
        elif left:
            count += capture_count(child, rng, seen)
    seen[key] = count
    return count


@pytest.mark.parametrize(("ring", "odds"), [(1, 0.196), (2, 0.328), (3, 0.413), (4, 0.466)])
def test_the_strike_after_a_reset_captures_with_the_exact_odds(ring: int, odds: float) -> None:
    captured = Fraction(capture_count(reset_position(ring), random.Random(1), {}), 6 ** 5)
    assert captured == search.strike_odds(5, ring)
    assert round(float(captured), 3) == odds


def test_strike_odds_of_a_whole_turn() -> None:
    assert round(float(search.strike_odds(6, 4)), 3) == 0.554
    assert search.strike_odds(3, 0, True) == 1 - Fraction(5, 6) ** 3
    assert search.strike_odds(5, 0) == 0


def test_the_strike_crosses_the_ring_then_the_capital() -> None:
    game = reset_position(2)
    verb, cells = search.choose_action(game, random.Random(1), 0)
    assert verb == "attack" and set(cells[:2]) == {(3, 2), (5, 2)}
    game = search.clone(game, Draws(0))
    game.apply((verb, cells))
    verb, cells = search.choose_action(game, random.Random(1), 0)
    assert verb == "attack" and cells[0] == (4, 2)


# ------------------------------------------------------------------------------------- hard: capital windows


def test_hard_takes_a_capital_by_guerilla() -> None:
    text = header(6, 3, [(0, 0), (3, 1)]) + "aaAbbb\naaabbb\naaabbb\n"
    assert search.choose_action(game_of(text), random.Random(1), 4) == ("guerilla", (3, 1))


def test_hard_defends_its_capital_when_the_enemy_holds_a_ring_cell() -> None:
    # Player 2 owns (2,1), next to player 1's free capital (1,1); player 1 has no strike of its own.
    text = header(7, 3, [(1, 1), (5, 1)]) + "aaabbbb\naabbbbb\naaabbbb\n"
    verb, cells = search.choose_action(game_of(text, reset_rule="strict"), random.Random(1), 4)
    assert verb == "defend" and cells[0] == (1, 1)


def test_hard_takes_a_certain_guerilla_onto_an_enemy_ring_cell() -> None:
    # Player 2's capital (4,1) is occupied; player 1's wall (2,0) is diagonal to (3,1), a ring cell of it.
    text = header(6, 3, [(0, 2), (4, 1)]) + "aaAbbb\naaabBb\naaabbb\n"
    game = game_of(text, reset_rule="strict")
    assert search.choose_action(game, random.Random(1), 4) == ("guerilla", (3, 1))


def test_hard_brings_the_reset_first_when_the_window_is_its_own() -> None:
    # Under strict only (2,1) holds the reset back (player 1 reaches it from its wall (1,1)); player 1 owns
    # (4,1), a ring cell of player 2's occupied capital (5,1). Conquering (2,1) resets the board with player 1
    # to move, so the first attack crosses it first.
    text = header(7, 3, [(0, 0), (5, 1)]) + "AABBBBB\nAAbBaBB\nAABBBBB\n"
    game = game_of(text, reset_rule="strict")
    assert search._reset_triggers(game, 1) == [(2, 1)]
    verb, cells = search.choose_action(game, random.Random(1), 0)
    assert verb == "attack" and cells[0] == (2, 1)


def test_hard_brings_the_reset_only_with_attacks_enough_to_strike() -> None:
    # The position above later in the turn: with 5 attacks left the strike after a reset (4 attacks) is worth
    # it, with 3 left (2 attacks, odds 1/36 against 0.196 at the start of its next turn) it is not, so (2,1)
    # is left alone and player 1 only fills its own (4,1).
    text = header(7, 3, [(0, 0), (5, 1)]) + "AABBBBB\nAAbBaBB\nAABBBBB\n"
    early = search.choose_action(game_of(text, reset_rule="strict", attacks=5), random.Random(1), 0)
    late = search.choose_action(game_of(text, reset_rule="strict", attacks=3), random.Random(1), 0)
    assert early[1][0] == (2, 1) and late == ("attack", ((4, 1),))


def test_hard_brings_the_reset_when_nothing_else_is_left_to_attack() -> None:
    # Every cell is occupied but player 1's (1,1), which player 2 reaches only diagonally from (2,2): player 2
    # cannot attack it, and a Guerilla onto it is encircled straight back. Player 2 owns (3,0), a ring cell of
    # player 1's capital (2,0), so the reset hands it a window; but passing instead, as both players would
    # for ever, never ends the game. At a fresh turn player 1 attacks (1,1) and brings the reset.
    text = header(5, 3, [(2, 0), (4, 1)]) + ".AABB\nAaABB\n.ABBB\n"
    for budget in (0, 4):
        game = game_of(text, reset_rule="strict")
        assert search._reset_triggers(game, 1) == [(1, 1)] and search._ring_counts(game, 1) == (0, 1)
        assert search.choose_action(game, random.Random(1), budget) == ("attack", ((1, 1),))
        events = game.attack([(1, 1)], draw=0)
        assert any(isinstance(event, Reset) for event in events)


def test_hard_keeps_the_defence_that_does_not_hand_over_a_window() -> None:
    # Player 2's wall (3,1) is a ring cell of player 1's free capital (2,1) and reaches (2,0) and (2,2) too.
    # Defending all three would leave nobody a cell to take: the reset would free the capital for player 2's
    # whole next turn. The capital alone keeps (2,0) and (2,2) takeable and the capital occupied.
    text = header(7, 3, [(2, 1), (5, 1)]) + ".aa.bbb\n.aaBbbb\n.aa.bbb\n"
    game = game_of(text, reset_rule="strict")
    assert search._gives_window(game, 1, ("defend", ((2, 1), (2, 0), (2, 2))))
    assert not search._gives_window(game, 1, ("defend", ((2, 1),)))
    assert search.choose_action(game, random.Random(1), 0) == ("defend", ((2, 1),))


def test_hard_defends_its_capital_when_every_defence_brings_the_reset() -> None:
    # Player 2's wall (3,1) is a ring cell of player 1's free capital (2,1) and reaches nothing else of player
    # 1's; occupying the capital leaves nobody a cell to take, so every defence brings the reset and hands
    # player 2 a window. Player 2's Guerilla onto the free capital would be surer: hard defends all the same
    # (docs/motti.md, the hard level).
    text = header(5, 3, [(2, 1), (4, 1)]) + ".a..b\n.aaBb\n.a..b\n"
    game = game_of(text, reset_rule="strict")
    move = search.choose_action(game, random.Random(1), 0)
    assert move == ("defend", ((2, 1),))
    assert search._gives_window(game, 1, move)


def test_a_strike_guards_its_own_capital_with_the_spare_crosses() -> None:
    # Right after a reset player 1 owns two ring cells of player 2's capital (4,2), and player 2 owns (1,0),
    # a ring cell of player 1's capital (0,0): the strike's crosses are the two ring cells, then its capital.
    rows = ["ab.....", "a...b..", "...aba.", "....b..", "......."]
    text = header(7, 5, [(0, 0), (4, 2)]) + "\n".join(rows) + "\n"
    verb, cells = search.choose_action(game_of(text, attacks=5, reset_rule="strict"), random.Random(1), 0)
    assert verb == "attack" and set(cells[:2]) == {(3, 2), (5, 2)} and cells[2] == (0, 0)


def test_hard_occupies_its_capital_first_when_a_reset_leaves_it_free_mid_turn() -> None:
    # Right after a reset, 5 attacks left: player 2 owns (2,1), a ring cell of player 1's capital (1,1), and
    # would strike with its whole next turn. Player 1 has no strike of its own, so it crosses its capital and
    # its own ring cells first; the crosses left go on enemy cells.
    text = header(7, 3, [(1, 1), (5, 1)]) + "aaabbbb\naabbbbb\naaabbbb\n"
    game = game_of(text, attacks=5, reset_rule="strict")
    action, crosses = search.choose_action(game, random.Random(3), search.DEFAULT_BUDGET)
    assert action == "attack"
    assert crosses[0] == (1, 1)
    assert set(crosses[:4]) == {(1, 1), (0, 1), (1, 0), (1, 2)}


def test_hard_puts_its_free_crosses_on_enemy_cells() -> None:
    # Player 1's wall (2,0) can attack player 2's (3,0); whatever hard crosses of its own, an attack of fewer
    # than six crosses would leave draws that fail, so the enemy cell is crossed too.
    text = header(7, 3, [(0, 1), (5, 1)]) + "aaAbbbb\naaabbbb\naaabbbb\n"
    game = game_of(text, attacks=4, reset_rule="strict")
    action, crosses = search.choose_action(game, random.Random(4), search.DEFAULT_BUDGET)
    assert action == "attack"
    assert (3, 0) in crosses


# ----------------------------------------------------------------------------------------- every level


def legal(game: Game, action: tuple) -> bool:
    singles = set(game.legal_actions())
    verb = action[0]
    if verb in ("pass", "guerilla"):
        return action in singles
    cells = action[1]
    limit = 6 if verb == "attack" else 3
    return (len(set(cells)) == len(cells) <= limit and (verb == "attack" or bool(cells))
            and all((verb, (cell,)) in singles for cell in cells))


@pytest.mark.slow
@pytest.mark.parametrize("level", levels.LEVELS)
def test_each_level_makes_only_legal_moves(level: str) -> None:
    for seed, players in ((1, 2), (2, 3)):
        game = Game(generate(12, 9, players, random.Random(seed), distance_min=5.0), random.Random(seed),
                    reset_rule="strict")
        rng = random.Random(seed)
        for _ in range(60):
            if game.is_terminal():
                break
            action = move(game, level, rng)
            assert legal(game, action), (level, action)
            game.apply(action)


def test_the_search_budget_shrinks_with_the_land() -> None:
    small = Game(generate(20, 15, 2, random.Random(0)), random.Random(0))
    assert search.simulations(small, 48) == 48
    text = header(60, 20, [(0, 0), (59, 19)]) + ("a" * 30 + "b" * 30 + "\n") * 20   # 1200 land cells
    assert search.simulations(game_of(text), 48) == 24
    assert search.simulations(game_of(text), 3) == 0


def test_unknown_level_is_refused() -> None:
    game = Game(generate(12, 9, 2, random.Random(1), distance_min=5.0), random.Random(1))
    with pytest.raises(ValueError, match="level must be one of easy, medium, hard"):
        levels.choose_action(game, random.Random(1), "expert")


@pytest.mark.slow
def test_hard_is_deterministic_given_its_rng() -> None:
    def actions() -> list[tuple]:
        board = generate(12, 9, 2, random.Random(4), distance_min=5.0)
        game = Game(board, random.Random(4), reset_rule="strict")
        rng = random.Random(9)
        out = []
        for _ in range(25):
            out.append(search.choose_action(game, rng, 6))
            game.apply(out[-1])
        return out

    assert actions() == actions()


# --------------------------------------------------------------------------------------- the command line


def test_computer_levels_on_the_command_line() -> None:
    args = cli.build_parser().parse_intermixed_args(["two.map", "--computer", "2:hard,3:easy,4"])
    assert args.computer == {2: "hard", 3: "easy", 4: None} and args.level is None
    args = cli.build_parser().parse_intermixed_args(["two.map", "--computer", "2", "--level", "hard"])
    assert args.computer == {2: None} and args.level == "hard"


@pytest.mark.parametrize(("argv", "culprit"), [
    (["two.map", "--computer", "2:expert"], "'2:expert': the level is one of easy, medium, hard"),
    (["two.map", "--level", "expert"], "invalid choice: 'expert'"),
])
def test_bad_levels_are_one_line_errors(argv: list[str], culprit: str) -> None:
    with pytest.raises(UsageError, match=culprit):
        cli.build_parser().parse_intermixed_args(argv)


# -------------------------------------------------------------------------------------- the worker thread


def test_the_thinker_answers_through_the_inbox_and_drops_stale_answers() -> None:
    game = Game(generate(12, 9, 2, random.Random(2), distance_min=5.0), random.Random(2))
    inbox = Inbox()
    thinker = Thinker(inbox, {1: "easy"}, random.Random(3))
    thinker.start(game)
    answer = inbox.get(30)
    assert isinstance(answer, Command) and answer.source == SOURCE
    action = thinker.take(answer)
    assert action is not None and legal(game, action)
    thinker.start(game)
    thinker.cancel()
    stale = inbox.get(30)
    assert isinstance(stale, Command) and thinker.take(stale) is None
    assert game.legal_mask(Action.ATTACK).any()


@pytest.mark.slow
def test_the_loop_runs_on_while_the_computer_thinks_and_a_quit_meanwhile_drops_its_move() -> None:
    from motti.session import Session

    game = Composer(Game(generate(20, 15, 3, random.Random(5)), random.Random(5), turn=2))
    inbox = Inbox()
    session = Session(game, inbox, computer={2: "hard"}, rng=random.Random(1), computer_delay=0.0)
    session.computer_move()                       # returns at once: the search runs in a worker thread
    assert session.thinker.busy and session.computer_pending
    session.after(game.defeat([3], cause="quit"))   # player 3 quits while player 2 thinks
    assert not session.thinker.busy
    stale_seen = fresh_seen = False
    while not (stale_seen and fresh_seen):
        event = inbox.get(60)
        assert event is not None
        before = (game.board.owner.copy(), game.board.occupied.copy(), game.current_player, game.attacks_left)
        session.handle(event)                      # the timer starts a new search
        if isinstance(event, Command) and event.source == SOURCE:
            after = (game.board.owner, game.board.occupied, game.current_player, game.attacks_left)
            unchanged = all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))
            if event.args[0] == 1:                 # the answer of the search the quit made stale: dropped
                stale_seen = True
                assert unchanged
            else:
                fresh_seen = True
                assert not unchanged


@pytest.mark.slow
@pytest.mark.parametrize("level", levels.LEVELS)
def test_a_headless_game_of_each_level_ends_with_max_turns(level: str, capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    code = cli.run(["generate", "-w", "12", "-h", "9", "-d", "5", "--seed", "3", "--computer",
                    f"1:{level},2:{level}", "--headless", "--max-turns", "8"])
    line = capsys.readouterr().out.strip()
    assert code == 0
    turns = re.fullmatch(r"(?:P[12] wins|draw)(?: on land)? after (\d+) turns(?::.*)?", line)
    assert turns is not None, line
    assert int(turns.group(1)) <= 8


@pytest.mark.slow
def test_a_headless_match_plays_the_same_game_as_the_windows(capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Same seed, same game (the --seed option): the front end's thinker and a headless match make the same
    decisions from the same generator."""
    from motti.session import Session

    argv = ["generate", "-w", "12", "-h", "9", "-d", "5", "--seed", "3", "--computer", "1:hard,2:medium",
            "--max-turns", "6"]
    boards: list[tuple[str, np.ndarray, np.ndarray]] = []

    def windows(args: object, rules: Game, levels: dict[int, str], rng: random.Random, last_turn=None) -> int:
        # The game loop of the windows and the console, with nobody watching.
        game = Composer(rules)
        inbox = Inbox()
        session = Session(game, inbox, computer=levels, rng=rng, computer_delay=0.0)
        session.schedule_computer()
        while not game.is_terminal():
            event = inbox.get(60)
            assert event is not None
            session.handle(event)
        boards.append(("windows", rules.board.owner.copy(), rules.board.occupied.copy()))
        return 0

    monkeypatch.setattr(cli, "_play", windows)
    assert cli.run(argv) == 0
    real = cli._run_headless

    def headless(args: object, rules: Game, levels: dict[int, str], rng: random.Random,
                 last_turn: object = None) -> int:
        code = real(args, rules, levels, rng, last_turn)  # type: ignore[arg-type]
        boards.append(("headless", rules.board.owner.copy(), rules.board.occupied.copy()))
        return code

    monkeypatch.setattr(cli, "_run_headless", headless)
    assert cli.run([*argv, "--headless"]) == 0
    capsys.readouterr()
    (_, owner, occupied), (_, owner2, occupied2) = boards
    assert np.array_equal(owner, owner2) and np.array_equal(occupied, occupied2)

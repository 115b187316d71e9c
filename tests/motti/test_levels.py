"""motti's three computer levels through their one registry (motti/levels.py; ``easy`` is motti/march.py,
``medium`` and ``hard`` motti/rollout.py): the capital windows every level plays, a strike after a reset with
the exact odds, legal moves and determinism at every level, games that end, the command line and the worker
thread."""

from __future__ import annotations

import random
import re
from fractions import Fraction

import numpy as np
import pytest

from common.cli import UsageError
from common.loop import Command, Inbox
from motti import cli, levels, march
from motti.compose import Composer
from motti.generate import generate
from motti.mapfile import parse_map
from motti.rules import Action, Game, Reset, TurnPassed
from motti.thinking import SOURCE, Thinker


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


def drawing(game: Game, draw: int) -> Game:
    """A copy of *game* whose every attack draws *draw* (0: the first cross is conquered)."""
    twin = game.clone()
    twin.rng = Draws(draw)
    return twin


# ------------------------------------------------------------------------------------------ capital windows


@pytest.mark.parametrize("level", levels.LEVELS)
def test_every_level_takes_a_capital_by_guerilla(level: str) -> None:
    # Player 2's capital (3,1) is unoccupied and diagonal to player 1's occupied (2,0): a certain capture.
    text = header(6, 3, [(0, 0), (3, 1)]) + "aaAbbb\naaabbb\naaabbb\n"
    game = game_of(text)
    assert levels.choose_action(game, random.Random(1), level) == ("guerilla", (3, 1))
    game.guerilla((3, 1))
    assert game.winner == 1


@pytest.mark.parametrize("level", levels.LEVELS)
def test_every_level_defends_its_capital_next_to_an_enemy_wall(level: str) -> None:
    # Player 1's capital (2,1) is unoccupied and orthogonally next to player 2's occupied (3,1).
    text = header(6, 3, [(2, 1), (5, 1)]) + "aaabbb\naaaBbb\naaabbb\n"
    verb, cells = levels.choose_action(game_of(text), random.Random(1), level)
    assert verb == "defend"
    assert cells[0] == (2, 1)
    assert set(cells) <= {(2, 0), (2, 1), (2, 2)}   # its cells next to the enemy wall (3,1)


@pytest.mark.parametrize(("level", "verb"), [("easy", "attack"), ("medium", "defend"), ("hard", "defend")])
def test_medium_and_hard_defend_their_capital_against_a_wall_three_cells_away(level: str, verb: str) -> None:
    # Player 2's wall (4,0) is three cells from player 1's open capital (1,1). Easy waits until it is two
    # away and attacks; medium and hard defend already (their playouts then prefer (3,0), the cell that wall
    # could attack, with two more). From three cells away easy took hard's capital in turn 3 of `motti
    # generate --seed 1`; defending from there won medium more games against easy (bench/README.md).
    text = header(7, 3, [(1, 1), (6, 1)]) + "aaaaBbb\naaaabbb\naaaabbb\n"
    assert levels.choose_action(game_of(text), random.Random(1), level)[0] == verb


@pytest.mark.parametrize("level", levels.LEVELS)
def test_every_level_defends_its_capital_when_the_enemy_owns_a_cell_next_to_it(level: str) -> None:
    # Player 2 owns (2,1), next to player 1's free capital (1,1); player 1 has no strike of its own.
    text = header(7, 3, [(1, 1), (5, 1)]) + "aaabbbb\naabbbbb\naaabbbb\n"
    verb, cells = levels.choose_action(game_of(text, reset_rule="strict"), random.Random(1), level)
    assert verb == "defend" and cells[0] == (1, 1)


@pytest.mark.parametrize("level", levels.LEVELS)
def test_every_level_defends_its_capital_when_every_defence_brings_the_reset(level: str) -> None:
    # Player 2's wall (3,1) is next to player 1's free capital (2,1) and reaches nothing else of player 1's;
    # occupying the capital leaves nobody a cell to take, so the defence brings the reset and frees the
    # capital for player 2's next turn. Player 2's Guerilla onto the free capital would be surer: every level
    # defends all the same.
    text = header(5, 3, [(2, 1), (4, 1)]) + ".a..b\n.aaBb\n.a..b\n"
    game = game_of(text, reset_rule="strict")
    move = levels.choose_action(game, random.Random(1), level)
    assert move[0] == "defend" and move[1][0] == (2, 1)
    assert any(isinstance(event, Reset) for event in game.apply(move))


@pytest.mark.parametrize("level", levels.LEVELS)
def test_every_attack_crosses_an_attackable_enemy_capital_first(level: str) -> None:
    # After its first attack, player 1 may only attack; player 2's capital (3,1) is next to its wall (2,1).
    text = header(6, 3, [(0, 0), (3, 1)]) + "aaabbb\naaAbbb\naaabbb\n"
    verb, cells = levels.choose_action(game_of(text, attacks=5), random.Random(1), level)
    assert verb == "attack"
    assert cells[0] == (3, 1) and len(cells) == 6


@pytest.mark.parametrize("level", levels.LEVELS)
def test_after_a_reset_the_ring_cell_next_to_the_free_enemy_capital_is_crossed_first(level: str) -> None:
    # All land is free (as after a reset, §2.8) and player 1 is attacking: it owns (4,1), next to player 2's
    # free capital (5,1). Occupying (4,1) is what makes that capital attackable in the same turn.
    text = header(6, 3, [(0, 0), (5, 1)]) + "aaaabb\naaaaab\naaaabb\n"
    verb, cells = levels.choose_action(game_of(text, attacks=5), random.Random(1), level)
    assert verb == "attack"
    assert cells[0] == (4, 1)


@pytest.mark.parametrize("level", levels.LEVELS)
def test_every_level_puts_its_free_crosses_on_enemy_cells(level: str) -> None:
    # Player 1's wall (2,0) can attack player 2's (3,0); an attack of fewer than six crosses would leave draws
    # that fail, so whatever it crosses of its own, the enemy cell is crossed too.
    text = header(7, 3, [(0, 1), (5, 1)]) + "aaAbbbb\naaabbbb\naaabbbb\n"
    action, crosses = levels.choose_action(game_of(text, attacks=4, reset_rule="strict"), random.Random(4),
                                           level)
    assert action == "attack"
    assert (3, 0) in crosses and len(crosses) == 6


@pytest.mark.parametrize("level", levels.LEVELS)
def test_every_level_brings_the_reset_when_nothing_else_is_left_to_attack(level: str) -> None:
    # Every cell is occupied but player 1's (1,1), which player 2 reaches only diagonally from (2,2): player 2
    # cannot attack it, and a Guerilla onto it is encircled straight back. Player 2 owns (3,0), next to
    # player 1's capital (2,0), so the reset hands it a window; but passing instead, as both players would
    # for ever, never ends the game. At a fresh turn player 1 attacks (1,1) and brings the reset.
    text = header(5, 3, [(2, 0), (4, 1)]) + ".AABB\nAaABB\n.ABBB\n"
    game = game_of(text, reset_rule="strict")
    assert levels.choose_action(game, random.Random(1), level) == ("attack", ((1, 1),))
    events = game.attack([(1, 1)], draw=0)
    assert any(isinstance(event, Reset) for event in events)


def test_hard_occupies_its_capital_first_when_a_reset_leaves_it_free_mid_turn() -> None:
    # Right after a reset, 5 attacks left: player 2 owns (2,1), next to player 1's capital (1,1), and would
    # strike with its whole next turn. The guarded march hard attacks with crosses the capital first; medium
    # attacks as easy's march, whose ties put the capital first or third (the same odds, 1 in 6 an attack).
    text = header(7, 3, [(1, 1), (5, 1)]) + "aaabbbb\naabbbbb\naaabbbb\n"
    firsts: set[object] = set()
    for seed in range(4):
        game = game_of(text, attacks=5, reset_rule="strict")
        hard = levels.choose_action(game, random.Random(seed), "hard")
        assert hard[0] == "attack" and hard[1][0] == (1, 1)
        medium = levels.choose_action(game, random.Random(seed), "medium")
        assert medium == march.choose_action(game, random.Random(seed)) and (1, 1) in medium[1]
        firsts.add(medium[1][0])
    assert firsts == {(1, 1), (2, 2)}


# ------------------------------------------------------------------------------------------ the exact strike


def reset_position(ring: int) -> Game:
    """Right after a reset (nothing occupied), player 1 to move with 5 attacks left, owning *ring* of the four
    cells next to player 2's capital (4,2); its own capital (0,0) lies beyond the sea."""
    rows = [list(row) for row in ("a......", "....b..", "...bbb.", "....b..", ".......")]
    for x, y in [(3, 2), (5, 2), (4, 1), (4, 3)][:ring]:
        rows[y][x] = "a"
    text = header(7, 5, [(0, 0), (4, 2)]) + "\n".join("".join(r) for r in rows) + "\n"
    return game_of(text, attacks=5, reset_rule="strict")


def best_odds(attacks: int, ring: int, capital_open: bool = False) -> Fraction:
    """The exact chance that a strike takes a free capital within *attacks* attacks when it crosses all its
    *ring* cells next to the capital until one is occupied, then the capital: each attack conquers each of
    its crosses with probability 1/6 (§2.2)."""
    if attacks <= 0:
        return Fraction(0)
    if capital_open:
        return 1 - Fraction(5, 6) ** attacks
    if ring <= 0:
        return Fraction(0)
    hit = Fraction(ring, 6)
    return hit * best_odds(attacks - 1, ring - 1, True) + (1 - hit) * best_odds(attacks - 1, ring, False)


def capture_count(game: Game, level: str, rng: random.Random, seen: dict[tuple, int]) -> int:
    """Over every sequence of the remaining draws of the turn (6 per attack), how many capture player 2's
    capital with *level* playing player 1. A game over or a passed turn stands for all the sequences that
    share its draws so far; positions reached by several sequences are played once (*seen*)."""
    key = (game.board.owner.tobytes(), game.board.occupied.tobytes(), game.attacks_left)
    if key in seen:
        return seen[key]
    action = levels.choose_action(game, rng, level)
    assert action[0] == "attack"
    count = 0
    for draw in range(6):
        child = drawing(game, draw)
        child.apply(action)
        left = child.attacks_left if child.current_player == 1 else 0
        if child.winner == 1:
            count += 6 ** left
        elif left:
            count += capture_count(child, level, rng, seen)
    seen[key] = count
    return count


@pytest.mark.parametrize("level", levels.LEVELS)
@pytest.mark.parametrize(("ring", "odds"), [(1, 0.196), (2, 0.328), (3, 0.413), (4, 0.466)])
def test_the_strike_after_a_reset_captures_with_the_exact_odds(level: str, ring: int, odds: float) -> None:
    captured = Fraction(capture_count(reset_position(ring), level, random.Random(1), {}), 6 ** 5)
    assert captured == best_odds(5, ring)
    assert round(float(captured), 3) == odds


@pytest.mark.parametrize("level", levels.LEVELS)
def test_the_strike_crosses_the_ring_then_the_capital(level: str) -> None:
    game = reset_position(2)
    verb, cells = levels.choose_action(game, random.Random(1), level)
    assert verb == "attack" and set(cells[:2]) == {(3, 2), (5, 2)}
    game = drawing(game, 0)
    game.apply((verb, cells))
    verb, cells = levels.choose_action(game, random.Random(1), level)
    assert verb == "attack" and cells[0] == (4, 2)


@pytest.mark.parametrize("level", levels.LEVELS)
def test_a_strike_after_a_reset_also_crosses_its_own_capital(level: str) -> None:
    # Right after a reset player 1 owns two cells next to player 2's capital (4,2), and player 2 owns (1,0),
    # next to player 1's capital (0,0): the strike crosses the two ring cells and its own capital.
    rows = ["ab.....", "a...b..", "...aba.", "....b..", "......."]
    text = header(7, 5, [(0, 0), (4, 2)]) + "\n".join(rows) + "\n"
    verb, cells = levels.choose_action(game_of(text, attacks=5, reset_rule="strict"), random.Random(1), level)
    assert verb == "attack" and {(3, 2), (5, 2), (0, 0)} <= set(cells)


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
            action = levels.choose_action(game, rng, level)
            assert legal(game, action), (level, action)
            game.apply(action)


def test_unknown_level_is_refused() -> None:
    game = Game(generate(12, 9, 2, random.Random(1), distance_min=5.0), random.Random(1))
    with pytest.raises(ValueError, match="level must be one of easy, medium, hard"):
        levels.choose_action(game, random.Random(1), "expert")


@pytest.mark.slow
@pytest.mark.parametrize("level", levels.LEVELS)
def test_each_level_is_deterministic_given_its_rng(level: str) -> None:
    def actions(seed: int) -> list[tuple]:
        board = generate(12, 9, 2, random.Random(4), distance_min=5.0)
        game = Game(board, random.Random(4), reset_rule="strict")
        rng = random.Random(seed)
        out = []
        for _ in range(25):
            out.append(levels.choose_action(game, rng, level))
            game.apply(out[-1])
        return out

    assert actions(9) == actions(9)
    assert actions(9) != actions(10)   # the generator is used: ties and playouts follow it


@pytest.mark.parametrize("level", levels.LEVELS)
def test_play_turn_plays_exactly_one_turn(level: str) -> None:
    game = Game(generate(20, 15, 2, random.Random(3)), random.Random(3))
    events = levels.play_turn(game, random.Random(4), level)
    assert game.current_player == 2
    assert sum(isinstance(e, TurnPassed) for e in events) == 1
    assert isinstance(events[-1], TurnPassed)


def computer_game(seed: int, level: str, turns: int) -> tuple[Game, int, int]:
    """*level* against itself on a generated 12x9 map (capitals at least 6 apart): (game, turns played,
    global resets)."""
    game = Game(generate(12, 9, 2, random.Random(seed), distance_min=6.0), random.Random(seed))
    rngs = {p: random.Random(seed * 31 + p) for p in (1, 2)}
    played = resets = 0
    while not game.is_terminal() and played < turns:
        player = game.current_player
        events = game.apply(levels.choose_action(game, rngs[player], level))
        resets += sum(isinstance(event, Reset) for event in events)
        played += game.current_player != player
    return game, played, resets


@pytest.mark.slow
@pytest.mark.parametrize("level", levels.LEVELS)
@pytest.mark.parametrize("seed", [4, 6])
def test_computer_games_end_with_a_winner(level: str, seed: int) -> None:
    # Two computer players of a level finish the game: a capital falls after a global reset (not a turn cap,
    # not a draw). bench/motti_selfplay.py and bench/motti_levels.py measure the default 20x15 size.
    game, played, resets = computer_game(seed, level, turns=1000)
    assert game.is_terminal(), f"{level}, seed {seed}: no winner after {played} turns ({resets} resets)"
    assert game.winner in (1, 2) and game.alive == [game.winner]
    assert resets >= 1   # only a reset frees an occupied capital
    assert game.returns()[game.winner - 1] == 1.0


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

    def windows(args: object, rules: Game, levels: dict[int, str], rng: random.Random, last_turn=None,
                turn_so_far=None) -> int:
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
                 last_turn: object = None, turn_so_far: object = None, chosen_seed: int | None = None) -> int:
        code = real(args, rules, levels, rng, last_turn, turn_so_far, chosen_seed)  # type: ignore[arg-type]
        boards.append(("headless", rules.board.owner.copy(), rules.board.occupied.copy()))
        return code

    monkeypatch.setattr(cli, "_run_headless", headless)
    assert cli.run([*argv, "--headless"]) == 0
    capsys.readouterr()
    (_, owner, occupied), (_, owner2, occupied2) = boards
    assert np.array_equal(owner, owner2) and np.array_equal(occupied, occupied2)

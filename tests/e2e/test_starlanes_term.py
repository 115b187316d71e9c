"""Star Lanes through a real terminal: pexpect drives the program in a pty, pyte renders what it draws.

TERM=xterm, ESCDELAY=25, arrow keys as xterm's keypad sequences (x11.md §Q7). Short games come from crafted
save files (``--resume``) or from computer players; the expected tables are computed with the rules module.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import re
import signal
import sys
import time
from pathlib import Path
from typing import ClassVar

import pexpect
import pyte
import pytest
from deadline import deadline, wait_until

from common.cli import as_typed
from starlanes import ai
from starlanes.rules import (
    CELLS,
    CELLS_1977,
    INIT_CASH,
    RULES_1977,
    Company,
    EndTurn,
    Game,
    Player,
    Trade,
    cell_index,
)
from starlanes.save import save_game

UP, DOWN, ESC = "\x1bOA", "\x1bOB", "\x1b"
DEADLINE = deadline(10)
#: How the game, started as python -m starlanes, names itself in the command that resumes a game.
STARTED = f"{as_typed(sys.executable)} -m starlanes"

# A minimal job-control shell: it runs the program in its own foreground process group, so that ^Z really
# stops it (a stop signal to an orphaned process group is discarded), prints "[stopped]" when it stops and
# resumes it in the foreground ("fg") when a line is typed.
JOB_SHELL = """
import os, signal, sys
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0)
    os.tcsetpgrp(0, os.getpid())
    signal.signal(signal.SIGTTOU, signal.SIG_DFL)
    os.execv(sys.executable, [sys.executable, "-m", "starlanes", *sys.argv[1:]])
try:
    os.setpgid(pid, pid)
except OSError:
    pass
while True:
    _, status = os.waitpid(pid, os.WUNTRACED)
    if not os.WIFSTOPPED(status):
        sys.exit(os.waitstatus_to_exitcode(status))
    os.tcsetpgrp(0, os.getpgrp())
    os.write(1, b"[stopped]\\r\\n")
    sys.stdin.readline()
    os.tcsetpgrp(0, pid)
    os.killpg(pid, signal.SIGCONT)
"""


class ScrollingScreen(pyte.Screen):
    """pyte's screen with SU and SD (``CSI n S``, ``CSI n T``: scroll the lines between the margins up or
    down), which ncurses sends to move a block of lines and pyte lacks."""

    def scroll_up(self, count: int = 1, *_: int, **__: object) -> None:
        y = self.cursor.y
        self.cursor.y = (self.margins or pyte.screens.Margins(0, self.lines - 1)).bottom
        for _line in range(max(count, 1)):
            self.index()
        self.cursor.y = y

    def scroll_down(self, count: int = 1, *_: int, **__: object) -> None:
        y = self.cursor.y
        self.cursor.y = (self.margins or pyte.screens.Margins(0, self.lines - 1)).top
        for _line in range(max(count, 1)):
            self.reverse_index()
        self.cursor.y = y


class ScrollingStream(pyte.ByteStream):
    csi: ClassVar[dict[str, str]] = {**pyte.ByteStream.csi, "S": "scroll_up", "T": "scroll_down"}


class Term:
    """The program in a pty of ``rows`` × ``cols``, with a pyte screen fed from its output."""

    def __init__(
        self, args: list[str], cwd: Path, rows: int = 25, cols: int = 80, job_shell: bool = False,
        term: str = "xterm",
    ) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "LINES", "COLUMNS")}
        # pyte ignores the VT100 line-drawing charset in UTF-8 mode: ncurses is to draw Unicode lines instead.
        env.update(TERM=term, ESCDELAY="25", LANG="C.UTF-8", LC_ALL="C.UTF-8", NCURSES_NO_UTF8_ACS="1")
        self.screen = ScrollingScreen(cols, rows)
        self.stream = ScrollingStream(self.screen)
        self.raw = b""
        argv = ["-c", JOB_SHELL, *args] if job_shell else ["-m", "starlanes", *args]
        self.child = pexpect.spawn(sys.executable, argv, env=env, cwd=str(cwd), dimensions=(rows, cols),
                                   timeout=DEADLINE)
        self.child.delaybeforesend = None

    def pump(self) -> None:
        while True:
            try:
                data = self.child.read_nonblocking(65536, timeout=0.05)
            except (pexpect.TIMEOUT, pexpect.EOF):
                return
            self.raw += data
            self.stream.feed(data)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait_for(self, pattern: str, within: float = DEADLINE) -> re.Match:
        """Pump output until the screen matches the regular expression ``pattern``."""
        end = time.monotonic() + within
        while True:
            self.pump()
            found = re.search(pattern, self.text())
            if found:
                return found
            if time.monotonic() > end or (not self.child.isalive() and not self.child.before):
                self.pump()
                found = re.search(pattern, self.text())
                if found:
                    return found
                raise AssertionError(f"{pattern!r} never appeared; screen:\n{self.text()}")

    def send(self, *keys: str) -> None:
        for key in keys:
            self.child.send(key)

    def game_over(self, within: float = DEADLINE) -> None:
        """Wait for the final standings drawn to their last line (curses sends a screen in several writes,
        the box's title first)."""
        self.wait_for(r"GAME OVER - Final Standings", within)
        self.wait_for(r"Press any key to continue\.", within)

    def chart(self) -> None:
        """Wait for the net worth chart drawn to its legend on the last row."""
        self.wait_for(r"Net worth per turn")
        end = time.monotonic() + DEADLINE
        while not self.screen.display[-1].strip():
            if time.monotonic() > end:
                raise AssertionError(f"the chart's legend never appeared; screen:\n{self.text()}")
            self.pump()

    def bytes_read(self) -> int:
        """Bytes the program has read so far (``rchar`` of /proc/PID/io; once it plays, only its keys)."""
        io = Path(f"/proc/{self.child.pid}/io").read_text()
        return int(re.search(r"^rchar: (\d+)$", io, re.M).group(1))

    def waiting_for_key(self) -> bool:
        """Whether the program, its output read, sleeps in poll or select: it waits for a key or a timer (a
        prompt with no timer waits in a read instead)."""
        self.pump()
        wchan = Path(f"/proc/{self.child.pid}/wchan").read_text()
        return process_state(self.child.pid) == "S" and ("poll" in wchan or "select" in wchan)

    def finish(self) -> int:
        """Wait for the program to exit; returns its status."""
        end = time.monotonic() + DEADLINE
        while self.child.isalive() and time.monotonic() < end:
            self.pump()
        self.pump()
        self.child.close()
        return self.child.exitstatus if self.child.exitstatus is not None else -self.child.signalstatus

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


@pytest.fixture
def terms(tmp_path):
    started: list[Term] = []

    def start(*args: str, rows: int = 25, cols: int = 80, job_shell: bool = False,
              term: str = "xterm") -> Term:
        term = Term(list(args), tmp_path, rows, cols, job_shell, term)
        started.append(term)
        return term

    yield start
    for term in started:
        term.close()


def played_history(worths: list[int], moves: int) -> list[list[int]]:
    """The history a game ``moves`` moves long writes on its way to the net worths ``worths``: the start's
    row ($6000 each) and a row a move ending at ``worths``, each worth growing by the same factor every move
    (so every row stays within what its turns can yield when the last row does)."""
    rows = [[INIT_CASH] * len(worths)]
    for move in range(1, moves):
        rows.append([round(INIT_CASH * math.exp(math.log(worth / INIT_CASH) * move / moves)) if worth
                     else INIT_CASH * (moves - move) // moves for worth in worths])
    return [*rows, list(worths)] if moves else rows


def crafted(tmp_path: Path, name: str, game: Game, controllers: list[str] | None = None) -> str:
    """Save the hand-made position ``game``; set after ``game.moves`` moves, it gets the history rows such a
    game writes (:func:`played_history`), as a save must hold a row for the start and one a move."""
    if len(game.history) != game.moves + 1:
        game.history = played_history(game.net_worths(), game.moves)
    path = tmp_path / name
    save_game(path, game, controllers or ["human"] * len(game.players))
    return str(path)


def money_row(name: str) -> str:
    return re.escape(name) + r"\s+\$(\d+)\s+\$(\d+)\s+\$(\d+)"


# ------------------------------------------------------------------------------------------------ a full game


def test_full_seeded_game_from_player_prompt_to_final_standings(terms):
    term = terms("--seed", "7")
    term.wait_for(r"How many players \(1-4\)\?")
    term.send("7", "2")
    term.wait_for(r"Who plays player 1\?")
    term.send("3")
    term.wait_for(r"Player 1, enter your name:")
    term.wait_for(r"Computer 1_")
    term.send("\x7f" * 10, "\r")
    term.wait_for(r"A name is needed\.")
    term.send("Ann\r")
    term.wait_for(r"Who plays player 2\?")
    term.send("1")
    term.wait_for(r"Player 2, enter your name:")
    term.send("Bob\r")
    term.game_over(within=deadline(30))

    expected = Game.new(["Ann", "Bob"], random.Random(7))
    levels = ["hard", "easy"]
    while not expected.is_terminal():
        for action in ai.choose(expected, levels[expected.current]):
            expected.apply(action)
    text = term.text()
    positions = []
    for player in expected.standings():
        found = re.search(money_row(expected.players[player].name), text)
        assert found, text
        assert [int(v) for v in found.groups()] == [
            expected.stock_value(player), expected.players[player].cash, expected.net_worth(player)]
        positions.append(found.start())
    assert positions == sorted(positions)
    assert f"Available company sectors remaining: {max(expected.sectors_remaining(), 0)}" in text
    term.send("x")
    term.chart()
    term.send("x")
    assert term.finish() == 0
    assert b"Thank you for playing Star Lanes!" in term.raw


# ---------------------------------------------------------------------------------------------------- T26–T28


def trading_save(tmp_path: Path) -> str:
    grid = ["."] * CELLS
    grid[cell_index(0, 0)] = "A"
    grid[cell_index(2, 0)] = "B"
    companies = [Company(1, 300), Company(1, 700)] + [Company() for _ in range(3)]
    players = [Player("Ann", 1000, [2, 4, 0, 0, 0]), Player("Bob")]
    game = Game(grid, players, random.Random(3), companies, current=0, phase="trade")
    return crafted(tmp_path, "trade.json", game)


def test_t26_buy_max_then_esc_is_not_swallowed(terms, tmp_path):
    term = terms("--resume", trading_save(tmp_path))
    term.wait_for(r"Trade: up/down")
    term.send("\r")
    term.wait_for(r"Amount \(-2 to 3\)")
    term.send("5\r")
    term.wait_for(r"Invalid amount!")
    term.wait_for(r"Ann \(Cash: \$1000\)")
    term.send("\r")
    term.wait_for(r"Amount \(-2 to 3\)")
    term.send("m")
    term.wait_for(r"Ann \(Cash: \$100\)")
    assert re.search(r"Altair Starways\s+\$300\s+5\b", term.text())
    term.send(ESC)
    term.wait_for(r"Bob, enter your move")


def test_t26_sell_all(terms, tmp_path):
    term = terms("--resume", trading_save(tmp_path))
    term.wait_for(r"Trade: up/down")
    term.send("\r")
    term.wait_for(r"Amount \(-2 to 3\)")
    term.send("n")
    term.wait_for(r"Ann \(Cash: \$1600\)")
    assert re.search(r"Altair Starways\s+\$300\s+0\b", term.text())
    term.send(ESC)
    term.wait_for(r"Bob, enter your move")


def test_t26_sell_one_of_the_second_company_then_invalid(terms, tmp_path):
    term = terms("--resume", trading_save(tmp_path))
    term.wait_for(r"Trade: up/down")
    term.send(DOWN, "\r")
    term.wait_for(r"Amount \(-4 to 1\)")
    term.send("-1\r")
    term.wait_for(r"Ann \(Cash: \$1700\)")
    term.send("\r")
    term.wait_for(r"Amount \(-3 to 2\)")
    term.send("3\r")
    term.wait_for(r"Invalid amount!")
    term.wait_for(r"Ann \(Cash: \$1700\)")
    assert re.search(r"Beetlejuice, Ltd\.\s+\$700\s+3\b", term.text())
    term.send("j", "\r")
    term.wait_for(r"Amount \(-2 to 5\)")
    term.send(ESC)
    term.wait_for(r"Trade: up/down")
    assert "Cash: $1700" in term.text()


def move_save(tmp_path: Path, a_size: int = 3, cash: int = 6000, price: int = 2000, held: int = 10,
              moves: int = 0) -> tuple[str, Game]:
    """Ann at her move prompt, holding ``held`` shares of A (``a_size`` sectors at ``price``); ``moves`` turns
    played before (a save refuses more money than they can yield)."""
    grid = ["."] * CELLS
    for x in range(3):
        grid[cell_index(x, 5)] = "A"
    grid[cell_index(8, 8)] = "*"
    candidates = [cell_index(3, 5), cell_index(9, 1), cell_index(8, 7), cell_index(6, 2), cell_index(0, 0)]
    # The sectors beyond the first 3 fill the map from the bottom right, around the candidates and the star.
    spare = [c for c in reversed(range(CELLS)) if grid[c] == "." and c not in candidates]
    for cell in spare[:a_size - 3]:
        grid[cell] = "A"
    players = [Player("Ann", cash, [held, 0, 0, 0, 0]), Player("Bob")]
    companies = [Company(a_size, price)] + [Company() for _ in range(4)]
    game = Game(grid, players, random.Random(5), companies, current=0, phase="move", candidates=candidates,
                moves=moves)
    return crafted(tmp_path, "move.json", game), game


def map_rows(term: Term) -> list[str]:
    return term.screen.display[2:12]


def test_t27_the_game_ends_at_65_sectors_without_trading(terms, tmp_path):
    path, _ = move_save(tmp_path, a_size=64)
    term = terms("--resume", path)
    term.wait_for(r"Ann, enter your move \[1-5\]")
    term.send("s")
    term.wait_for(r"Available company sectors remaining: 1")
    term.send("x")
    term.wait_for(r"Ann, enter your move")
    term.send("1")
    term.game_over()
    found = re.search(money_row("Ann"), term.text())
    assert [int(v) for v in found.groups()] == [21000, 7050, 28050]
    assert "Available company sectors remaining: 0" in term.text()
    assert "Trade:" not in term.text()
    term.send("x")
    term.chart()
    term.send("x")
    assert term.finish() == 0


def test_t28_ctrl_c_then_no_never_plays_a_move(terms, tmp_path):
    path, _ = move_save(tmp_path)
    term = terms("--resume", path)
    term.wait_for(r"Ann, enter your move \[1-5\]")
    before = map_rows(term)
    term.send("\x03")
    term.wait_for(r"Really Quit\? \(y/n\)")
    term.send("n")
    term.wait_for(r"Ann, enter your move \[1-5\]")
    assert "Really Quit" not in term.text()
    assert map_rows(term) == before
    term.send("3")
    term.wait_for(r"Its name is Beetlejuice, Ltd\.")
    term.send("x")
    term.wait_for(r"Trade: up/down")
    assert term.screen.display[1 + 1 + 7][1 + 2 + 3 * 8] == "B"


# ------------------------------------------------------------------------------------------------ quitting


@pytest.mark.parametrize("quit_key", ["q", "\x03"])
def test_quit_yes_shows_final_standings_and_exits_zero(terms, tmp_path, quit_key):
    path, _ = move_save(tmp_path)
    term = terms("--resume", path)
    term.wait_for(r"Ann, enter your move")
    term.send(quit_key)
    term.wait_for(r"Really Quit\? \(y/n\)")
    term.send("y")
    term.game_over()
    assert [int(v) for v in re.search(money_row("Ann"), term.text()).groups()] == [20000, 6000, 26000]
    # why the game ended and how to go on with it (a long path wraps, within itself too, at the edge)
    shown = "".join("".join(line.strip("│ ") for line in term.screen.display).split())
    expected = ("The game was left unfinished: Ann quit. It is saved: go on with it by "
                f"{STARTED} --resume {path} Press any key to continue.")
    assert "".join(expected.split()) in shown, term.text()
    term.send("x")
    term.chart()
    term.send("x")
    assert term.finish() == 0
    assert b"Thank you for playing Star Lanes!" in term.raw


def test_quit_no_goes_back_and_quit_works_while_trading(terms, tmp_path):
    term = terms("--resume", trading_save(tmp_path))
    term.wait_for(r"Trade: up/down")
    term.send("q")
    term.wait_for(r"Really Quit\? \(y/n\)")
    term.send("n")
    term.wait_for(r"Trade: up/down")
    assert "Really Quit" not in term.text()
    term.send("Q")
    term.wait_for(r"Really Quit\? \(y/n\)")
    term.send("Y")
    term.game_over()


def test_ctrl_c_while_naming_players_exits_cleanly(terms):
    term = terms("--computer", "0")
    term.wait_for(r"How many players")
    term.send("1")
    term.wait_for(r"Player 1, enter your name:")
    term.send("\x03")
    assert term.finish() == 0
    assert b"\x1b[?1049l" in term.raw


# ---------------------------------------------------------------------------------------------------- screen


def colours(term: Term) -> set[tuple[str, str]]:
    return {(cell.fg, cell.bg) for line in term.screen.buffer.values() for cell in line.values()}


def test_mono_draws_no_colour_and_colour_does(terms, tmp_path):
    path, _ = move_save(tmp_path)
    mono = terms("-m", "--resume", path)
    mono.wait_for(r"Ann, enter your move")
    mono.send("s")
    mono.wait_for(r"Standings")
    assert colours(mono) == {("default", "default")}
    assert any(cell.reverse for line in mono.screen.buffer.values() for cell in line.values())
    colour = terms("-c", "--resume", path)
    colour.wait_for(r"Ann, enter your move")
    assert colours(colour) != {("default", "default")}


def test_names_are_literal_and_limited_to_20_characters(terms):
    term = terms("--seed", "2", "--computer", "1", "--level", "easy")
    term.wait_for(r"How many players")
    term.send("2")
    term.wait_for(r"Player 1, enter your name:")
    term.send("%s%n Zoë 日本 " + "x" * 30 + "\r")
    term.wait_for(r"Player 2, enter your name:")
    term.send("Cy\r")
    name = "%s%n Zoë 日本 " + "x" * 8
    end = time.monotonic() + DEADLINE
    while name + ", enter your move" not in term.text() and time.monotonic() < end:
        term.send("x")
        time.sleep(0.1)
        term.pump()
    assert name + ", enter your move" in term.text()
    assert "x" * 9 not in term.text()


def assert_frames_intact(term: Term) -> None:
    lines = term.screen.display
    for y in range(2, 12):
        assert lines[y][1] == "│" and lines[y][38] == "│" and lines[y][39] == "│" and lines[y][78] == "│", y
    assert lines[1][78] == "┐" and lines[12][78] == "┘"
    assert lines[13][1] == "┌" and lines[13][78] == "┐" and lines[23][78] == "┘"


def popup_intact(term: Term) -> None:
    for line in term.screen.display:
        if "┌─" in line and "┐" in line:
            assert line.index("┐") < 80


def test_big_numbers_are_shown_in_full_when_they_fit(terms, tmp_path):
    path, _ = move_save(tmp_path, cash=10**13, held=5 * 10**9, moves=1)
    term = terms("--resume", path)
    term.wait_for(r"Ann, enter your move")
    assert_frames_intact(term)
    assert "Cash: $10000000000000" in term.screen.display[13]
    term.send("s")
    term.wait_for(r"Standings")
    assert [int(v) for v in re.search(money_row("Ann"), term.text()).groups()] == [10**13, 10**13, 2 * 10**13]
    term.send("x", "c")
    term.wait_for(r"Total Worth")
    assert re.search(r"Altair Starways\s+\$2000\s+3\s+\$10000000000000\b", term.text())


def test_huge_numbers_never_break_a_window(terms, tmp_path):
    """Shares and cash as 10 turns can yield at the most; prices stay at $3000 or less."""
    path, _ = move_save(tmp_path, cash=10**60, price=2950, held=10**50, moves=10)
    term = terms("--resume", path)
    term.wait_for(r"Ann, enter your move")
    assert_frames_intact(term)
    assert re.search(r"Altair Starways\s+\$2950\s+1e50\b", term.screen.display[3])
    term.send("s")
    term.wait_for(r"Standings")
    popup_intact(term)
    assert re.search(r"Ann\s+\$2\.95e53\s+\$1e60\s+\$1\.000000295e60", term.text())
    term.send("x", "1")
    term.wait_for(r"The stock of Altair Starways has split two-for-one!")
    assert_frames_intact(term)
    term.send("x")
    term.wait_for(r"Trade: up/down")
    assert re.search(r"Altair Starways\s+\$1525\s+2e50\b", term.screen.display[3])
    assert re.search(r"Altair Starways  \$1525  +2e50\b", "\n".join(term.screen.display[14:23]))
    term.send("\r")
    term.wait_for(r"Amount \(-2e50 to 6\.5573e56\)")
    assert_frames_intact(term)


def test_resize_redraws_and_uses_the_room(terms, tmp_path):
    path, _ = move_save(tmp_path)
    term = terms("--resume", path)
    term.wait_for(r"Ann, enter your move")
    term.child.setwinsize(30, 100)
    term.screen.resize(30, 100)
    term.wait_for(r"Ann, enter your move")
    end = time.monotonic() + DEADLINE
    while term.screen.display[13][98:99] != "┐" and time.monotonic() < end:
        term.pump()
    assert term.screen.display[13][98] == "┐"
    assert term.screen.display[28][98] == "┘"
    assert "Total Worth" in term.screen.display[2]
    term.child.setwinsize(40, 120)
    term.screen.resize(40, 120)
    term.wait_for(r"─ Players ─")
    assert re.search(money_row("Ann"), term.text())
    assert "Available company sectors remaining: 62" in term.text()
    term.child.setwinsize(20, 70)
    term.screen.resize(20, 70)
    term.wait_for(r"needs a terminal of at least 80x24")
    term.child.setwinsize(25, 80)
    term.screen.resize(25, 80)
    term.wait_for(r"Ann, enter your move")
    term.send("1")
    term.wait_for(r"Trade: up/down")


def resize(term: Term, rows: int, cols: int) -> None:
    term.child.setwinsize(rows, cols)
    term.screen.resize(rows, cols)


def right_edge_intact(term: Term) -> None:
    """The right borders stay in column 78 on every row, once the popup is drawn to its bottom row."""
    edge = ["┐ "] + ["│ "] * 10 + ["┘ ", "┐ "] + ["│ "] * 9 + ["┘ "]
    end = time.monotonic() + DEADLINE
    while not any("└" in line[3:75] and y >= 13 for y, line in enumerate(term.screen.display)):
        assert time.monotonic() < end, f"the popup's bottom row never appeared; screen:\n{term.text()}"
        term.pump()
    assert [line[78:] for line in term.screen.display[1:24]] == edge


@pytest.mark.parametrize("key", ["s", "c", "q"])
def test_popups_leave_the_borders_under_them_in_place(terms, tmp_path, key):
    path, _ = move_save(tmp_path)
    term = terms("--resume", path)
    term.wait_for(r"Ann, enter your move")
    term.send(key)
    term.wait_for(r"Available company sectors|Total Worth|Really Quit")
    right_edge_intact(term)
    term.send("\x0c")
    term.wait_for(r"Available company sectors|Total Worth|Really Quit")
    right_edge_intact(term)
    term.send("x")
    term.wait_for(r"Ann, enter your move")
    assert_frames_intact(term)


def test_game_over_popup_leaves_the_borders_in_place(terms, tmp_path):
    path, _ = move_save(tmp_path, a_size=64)
    term = terms("--resume", path)
    term.wait_for(r"Ann, enter your move")
    term.send("1")
    term.game_over()
    right_edge_intact(term)


@pytest.mark.parametrize("size", [(20, 60), (10, 40), (23, 80), (24, 79)])
def test_a_too_small_terminal_asks_in_full_and_can_be_quit(terms, tmp_path, size):
    path, _ = move_save(tmp_path)
    term = terms("--resume", path)
    term.wait_for(r"Ann, enter your move")
    resize(term, *size)
    term.wait_for(r"needs a terminal")
    term.wait_for(r"80x24;")
    assert all(len(line.rstrip()) <= size[1] for line in term.screen.display)
    term.send("y", "1")
    term.send("q")
    term.wait_for(r"Really Quit\? \(y/n\)")
    assert "80x24;" in term.text()
    term.send("y")
    term.wait_for(r"Press any key to leave the game")
    term.send("x")                                       # one key leaves, as it says
    assert term.finish() == 0
    assert re.search(rb"Ann\s+\$20000\s+\$6000\s+\$26000", term.raw)
    # what the final page would have said, in the shell: why the game ended and how to go on with it
    said = b" ".join(term.raw.split())
    assert (f"The game was left unfinished: Ann quit. It is saved: go on with it by {STARTED} --resume "
            f"{path}").encode() in said



def test_a_too_small_terminal_can_be_quit_from_the_amount_field(terms, tmp_path):
    # The amount cannot be seen there, so q is no digit of it: q asked nothing and went into the hidden
    # field, and nothing could quit the game.
    term = terms("--resume", trading_save(tmp_path))
    term.wait_for(r"Trade: up/down")
    term.send("\r")
    term.wait_for(r"Amount \(-2 to 3\)")
    resize(term, 20, 70)
    term.wait_for(r"needs a terminal")
    term.send("q")
    term.wait_for(r"Really Quit\? \(y/n\)")
    term.send("y")
    term.wait_for(r"Press any key to leave the game")
    term.send("x")
    assert term.finish() == 0
    assert b"The game was left unfinished: Ann quit." in b" ".join(term.raw.split())

@pytest.mark.parametrize(("step", "quit_key"), [("count", "Q"), ("name", "q")])
def test_a_too_small_terminal_can_be_quit_while_the_players_are_set_up(terms, step, quit_key):
    """While the players were asked for, q did nothing at the request to enlarge the terminal (only ^C left):
    q, then y, leaves there as ^C does (no game, the thanks, status 0); another key at "Really Quit?" goes
    back, and the q is no letter of the name being typed."""
    term = terms("--computer", "0")
    term.wait_for(r"How many players")
    if step == "name":
        term.send("2")
        term.wait_for(r"Player 1, enter your name:")
        term.send("A")
        term.wait_for(r"A_")
    resize(term, 20, 60)
    term.wait_for(r"needs a terminal")
    if step == "name":
        term.send(quit_key)
        term.wait_for(r"Really Quit\? \(y/n\)")
        term.send("n")
        wait_until(lambda: term.pump() or "Really Quit" not in term.text(), "the question gone")
        resize(term, 25, 80)
        term.wait_for(r"Player 1, enter your name:")
        assert "A_" in [line.strip("│ ") for line in term.screen.display], term.text()
        resize(term, 20, 60)
        term.wait_for(r"needs a terminal")
    term.send(quit_key)
    term.wait_for(r"Really Quit\? \(y/n\)")
    assert "80x24;" in term.text()
    term.send("y")
    assert term.finish() == 0
    assert term.raw.endswith(b"Thank you for playing Star Lanes!\r\n"), term.raw[-200:]
    assert b"\x1b[?1049l" in term.raw and b"Final Standings" not in term.raw


def process_state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def test_ctrl_z_suspends_restores_the_terminal_and_resumes(terms, tmp_path):
    path, _ = move_save(tmp_path)
    term = terms("--resume", path, job_shell=True)
    term.wait_for(r"Ann, enter your move")
    mark = len(term.raw)
    term.send("\x1a")
    term.wait_for(r"\[stopped\]")
    game_pid = int(Path(f"/proc/{term.child.pid}/task/{term.child.pid}/children").read_text().split()[0])
    assert process_state(game_pid) == "T"
    assert b"\x1b[?1049l" in term.raw[mark:]
    term.screen.reset()
    term.send("fg\r")
    term.wait_for(r"Ann, enter your move")
    assert process_state(game_pid) != "T"
    term.send("1")
    term.wait_for(r"Trade: up/down")


def test_a_ctrl_c_while_suspended_is_the_quit_key_not_an_interrupt(terms, tmp_path):
    # While the game gives the terminal back, a typed ^C is a SIGINT (keys are raw only while the game holds
    # the terminal); one that came then, among the fuzz test's random keys, ended the game with status 130
    term = terms("--resume", move_save(tmp_path)[0], job_shell=True)
    term.wait_for(r"Ann, enter your move")
    term.send("\x1a")
    term.wait_for(r"\[stopped\]")
    game_pid = int(Path(f"/proc/{term.child.pid}/task/{term.child.pid}/children").read_text().split()[0])
    os.kill(game_pid, signal.SIGINT)
    term.screen.reset()
    term.send("fg\r")
    term.wait_for(r"Really Quit\? \(y/n\)")
    term.send("n")
    term.wait_for(r"Ann, enter your move")
    term.send("q")
    term.wait_for(r"Really Quit\? \(y/n\)")
    term.send("y")
    term.game_over()
    term.send("x")
    term.chart()
    term.send("x")
    assert term.finish() == 0

def test_sigterm_restores_the_terminal(terms, tmp_path):
    path, _ = move_save(tmp_path)
    term = terms("--resume", path)
    term.wait_for(r"Ann, enter your move")
    mark = len(term.raw)
    term.child.kill(signal.SIGTERM)
    status = term.finish()
    assert status == 128 + signal.SIGTERM
    assert b"\x1b[?1049l" in term.raw[mark:]
    assert b"Traceback" not in term.raw


def test_save_and_resume_continue_the_same_game(terms, tmp_path):
    path, game = move_save(tmp_path)
    term = terms("--resume", path)
    term.wait_for(r"Ann, enter your move")
    term.send("1")
    term.wait_for(r"Trade: up/down")
    term.send("\r")
    term.wait_for(r"Amount")
    term.send("2\r")
    term.wait_for(r"Ann \(Cash: \$2850\)")
    term.send("q")
    term.wait_for(r"Really Quit")
    term.send("y")
    term.wait_for(r"GAME OVER")
    term.send("x")
    term.chart()
    term.send("x")
    assert term.finish() == 0
    game.place(game.candidates[0])
    game.trade(0, 2)
    again = terms("--resume", path)
    again.wait_for(r"Trade: up/down")
    assert f"Ann (Cash: ${game.players[0].cash})" in again.text()
    assert re.search(rf"Altair Starways\s+\${game.companies[0].price}\s+12\b", again.text())


FUZZ_KEYS = ["1", "2", "3", "4", "5", "8", "k", "j", "K", "J", "m", "n", "-", "0", "9", "s", "S", "c", "C",
             "x",
             "q", "Q", "\x03", "\x0c", "\x06", "\x1a", "\x7f", "\x08", "\r", "\n", "\t", "\x1b", UP, DOWN,
             "\x1bOC", "\x1bOD", "\x1bOP", "\x1b[15~", "\x1b[3~", "\x1b[H", "é", "日", " ", "%", "\x00"]


@pytest.mark.parametrize("seed", [1, 2])
def test_random_keys_never_crash_or_break_the_terminal(terms, tmp_path, seed):
    path = trading_save(tmp_path)
    term = terms("--resume", path)
    term.wait_for(r"Trade: up/down")
    keys = random.Random(seed)
    for _ in range(400):
        if not term.child.isalive():
            break
        term.send(keys.choice(FUZZ_KEYS))
        if keys.random() < 0.1:
            term.pump()
    end = time.monotonic() + DEADLINE
    while term.child.isalive() and time.monotonic() < end:
        term.pump()
        text = term.text()
        if "Really Quit" in text:
            term.send("y")
        elif "GAME OVER" in text or "Net worth per turn" in text:
            term.send("x")
        else:
            term.send(ESC)
            time.sleep(0.1)
            term.send("q")
        time.sleep(0.1)
    assert term.finish() == 0
    assert b"Traceback" not in term.raw
    assert b"\x1b[?1049l" in term.raw


def test_unknown_terminal_is_a_clear_error(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "LINES", "COLUMNS")}
    env["TERM"] = "no-such-terminal"
    output, status = pexpect.run(f"{sys.executable} -m starlanes", env=env, cwd=str(tmp_path),
                                 timeout=DEADLINE, withexitstatus=True)
    assert status == 2
    assert b"cannot use the terminal" in output and b"Traceback" not in output


def test_a_terminal_without_cursor_addressing_is_refused(tmp_path):
    """TERM=dumb used to start a blind curses session."""
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "LINES", "COLUMNS")}
    env["TERM"] = "dumb"
    output, status = pexpect.run(f"{sys.executable} -m starlanes", env=env, cwd=str(tmp_path),
                                 timeout=DEADLINE, withexitstatus=True)
    assert status == 2
    assert output.strip().splitlines() == [b"starlanes: cannot use the terminal (TERM='dumb'): it cannot "
                                           b"move the cursor (set TERM, e.g. TERM=xterm)"]


def test_terminal_is_restored_when_an_exception_escapes(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "LINES", "COLUMNS")}
    env["TERM"] = "xterm"
    code = "from common.term import Terminal\nwith Terminal():\n    raise RuntimeError('boom')\n"
    child = pexpect.spawn(sys.executable, ["-c", code], env=env, cwd=str(tmp_path), timeout=DEADLINE)
    output = child.read()
    child.close()
    assert child.exitstatus == 1
    restored = output.rindex(b"\x1b[?1049l")
    assert output.index(b"RuntimeError: boom") > restored


# ------------------------------------------------------------------------------------------ announcements


def test_computer_trades_are_announced_under_the_trader(terms, tmp_path):
    """Ann (computer) sells 4 B and buys 12 A; the turn passes to Bob, but the announcement stays titled
    with Ann's name and cash (and no company name gets a second full stop)."""
    grid = ["."] * CELLS
    grid[cell_index(0, 0)] = "A"
    grid[cell_index(2, 0)] = "B"
    companies = [Company(1, 300), Company(1, 700)] + [Company() for _ in range(3)]
    game = Game(grid, [Player("Ann", 1000, [2, 4, 0, 0, 0]), Player("Bob")], random.Random(3), companies,
                current=0, phase="trade")
    assert ai.choose(game.clone(), "hard") == [Trade(1, -4), Trade(0, 12), EndTurn()]
    term = terms("--resume", crafted(tmp_path, "hal.json", game, ["hard", "human"]))
    term.wait_for(r"Ann sells 4 shares of Beetlejuice, Ltd\.")
    assert "Ann buys 12 shares of Altair Starways." in term.text()
    assert "Ltd.." not in term.text()
    assert "Ann (Cash: $200)" in term.screen.display[13]
    term.send("x")
    term.wait_for(r"Bob, enter your move \[1-5\]")
    assert "Bob (Cash: $6000)" in term.screen.display[13]


def test_the_company_panel_shows_the_holdings_of_the_player_announced(terms, tmp_path):
    """During a computer's announcements the company panel showed the next player's holdings (the turn had
    passed): it shows those of the player the screen is about, then Bob's at his prompt, and its title names
    whose they are."""
    grid = ["."] * CELLS
    grid[cell_index(0, 0)] = "A"
    grid[cell_index(2, 0)] = "B"
    companies = [Company(1, 300), Company(1, 700)] + [Company() for _ in range(3)]
    game = Game(grid, [Player("Ann", 1000, [2, 4, 0, 0, 0]), Player("Bob", 6000, [7, 3, 0, 0, 0])],
                random.Random(3), companies, current=0, phase="trade")
    term = terms("--delay", "20", "--resume", crafted(tmp_path, "panel.json", game, ["hard", "human"]))
    term.wait_for(r"Ann \(computer\) is thinking")
    term.send("x")  # any key: the computer goes on at once
    term.wait_for(r"Ann sells 4 shares of Beetlejuice, Ltd\.")
    assert re.search(r"Altair Starways\s+\$300\s+14\b", term.screen.display[3]), term.text()
    assert re.search(r"Beetlejuice, Ltd\.\s+\$700\s+0\b", term.screen.display[5]), term.text()
    assert "┌─ Companies (holdings: Ann) ─" in term.screen.display[1]
    term.send("x")
    term.wait_for(r"Bob, enter your move")
    assert re.search(r"Altair Starways\s+\$300\s+7\b", term.screen.display[3]), term.text()
    assert re.search(r"Beetlejuice, Ltd\.\s+\$700\s+3\b", term.screen.display[5]), term.text()
    assert "┌─ Companies (holdings: Bob) ─" in term.screen.display[1]


def test_against_three_computers_only_the_humans_own_keys_are_needed(terms, tmp_path):
    """Every computer step used to wait for a key: now the computers' moves, trades and announcements go by
    on their own (--delay), and only Ann's prompts and her own announcements take keys."""
    save = tmp_path / "pace.json"
    term = terms("--seed", "11", "--computer", "3", "--level", "easy", "--delay", "0.1", "--save", str(save))
    term.wait_for(r"How many players \(3-4\)\?")
    term.send("4")
    for name in ("Ann", "Cy", "Di", "Ed"):
        term.wait_for(r"enter your name:")
        term.send(f"{name}\r")
    rounds = 0
    keys = 0
    seen_turns = []
    end = time.monotonic() + deadline(20)
    while rounds < 3 and time.monotonic() < end:
        term.pump()
        text = term.text()
        if "Ann, enter your move" in text:
            seen_turns.append(len(json.loads(save.read_text())["game"]["history"]))
            term.send("1")
            keys += 1
            rounds += 1
            term.wait_for(r"Trade: up/down|Press any key to continue|is thinking|takes move")
        elif "Trade: up/down" in text and "Ann (Cash" in term.screen.display[13]:
            term.send(ESC)
            keys += 1
            term.wait_for(r"is thinking|takes move|Press any key to continue")
        elif "Press any key to continue" in text:
            term.send(" ")  # one of Ann's own announcements
            keys += 1
            time.sleep(0.1)
        else:
            time.sleep(0.05)
    assert rounds == 3, term.text()
    # Between Ann's prompts the three computers took their turns without a key.
    assert [b - a for a, b in itertools.pairwise(seen_turns)] == [4, 4]
    assert keys <= 3 * 3


def test_a_move_into_a_black_hole_is_announced_under_the_mover(terms, tmp_path):
    grid = ["."] * CELLS
    grid[cell_index(4, 5)] = "@"
    candidates = [cell_index(3, 5), cell_index(9, 1), cell_index(8, 7), cell_index(6, 2), cell_index(0, 0)]
    game = Game(grid, [Player("Ann"), Player("Bob")], random.Random(3), current=0, candidates=candidates)
    term = terms("-c", "--resume", crafted(tmp_path, "hole.json", game))
    term.wait_for(r"Ann, enter your move")
    hole = term.screen.buffer[1 + 1 + 5][1 + 2 + 3 * 4]
    assert hole.data == "@" and hole.bg == "red" and hole.fg != "red"
    term.send("1")
    term.wait_for(r"sucked into a black hole")
    assert "Ann (Cash: $6000)" in term.screen.display[13]


def test_a_single_offered_sector_and_the_reason_the_game_ended(terms, tmp_path):
    """One empty sector left among stars: the prompt offers [1]; it founds Altair Starways, and after Ann's
    trading nothing can be offered to Bob, so the final standings say why the game ended."""
    grid = ["*"] * CELLS
    grid[0] = "."
    game = Game(grid, [Player("Ann"), Player("Bob")], random.Random(3), current=0, candidates=[0])
    term = terms("--resume", crafted(tmp_path, "last.json", game))
    term.wait_for(r"Ann, enter your move \[1\]:")
    term.send("1")
    term.wait_for(r"Its name is Altair Starways\.")
    term.send("x")
    term.wait_for(r"Trade: up/down")
    term.send(ESC)
    term.game_over()
    term.wait_for(r"The game is over: no sector can be offered any more\.")
    term.send("x")
    term.chart()
    term.send("x")
    assert term.finish() == 0
    assert b"The game is over: no sector can be offered any more." in term.raw


def test_the_name_prompt_forgets_its_complaint_at_the_next_key(terms):
    term = terms("--computer", "0")
    term.wait_for(r"How many players")
    term.send("1")
    term.wait_for(r"Player 1, enter your name:")
    term.send("\r")
    term.wait_for(r"A name is needed\.")
    term.send("Z")
    term.wait_for(r"Z_")
    assert "A name is needed" not in term.text()
    assert "Who plays" not in term.raw.decode("utf-8", "replace")  # --computer 0: all are people


def test_long_names_and_numbers_keep_their_room(terms, tmp_path):
    """A 20-character wide name in the standings, the chart legend and the company window's title, and the
    company names at 80x25."""
    name = "日本語" * 6 + "日本"
    grid = ["."] * CELLS
    grid[cell_index(0, 0)] = "A"
    grid[cell_index(2, 0)] = "B"
    companies = [Company(1, 3000), Company(1, 700)] + [Company() for _ in range(3)]
    game = Game(grid, [Player(name, 10**12, [8_095_823_400_000_000_000_000, 4, 0, 0, 0]), Player("Bob")],
                random.Random(3), companies, current=0, phase="trade", moves=3)
    term = terms("--resume", crafted(tmp_path, "long.json", game))
    term.wait_for(r"Trade: up/down")
    assert "Altair Starways" in term.screen.display[3] and "Beetlejuice, Ltd." in term.screen.display[5]
    # the name in the company window's title gives way with "…" (its end and the "…" were clipped)
    assert term.screen.display[1].endswith("┌─ Companies (holdings: 日本語日本…) ──┐ ")
    term.send("s")
    term.wait_for(r"Available company sectors")
    assert name in term.text()
    term.send("x", "q", "y")
    term.wait_for(r"GAME OVER")
    term.send("x")
    term.chart()
    legend = term.screen.display[-1]
    # the worth abbreviated as the axis is (12 characters), the name given the rest, the entries kept apart
    assert legend.startswith("  1 " + name[:9] + "  $2.428747e25    2 Bob  $6000")
    term.send("x")
    assert term.finish() == 0


def test_keypad_sequences_unknown_to_terminfo_are_keys_not_esc(terms, tmp_path):
    """tmux-256color lists no keypad Enter (kent) or 5 (kb2): ESC O M and ESC O u must be Enter and 5, not
    an Esc that ends the turn followed by stray letters; a lone Esc still ends the turn."""
    term = terms("--resume", trading_save(tmp_path), term="tmux-256color")
    term.wait_for(r"Trade: up/down")
    term.send("\x1bOu")  # keypad 5: down to Beetlejuice
    term.send("\x1bOM")  # keypad Enter: trade it
    term.wait_for(r"Amount \(-4 to 1\)")
    term.send("\x1bOq", "\x1bOM")  # keypad 1, keypad Enter
    term.wait_for(r"Ann \(Cash: \$300\)")
    assert re.search(r"Beetlejuice, Ltd\.\s+\$700\s+5\b", term.text())
    term.send(ESC)
    term.wait_for(r"Bob, enter your move")


def test_the_company_window_shows_every_digit_that_fits(terms, tmp_path):
    """At 80x25 the company window showed 1e13 shares with 15 columns free while the trade list beside it
    showed 10000000000000: the name gives way first, so both show the full number."""
    grid = ["."] * CELLS
    grid[cell_index(0, 0)] = "A"
    grid[cell_index(2, 0)] = "B"
    companies = [Company(1, 300), Company(1, 700)] + [Company() for _ in range(3)]
    game = Game(grid, [Player("Ann", 0, [10**13, 4, 0, 0, 0]), Player("Bob")], random.Random(3), companies,
                current=0, phase="trade", moves=1)
    term = terms("--resume", crafted(tmp_path, "digits.json", game))
    term.wait_for(r"Trade: up/down")
    panel = [line[40:] for line in term.screen.display[2:6]]
    assert re.search(r"\$300\s+10000000000000\b", panel[1]), panel
    assert panel[1].startswith(" Altair Starwa   $300  10000000000000 "), panel
    assert re.search(r"^ Beetlejuice,\s+\$700\s+4 ", panel[3]), panel
    assert "1e13" not in term.text()
    assert re.search(r"Altair Starways\s+\$300\s+10000000000000\b", term.text())


def test_a_sale_of_more_than_999999999_shares_can_be_typed(terms, tmp_path):
    grid = ["."] * CELLS
    grid[cell_index(0, 0)] = "A"
    companies = [Company(1, 300)] + [Company() for _ in range(4)]
    game = Game(grid, [Player("Ann", 0, [10**12, 0, 0, 0, 0]), Player("Bob")], random.Random(3), companies,
                current=0, phase="trade", moves=1)
    term = terms("--resume", crafted(tmp_path, "many.json", game))
    term.wait_for(r"Trade: up/down")
    term.send("\r")
    term.wait_for(r"Amount \(-1000000000000 to 0\)")
    term.send("-1000000000000", "\r")
    term.wait_for(rf"Ann \(Cash: \${300 * 10**12}\)")


def test_computer_players_set_the_fewest_players_and_names_are_still_asked(terms):
    term = terms("--seed", "4", "--computer", "3", "--level", "easy")
    term.wait_for(r"How many players \(3-4\)\?")
    assert "the last 3 played by the computer" in term.text()
    term.send("2", "1")
    term.send("4")
    term.wait_for(r"Player 1, enter your name:")
    term.send("Ann\r")
    for number in (2, 3, 4):
        term.wait_for(rf"Player {number}, enter your name:")
        term.send(f"C{number}\r")
    term.wait_for(r"Ann, enter your move|C\d \(computer\) takes move")
    assert "Who plays" not in term.raw.decode("utf-8", "replace")


# ------------------------------------------------------------------------------------------------ 1977 rules


def test_1977_full_game_by_computers_ends_after_48_moves(terms):
    term = terms("--rules", "1977", "--seed", "7")
    term.wait_for(r"How many players \(1-4\)\?")
    term.send("2")
    for number, name, level in ((1, "Ann", "3"), (2, "Bob", "1")):
        term.wait_for(rf"Who plays player {number}\?")
        term.send(level)
        term.wait_for(rf"Computer {number}_")
        term.send(f"{name}\r")
    term.game_over(within=deadline(30))
    expected = Game.new(["Ann", "Bob"], random.Random(7), RULES_1977)
    levels = ["hard", "easy"]
    while not expected.is_terminal():
        for action in ai.choose(expected, levels[expected.current]):
            expected.apply(action)
    assert expected.moves == 48
    text = term.text()
    for player in expected.standings():
        found = re.search(money_row(expected.players[player].name), text)
        assert found, text
        assert [int(v) for v in found.groups()] == [
            expected.stock_value(player), expected.players[player].cash, expected.net_worth(player)]
    assert "Moves remaining: 0" in text and "all 48 moves have been played" in text
    term.send("x")
    term.chart()
    term.send("x")
    assert term.finish() == 0


def s19_game() -> Game:
    """The 1977 position of S19 and S20: Ann (1000 in cash) holds 2 of Altair and 4 of Capella, Bob nothing;
    Ann is to move, her one candidate (5,4)."""
    grid = ["."] * CELLS_1977
    grid[cell_index(0, 0)] = "A"
    grid[cell_index(11, 8)] = "C"
    companies = [Company(1, 300), Company(0, 100), Company(1, 700), Company(0, 100), Company(0, 100)]
    players = [Player("Ann", 1000, [2, 0, 4, 0, 0]), Player("Bob")]
    return Game(grid, players, random.Random(3), companies, candidates=[cell_index(5, 4)], rules=RULES_1977)


def test_1977_trading_asks_each_company_in_order_and_refuses_what_it_must(terms, tmp_path):
    """S19 under decisions 7 and 8 through the keys: A 5 refused, A 3; C -6 refused, C -4."""
    game = s19_game()
    path = crafted(tmp_path, "s19.json", game)
    term = terms("--resume", path)
    term.wait_for(r"Ann, enter your move \[1\]:")
    term.send("1")
    term.wait_for(r"Type the shares to buy")
    term.send("5")
    term.wait_for(r"Amount \(-2 to 3\): 5_")
    term.send("\r")
    term.wait_for(r"Invalid amount!")
    term.send("3", "\r")
    term.wait_for(r"Cash: \$270")
    term.send("-6", "\r")
    term.wait_for(r"Invalid amount!")
    term.send("-4", "\r")
    term.wait_for(r"Bob, enter your move")
    saved = Game.from_dict(json.loads(Path(path).read_text())["game"])
    assert saved.rules is RULES_1977 and saved.current == 1 and saved.moves == 1
    assert saved.players[0].cash == 3070 and saved.players[0].holdings == [5, 0, 0, 0, 0]
    term.send("q")
    term.wait_for(r"Really Quit\?")
    term.send("y")
    term.game_over()
    assert "Moves remaining: 47" in term.text()
    term.send("x")
    term.chart()
    term.send("x")
    assert term.finish() == 0


def test_a_delay_of_ages_waits_for_a_key_instead_of_crashing(terms):
    """--delay 1e306 is a finite number of seconds, so it is accepted; waiting that long for the next
    computer step used to overflow curses' timeout (a traceback, exit 1; 1e300 once did, then 1e306 still did,
    its milliseconds past the largest float). The step now waits, and a key goes on at once, as with any
    delay."""
    term = terms("--seed", "1", "--computer", "1", "--delay", "1e306")
    term.wait_for(r"How many players \(1-4\)\?")
    term.send("2")
    for name in ("Al", "Co"):
        term.wait_for(r"enter your name:")
        term.send(f"{name}\r")
    term.wait_for(r"Co \(Cash: \$")
    wait_until(lambda: not term.child.isalive() or term.waiting_for_key(), "the wait of Co's first step", 10)
    assert term.child.isalive(), term.text()
    assert "Al, enter your move" not in term.text()
    end = time.monotonic() + DEADLINE
    while "Al, enter your move" not in term.text() and time.monotonic() < end:
        read = term.bytes_read()
        term.send(" ")   # each key goes on past one computer step
        wait_until(lambda: term.bytes_read() > read  # noqa: B023 (called at once)
                   and (term.waiting_for_key() or "Al, enter your move" in term.text()),
                   "the key read and the next step's wait or Al's prompt", 10)
    term.wait_for(r"Al, enter your move \[1-5\]:")
    term.send("q", "y")
    term.game_over()
    term.send("x")
    term.chart()
    term.send("x")
    assert term.finish() == 0
    assert b"Thank you for playing Star Lanes!" in term.raw and b"Traceback" not in term.raw


def test_the_1995_amount_field_says_which_key_it_refuses(terms, tmp_path):
    term = terms("--resume", trading_save(tmp_path), rows=24)
    term.wait_for(r"Trade: up/down")
    term.send("\r")
    term.wait_for(r"m = the most you can buy")
    term.send(".")
    term.wait_for(r'"\." cannot be typed: digits, a leading - to sell, or m or n first\.')
    assert "Amount (-2 to 3): _" in term.text()
    term.send("1", "x")
    term.wait_for(r'"x" cannot be typed:')
    assert "Amount (-2 to 3): 1_" in term.text()
    term.send("\r")
    term.wait_for(r"Ann \(Cash: \$700\)")
    assert re.search(r"Altair Starways\s+\$300\s+3\b", term.text())


@pytest.mark.parametrize("answer", ["0.5", "1.5", "2X"])
def test_the_1977_amount_shows_what_was_typed_and_refuses_what_is_no_whole_number(terms, tmp_path, answer):
    """S20 under decision 8 at 80x24: the answer is shown as typed, Enter says "Invalid amount!" and the same
    company is asked again; then Esc ends the trading, keeping every holding."""
    game = s19_game()
    path = crafted(tmp_path, "s20.json", game)
    term = terms("--resume", path, rows=24)
    term.wait_for(r"Ann, enter your move \[1\]:")
    term.send("1")
    term.wait_for(r"Amount \(-2 to 3\): _")
    assert re.search(r"Esc\s+(│\s+│\s+)?keeps all and ends your turn", term.text())
    term.send(*answer)
    term.wait_for(rf"Amount \(-2 to 3\): {re.escape(answer)}_")
    term.send("\r")
    term.wait_for(r"Invalid amount!")
    term.wait_for(r"Amount \(-2 to 3\): _")
    assert "Altair Starways" in term.text() and "Capella" not in "\n".join(term.screen.display[14:])
    term.send(ESC)
    term.wait_for(r"Bob, enter your move")
    saved = Game.from_dict(json.loads(Path(path).read_text())["game"])
    assert saved.current == 1 and saved.players[0].holdings == [2, 0, 4, 0, 0]
    assert saved.players[0].cash == 1170


def five_companies_save(tmp_path: Path, cash: int, holdings: list[int], price: int = 300,
                        moves: int = 0) -> str:
    """Ann trading (1995) with all five companies active, one sector each, A at ``price``, after ``moves``
    turns."""
    grid = ["."] * CELLS
    for company in range(5):
        grid[cell_index(2 * company, 0)] = "ABCDE"[company]
    companies = [Company(1, price)] + [Company(1, 100 * (company + 2)) for company in range(1, 5)]
    game = Game(grid, [Player("Ann", cash, holdings), Player("Bob")], random.Random(3), companies, current=0,
                phase="trade", moves=moves)
    return crafted(tmp_path, "five.json", game)


def test_a_function_key_in_the_amount_field_is_named_in_words_on_one_line(terms, tmp_path):
    """At 80x24 with five companies, F1 in the 1995 amount field gave a two-line "KEY_F(1) cannot be typed
    here: ..." that pushed "Amount (-14 to 10): 1_" out of the general window: the key is named "F1", the
    refusal is one line and the field stays in view."""
    term = terms("--resume", five_companies_save(tmp_path, 3000, [14, 0, 0, 0, 0]), rows=24)
    term.wait_for(r"Trade: up/down")
    term.send("\r", "1")
    term.wait_for(r"Amount \(-14 to 10\): 1_")
    for key, words in (("\x1bOP", "F1"), ("\t", "Tab"), ("\x1bOD", "Left")):
        term.send(key)
        refusal = f"{words} cannot be typed: digits, a leading - to sell, or m or n first."
        term.wait_for(rf"│ {re.escape(refusal)} +│")
        general = term.screen.display[13:24]
        assert general[1].strip("│ ") == refusal
        assert general[-2].strip("│ ") == "Amount (-14 to 10): 1_", "\n".join(general)
    assert_frames_intact(term)
    term.send("\r")
    term.wait_for(r"Ann \(Cash: \$2700\)")


def test_an_amount_of_30_digits_keeps_what_is_typed_in_view(terms, tmp_path):
    """With $10^30 of cash the prompt "Amount (-5000000000000000000000000000 to 500000000000000000000000000):
    " filled the line and hid the typed digits: the range is abbreviated and every typed digit stays in view,
    up to the amount of 27 digits the range allows."""
    path = five_companies_save(tmp_path, 10**30 + 7, [5 * 10**27, 0, 0, 0, 0], price=2000, moves=5)
    term = terms("--resume", path, rows=24)
    term.wait_for(r"Trade: up/down")
    term.send("\r")
    term.wait_for(r"Amount \(-5e27 to 5e26\): _")
    term.send(*"123")
    term.wait_for(r"Amount \(-5e27 to 5e26\): 123_")
    term.send(*"456789012345678901234")
    digits = "123456789012345678901234"
    term.wait_for(rf"Amount \(-5e27 to 5e26\): {digits}_")
    assert term.screen.display[22].strip("│ ") == f"Amount (-5e27 to 5e26): {digits}_"
    assert_frames_intact(term)
    term.send("\r")
    term.wait_for(r"Trade: up/down")
    saved = Game.from_dict(json.loads(Path(path).read_text())["game"])
    assert saved.players[0].holdings[0] == 5 * 10**27 + int(digits)
    assert saved.players[0].cash == 10**30 + 7 - 2000 * int(digits)


def test_the_chart_legend_keeps_its_entries_apart_at_any_size(terms, tmp_path):
    """The legend ran "1 Ann  $8.788782966848787531904259e31 2 Computer 2 $3036396" together: a worth is
    abbreviated as the chart's axis is (12 characters at most) and the entries stay apart."""
    grid = ["."] * CELLS
    game = Game(grid, [Player("Ann", 8788782966848787531904259 * 10**7), Player("Computer 2", 3036396)],
                random.Random(3), [Company() for _ in range(5)], current=0, phase="move",
                candidates=[cell_index(3, 3)], moves=6)
    term = terms("--resume", crafted(tmp_path, "rich.json", game), rows=24)
    term.wait_for(r"Ann, enter your move")
    term.send("q", "y")
    term.game_over()
    term.send("x")
    term.chart()
    legend = term.screen.display[-1]
    assert re.fullmatch(r"  1 Ann  \$8\.788782e31 {19}2 Computer 2  \$3036396 *", legend), legend

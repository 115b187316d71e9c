"""`motti -c`: the curses console (spec/motti.md §7) in a real pseudo-terminal; pexpect drives, pyte reads."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pexpect
import pyte
import pytest
from deadline import deadline
from motti_maps import ENDGAME

from motti import console

ROWS, COLS = 24, 80
UP, DOWN, LEFT, RIGHT = "\x1bOA", "\x1bOB", "\x1bOD", "\x1bOC"   # xterm keypad sequences (x11.md §Q7)
STATUS_1 = "Player 1 | Attack: 6 left | Crosses: 6 | [A]ttack(z) [D]efend(x) [G]uerilla(c)"

SMALL = """\
# two players, small enough to read cell by cell
motti-map 1
size 8 4
players 2
capital 1 1 1
capital 2 6 2
grid
.aaab...
aaaabbb.
.aabbbbb
..abbbb.
"""


def tall_map() -> str:
    """10 x 40: rows 0-19 player 1, rows 20-39 player 2; row y has sea at x = y % 10 to tell rows apart."""
    rows = []
    for y in range(40):
        letter = "a" if y < 20 else "b"
        rows.append("".join("." if x == y % 10 else letter for x in range(10)))
    head = ["motti-map 1", "size 10 40", "players 2", "capital 1 5 1", "capital 2 5 38", "grid"]
    return "\n".join(head + rows) + "\n"


class BellScreen(pyte.Screen):
    """A pyte screen that counts the terminal bells (the console's beeps)."""

    def __init__(self, columns: int, lines: int) -> None:
        super().__init__(columns, lines)
        self.bells = 0

    def bell(self, *args: object) -> None:
        self.bells += 1


class Terminal:
    """A command in a pty of ROWS x COLS with TERM=xterm; the screen as pyte sees it."""

    def __init__(self, command: str, cwd: Path, rows: int = ROWS, cols: int = COLS) -> None:
        env = dict(os.environ, TERM="xterm", ESCDELAY="25")
        for name in ("TMUX", "DISPLAY", "LINES", "COLUMNS", "NO_COLOR"):
            env.pop(name, None)
        self.screen = BellScreen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.child = pexpect.spawn("/bin/bash", ["--norc", "--noprofile", "-c", command], cwd=str(cwd),
                                   env=env, dimensions=(rows, cols), timeout=deadline(10))
        self.output = b""

    def pump(self) -> None:
        while True:
            try:
                data = self.child.read_nonblocking(65536, timeout=0.05)
            except (pexpect.TIMEOUT, pexpect.EOF):
                return
            self.output += data
            self.stream.feed(data)

    def lines(self) -> list[str]:
        return list(self.screen.display)

    def text(self) -> str:
        return "\n".join(self.lines())

    def wait_for(self, predicate: Callable[[Terminal], bool], what: str, within: float = 10.0) -> None:
        end = time.monotonic() + deadline(within)
        while time.monotonic() < end:
            self.pump()
            if predicate(self):
                return
        raise AssertionError(f"timed out waiting for {what}; screen:\n{self.text()}")

    def wait_text(self, text: str, within: float = 10.0) -> None:
        self.wait_for(lambda t: text in t.text(), repr(text), within)

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def cell(self, x: int, y: int) -> str:
        """The glyph of map cell (x, y) when the map is not scrolled: row 3 + y, column 1 + x."""
        return self.lines()[3 + y][1 + x]

    def map_rows(self, count: int, width: int) -> list[str]:
        return [line[1:1 + width] for line in self.lines()[3:3 + count]]

    def cursor(self) -> tuple[int, int]:
        return self.screen.cursor.x, self.screen.cursor.y

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


@pytest.fixture
def small(tmp_path: Path) -> Path:
    path = tmp_path / "small.map"
    path.write_text(SMALL)
    return path


@pytest.fixture
def terminals():
    opened: list[Terminal] = []
    yield opened
    for term in opened:
        term.close()


def motti(terminals: list[Terminal], tmp_path: Path, *args: str, module: str = "motti",
          env: str = "", cols: int = COLS) -> Terminal:
    command = env + " ".join(shlex.quote(a) for a in (sys.executable, "-m", module, *args))
    term = Terminal(command, tmp_path, cols=cols)
    terminals.append(term)
    return term


def first_screen(term: Terminal) -> None:
    """Wait for player 1's first screen drawn to its last row: curses may send a screen in several writes,
    and the status line comes first."""
    term.wait_for(lambda t: STATUS_1 in t.text() and console.KEYS_HELP in t.text(), "the first screen")


def row_reads(term: Terminal, row: int, text: str) -> None:
    """Wait until screen row *row* reads *text* (a row below the one a test waited for may come later)."""
    term.wait_for(lambda t: t.lines()[row].rstrip() == text, f"row {row} to read {text!r}")


def test_status_map_frame_legend_and_colours(terminals, tmp_path: Path, small: Path) -> None:
    term = motti(terminals, tmp_path, "-c", str(small), "--seed", "3")
    first_screen(term)
    lines = term.lines()
    assert lines[0].rstrip() == STATUS_1
    assert lines[1].rstrip() == (
        "Turn 1 · 6 attacks left; Defend or Guerilla ends the turn · land P1 10, P2 13")
    assert lines[2].rstrip() == "-" * 10 and lines[7].rstrip() == "-" * 10
    assert [line[:10] for line in lines[3:7]] == ["| pppp   |", "|poppppp |", "| pppppop|", "|  ppppp |"]
    assert lines[8].rstrip() == (
        "p/P free/occ  o/O open/safe  T threat  x cross  inverse last turn  players: 1 2")
    assert lines[9].rstrip() == "No reset due: nobody can take a free cell of another yet"
    assert lines[10].rstrip() == console.KEYS_HELP and len(console.KEYS_HELP) < COLS - 1
    assert term.cursor() == (2, 4)   # on player 1's capital (1,1)
    buffer = term.screen.buffer
    assert buffer[4][2].bold and buffer[4][2].fg == "red"      # player 1's capital
    assert buffer[5][7].bold and buffer[5][7].fg == "green"    # player 2's capital (6,2)
    assert buffer[3][1].data == " " and buffer[3][1].fg == "default"   # sea


def test_crosses_and_defend_change_the_map(terminals, tmp_path: Path, small: Path) -> None:
    term = motti(terminals, tmp_path, "-c", str(small), "--seed", "3")
    first_screen(term)
    term.send(" ")
    term.wait_text("Crosses: 5")
    assert term.cell(1, 1) == "x"
    term.send(DOWN)
    term.wait_for(lambda t: t.cursor() == (2, 5), "the cursor on (1,2)")
    term.send(" ")
    term.wait_text("Crosses: 4")
    term.send("j")   # (1,3) is sea
    term.send("l")   # (2,3)
    term.send(" ")
    term.wait_text("Crosses: 3")
    term.send("k" + " ")   # (2,2): cross it, then remove it again
    term.wait_text("Crosses: 2")
    term.send(" ")
    term.wait_text("Crosses: 3")
    assert term.map_rows(4, 8) == [" pppp   ", "pxppppp ", " xppppop", "  xpppp "]
    term.send("x")   # Defend (1,1), (1,2), (2,3): the oldest 3 crosses are all legal for Defend
    term.wait_text("Player 2 | Attack: 6 left | Crosses: 6")
    term.wait_for(lambda t: t.map_rows(4, 8) == [" pppp   ", "pOppppp ", " Pppppop", "  Ppppp "],
                  "the three defended cells")
    assert term.cursor() == (7, 5)   # the cursor went to player 2's capital (6,2)


def test_illegal_keys_beep_and_change_nothing(terminals, tmp_path: Path, small: Path) -> None:
    term = motti(terminals, tmp_path, "-c", str(small), "--seed", "3")
    first_screen(term)
    bells = term.screen.bells
    term.send(RIGHT * 3)   # (4,1) belongs to player 2 and no occupied cell of player 1 touches it
    term.wait_for(lambda t: t.cursor() == (5, 4), "the cursor on (4,1)")
    term.send(" ")
    term.wait_for(lambda t: t.screen.bells > bells, "a beep for an illegal cross")
    bells = term.screen.bells
    term.send("c")   # Guerilla needs exactly one cross
    term.wait_for(lambda t: t.screen.bells > bells, "a beep for Guerilla without a cross")
    assert STATUS_1 in term.text()
    assert term.map_rows(4, 8) == [" pppp   ", "poppppp ", " pppppop", "  ppppp "]


def test_tab_cycles_and_attack_draws(terminals, tmp_path: Path, small: Path) -> None:
    term = motti(terminals, tmp_path, "-c", str(small), "--seed", "3")
    first_screen(term)
    term.send("\t")
    term.wait_text("Player 1 | Defend | Crosses: 3")
    term.send("\t")
    term.wait_text("Player 1 | Guerilla | Crosses: 1")
    term.send("\t")
    term.wait_text(STATUS_1)
    term.send("z")   # an attack with no cross would be wasted: refused, naming the pass key
    term.wait_text("an attack needs crosses: cross free cells first, or press p to pass")
    assert term.lines()[0].rstrip() == STATUS_1
    term.send(" z")  # a cross on the capital (1,1), then the attack: seed 3 draws 4, which fails
    term.wait_text("Player 1 | Attack: 5 left | Crosses: 5")
    row_reads(term, 10, "P1 attack 1 of 6 failed")


def test_quit_asks_then_exits_and_restores_the_terminal(terminals, tmp_path: Path, small: Path) -> None:
    before, after = tmp_path / "before", tmp_path / "after"
    args = " ".join(shlex.quote(a) for a in (sys.executable, "-m", "motti", "-c", str(small), "--seed", "3"))
    command = f"stty -g > {before}; {args}; echo \"exit=$?\"; stty -g > {after}"
    term = Terminal(command, tmp_path)
    terminals.append(term)
    term.wait_text(STATUS_1)
    term.send("q")
    term.wait_text("Quit and give up players 1, 2? (y/n)")
    term.send("n")
    term.wait_for(lambda t: "Quit and" not in t.text(), "the question to go away")
    term.send("q")
    term.wait_text("Quit and give up players 1, 2? (y/n)")
    term.send("y")
    term.wait_text("exit=0")
    assert "motti: P1 quit, out — P2 quit, out — everyone left: game over" in term.text()
    term.child.expect(pexpect.EOF)
    term.child.close()
    assert term.child.exitstatus == 0
    assert before.read_text() == after.read_text()   # echo, canonical mode, ... all as before
    entered, left = term.output.rindex(b"\x1b[?1049h"), term.output.rindex(b"\x1b[?1049l")
    assert left > entered   # the alternate screen was left
    assert "Player 1 |" not in term.text()   # back on the normal screen


def child_pids(pid: int) -> list[int]:
    """The children of process *pid* (Linux /proc)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(p) for p in (task / "children").read_text().split()]
    return found


@pytest.mark.parametrize(("how", "status"), [("ctrl-c", 130), ("sigterm", 143), ("sighup", 129)])
def test_interrupt_restores_the_terminal(terminals, tmp_path: Path, small: Path, how: str, status: int):
    before, after = tmp_path / "before", tmp_path / "after"
    args = " ".join(shlex.quote(a) for a in (sys.executable, "-m", "motti", "-c", str(small), "--seed", "3"))
    term = Terminal(f"stty -g > {before}; {args}; echo \"exit=$?\"; stty -g > {after}", tmp_path)
    terminals.append(term)
    term.wait_text(STATUS_1)
    if how == "ctrl-c":
        term.send("\x03")
    else:
        (game_pid,) = child_pids(term.child.pid)
        os.kill(game_pid, signal.SIGTERM if how == "sigterm" else signal.SIGHUP)
    term.wait_text(f"exit={status}")
    assert before.read_text() == after.read_text()


def test_ctrl_c_says_where_the_game_is_saved(terminals, tmp_path: Path, small: Path) -> None:
    args = " ".join(shlex.quote(a) for a in (sys.executable, "-m", "motti", "-c", str(small), "--seed", "3",
                                             "--save", "game.map"))
    term = Terminal(f"{args}; echo \"exit=$?\"", tmp_path)
    terminals.append(term)
    term.wait_text(STATUS_1)
    term.send("\x03")
    term.wait_text("exit=130")
    said = "".join(term.text().split())   # the line wraps at the terminal's width
    assert "motti:stopped;itissavedingame.map(" in said, said
    assert "game.map-c--savegame.mapresumesit)" in said, said
    assert "turn 1" in (tmp_path / "game.map").read_text().splitlines()


def test_computer_opponent_moves_by_itself(terminals, tmp_path: Path, small: Path) -> None:
    term = motti(terminals, tmp_path, "-c", str(small), "--seed", "3", "--computer", "2")
    first_screen(term)
    term.send(" x")   # Defend the capital: player 2 (computer) plays its whole turn
    term.wait_for(lambda t: t.cell(1, 1) == "O", "player 1's capital occupied")
    term.wait_for(lambda t: t.lines()[0].startswith("Player 1 | Attack: 6 left")
                  or t.lines()[0].startswith("Player 2 wins"), "the turn back at player 1",
                  within=20)
    assert term.map_rows(4, 8) != [" pppp   ", "pOppppp ", " pppppop", "  ppppp "]   # player 2 moved


def test_large_map_scrolls_with_the_cursor(terminals, tmp_path: Path) -> None:
    path = tmp_path / "tall.map"
    path.write_text(tall_map())
    term = motti(terminals, tmp_path, "-c", str(path), "--seed", "1")
    term.wait_text("Player 1 |")
    visible = ROWS - 7
    assert term.lines()[3 + visible].startswith("-" * 12)
    assert [row.index(" ") for row in term.map_rows(visible, 10)] == [y % 10 for y in range(visible)]
    term.send(DOWN * 29)   # from the capital (5,1) to (5,30)
    term.wait_for(lambda t: t.map_rows(visible, 10)[-1].index(" ") == 0, "the map scrolled to row 30")
    top = 30 - visible + 1
    assert [row.index(" ") for row in term.map_rows(visible, 10)] == [(top + i) % 10 for i in range(visible)]
    assert term.cursor() == (6, 2 + visible)
    term.send(UP * 30)
    term.wait_for(lambda t: t.map_rows(1, 10)[0].index(" ") == 0 and t.cursor() == (6, 3), "the top again")


def test_mono_fallback_shows_owner_digits(terminals, tmp_path: Path, small: Path) -> None:
    term = motti(terminals, tmp_path, "-c", str(small), "--seed", "3", env="NO_COLOR=1 ")
    first_screen(term)
    assert term.map_rows(4, 8) == [" 1112   ", "1111222 ", " 1122222", "  12222 "]
    assert term.lines()[8].rstrip() == (
        "1-9 owner  inverse occ  underline cap.  dim threat  x cross  italic last turn")
    assert term.screen.buffer[4][2].underscore and not term.screen.buffer[4][2].reverse
    term.send(" x")
    term.wait_text("Player 2 |")
    assert term.screen.buffer[4][2].reverse   # occupied now
    assert term.screen.buffer[4][2].italics and not term.screen.buffer[4][3].italics   # the last turn's cell


def test_resize_redraws_to_the_new_size(terminals, tmp_path: Path) -> None:
    path = tmp_path / "tall.map"
    path.write_text(tall_map())
    term = motti(terminals, tmp_path, "-c", str(path), "--seed", "1")
    term.wait_text("Player 1 |")
    term.screen.resize(12, 40)
    term.child.setwinsize(12, 40)
    visible = 12 - 6     # below 60 columns the reset line goes to the message line
    term.wait_for(lambda t: t.lines()[3 + visible].startswith("-" * 12), "the frame at the new height")
    lines = term.lines()
    assert lines[0].rstrip() == "P1 | Att 6 | X 6 | z x c"     # shortened as the windows' toolbar is
    assert [row.index(" ") for row in term.map_rows(visible, 10)] == [y % 10 for y in range(visible)]
    assert lines[4 + visible].startswith("o open O safe T threat x cross")
    assert lines[5 + visible].startswith("Reset: not due · ")


def test_a_terminal_too_small_ignores_game_keys_but_q_still_asks(terminals, tmp_path: Path,
                                                                 small: Path) -> None:
    term = motti(terminals, tmp_path, "-c", str(small), "--seed", "3", "--status", "s.json")
    first_screen(term)
    term.screen.resize(4, 40)
    term.child.setwinsize(4, 40)
    term.wait_text("terminal too small")
    term.send(" z\tx")     # a cross, an attack, Tab, Defend: none may act unseen
    term.send("q")
    term.wait_text("Quit and give up players 1, 2? (y/n)")
    term.send("n")
    term.wait_for(lambda t: "(y/n)" not in t.text(), "the question gone")
    term.screen.resize(ROWS, COLS)
    term.child.setwinsize(ROWS, COLS)
    term.wait_text(STATUS_1)
    status = json.loads((tmp_path / "s.json").read_text())
    assert (status["attacks_left"], status["action"], status["crosses"]) == (6, "attack", [])


def test_a_won_game_shows_the_winner_and_q_leaves(terminals, tmp_path: Path) -> None:
    path = tmp_path / "t13.map"   # spec §9 T13: player 2's capital (3,1) is next to player 1's wall
    path.write_text("motti-map 1\nsize 6 3\nplayers 2\ncapital 1 0 0\ncapital 2 3 1\ngrid\n"
                    "aaAbbb\naaAbbb\naaAbbb\n")
    term = motti(terminals, tmp_path, "-c", str(path), "--seed", "2")
    term.wait_text("Player 1 | Attack: 6 left")
    term.send("lllj")
    term.wait_for(lambda t: t.cursor() == (4, 4), "the cursor on (3,1)")
    term.send("g")
    term.wait_text("Player 1 | Guerilla | Crosses: 1")
    term.send(" ")
    term.wait_text("Player 1 | Guerilla | Crosses: 0")
    term.send("\r")
    term.wait_text("Player 1 wins | q quits")
    term.wait_text("P1 guerilla at 3,1 — captured the capital of P2")  # the message line, drawn last
    assert term.map_rows(3, 6) == ["opPppp", "ppPPpp", "ppPppp"]
    term.send("q")
    term.child.expect(pexpect.EOF)
    term.child.close()
    assert term.child.exitstatus == 0


def test_no_color_environment_gives_the_mono_rendering(terminals, tmp_path: Path, small: Path) -> None:
    term = motti(terminals, tmp_path, "-c", str(small), "--seed", "3", env="NO_COLOR=1 ")
    first_screen(term)
    assert term.map_rows(4, 8) == [" 1112   ", "1111222 ", " 1122222", "  12222 "]
    assert term.screen.buffer[4][2].fg == "default"


def test_no_terminal_is_a_one_line_error(tmp_path: Path, small: Path) -> None:
    env = dict(os.environ, TERM="xterm")
    env.pop("DISPLAY", None)
    done = subprocess.run([sys.executable, "-m", "motti", "-c", str(small)], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, env=env, timeout=deadline(10))
    assert done.returncode == 2
    assert done.stderr == "motti: the console needs a terminal, but standard input is not one\n"


@pytest.mark.parametrize("term", ["dumb", ""])
def test_a_terminal_without_cursor_addressing_is_refused(terminals, tmp_path: Path, small: Path,
                                                        term: str) -> None:
    shown = motti(terminals, tmp_path, "-c", str(small), "--seed", "3", env=f"TERM={term} ")
    shown.child.expect(pexpect.EOF)
    shown.child.close()
    assert shown.child.exitstatus == 2
    assert shown.child.before.decode().strip() == (f"motti: cannot use the terminal (TERM={term!r}): "
                                                   "it cannot move the cursor (set TERM, e.g. TERM=xterm)")


def read_status(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def wait_status(term: Terminal, path: Path, predicate: Callable[[dict], bool], what: str) -> dict:
    found: list[dict] = []

    def check(_term: Terminal) -> bool:
        status = read_status(path)
        if status is not None and predicate(status):
            found.append(status)
            return True
        return False

    term.wait_for(check, what)
    return found[0]


def test_status_file_in_a_console_only_game(terminals, tmp_path: Path, small: Path) -> None:
    path = tmp_path / "s.json"
    term = motti(terminals, tmp_path, "-c", str(small), "--seed", "3", "--status", str(path))
    first_screen(term)
    status = wait_status(term, path, lambda s: s["console"] == [1, 2], "the console in the status")
    assert (status["windows"], status["turn"], status["action"], status["crosses"]) == ([], 1, "attack", [])
    term.send(" ")   # a cross on player 1's capital (1, 1)
    status = wait_status(term, path, lambda s: s["crosses"] == [[1, 1]], "the cross in the status")
    assert status["board"] == [".aaab...", "aaaabbb.", ".aabbbbb", "..abbbb."]


def test_with_c_an_all_computer_game_is_watched_on_the_terminal(terminals, tmp_path: Path,
                                                                small: Path) -> None:
    path = tmp_path / "s.json"
    term = motti(terminals, tmp_path, "-c", "--computer", "1,2", str(small), "--seed", "3",
                 "--status", str(path), env="DISPLAY=:99999 ")
    status = wait_status(term, path, lambda s: s["attacks_left"] < 6 or s["turn"] == 2, "a computer move")
    assert status["console"] == [] and status["windows"] == []
    term.wait_text("(computer) is thinking")
    term.wait_text("watching (? keys, q stops)")  # the status line: a watcher's keys, not the actions'
    assert "[A]ttack(z)" not in term.text()
    term.wait_for(lambda t: "then the turn ends" in t.text(), "the information line of an attack turn")
    assert "ends it now" not in term.text()          # nor the pass key it cannot use
    term.send("?")                 # the help gives a watcher's keys, none of a player's
    term.wait_text("q: stop watching (the game stops unfinished).")
    assert "z/x/c" not in term.text() and "give up" not in term.text()
    term.send(" ")
    term.wait_for(lambda t: "stop watching" not in t.text(), "the board again")
    term.send("q")   # the terminal gives back what ended: the watching, not the last move
    term.wait_text("motti: watching stopped after ")
    term.child.expect(pexpect.EOF)
    term.child.close()
    assert term.child.exitstatus == 0
    message = json.loads(path.read_text())["message"]
    assert re.fullmatch(r"watching stopped after \d+ turns? — nobody is left at a window or the terminal: "
                        r"the game stops unfinished", message)


def test_selecting_an_impossible_action_says_why(terminals, tmp_path: Path, small: Path) -> None:
    term = motti(terminals, tmp_path, "-c", str(small), "--seed", "3")
    first_screen(term)
    term.send(" z")  # an attack: Defend and Guerilla are impossible now
    term.wait_text("Attack: 5 left")
    term.send("d")
    term.wait_text("Defend is impossible after an attack this turn")
    term.send("\t")
    term.send("g")
    term.wait_text("Guerilla is impossible after an attack this turn")
    assert term.lines()[0].startswith("Player 1 | Attack: 5 left")



@pytest.mark.parametrize("cols", [80, 40])
def test_a_newcomer_reads_the_capitals_the_turn_the_land_and_the_reset_at_80_and_40_columns(
        terminals, tmp_path: Path, cols: int) -> None:
    (tmp_path / "end.map").write_text(ENDGAME)
    term = motti(terminals, tmp_path, "-c", "end.map", "--seed", "1", "--max-turns", "50", "--status",
                 "s.json", cols=cols)
    term.wait_text("Turn 1")
    lines = term.lines()
    # o: player 1's open capital; O: player 2's safe one (no threat: it cannot be taken before a reset)
    assert term.map_rows(4, 10) == ["pppPPppppp", "popPPOpppp", "pppPPppppp", "pppPPPpppp"]
    if cols == 80:
        assert lines[0].rstrip() == STATUS_1
        assert lines[1].rstrip() == "Turn 1 of 50 · 6 attacks, or Defend/Guerilla · land P1 18, P2 22"
        assert lines[8].rstrip() == (
            "p/P free/occ  o/O open/safe  T threat  x cross  inverse last turn  players: 1 2")
        assert lines[9].rstrip() == (
            "Reset when no player can take a free cell of another: P1 can take 2, P2 0")
        assert lines[10].rstrip() == console.KEYS_HELP
    else:
        assert lines[0].rstrip() == "P1 | Att 6 | X 6 | z x c"
        assert lines[1].rstrip() == "Turn 1 of 50 · land P1 18, P2 22"
        assert lines[8].rstrip() == "o open O safe T threat x cross 1 2"
        assert lines[9].rstrip() == "Reset: P1 2 P2 0 · arrows move  space…"      # the message line
    status = json.loads((tmp_path / "s.json").read_text())
    assert (status["turns"], status["max_turns"], status["land"]) == (0, 50, {"1": 18, "2": 22})
    assert status["reset"] == {"rule": "strict", "takeable": {"1": 2, "2": 0}}
    term.send("t")                 # a tip: the medium player's move, as crosses, not performed
    term.wait_text("Tip for P1")
    tip_row = term.lines()[10 if cols == 80 else 9].rstrip()
    if cols == 80:   # player 2's wall (4,1) is 3 cells from the open capital (1,1): medium defends it
        assert tip_row == "Tip for P1: defend 1,1 2,1 0,1 — occupies your capital: safe until the next…"
    else:
        assert tip_row.startswith("Reset: P1 2 P2 0 · Tip for P1")
    tip = [[1, 1], [2, 1], [0, 1]]
    term.wait_for(lambda t: all(t.cell(x, y) == "x" for x, y in tip), "the tip's crosses")
    # the screen is drawn before the status file is written
    status = wait_status(term, tmp_path / "s.json", lambda s: s["tip"] is not None, "the tip in the status")
    assert status["tip"] == {"player": 1, "action": "defend", "cells": tip,
                             "why": "occupies your capital: safe until the next reset"}
    assert (status["turns"], sorted(status["crosses"]), status["action"]) == (0, sorted(tip), "defend")
    term.send("?")
    term.wait_text("motti: rules and keys (any key returns)")
    assert "Take every enemy capital to win." in term.text()
    term.send("m")                 # any key returns; m then shows the resets first
    term.wait_text("Turn 1")
    term.send("m")
    term.wait_text("Resets: none yet")
    assert term.lines()[2].rstrip() == "P1 asked for a tip"


def test_p_passes_the_information_line_says_how_a_turn_ends_and_a_second_t_puts_the_tip_away(
        terminals, tmp_path: Path, small: Path) -> None:
    term = motti(terminals, tmp_path, "-c", str(small), "--seed", "3", "--status", "s.json")
    first_screen(term)
    assert "6 attacks left; Defend or Guerilla ends the turn" in term.lines()[1]
    term.send("?")
    term.wait_text("motti: rules and keys (any key returns)")
    assert "p: pass (end the turn now). Inverse cells: the last turn's." in term.text()
    assert "t: a tip (the medium computer's move, as crosses); t again takes it away." in term.text()
    term.send(" ")
    term.wait_text(STATUS_1)
    term.send("p")
    term.wait_text("Player 2 | Attack: 6 left")
    assert term.lines()[10].rstrip() == "P1 passed"
    term.send("t")
    term.wait_for(lambda t: any("x" in row for row in t.map_rows(4, 8)), "the tip's crosses")
    status_file = tmp_path / "s.json"
    tip = wait_status(term, status_file, lambda s: s["tip"] is not None, "the tip in the status")["tip"]
    assert tip["player"] == 2
    term.send("t")
    term.wait_text("P2 put the tip away")
    assert not any("x" in row for row in term.map_rows(4, 8))
    status = wait_status(term, status_file, lambda s: s["tip"] is None, "the tip gone from the status")
    assert (status["tip"], status["crosses"], status["turn"]) == (None, [], 2)


#: spec §9 T16: player 1's attack on its own free (1,1) leaves nobody a free cell of another: the reset.
T16 = "motti-map 1\nsize 4 2\nplayers 2\ncapital 1 0 0\ncapital 2 3 0\ngrid\nAABB\nAaBB\n"


def test_a_mid_turn_reset_says_who_goes_on_and_an_empty_attack_with_no_cell_to_cross_passes(
        terminals, tmp_path: Path) -> None:
    (tmp_path / "t16.map").write_text(T16)
    term = motti(terminals, tmp_path, "-c", "t16.map", "--seed", "2")     # seed 2 draws 0 first
    first_screen(term)
    term.send(DOWN + RIGHT)
    term.wait_for(lambda t: t.cursor() == (2, 4), "the cursor on (1,1)")
    term.send(" z")
    term.wait_text("Player 1 | Attack: 5 left")
    # the message line, under the 2-row map's frame, legend and reset line
    row_reads(term, 8, "P1 attack 1 of 6 took 1,1 — reset: all land is free; P1 goes on with 5 attacks")
    assert "5 attacks left, then the turn ends (p ends it now)" in term.lines()[1]
    term.send("p")
    term.wait_text("Player 2 | Attack: 6 left")
    row_reads(term, 8, "P1 ended the turn")


def test_an_attack_without_crosses_passes_when_no_cell_can_be_crossed(terminals, tmp_path: Path) -> None:
    (tmp_path / "stuck.map").write_text(
        "motti-map 1\nsize 4 2\nplayers 2\ncapital 1 0 0\ncapital 2 3 0\ngrid\nAABB\nAABb\n")
    term = motti(terminals, tmp_path, "-c", "stuck.map", "--seed", "1")
    first_screen(term)
    term.send("z")
    term.wait_text("Player 2 | Attack: 6 left")
    row_reads(term, 8, "P1 passed: no cell to cross")

"""Following a motti game as people do (issue 17; spec/motti.md §6 "The last turn", §7): windows on real Xvfb
displays driven with xdotool and read back through screenshots, the console in a real terminal (pexpect +
pyte), and the ``--status`` file's ``last_turn`` after turns that conquer, encircle, capture and reset."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pexpect
import pyte
from deadline import deadline, wait_until
from motti_maps import ENDGAME
from statusrun import StatusRun
from xvfb import Xvfb, origin

from motti import view

MOTTI = [sys.executable, "-m", "motti"]
SHOTS = os.environ.get("MOTTI_SHOTS")   # a folder to keep the screenshots in, to look at them

#: spec §9 T6: player 1 defends (2,3) and so encircles player 2's (2,2).
T6 = """\
motti-map 1
size 7 5
players 2
capital 1 0 0
capital 2 6 0
grid
aaaabbb
aAAAbbb
aABAbbb
aAaAbbb
aaaabbb
"""

#: spec §9 T13: player 2's capital (3,1) is free and next to player 1's occupied wall.
T13 = "motti-map 1\nsize 6 3\nplayers 2\ncapital 1 0 0\ncapital 2 3 1\ngrid\naaAbbb\naaAbbb\naaAbbb\n"

#: spec §9 T15: player 1 defends its last free cell (1,1); no free land is left, so every cell is freed.
T15 = "motti-map 1\nsize 4 2\nplayers 2\ncapital 1 0 0\ncapital 2 3 0\ngrid\nAABB\nAaBB\n"


def shot_until(server: Xvfb, win: dict, name: str, shows: Callable[[np.ndarray], bool]) -> np.ndarray:
    """Screenshots of window *win* until one *shows* what is awaited (or the deadline); the last one."""
    end = time.monotonic() + deadline(10)
    while True:
        pixels = shot(server, win, name)
        if shows(pixels) or time.monotonic() > end:
            return pixels


def window_for(status: dict, players: list[int]) -> dict:
    return next(w for w in status["windows"] if w["players"] == players)


def click(server: Xvfb, win: dict, button: int, cell: tuple[int, int] | None = None,
          box: int | None = None) -> None:
    """Click *button* in window *win* (a status entry) on board *cell* or on toolbar *box*."""
    left, top = origin(server, win["window_id"])
    if box is not None:
        px, py = box * win["size"][0] // 4 + win["size"][0] // 8, 24
    else:
        x, y = cell
        px, py = win["x0"] + win["c"] * x + win["c"] // 2, win["y0"] + win["c"] * y + win["c"] // 2
    server.xdotool("mousemove", str(left + px), str(top + py), "click", str(button))


def key(server: Xvfb, win: dict, name: str) -> None:
    left, top = origin(server, win["window_id"])
    server.xdotool("mousemove", str(left + 10), str(top + 60), "key", name)


def shot(server: Xvfb, win: dict, name: str) -> np.ndarray:
    """The window's pixels, read from a screenshot of the screen (xwd | convert), kept in $MOTTI_SHOTS."""
    import pygame

    folder = Path(SHOTS) if SHOTS else Path(os.environ.get("TMPDIR", "/tmp"))
    path = server.screenshot(folder / f"{name}.png")
    left, top = origin(server, win["window_id"])
    width, height = win["size"]
    screen = pygame.surfarray.array3d(pygame.image.load(str(path))).transpose(1, 0, 2)   # (H, W, 3)
    pixels = screen[top:top + height, left:left + width]
    if not SHOTS:
        path.unlink()
    return pixels


def gained_frame(pixels: np.ndarray, win: dict, cell: tuple[int, int], colour: tuple[int, int, int]) -> bool:
    """Whether *cell* carries the solid outline of a gained cell in *colour*: on the left and the top edge of
    its inner area, inside the contrasting edge."""
    x0, y0, c = win["x0"], win["y0"], win["c"]
    left, top = x0 + c * cell[0], y0 + c * cell[1]
    return (tuple(pixels[top + c // 2, left + 3]) == colour
            and tuple(pixels[top + 3, left + c // 2]) == colour
            and tuple(pixels[top + c // 2, left + 2]) in (view.INK, view.WHITE))


def dashed_frame(pixels: np.ndarray, win: dict, cell: tuple[int, int], colour: tuple[int, int, int]) -> bool:
    """Whether *cell*'s inner top edge is dashed: both *colour* and other pixels along it."""
    x0, y0, c = win["x0"], win["y0"], win["c"]
    left, top = x0 + c * cell[0], y0 + c * cell[1]
    edge = {tuple(p) for p in pixels[top + 2, left + 2:left + c - 2]}
    return colour in edge and len(edge) > 1


def probe(pixels: np.ndarray, win: dict, cell: tuple[int, int]) -> tuple[int, int, int]:
    x0, y0, c = win["x0"], win["y0"], win["c"]
    return tuple(pixels[y0 + c * cell[1] + c // 2, x0 + c * cell[0] + 1])


def test_windows_mark_the_last_turn_and_the_waiting_window_says_why(xvfb3, tmp_path):
    d1, d2, _ = xvfb3
    (tmp_path / "t6.map").write_text(T6)
    game = StatusRun(MOTTI, ["t6.map", f"1:{d1.name}", f"2:{d2.name}", "--seed", "4"], tmp_path, d1.env())
    try:
        status = game.wait(lambda s: len(s["windows"]) == 2, "two windows")
        assert status["last_turn"] is None
        mine, theirs = window_for(status, [1]), window_for(status, [2])
        # A click in the waiting window does nothing, and that window says why.
        click(d2, theirs, 1, (5, 2))
        status = game.wait(lambda s: window_for(s, [2])["note"] is not None, "the note")
        assert window_for(status, [2])["note"] == "not your turn: waiting for P1"
        assert status["crosses"] == []
        # Player 1 defends (2,3): T6, player 2's (2,2) is encircled.
        click(d1, mine, 1, box=1)
        game.wait(lambda s: s["action"] == "defend", "Defend selected")
        click(d1, mine, 1, (2, 3))
        game.wait(lambda s: s["crosses"] == [[2, 3]], "the cross")
        click(d1, mine, 3, (2, 3))
        status = game.wait(lambda s: s["turn"] == 2, "player 2's turn")
        assert status["message"] == "P1 defended 1 cell — encircled 1 cell of P2"
        assert status["last_turn"] == {"player": 1, "action": "defend",
                                       "cells": [[2, 2, "encircled"], [2, 3, "occupied"]], "reset": False}
        assert window_for(status, [2])["note"] is None
        for server, win, name in ((d1, mine, "defend-p1"), (d2, theirs, "defend-p2")):
            pixels = shot_until(server, win, name,
                                lambda p, w=win: gained_frame(p, w, (2, 3), view.bright(1)))
            assert gained_frame(pixels, win, (2, 3), view.bright(1)), name
            assert dashed_frame(pixels, win, (2, 2), view.bright(1)), name
            assert probe(pixels, win, (2, 3)) == view.bright(1) and probe(pixels, win, (2, 2)) == view.dark(1)
            for cell in ((1, 1), (3, 3), (5, 2)):   # unmarked cells keep plain inner areas
                assert not gained_frame(pixels, win, cell, view.bright(1))
        # Player 2 attacks six times with six crosses on its own free cells: each attack conquers one of the
        # crosses left (a draw below their count), and the marks move to player 2's conquests.
        targets = [(4, 0), (5, 0), (4, 1), (5, 1), (4, 2), (5, 2)]
        for cell in targets:
            click(d2, theirs, 1, cell)
        game.wait(lambda s: len(s["crosses"]) == 6, "six crosses")
        # the marks of player 1's turn stay while player 2's turn goes on
        click(d2, theirs, 3, targets[0])
        status = game.wait(lambda s: s["attacks_left"] == 5, "the first attack")
        assert status["last_turn"]["player"] == 1
        for left in range(4, -1, -1):
            click(d2, theirs, 3, targets[0])
            status = game.wait(lambda s, n=left: s["attacks_left"] == n or s["turn"] == 1, "an attack")
        status = game.wait(lambda s: s["turn"] == 1, "player 1's turn again")
        last = status["last_turn"]
        assert (last["player"], last["action"], last["reset"]) == (2, "attack", False)
        occupied = {(x, y) for y, row in enumerate(status["board"]) for x, ch in enumerate(row) if ch == "B"}
        assert {(x, y) for x, y, change in last["cells"]} == occupied and 1 <= len(occupied) <= 6
        assert {change for *_, change in last["cells"]} == {"conquered"}
        taken = sorted(occupied)[0]
        pixels = shot_until(d1, mine, "attack-p1", lambda p: gained_frame(p, mine, taken, view.bright(2)))
        assert gained_frame(pixels, mine, taken, view.bright(2))
        assert not gained_frame(pixels, mine, (2, 3), view.bright(1))   # player 1's marks are gone
        # q asks first; n goes on.
        key(d1, mine, "q")
        status = game.wait(lambda s: window_for(s, [1])["note"] is not None, "the question")
        assert window_for(status, [1])["note"] == "Quit and give up player 1? (y/n)"
        key(d1, mine, "n")
        status = game.wait(lambda s: window_for(s, [1])["note"] is None, "the question answered")
        assert status["alive"] == [1, 2]
        # m shows the announcements in full over the board, until the next key.
        key(d1, mine, "m")
        game.wait(lambda s: window_for(s, [1])["history"], "the m panel")
        pixels = shot_until(d1, mine, "history-p1", lambda p: probe(p, mine, (0, 0)) == view.INK)
        assert probe(pixels, mine, (0, 0)) == view.INK   # the panel covers the board
        y0, c = mine["y0"], mine["c"]
        panel = pixels[y0:y0 + 5 * c, 8:mine["size"][0] - 8]
        # its lines of text: BOX antialiased on INK
        assert np.all(panel >= 150, axis=-1).sum() > 300 and np.any(panel != view.INK, axis=-1).sum() > 1000
        key(d1, mine, "space")
        game.wait(lambda s: not window_for(s, [1])["history"], "the board again")
    finally:
        game.stop()


class Terminal:
    """motti in a pty of 24 x 80 with TERM=xterm; the screen as pyte sees it."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        env = dict(env or os.environ, TERM="xterm", ESCDELAY="25")
        for name in ("TMUX", "LINES", "COLUMNS", "NO_COLOR"):
            env.pop(name, None)
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        command = " ".join(shlex.quote(a) for a in [*MOTTI, *args])
        self.child = pexpect.spawn("/bin/bash", ["--norc", "--noprofile", "-c", command], cwd=str(cwd),
                                   env=env, dimensions=(24, 80), timeout=deadline(10))

    def pump(self) -> None:
        while True:
            try:
                self.stream.feed(self.child.read_nonblocking(65536, timeout=0.05))
            except (pexpect.TIMEOUT, pexpect.EOF):
                return

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait_for(self, predicate: Callable[[str], bool], what: str) -> None:
        end = time.monotonic() + deadline(10)
        while time.monotonic() < end:
            self.pump()
            if predicate(self.text()):
                return
        raise AssertionError(f"{what} not on the screen:\n{self.text()}")

    def wait_text(self, text: str) -> None:
        self.wait_for(lambda screen: text in screen, repr(text))

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


def status_of(path: Path) -> dict | None:
    import json

    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def test_console_capture_marks_reverse_video_and_m_shows_the_announcements(tmp_path):
    (tmp_path / "t13.map").write_text(T13)
    term = Terminal(["-c", "t13.map", "--seed", "2", "--status", "s.json"], tmp_path)
    try:
        term.wait_text("Player 1 | Attack: 6 left")
        term.child.send("lllj")    # the cursor from (0,0) to player 2's capital (3,1)
        term.child.send("g")
        term.wait_text("Player 1 | Guerilla | Crosses: 1")
        term.child.send(" ")
        term.wait_text("Player 1 | Guerilla | Crosses: 0")
        term.child.send("\r")
        term.wait_text("Player 1 wins")
        status = wait_until(lambda: (s := status_of(tmp_path / "s.json")) and s["winner"] == 1 and s,
                            "the win in the status file (written after the screen is drawn)", 10)
        assert status["message"] == ("P1 guerilla at 3,1 — captured the capital of P2 — encircled 8 cells "
                                     "of P2 — P2 is out — P1 wins after 1 turn")
        last = status["last_turn"]
        assert (last["player"], last["action"], last["reset"]) == (1, "guerilla", False)
        cells = {(x, y): change for x, y, change in last["cells"]}
        assert cells.pop((3, 1)) == "captured"
        assert set(cells.values()) == {"encircled"} and len(cells) == 8
        # reverse video on exactly the marked cells (map row y is screen row 3 + y, column 1 + x)
        buffer = term.screen.buffer
        reversed_cells = {(x, y) for y in range(3) for x in range(6) if buffer[3 + y][1 + x].reverse}
        assert reversed_cells == {(x, y) for x, y, _ in last["cells"]}
        # the message line is shortened at a word bound; m shows the whole announcement
        line = term.screen.display[9].rstrip()
        assert line.endswith("…") and status["message"].startswith(line[:-1])
        assert status["message"][len(line) - 1] == " "
        term.child.send("m")
        term.wait_text("(any key returns)")
        assert "".join(row.rstrip() + " " for row in term.screen.display).count("P1 wins after 1 turn") == 1
        term.child.send(" ")
        term.wait_text("Player 1 wins | q quits")
        term.child.send("q")
        term.child.expect(pexpect.EOF)
    finally:
        term.close()


def test_a_reset_is_announced_and_recorded_not_marked(tmp_path):
    (tmp_path / "t15.map").write_text(T15)
    term = Terminal(["-c", "t15.map", "--seed", "2", "--status", "s.json", "--reset-rule", "empty"], tmp_path)
    try:
        term.wait_text("Player 1 | Attack: 6 left")
        term.child.send("j")       # (0,1) is occupied; (1,1) is player 1's last free cell
        term.child.send("l x")
        term.wait_text("Player 2 | Attack: 6 left")
        status = wait_until(lambda: (s := status_of(tmp_path / "s.json")) and s["turn"] == 2 and s,
                            "player 2's turn in the status file", 10)
        assert status["board"] == ["aabb", "aabb"]
        assert status["message"] == "P1 defended 1 cell — reset: all land is free again"
        assert status["last_turn"] == {"player": 1, "action": "defend", "cells": [[1, 1, "occupied"]],
                                       "reset": True}
        term.child.send("q")
        term.wait_text("(y/n)")
        term.child.send("y")
        term.child.expect(pexpect.EOF)
    finally:
        term.close()


def test_quitting_at_the_console_of_a_mixed_game_says_the_game_goes_on(xvfb, tmp_path):
    three = ("motti-map 1\nsize 9 3\nplayers 3\ncapital 1 1 1\ncapital 2 4 1\ncapital 3 7 1\ngrid\n"
             "aaabbbccc\naaabbbccc\naaabbbccc\n")
    (tmp_path / "three.map").write_text(three)
    term = Terminal(["-c", "three.map", f"1,3:{xvfb.name}", "--seed", "2", "--status", "s.json"], tmp_path,
                    env=xvfb.env())
    try:
        term.wait_text("waiting for P1")
        status = wait_until(lambda: (s := status_of(tmp_path / "s.json")) and s["windows"] and s,
                            "the window in the status file", 10)
        assert status["console"] == [2] and len(status["windows"]) == 1
        term.child.send(" ")       # not player 2's turn: the terminal says why nothing happened
        term.wait_text("not your turn: waiting for P1")
        term.child.send("q")
        term.wait_text("Quit and give up player 2? (y/n)")
        term.child.send("y")
        term.wait_text("motti: P2 quit, out; the game goes on in the windows")
        status = wait_until(lambda: (s := status_of(tmp_path / "s.json")) and s["alive"] == [1, 3] and s,
                            "P2 out in the status file", 10)
        assert status["alive"] == [1, 3] and status["console"] is None and len(status["windows"]) == 1
        assert subprocess.run(["xwininfo", "-display", xvfb.name, "-root", "-tree"], capture_output=True,
                              text=True, timeout=deadline(3)).stdout.count("motti: player 1, player 3") == 1
    finally:
        term.close()


def test_a_computer_turn_goes_one_action_at_a_time_and_an_observer_q_closes_at_once(xvfb, tmp_path):
    """Two computers watched in an observer window: every single action is written (status) and drawn before
    the next one, none skipped; meanwhile the window answers keys: its `q` closes it at once."""
    (tmp_path / "t6.map").write_text(T6)
    # each action is shown for deadline(0.1) s (1 s by default): long enough for this test to see every one
    # on a busy machine (the status file holds only the last)
    game = StatusRun(MOTTI, ["t6.map", "--computer", "1,2", "--seed", "3", "--delay", str(deadline(0.1))],
                     tmp_path, xvfb.env())
    try:
        said: list[str] = []
        status = game.wait(lambda s: s["windows"] and s["message"], "the first action")
        while len(said) < 8 and status["winner"] is None:
            said.append(status["message"])
            status = game.wait(lambda s, m=status["message"]: s["message"] != m or s["winner"] is not None,
                               "the next action")
        attacks = [(text[:2], int(text.split(" ")[2])) for text in said if " attack " in text]
        for player, number in attacks:   # attack n of a turn is seen only after attack n-1 was
            assert number == 1 or (player, number - 1) in attacks, said
        win = status["windows"][0]
        assert win["players"] == []
        key(xvfb, win, "q")
        code, _out, err = game.finish()
        assert code == 0, err
        assert game.status()["winner"] is None and game.status()["windows"] == []
    finally:
        game.stop()


def test_delay_must_be_a_number_of_seconds(tmp_path):
    (tmp_path / "t6.map").write_text(T6)
    for bad in ("-1", "soon", "nan"):
        done = subprocess.run([*MOTTI, "t6.map", "--delay", bad], cwd=tmp_path, capture_output=True,
                              text=True, timeout=deadline(10))
        assert done.returncode == 2 and done.stderr.startswith("motti: argument --delay: "), done.stderr


def test_console_against_the_computer_marks_its_turn_and_m_lists_every_action(tmp_path):
    term = Terminal(["classic", "-c", "--computer", "2", "--seed", "5", "--delay", "0", "--status", "s.json"],
                    tmp_path)
    try:
        term.wait_text("Player 1 | Attack: 6 left")
        term.child.send(" x")    # Defend player 1's capital (the cursor starts on it)
        status: dict = {}

        def reversed_cells() -> set[tuple[int, int]]:
            # the map is not scrolled on 24 rows (classic is 20x15): cell (x, y) at row 3 + y, column 1 + x
            buffer = term.screen.buffer
            return {(x, y) for y in range(15) for x in range(20) if buffer[3 + y][1 + x].reverse}

        def computer_turn_shown(_: str) -> bool:   # the computer's whole turn is over and drawn
            status.update(status_of(tmp_path / "s.json") or {})
            last = status.get("last_turn")
            return (status.get("turn") == 1 and last is not None and last["player"] == 2
                    and reversed_cells() == {(x, y) for x, y, _ in last["cells"]})

        term.wait_for(computer_turn_shown, "the computer's turn in reverse video")
        assert "Player 1 | Attack: 6 left" in term.text()
        term.child.send("m")
        term.wait_text("announcements (any key returns)")
        lines = [line.rstrip() for line in term.screen.display[1:]]
        assert lines[:2] == ["Resets: none yet", "P1 defended 1 cell"]
        actions = [line for line in lines[2:] if line]
        assert actions and all(line.startswith("P2 ") for line in actions)
        assert actions[-1] == status["message"]
        term.child.send(" ")
        term.wait_text("Player 1 | Attack: 6 left")
        assert "announcements" not in term.text()
    finally:
        term.close()


def test_a_window_shared_with_the_computer_says_the_computer_is_thinking(xvfb, tmp_path):
    """make run's set-up: players 1 and 2 share the one window, the computer plays 2."""
    (tmp_path / "t6.map").write_text(T6)
    game = StatusRun(MOTTI, ["t6.map", "--computer", "2", "--seed", "3", "--delay", "0.4"], tmp_path,
                     xvfb.env())
    try:
        status = game.wait(lambda s: s["windows"], "the window")
        win = status["windows"][0]
        assert win["players"] == [1, 2] and win["legend"] == "Your move, player 1"
        click(xvfb, win, 1, box=1)
        game.wait(lambda s: s["action"] == "defend", "Defend selected")
        click(xvfb, win, 1, (2, 3))
        game.wait(lambda s: s["crosses"] == [[2, 3]], "the cross")
        click(xvfb, win, 3, (2, 3))
        status = game.wait(lambda s: s["turn"] == 2, "the computer's turn")
        assert status["windows"][0]["legend"] == ("P2 (computer) is thinking · P1 defended 1 cell — "
                                                  "encircled 1 cell of P2")
        click(xvfb, status["windows"][0], 1, (0, 4))
        status = game.wait(lambda s: s["turn"] == 1 or s["windows"][0]["note"], "the note")
        if status["turn"] == 2:
            assert status["windows"][0]["note"] == "not your turn: P2 (computer) is thinking"
        status = game.wait(lambda s: s["turn"] == 1, "player 1's turn again")
        assert status["windows"][0]["legend"].startswith("Your move, player 1 · P2 ")
        assert status["last_turn"]["player"] == 2
    finally:
        game.stop()



def test_a_window_shows_safe_and_open_capitals_threats_the_reset_line_the_help_and_a_tip(xvfb, tmp_path):
    (tmp_path / "end.map").write_text(ENDGAME)
    game = StatusRun(MOTTI, ["end.map", f"1,2:{xvfb.name}", "--seed", "1", "--max-turns", "50"], tmp_path,
                     xvfb.env())
    try:
        status = game.wait(lambda s: len(s["windows"]) == 1, "the window")
        win = status["windows"][0]
        assert win["legend"] == "Your move, player 1"
        assert status["reset"] == {"rule": "strict", "takeable": {"1": 2, "2": 0}}
        x0, y0, c = win["x0"], win["y0"], win["c"]
        for _ in range(50):
            pixels = shot(xvfb, win, "newcomer-endgame")
            if probe(pixels, win, (5, 1)) == view.bright(2):
                break
        centre = (y0 + c * 1 + c // 2, x0 + c * 5 + c // 2)
        assert tuple(pixels[centre]) == view.INK          # safe: the black dot of an occupied capital
        assert tuple(pixels[y0 + c + c // 2, x0 + c + c // 2]) == view.dark(1)   # open: a white ring only
        assert view.WHITE in {tuple(p) for p in pixels[y0 + c + c // 2, x0 + c:x0 + 2 * c]}
        corner = pixels[y0 + c - 6:y0 + c - 2, x0 + 5 * c - 6:x0 + 5 * c - 2]   # (4,0), towards (5,1)
        assert not (np.all(corner == view.WHITE, axis=-1)).any()     # no threat: (5,1) is safe
        assert not (np.all(pixels[y0 + 2:y0 + c - 2, x0 + 2:x0 + c - 2] == view.WHITE, axis=-1)).any()
        info = pixels[view.BOX_HEIGHT:view.TOOLBAR_HEIGHT, :]
        # the information line's text: white, antialiased (the windows' face draws few pixels fully opaque)
        assert (np.all(info >= 200, axis=-1)).sum() > 50
        # ? shows the help over the board until any key
        key(xvfb, win, "question")
        status = game.wait(lambda s: s["windows"][0]["help"], "the help")
        for _ in range(50):
            pixels = shot(xvfb, win, "newcomer-help")
            if probe(pixels, win, (0, 0)) == view.INK:
                break
        assert probe(pixels, win, (0, 0)) == view.INK
        key(xvfb, win, "space")
        game.wait(lambda s: not s["windows"][0]["help"], "the board again")
        # t: the medium player's choice as crosses, not performed: player 2's wall (4,1) is 3 cells from the
        # open capital (1,1), so medium defends it and the two cells next to it
        key(xvfb, win, "t")
        status = game.wait(lambda s: s["tip"] is not None, "the tip")
        tip = [[1, 1], [2, 1], [0, 1]]
        assert status["tip"] == {"player": 1, "action": "defend", "cells": tip,
                                 "why": "occupies your capital: safe until the next reset"}
        assert (sorted(status["crosses"]), status["action"], status["turns"]) == (sorted(tip), "defend", 0)
        assert status["windows"][0]["note"] == ("Tip for P1: defend 1,1 2,1 0,1 — occupies your capital: "
                                                "safe until the next reset")
        click(xvfb, status["windows"][0], 3, (1, 1))                 # the right button performs the Defend
        status = game.wait(lambda s: s["turn"] == 2, "the tip's Defend performed")
        assert status["tip"] is None and status["message"] == "P1 defended 3 cells"
        assert [status["board"][y][x] for x, y in tip] == ["A", "A", "A"]
        assert status["land"] == {"1": 18, "2": 22}
    finally:
        game.stop()


# ---- what players and a newcomer found (pass key, no-cross attacks, a save's computer seat, threats, the
# ---- key's last-turn outlines, a tip put away, the winner's line at 480 px)

#: Player 2's free capital (3,1) next to player 1's occupied (2,0) and (2,1) (threats) and free (2,2) (none).
THREATS = "motti-map 1\nsize 6 3\nplayers 2\ncapital 1 0 0\ncapital 2 3 1\ngrid\naaAbbb\naaAbbb\naaabbb\n"


def bright_pixels(pixels: np.ndarray) -> np.ndarray:
    """(H, W) bool: pixels whose every channel is above 200 (antialiased white text, white marks)."""
    return np.all(pixels > 200, axis=2)


def test_a_player_string_takes_a_saves_computer_seat_p_passes_no_cross_attacks_are_refused_and_t_twice(
        xvfb3, tmp_path):
    import random

    from motti.compose import Composer
    from motti.explain import NO_CROSS
    from motti.mapfile import parse_map
    from motti.rules import Game
    from motti.savegame import save_game

    d1, d2, _ = xvfb3
    save_game(Composer(Game(parse_map(T13).board, random.Random(0))), tmp_path / "save.map", {2: "hard"})
    game = StatusRun(MOTTI, ["save.map", f"1:{d1.name}", f"2:{d2.name}", "--seed", "3"], tmp_path, d1.env())
    try:
        # The save says "computer 2 hard", the command line seats player 2 at d2: a person plays it there.
        status = game.wait(lambda s: len(s["windows"]) == 2, "a window for each player")
        mine, theirs = window_for(status, [1]), window_for(status, [2])
        assert theirs["display"] == d2.name
        # Player 1's right button with no cross: refused, naming the pass key; nothing is spent.
        click(d1, mine, 3, (0, 2))
        status = game.wait(lambda s: s["message"] == NO_CROSS, "the refusal")
        assert (status["turn"], status["attacks_left"], status["action"]) == (1, 6, "attack")
        assert window_for(status, [1])["legend"] == f"Your move, player 1 · {NO_CROSS}"
        shot(d1, mine, "players-no-cross")
        key(d1, mine, "p")                                # the pass key ends the turn at once
        status = game.wait(lambda s: s["turn"] == 2, "player 2's turn")
        assert (status["message"], status["attacks_left"], status["turns"]) == ("P1 passed", 6, 1)
        # Player 2 (a person now) asks for a tip, then puts it away with a second t.
        key(d2, theirs, "t")
        status = game.wait(lambda s: s["tip"] is not None, "the tip")
        assert status["crosses"] == status["tip"]["cells"] and status["crosses"]
        key(d2, theirs, "t")
        status = game.wait(lambda s: s["tip"] is None, "the tip put away")
        assert (status["crosses"], status["action"]) == ([], "attack")
        assert status["message"] == "P2 put the tip away"
        assert window_for(status, [2])["note"] is None
        key(d2, theirs, "p")
        status = game.wait(lambda s: s["turn"] == 1, "player 1's turn again")
        assert status["message"] == "P2 passed"
        # Player 1 takes the open capital by Guerilla: the 480 px window's legend says the end whole.
        click(d1, mine, 1, box=2)
        game.wait(lambda s: s["action"] == "guerilla", "Guerilla selected")
        click(d1, mine, 1, (3, 1))
        game.wait(lambda s: s["crosses"] == [[3, 1]], "the cross on the capital")
        click(d1, mine, 3, (3, 1))
        status = game.wait(lambda s: s["winner"] == 1, "player 1 wins")
        assert status["message"].endswith("P1 wins after 3 turns")
        legend = window_for(status, [1])["legend"]
        assert legend == "Player 1 wins after 3 turns"
        width = mine["size"][0]
        assert width == 480
        text_right = width - 6 - (2 * 19 - 3) - 12        # the players' two swatches are at the right
        text, points = view.fit_words(legend, text_right - 24, 18)
        assert text == legend                                # whole, no "…"
        expected_right = 24 + view._width(legend, points)
        band = shot_until(d1, mine, "players-winner-480",
                          lambda p: bright_pixels(p[-view.LEGEND_HEIGHT:, 24:text_right]).any())
        columns = np.nonzero(bright_pixels(band[-view.LEGEND_HEIGHT:, :text_right]).any(axis=0))[0]
        assert 24 <= columns.min() <= 27 and expected_right - 4 <= columns.max() <= expected_right + 1
    finally:
        code, _out, err = game.stop()
    assert code == 130, err
    assert ("motti: a player string names player 2: a person plays it, not this save's computer 2 hard "
            "(--computer 2 keeps the computer)") in err.splitlines()


def test_threats_only_where_an_open_capital_can_be_taken_and_the_key_shows_the_last_turn(xvfb, tmp_path):
    (tmp_path / "threats.map").write_text(THREATS)
    game = StatusRun(MOTTI, ["threats.map", "--seed", "1"], tmp_path, xvfb.env())
    try:
        status = game.wait(lambda s: len(s["windows"]) == 1, "the window")
        win = status["windows"][0]

        def triangle(pixels: np.ndarray, cell: tuple[int, int]) -> int:
            """White pixels in *cell*'s inner area (a threat's triangle; nothing else is white there)."""
            x0, y0, c = win["x0"], win["y0"], win["c"]
            left, top = x0 + c * cell[0] + 2, y0 + c * cell[1] + 2
            return int(np.all(pixels[top:top + c - 4, left:left + c - 4] == 255, axis=2).sum())

        pixels = shot_until(xvfb, win, "players-threats", lambda p: triangle(p, (2, 1)) > 0)
        assert triangle(pixels, (2, 1)) > 10 and triangle(pixels, (2, 0)) > 10      # Attack, Guerilla
        assert triangle(pixels, (2, 2)) == 0 and triangle(pixels, (1, 1)) == 0      # a free cell, a far one
        # Wide enough for the whole key: its last two swatches are the last turn's outlines.
        xvfb.xdotool("windowsize", str(win["window_id"]), "1280", "300")
        status = game.wait(lambda s: s["windows"][0]["size"] == [1280, 300], "the wider window")
        win = status["windows"][0]
        players_width = 2 * 19 - 3                         # the two players' swatches, right of the key
        key_left = 1280 - 6 - players_width - 12 - view._key_width()
        squares = {}
        x = key_left
        for text in view._KEY_ENTRIES:
            squares[text] = (x, 300 - view.LEGEND_HEIGHT // 2 - view._KEY_SWATCH // 2)
            x += view._KEY_SWATCH + 4 + view._width(text, view._KEY_POINTS) + view._KEY_GAP

        def edge(pixels: np.ndarray, text: str) -> set[tuple[int, int, int]]:
            left, top = squares[text]
            return {tuple(int(v) for v in p) for p in pixels[top + 1, left + 2:left + view._KEY_SWATCH - 2]}

        pixels = shot_until(xvfb, win, "players-key", lambda p: edge(p, "last turn") == {view.bright(1)})
        assert edge(pixels, "last turn") == {view.bright(1)}                       # solid
        assert edge(pixels, "encircled") == {view.bright(1), view.dark(1)}          # dashed
    finally:
        code, _out, err = game.stop()
    assert code == 130, err

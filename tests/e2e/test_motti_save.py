"""motti saved games end to end on a real Xvfb: play a few clicks with ``--save``, end the program (SIGTERM or
``q``), resume from the file with ``motti FILE`` and check through ``--status`` that the game goes on exactly
where it stopped (player in turn, attacks left, occupied cells); the ``s`` key without ``--save``; the same
with the curses console (``-c``) in a real pseudo-terminal."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import sys
import time
from pathlib import Path

import pexpect
import pyte
import pytest
from deadline import deadline
from motti_maps import THREE, TWO
from statusrun import StatusRun
from xvfb import origin

from common.cli import as_typed
from motti.mapfile import load_map

MOTTI = [sys.executable, "-m", "motti"]
DEADLINE_S = deadline(7)


class Motti(StatusRun):
    """A running ``motti`` with a ``--status`` file in *cwd*."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        super().__init__(MOTTI, args, cwd, env)


def pointer_to(server, status: dict, cell: tuple[int, int] | None = None) -> list[str]:
    """xdotool words that move the pointer onto *cell* (default: the legend band) of the only window."""
    win = status["windows"][0]
    left, top = origin(server, win["window_id"])
    x0, y0, c = win["x0"], win["y0"], win["c"]
    if cell is None:
        px, py = win["size"][0] // 2, win["size"][1] - 12
    else:
        px, py = x0 + c * cell[0] + c // 2, y0 + c * cell[1] + c // 2
    return ["mousemove", str(left + px), str(top + py)]


def play_some(server, game: Motti) -> dict:
    """Player 1 defends (0,0) and (4,1); player 2 attacks twice with the cross (5,1): returns the status."""
    status = game.wait(lambda s: len(s["windows"]) == 1, "the window")
    server.xdotool(*pointer_to(server, status, (0, 0)), "click", "2")
    game.wait(lambda s: s["action"] == "defend", "Defend selected")
    server.xdotool(*pointer_to(server, status, (0, 0)), "click", "1")
    game.wait(lambda s: s["crosses"] == [[0, 0]], "the first cross")
    server.xdotool(*pointer_to(server, status, (4, 1)), "click", "1")
    game.wait(lambda s: s["crosses"] == [[0, 0], [4, 1]], "the second cross")
    server.xdotool("click", "3")
    game.wait(lambda s: s["turn"] == 2, "player 2's turn")
    server.xdotool(*pointer_to(server, status, (5, 1)), "click", "1")
    game.wait(lambda s: s["crosses"] == [[5, 1]], "player 2's cross")
    server.xdotool("click", "3")
    game.wait(lambda s: s["attacks_left"] == 5, "the first attack")
    server.xdotool("click", "3")
    return game.wait(lambda s: s["attacks_left"] == 4, "the second attack")


def resume_and_check(server, cwd: Path, env: dict[str, str], played: dict) -> None:
    game = Motti(["saved.map", "--seed", "3"], cwd, env)
    try:
        status = game.wait(lambda s: len(s["windows"]) == 1, "the resumed window")
        assert status["board"] == played["board"]
        assert (status["turn"], status["attacks_left"], status["alive"]) == (2, 4, [1, 2])
        assert status["board"][0][0] == "A" and status["board"][1][4] == "A"
        # The game goes on: player 2 still attacks (Defend is impossible after an attack this turn).
        server.xdotool(*pointer_to(server, status, (5, 2)), "click", "1")
        game.wait(lambda s: s["crosses"] == [[5, 2]], "a cross after resuming")
        server.xdotool("click", "3")
        game.wait(lambda s: s["attacks_left"] == 3, "an attack after resuming")
    finally:
        game.stop()


@pytest.mark.parametrize("ending", ["SIGTERM", "q"])
def test_save_then_resume_continues_exactly(xvfb, tmp_path, ending):
    (tmp_path / "two.map").write_text(TWO)
    env = xvfb.env(HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"))
    game = Motti(["two.map", "--seed", "5", "--save", "saved.map"], tmp_path, env)
    try:
        played = play_some(xvfb, game)
        saved = load_map(tmp_path / "saved.map")
        assert (saved.turn, saved.attacks) == (2, 4)
        if ending == "SIGTERM":
            game.proc.send_signal(signal.SIGTERM)
            code, _out, err = game.finish()
            assert code == 143, err
        else:
            xvfb.xdotool(*pointer_to(xvfb, played), "key", "q", "key", "y")
            code, _out, err = game.finish()
            assert code == 0, err
        assert "Traceback" not in err
    finally:
        game.stop()
    saved = load_map(tmp_path / "saved.map")
    assert (saved.turn, saved.attacks, saved.board.alive_players()) == (2, 4, [1, 2])
    resume_and_check(xvfb, tmp_path, env, played)


def test_the_resume_command_said_at_the_end_names_the_player_strings_and_resumes_the_game(xvfb, tmp_path):
    # Players 1 and 2 sit at the display by a player string; with no $DISPLAY, the command said when they
    # quit, typed as it is, reopens the game there.
    (tmp_path / "two.map").write_text(TWO)
    env = {k: v for k, v in xvfb.env(HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state")).items()
           if k != "DISPLAY"}
    seat = f"1,2:{xvfb.name}"
    game = Motti(["two.map", "--seed", "5", "--save", "saved.map", seat], tmp_path, env)
    try:
        played = play_some(xvfb, game)
        xvfb.xdotool(*pointer_to(xvfb, played), "key", "q", "key", "y")
        code, out, err = game.finish()
        assert code == 0, err
    finally:
        game.stop()
    resume = f"{as_typed(sys.executable)} -m motti saved.map --save saved.map {seat}"
    assert out.endswith(f"({resume} resumes it)\n"), out
    words = shlex.split(resume)
    assert words[:3] == MOTTI
    again = Motti([*words[3:], "--seed", "3"], tmp_path, env)
    try:
        status = again.wait(lambda s: len(s["windows"]) == 1, "the resumed window")
        assert status["board"] == played["board"]
        assert (status["turn"], status["attacks_left"]) == (2, 4)
    finally:
        again.stop()


def test_a_failed_autosave_is_shown_on_the_legend_band(xvfb, tmp_path):
    (tmp_path / "two.map").write_text(TWO)
    (tmp_path / "sd").mkdir()
    env = xvfb.env(HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"))
    game = Motti(["two.map", "--seed", "5", "--save", "sd/g.map"], tmp_path, env)
    try:
        status = game.wait(lambda s: len(s["windows"]) == 1, "the window")
        assert load_map(tmp_path / "sd" / "g.map").turn == 1      # written before the window opened
        (tmp_path / "sd" / "g.map").unlink()
        (tmp_path / "sd").rmdir()
        for cell in ((0, 0), (0, 1)):                              # an attack takes one cross at most
            xvfb.xdotool(*pointer_to(xvfb, status, cell), "click", "1")
        status = game.wait(lambda s: len(s["crosses"]) == 2, "two crosses")
        xvfb.xdotool(*pointer_to(xvfb, status), "click", "3")      # one attack: the game changes
        status = game.wait(lambda s: s["attacks_left"] == 5, "the attack")
        assert "cannot write the save sd/g.map: No such file or directory" in status["message"]
        (tmp_path / "sd").mkdir()                                  # tried again at the next chance
        xvfb.xdotool(*pointer_to(xvfb, status), "click", "3")
        game.wait(lambda s: s["attacks_left"] == 4, "the second attack")
        assert load_map(tmp_path / "sd" / "g.map").attacks == 4
    finally:
        game.stop()


def test_s_key_saves_to_the_state_folder_and_says_so(xvfb, tmp_path):
    (tmp_path / "two.map").write_text(TWO)
    env = xvfb.env(HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"))
    game = Motti(["two.map", "--seed", "5"], tmp_path, env)
    target = tmp_path / "state" / "motti" / "saved.map"
    try:
        status = game.wait(lambda s: len(s["windows"]) == 1, "the window")
        xvfb.xdotool(*pointer_to(xvfb, status), "key", "s")
        status = game.wait(lambda s: s["message"] == f"saved to {target}", "the saved message")
    finally:
        game.stop()
    saved = load_map(target)
    assert (saved.turn, saved.attacks) == (1, 6)
    assert "".join(status["board"]) == "".join(TWO.split("grid\n")[1].split())
    # A new game's s leaves that save alone; the game resumed from it saves back there.
    for args, where in ((["two.map"], target.with_name("saved-2.map")), ([str(target)], target)):
        game = Motti([*args, "--seed", "5"], tmp_path, env)
        try:
            status = game.wait(lambda s: len(s["windows"]) == 1, "the window")
            xvfb.xdotool(*pointer_to(xvfb, status), "key", "s")
            game.wait(lambda s, where=where: s["message"] == f"saved to {where}", f"saved to {where.name}")
        finally:
            game.stop()
    assert target.read_text() == target.with_name("saved-2.map").read_text()


class Console:
    """motti at a real terminal (pexpect, 80x24, read through pyte) in *cwd* with *args*."""

    def __init__(self, cwd: Path, args: list[str], **env: str) -> None:
        environ = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "TMUX", "LINES", "COLUMNS")}
        environ.update(TERM="xterm", ESCDELAY="25", HOME=str(cwd), **env)
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.child = pexpect.spawn(sys.executable, ["-m", "motti", *args], cwd=str(cwd), env=environ,
                                   dimensions=(24, 80), timeout=deadline(10))

    def wait_for(self, text: str, *, across_lines: bool = False) -> None:
        screen = self.screen
        end = time.monotonic() + DEADLINE_S
        while time.monotonic() < end:
            with contextlib.suppress(pexpect.TIMEOUT):
                self.stream.feed(self.child.read_nonblocking(65536, timeout=0.05))
            if across_lines and text in "".join(line.strip() for line in screen.display):
                return
            if any(text in line for line in screen.display):
                return
        raise AssertionError(f"{text!r} not on the screen:\n" + "\n".join(screen.display))

    def quit(self) -> str:
        """``q`` ``y``; what motti printed once curses gave the terminal back."""
        self.child.send("q")
        self.wait_for("(y/n)")
        self.child.send("y")
        self.child.expect(pexpect.EOF)
        return self.child.before.decode().rsplit("\x1b>", 1)[-1].strip()


def test_console_saves_after_each_action_and_on_quit(tmp_path):
    (tmp_path / "two.map").write_text(TWO)
    console = Console(tmp_path, ["two.map", "-c", "--seed", "2", "--save", "saved.map"],
                      XDG_STATE_HOME=str(tmp_path / "state"))
    child, wait_for = console.child, console.wait_for
    try:
        wait_for("Player 1 | Attack: 6 left")
        child.send(" z")                    # a cross on the capital, one attack: 5 attacks left
        wait_for("Player 1 | Attack: 5 left")
        saved = load_map(tmp_path / "saved.map")
        assert (saved.turn, saved.attacks) == (1, 5)
        child.send("s")
        wait_for("saved to")               # a path too long for the line is shortened at a word bound…
        child.send("m")                     # … and shown in full by m
        wait_for("announcements (any key returns)")
        # A path wider than the screen goes on over the next lines (the screen may still be arriving).
        wait_for(str(tmp_path / "saved.map"), across_lines=True)
        child.send(" ")
        wait_for("Player 1 | Attack: 5 left")
        resume = f"{as_typed(sys.executable)} -m motti saved.map -c --save saved.map"  # as it was played
        assert console.quit() == ("motti: P1 quit, out — P2 quit, out — everyone left: game over; the game "
                                  f"before the quit is saved in saved.map ({resume} resumes it)")
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    saved = load_map(tmp_path / "saved.map")
    assert (saved.turn, saved.attacks, saved.board.alive_players()) == (1, 5, [1, 2])
    # Its first line names the command that resumes it, -c as it was played.
    first = (tmp_path / "saved.map").read_text().splitlines()[0]
    assert first == "# motti saved game: resume with motti FILE -c [PLAYERSTRING...]"


def test_console_quit_with_computer_players_left_ends_the_session_unfinished(tmp_path):
    (tmp_path / "three.map").write_text(THREE)
    console = Console(tmp_path, ["three.map", "-c", "--computer", "2,3", "--seed", "2", "--status", "s.json"])
    try:
        console.wait_for("Player 1 | Attack: 6 left")
        said = console.quit()
        assert said == ("motti: P1 quit, out — nobody is left at a window or the terminal: the game stops "
                        "unfinished")
    finally:
        console.child.close(force=True)
    assert console.child.exitstatus == 0
    status = json.loads((tmp_path / "s.json").read_text())
    assert status["message"] == said.removeprefix("motti: ") and status["alive"] == [2, 3]

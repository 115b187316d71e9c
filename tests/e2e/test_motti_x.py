"""motti end to end on real X servers: the ``motti`` program in a subprocess with windows on three Xvfb
displays, driven with xdotool, checked through GetImage pixels at the pinned probe points (spec/motti.md §6)
and through the ``--status`` file. Also every startup error (exit 2, one line naming the culprit), Ctrl-C, the
map listing and headless script mode."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from deadline import deadline
from motti_maps import THREE, TWO
from statusrun import StatusRun
from xvfb import Xvfb, grab, origin, silent_x_listener, window_of

from motti import view

MOTTI = [sys.executable, "-m", "motti"]
DEADLINE_S = deadline(7)


@pytest.fixture
def maps(tmp_path: Path) -> Path:
    (tmp_path / "two.map").write_text(TWO)
    (tmp_path / "three.map").write_text(THREE)
    return tmp_path


class Game(StatusRun):
    """A running ``motti`` process and its status file."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        super().__init__(MOTTI, args, cwd, env)


def expected(letter: str) -> tuple[int, int, int]:
    if letter == ".":
        return view.SEA
    player = ord(letter.lower()) - ord("a") + 1
    return view.bright(player) if letter.isupper() else view.dark(player)


def board_mismatches(server: Xvfb, status: dict, display: str) -> list[tuple[int, int]]:
    """Cells whose probe pixel on *display* differs from the status board's colour for that cell."""
    win = window_of(status, display)
    left, top = origin(server, win["window_id"])
    width, height = win["size"]
    pixels = grab(server, left, top, width, height)
    x0, y0, c = win["x0"], win["y0"], win["c"]
    bad = []
    for y, row in enumerate(status["board"]):
        for x, letter in enumerate(row):
            if tuple(pixels[y0 + c * y + c // 2, x0 + c * x + 1]) != expected(letter):
                bad.append((x, y))
    return bad


def wait_pixels(server: Xvfb, game: Game, status: dict, display: str) -> None:
    """Wait until every probe pixel on *display* matches the board of *status*."""
    end = time.monotonic() + DEADLINE_S
    bad = board_mismatches(server, status, display)
    while bad and time.monotonic() < end:
        time.sleep(0.05)
        bad = board_mismatches(server, status, display)
    assert not bad, f"{display}: cells {bad} do not show the colours of {status['board']}"


def click(server: Xvfb, status: dict, button: int, cell: tuple[int, int] | None = None,
          box: int | None = None) -> None:
    """Click *button* on *server*'s motti window: on board *cell*, on toolbar *box*, else on cell (0,0)."""
    win = window_of(status, server.name)
    left, top = origin(server, win["window_id"])
    x0, y0, c = win["x0"], win["y0"], win["c"]
    if box is not None:
        width = win["size"][0]
        px, py = box * width // 4 + width // 8, 24
    else:
        x, y = cell if cell is not None else (0, 0)
        px, py = x0 + c * x + c // 2, y0 + c * y + c // 2
    server.xdotool("mousemove", str(left + px), str(top + py), "click", str(button))


def test_three_displays_play_and_only_the_player_in_turn_acts(xvfb3, maps):
    d1, d2, d3 = xvfb3
    game = Game(["two.map", f"1:{d1.name}", f"2:{d2.name}", f"0:{d3.name}", "--seed", "11"], maps, d1.env())
    try:
        status = game.wait(lambda s: len(s["windows"]) == 3, "three windows")
        assert sorted(w["display"] for w in status["windows"]) == sorted([d1.name, d2.name, d3.name])
        assert window_of(status, d3.name)["players"] == []
        win = window_of(status, d1.name)
        assert (win["size"], win["x0"], win["y0"], win["c"]) == ([480, 264], 80, 48, 32)
        for server in xvfb3:
            wait_pixels(server, game, status, server.name)

        # Player 2's display and the observer's are not in turn: a legal-looking cross and a perform do
        # nothing.
        click(d2, status, 1, (0, 0))
        click(d2, status, 3)
        click(d3, status, 1, (1, 0))
        click(d3, status, 3)
        # Player 1: middle button cycles to Defend, three crosses, right button performs.
        click(d1, status, 2)
        status = game.wait(lambda s: s["action"] == "defend", "Defend selected")
        assert status["crosses"] == [] and status["attacks_left"] == 6 and status["turn"] == 1
        for cell in ((4, 1), (4, 2), (4, 3)):
            click(d1, status, 1, cell)
        status = game.wait(lambda s: len(s["crosses"]) == 3, "three crosses")
        assert status["crosses"] == [[4, 1], [4, 2], [4, 3]]
        click(d1, status, 3)
        status = game.wait(lambda s: s["turn"] == 2, "player 2's turn")
        assert [row[4] for row in status["board"]] == ["a", "A", "A", "A", "a", "a"]
        assert status["action"] == "attack" and status["crosses"] == []
        for server in xvfb3:
            wait_pixels(server, game, status, server.name)

        # Player 2: Guerilla from the toolbar on its own cell (6,2); player 1's window is ignored now.
        click(d1, status, 2)
        click(d2, status, 1, box=2)
        status = game.wait(lambda s: s["action"] == "guerilla", "Guerilla selected")
        click(d2, status, 1, (6, 2))
        status = game.wait(lambda s: s["crosses"] == [[6, 2]], "guerilla cross")
        click(d2, status, 3)
        status = game.wait(lambda s: s["turn"] == 1, "player 1's turn again")
        assert status["board"][2] == "aaaaAbBbbb"
        for server in xvfb3:
            wait_pixels(server, game, status, server.name)

        # Player 1 attacks (5,1),(5,2),(5,3) six times; the draws decide, the board must agree everywhere.
        for cell in ((5, 1), (5, 2), (5, 3)):
            click(d1, status, 1, cell)
        status = game.wait(lambda s: len(s["crosses"]) == 3, "attack crosses")
        for _ in range(6):
            click(d1, status, 3)
        status = game.wait(lambda s: s["turn"] == 2 and s["attacks_left"] == 6, "six attacks")
        assert all(row[5] in "bBA" for row in status["board"])
        for server in xvfb3:
            wait_pixels(server, game, status, server.name)
        assert game.proc.poll() is None
    finally:
        code, _out, err = game.stop()
    assert code == 130, err
    assert "Traceback" not in err


def test_killing_a_display_defeats_its_player_and_the_game_goes_on(xvfb3, maps):
    d1, d2, d3 = xvfb3
    game = Game(["three.map", f"1:{d1.name}", f"2:{d2.name}", f"3:{d3.name}", "--seed", "2"], maps, d1.env())
    try:
        status = game.wait(lambda s: len(s["windows"]) == 3, "three windows")
        d2.stop()
        status = game.wait(lambda s: s["alive"] == [1, 3], "player 2 eliminated")
        assert sorted(w["display"] for w in status["windows"]) == sorted([d1.name, d3.name])
        assert status["winner"] is None and status["turn"] == 1
        # Player 2's land went to the nearest capitals (§2.7): columns 3-5 split between 1 and 3, tie to 1.
        assert status["board"] == ["aaaaacccc"] * 3
        for server in (d1, d3):
            wait_pixels(server, game, status, server.name)
        click(d1, status, 2)
        game.wait(lambda s: s["action"] == "defend", "Defend selected")
        click(d1, status, 1, (0, 0))
        game.wait(lambda s: s["crosses"] == [[0, 0]], "cross")
        click(d1, status, 3)
        status = game.wait(lambda s: s["turn"] == 3, "the turn skips player 2")
        assert status["board"][0] == "Aaaaacccc"
        for server in (d1, d3):
            wait_pixels(server, game, status, server.name)
        click(d3, status, 2)
        game.wait(lambda s: s["action"] == "defend", "Defend selected by player 3")
        click(d3, status, 1, (8, 2))
        game.wait(lambda s: s["crosses"] == [[8, 2]], "player 3's cross")
        click(d3, status, 3)
        status = game.wait(lambda s: s["turn"] == 1, "back to player 1")
        assert status["board"][2] == "aaaaacccC"
        for server in (d1, d3):
            wait_pixels(server, game, status, server.name)
    finally:
        code, _out, err = game.stop()
    assert code == 130, err
    assert "Traceback" not in err


def test_closing_the_last_opponent_window_ends_the_game_with_a_winner(xvfb3, maps):
    d1, d2, d3 = xvfb3
    game = Game(["two.map", f"1:{d1.name}", f"2:{d2.name}", f"0:{d3.name}", "--seed", "4"], maps, d1.env())
    try:
        status = game.wait(lambda s: len(s["windows"]) == 3, "three windows")
        d3.stop()     # the observer leaves: nobody is defeated
        status = game.wait(lambda s: len(s["windows"]) == 2, "observer gone")
        assert status["alive"] == [1, 2]
        win = window_of(status, d2.name)
        subprocess.run(["xkill", "-display", d2.name, "-id", str(win["window_id"])], capture_output=True,
                       timeout=deadline(3), check=True)
        status = game.wait(lambda s: s["winner"] == 1, "player 1 wins")
        assert status["alive"] == [1]
        # Player 2 left during player 1's first turn: no turn was played, the game ended in turn 1.
        assert status["turns"] == 0 and status["message"] == "P2 left, out — P1 wins in turn 1"
        assert window_of(status, d1.name)["legend"] == "Player 1 wins in turn 1"
        assert all(set(row) <= set(".a") for row in status["board"])
        wait_pixels(d1, game, status, d1.name)
        # The winner's window waits for `q`, then the program ends with status 0 and says how it ended.
        left, top = origin(d1, window_of(status, d1.name)["window_id"])
        d1.xdotool("mousemove", str(left + 10), str(top + 60), "key", "q")
        code, out, err = game.finish()
    finally:
        if game.proc.poll() is None:
            game.stop()
    assert code == 0, err
    assert "Traceback" not in err
    assert out == "motti: P2 left, out — P1 wins in turn 1\n"


def run_motti(args: list[str], cwd: Path, env: dict[str, str],
              timeout: float = 40) -> subprocess.CompletedProcess:
    return subprocess.run([*MOTTI, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def assert_one_line_error(result: subprocess.CompletedProcess, *names: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("motti: ")
    for name in names:
        assert name in lines[0], (name, lines[0])
    assert "Traceback" not in result.stderr


def motti_windows(server: Xvfb) -> str:
    tree = subprocess.run(["xwininfo", "-display", server.name, "-root", "-tree"], capture_output=True,
                          text=True, timeout=deadline(3), check=True).stdout
    return "\n".join(line for line in tree.splitlines() if "motti" in line)


@pytest.mark.parametrize(("strings", "culprit"), [
    (["x:{d}"], "x:{d}"),                   # not a number
    (["1:{d}", "9:{d}"], "9:{d}"),         # no player 9 on a 2-player map
    (["1:{d}", "1:{d}"], "1:{d}"),         # player named twice
    (["1,2"], "1,2"),                       # no colon
])
def test_bad_player_strings(xvfb, maps, strings, culprit):
    args = ["two.map", *[s.format(d=xvfb.name) for s in strings]]
    result = run_motti(args, maps, xvfb.env())
    assert_one_line_error(result, culprit.format(d=xvfb.name))
    assert motti_windows(xvfb) == ""


def test_display_refused_no_such_display_and_silence_exit_2_and_close_the_others(xvfb, maps, tmp_path):
    listener, number = silent_x_listener(range(40, 100))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        silent = f"127.0.0.1:{number}"
        result = run_motti(["two.map", f"1:{xvfb.name}", f"2:{silent}"], maps, xvfb.env())
        assert_one_line_error(result, silent)
        assert "no answer" in result.stderr
        assert motti_windows(xvfb) == ""
    finally:
        stop.set()
        thread.join(deadline(2))
        listener.close()
        for conn in accepted:
            conn.close()
    # Nothing listens on that port any more: the connection is refused.
    refused = f"127.0.0.1:{number}"
    result = run_motti(["two.map", f"1:{xvfb.name}", f"2:{refused}"], maps, xvfb.env())
    assert_one_line_error(result, refused)
    assert motti_windows(xvfb) == ""
    # No X server with that number (unix socket): the first from xvfb's number + 57 with no socket or lock.
    free = next(n for n in range(xvfb.number + 57, xvfb.number + 1000)
                if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists())
    missing = f":{free}"
    result = run_motti(["two.map", f"1:{missing}", f"2:{xvfb.name}"], maps, xvfb.env())
    assert_one_line_error(result, missing)
    assert motti_windows(xvfb) == ""
    # $DISPLAY is not set and nobody names a display for player 2.
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    result = run_motti(["two.map", f"1:{xvfb.name}"], maps, env)
    assert_one_line_error(result, "DISPLAY")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_while_a_display_is_silent_puts_the_files_back(maps, signum):
    # A saved game resumed into its own file, one player string naming a display that never answers: the
    # signal comes while motti waits for it (the connection is taken), and the save is as it was.
    code = subprocess.run([*MOTTI, "two.map", "--computer", "1,2", "--headless", "--max-turns", "2", "--save",
                           "game.map", "--seed", "1"], cwd=maps, capture_output=True, timeout=deadline(40))
    assert code.returncode == 0, code.stderr
    before = (maps / "game.map").read_bytes()
    listener, number = silent_x_listener(range(100, 160))
    try:
        env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
        proc = subprocess.Popen([*MOTTI, "game.map", "--save", "game.map", "--status", "game.json",
                                 f"1:127.0.0.1:{number}"], cwd=maps, env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        listener.settimeout(deadline(20))
        conn = listener.accept()[0]          # motti is waiting for the display's answer
        proc.send_signal(signum)
        _out, err = proc.communicate(timeout=deadline(10))
        conn.close()
    finally:
        listener.close()
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err
    assert (maps / "game.map").read_bytes() == before
    assert not (maps / "game.json").exists()


def test_bad_authorisation_exits_2_naming_the_display(maps, tmp_path):
    cookies = tmp_path / "server.auth"
    subprocess.run(["xauth", "-f", str(cookies), "add", ":0", ".", "0123456789abcdef0123456789abcdef"],
                   capture_output=True, timeout=deadline(3), check=True)
    client = tmp_path / "client.auth"
    client.write_bytes(b"")
    with Xvfb(extra=("-auth", str(cookies))) as guarded, Xvfb() as open_server:
        env = dict(open_server.env(), XAUTHORITY=str(client))
        result = run_motti(["two.map", f"1:{open_server.name}", f"2:{guarded.name}"], maps, env)
        assert_one_line_error(result, guarded.name)
        assert "uthori" in result.stderr
        assert motti_windows(open_server) == ""


def test_ctrl_c_exits_130_and_closes_the_windows(xvfb, maps):
    game = Game(["two.map", "--seed", "1"], maps, xvfb.env())
    try:
        status = game.wait(lambda s: len(s["windows"]) == 1, "the window")
        assert window_of(status, xvfb.name)["players"] == [1, 2]
        assert "motti" in motti_windows(xvfb)
    finally:
        code, out, err = game.stop()
    assert code == 130
    assert out == "" and "Traceback" not in err
    assert motti_windows(xvfb) == ""


def test_without_arguments_motti_lists_the_maps(maps):
    env = dict(os.environ, MOTTI_MAPDIR=str(maps))
    result = run_motti([], maps, env)
    assert result.returncode == 0, result.stderr
    assert [line.split() for line in result.stdout.splitlines()] == [
        ["three", "9x3", "3", "players"],
        ["two", "10x6", "2", "players"],
    ]


def test_script_mode_end_to_end_writes_the_final_board(maps):
    script = maps / "moves.txt"
    script.write_text("# player 1 defends, player 2 uses guerilla, player 1 attacks once with no cross\n"
                      "defend 4,1 4,2 4,3\n"
                      "guerilla 6,2\n"
                      "attack\n")
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    result = run_motti(["two.map", "--script", "moves.txt", "--seed", "5", "--final", "end.map"], maps, env)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    final = (maps / "end.map").read_text().splitlines()
    assert "turn 1" in final and "attacks 5" in final
    grid = final[final.index("grid") + 1:]
    assert grid == ["aaaaabbbbb", "aaaaAbbbbb", "aaaaAbBbbb", "aaaaAbbbbb", "aaaaabbbbb", "..aaabbb.."]


def test_computer_player_moves_by_itself_and_resize_relayouts(xvfb, maps):
    game = Game(["two.map", "--computer", "2", "--seed", "8"], maps, xvfb.env())
    try:
        status = game.wait(lambda s: len(s["windows"]) == 1, "the window")
        assert window_of(status, xvfb.name)["players"] == [1, 2]
        click(xvfb, status, 2)
        game.wait(lambda s: s["action"] == "defend", "Defend selected")
        click(xvfb, status, 1, (0, 0))
        game.wait(lambda s: s["crosses"] == [[0, 0]], "cross")
        click(xvfb, status, 3)
        # player 2 is the computer: its whole turn happens without any input, then it is player 1's turn again
        status = game.wait(lambda s: s["turn"] == 1 and s["board"][0][0] == "A", "the computer's turn")
        wait_pixels(xvfb, game, status, xvfb.name)
        win = window_of(status, xvfb.name)
        xvfb.xdotool("windowsize", str(win["window_id"]), "700", "500")
        status = game.wait(lambda s: window_of(s, xvfb.name)["size"] == [700, 500], "the new size")
        win = window_of(status, xvfb.name)
        assert (win["x0"], win["y0"], win["c"]) == (0, 48, 70)   # c = min(700 // 10, 428 // 6)
        wait_pixels(xvfb, game, status, xvfb.name)
    finally:
        code, _out, err = game.stop()
    assert code == 130, err
    assert "Traceback" not in err


def test_a_display_named_for_computer_players_only_watches_them_there(xvfb, maps):
    # $DISPLAY unset: the window opens on the display player 2's string names, an observer's (closing it
    # defeats nobody), and the computer players play on in it.
    env = {k: v for k, v in xvfb.env().items() if k != "DISPLAY"}
    args = ["two.map", "--computer", "1,2", "--level", "easy", f"2:{xvfb.name}", "--seed", "8"]
    game = Game(args, maps, env)
    try:
        status = game.wait(lambda s: len(s["windows"]) == 1 and s["turns"] >= 2, "the watch window, turn 2")
        assert window_of(status, xvfb.name)["players"] == []
        assert "motti: observer" in motti_windows(xvfb)
    finally:
        code, _out, err = game.stop()
    assert code == 130, err
    assert "Traceback" not in err
    # A display that cannot be opened is an error before the game starts, as for a person's display.
    for terminal in ([], ["-c"]):
        result = run_motti(["two.map", *terminal, "--computer", "1,2", "2:x"], maps, env)
        assert_one_line_error(result, '"x"')
    # $DISPLAY names a display with no server: the unnamed computer players get no window there, so the
    # games start, with the named windows only.
    free = next(n for n in range(xvfb.number + 57, xvfb.number + 1000)
                if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists())
    dead = {**env, "DISPLAY": f":{free}"}
    for args, players in ((["--computer", "1,2", f"2:{xvfb.name}"], []),
                          (["--computer", "2", f"1:{xvfb.name}"], [1])):
        game = Game(["two.map", *args, "--level", "easy", "--seed", "8"], maps, dead)
        try:
            status = game.wait(lambda s: len(s["windows"]) == 1, "the one window")
            assert window_of(status, xvfb.name)["players"] == players
        finally:
            code, _out, err = game.stop()
        assert code == 130, err
        assert "Traceback" not in err


def test_closing_a_window_under_a_window_manager_defeats_its_player(xvfb, maps, tmp_path):
    env = xvfb.env(HOME=str(tmp_path))
    with open(tmp_path / "openbox.log", "wb") as log:
        wm = subprocess.Popen(["openbox", "--sm-disable"], env=env, stdout=log, stderr=log)
    game = None
    try:
        end = time.monotonic() + deadline(20)   # a first openbox run may build its font caches
        while subprocess.run(["wmctrl", "-m"], env=env, capture_output=True,
                             timeout=deadline(3)).returncode != 0:
            log_text = (tmp_path / "openbox.log").read_text(errors="replace")
            # (Seen three times, each beside other X work on the machine: say whether the X server still ran.)
            server = "running" if xvfb.proc.poll() is None else f"gone ({xvfb.proc.returncode})"
            assert wm.poll() is None, (f"openbox exited with {wm.returncode}: {log_text}; "
                                       f"Xvfb {xvfb.name} {server}")
            assert time.monotonic() < end, f"openbox did not start; its log: {log_text}"
            time.sleep(0.05)
        name = xvfb.name
        game = Game(["three.map", f"1:{name}", f"2:{name}", f"3:{name}", "--seed", "6"], maps, env)
        status = game.wait(lambda s: len(s["windows"]) == 3, "three windows on one display")
        end = time.monotonic() + deadline(20)
        while "motti: player 2" not in subprocess.run(["wmctrl", "-l"], env=env, capture_output=True,
                                                      text=True, timeout=deadline(3)).stdout:
            assert time.monotonic() < end, "openbox does not manage the windows"
            time.sleep(0.05)
        subprocess.run(["wmctrl", "-c", "motti: player 2"], env=env, timeout=deadline(3), check=True)
        status = game.wait(lambda s: s["alive"] == [1, 3], "player 2 defeated")
        assert [w["players"] for w in status["windows"]] == [[1], [3]]
        assert status["board"] == ["aaaaacccc"] * 3
        # the windows were placed and framed by the window manager; player 1 still plays through its window
        win = next(w for w in status["windows"] if w["players"] == [1])
        left, top = origin(xvfb, win["window_id"])
        px, py = left + win["x0"] + win["c"] // 2, top + win["y0"] + win["c"] // 2
        xvfb.xdotool("mousemove", str(px), str(py), "click", "2", "click", "1")
        status = game.wait(lambda s: s["crosses"] == [[0, 0]] and s["action"] == "defend", "cross for Defend")
        xvfb.xdotool("click", "3")
        status = game.wait(lambda s: s["turn"] == 3, "player 3's turn")
        assert status["board"][0] == "Aaaaacccc"
    finally:
        if game is not None:
            code, _out, err = game.stop()
            assert code == 130, err
        wm.terminate()
        wm.wait(deadline(3))


def test_a_player_dropped_by_p_gets_no_seat(xvfb, maps):
    # -p 2 with player 3 named drops player 2: the $DISPLAY window seats player 1 alone.
    game = Game(["three.map", "-p", "2", f"3:{xvfb.name}", "--seed", "2"], maps, xvfb.env())
    try:
        status = game.wait(lambda s: len(s["windows"]) == 2, "two windows")
        assert sorted(w["players"] for w in status["windows"]) == [[1], [3]]
        assert status["alive"] == [1, 3]
        titles = {xvfb.xdotool("getwindowname", str(w["window_id"])).strip() for w in status["windows"]}
        assert titles == {"motti: player 1", "motti: player 3"}
    finally:
        code, _out, err = game.stop()
    assert code == 130, err


def test_impossible_actions_are_not_selected_by_clicks(xvfb, maps):
    game = Game(["two.map", "--seed", "4"], maps, xvfb.env())
    try:
        status = game.wait(lambda s: len(s["windows"]) == 1, "the window")
        for cell in ((0, 0), (0, 1)):   # two crosses: an attack takes at most one, the other stays
            click(xvfb, status, 1, cell)
        status = game.wait(lambda s: len(s["crosses"]) == 2, "two crosses")
        click(xvfb, status, 3)   # an attack: Defend and Guerilla become impossible
        status = game.wait(lambda s: s["attacks_left"] == 5, "the first attack")
        click(xvfb, status, 1, box=1)
        status = game.wait(lambda s: s["message"] == "Defend is impossible after an attack this turn",
                           "the reason on the legend")
        assert status["action"] == "attack"
        click(xvfb, status, 1, box=2)
        status = game.wait(lambda s: s["message"] == "Guerilla is impossible after an attack this turn",
                           "the reason for Guerilla")
        click(xvfb, status, 2)
        click(xvfb, status, 3)   # still Attack: a second attack
        status = game.wait(lambda s: s["attacks_left"] == 4, "the second attack")
        assert status["action"] == "attack"
    finally:
        code, _out, err = game.stop()
    assert code == 130, err


def test_a_board_too_large_to_show_whole_opens_zoomed_in_on_the_players_capital(xvfb, maps):
    # 400x300 cells would fit the default 1280x960 window only at c = 2: it opens at c = 6 on capital 1
    # (all land with no plasma and threshold 0, so that the capitals share one land mass)
    game = Game(["generate", "-w", "400", "-h", "300", "-d", "50", "-m", "0", "-M", "0", "-t", "0", "--seed",
                 "1"], maps, xvfb.env())
    try:
        status = game.wait(lambda s: len(s["windows"]) == 1, "the window")
        win = window_of(status, xvfb.name)
        assert (win["size"], win["c"]) == ([1280, 960], 6)
        x, y = status["capitals"]["1"]
        x0, y0, x1, y1 = win["view_cells"]
        assert x0 <= x < x1 and y0 <= y < y1
        assert (x1 - x0, y1 - y0) in ((214, 148), (213, 148), (214, 149), (213, 149))
    finally:
        code, _out, err = game.stop()
    assert code == 130, err


def test_when_every_player_quits_the_board_stays_and_the_observer_window_closes(xvfb3, maps):
    d1, d2, _d3 = xvfb3
    game = Game(["two.map", f"1,2:{d1.name}", f"0:{d2.name}", "--seed", "5"], maps, d1.env())
    try:
        status = game.wait(lambda s: len(s["windows"]) == 2, "two windows")
        board = status["board"]
        left, top = origin(d1, window_of(status, d1.name)["window_id"])
        d1.xdotool("mousemove", str(left + 10), str(top + 60), "key", "q")
        game.wait(lambda s: s["alive"] == [1, 2] and s["message"] is None, "the question only")
        d1.xdotool("key", "y")
        code = game.proc.wait(timeout=deadline(5))
        err = game.proc.stderr.read()
    finally:
        if game.proc.poll() is None:
            game.stop()
    assert code == 0, err
    assert "Traceback" not in err
    status = game.status()
    assert status["board"] == board
    assert status["alive"] == [] and status["winner"] is None and status["windows"] == []
    assert status["message"] == "P1 quit, out — P2 quit, out — everyone left: game over"
    assert "motti" not in subprocess.run(["xwininfo", "-display", d2.name, "-root", "-tree"],
                                         capture_output=True, text=True, timeout=deadline(3)).stdout

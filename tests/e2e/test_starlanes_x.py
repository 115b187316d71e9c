"""Star Lanes in X windows end to end: the ``starlanes`` program in a subprocess with windows on real Xvfb
displays, driven with xdotool (keys and clicks), checked against a replay of the same seeded game with the
rules (``--status`` JSON) and through GetImage pixels of the map cells; a display that dies hands its player
to the computer; startup errors are one line with exit status 2."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pygame
from deadline import deadline
from statusrun import StatusRun
from xvfb import Xvfb, grab, origin, window_of

from common.cli import as_typed
from common.render import render_text
from starlanes import view
from starlanes.rules import CELLS_1977, RULES_1977, Company, EndTurn, Game, Move, Player, Trade, cell_index
from starlanes.xfront import FINAL_TITLE, final_lines

STARLANES = [sys.executable, "-m", "starlanes"]
DEADLINE_S = deadline(7)


class Run(StatusRun):
    """A running ``starlanes`` process in X windows and its status file."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        super().__init__(STARLANES, args, cwd, env)
        self.poll_s = 0.03

    def wait_game(self, game: Game, what: str) -> dict:
        """Wait until the program's game equals ``game`` (the replay)."""
        expected = game.to_dict()
        return self.wait(lambda s: s["game"] == expected, what)

    def wait_ignored(self, status: dict, display: str) -> dict:
        """Wait until the window on ``display`` has ignored one more key or click than in ``status``."""
        before = window_of(status, display)["ignored"]
        return self.wait(lambda s: window_of(s, display)["ignored"] > before, f"input on {display} ignored")


def map_mismatches(server: Xvfb, status: dict, game: Game) -> list[int]:
    """Cells whose probe pixel on ``server`` differs from the colour the view gives ``game``'s cell."""
    win = window_of(status, server.name)
    left, top = origin(server, win["window_id"])
    size = tuple(win["size"])
    pixels = grab(server, left, top, *size)
    shown = status["mode"] != "announce" and game.phase == "move"
    marks = {cell: str(i + 1) for i, cell in enumerate(game.candidates)} if shown else {}
    # At the end the final standings cover the middle of the window.
    cover = view.popup_rect(size, FINAL_TITLE, final_lines(game)) if status["mode"] == "over" else None
    bad = []
    for cell in range(len(game.grid)):
        rect = view.cell_rect(cell, size)
        if cover is not None and cover.colliderect(rect):
            continue
        if tuple(pixels[rect.y + 2, rect.x + 2]) != view.cell_colour(game, cell, marks):
            bad.append(cell)
    return bad


def wait_map(server: Xvfb, status: dict, game: Game) -> None:
    end = time.monotonic() + DEADLINE_S
    bad = map_mismatches(server, status, game)
    while bad and time.monotonic() < end:
        time.sleep(0.05)
        bad = map_mismatches(server, status, game)
    assert not bad, f"{server.name}: cells {bad} do not show the game's colours"


def point(server: Xvfb, status: dict, x: int, y: int) -> tuple[str, str]:
    win = window_of(status, server.name)
    left, top = origin(server, win["window_id"])
    return str(left + x), str(top + y)


def press(server: Xvfb, status: dict, *keys: str) -> None:
    """Keys go to the window under the pointer (no window manager): point at the window's title bar first."""
    server.xdotool("mousemove", *point(server, status, 20, 10), "key", "--delay", "30", *keys)


def leave_the_end(server: Xvfb, run: Run, status: dict) -> None:
    """From the final standings: a key shows the net-worth chart, another closes the window."""
    press(server, status, "space")
    run.wait(lambda s: s["windows"][0]["stage"] == "chart", "the chart")
    press(server, status, "space")


def click(server: Xvfb, status: dict, x: int, y: int) -> None:
    server.xdotool("mousemove", *point(server, status, x, y), "click", "1")


def test_two_players_and_an_observer_play_turns_by_keys_and_clicks(xvfb3, tmp_path):
    d1, d2, d3 = xvfb3
    seed = 7
    run = Run(["--seed", str(seed), "--names", "Ann,Bob", f"1:{d1.name}", f"2:{d2.name}", f"0:{d3.name}"],
              tmp_path, d1.env())
    replay = Game.new(["Ann", "Bob"], random.Random(seed))
    seats = {0: d1, 1: d2}
    try:
        status = run.wait(lambda s: len(s["windows"]) == 3 and s["mode"] == "move", "three windows")
        assert status["game"] == replay.to_dict()
        assert window_of(status, d3.name)["players"] == []
        for server in xvfb3:
            wait_map(server, status, replay)
        trades = 0
        turns_done = 0
        seen = set()
        while turns_done < 8:
            status = run.status()
            mode, actor = status["mode"], status["actor"]
            seen.add(mode)
            mover = seats[actor]
            other = seats[1 - actor]
            if mode == "announce":
                pages = status["pages"]
                press(d3, status, "space")  # the observer cannot dismiss it
                run.wait_ignored(status, d3.name)
                press(mover, status, "space")
                run.wait(lambda s, n=pages: s["pages"] < n or s["mode"] != "announce", "next announcement")
            elif mode == "move":
                # The other player's window and the observer's do nothing, whatever they press.
                press(other, status, "1")
                run.wait_ignored(status, other.name)
                assert run.status()["game"] == replay.to_dict()
                index = turns_done % len(replay.candidates)
                if turns_done % 2:
                    size = tuple(window_of(status, mover.name)["size"])
                    rect = view.cell_rect(replay.candidates[index], size)
                    click(mover, status, rect.centerx, rect.centery)
                else:
                    press(mover, status, str(index + 1))
                replay.apply(Move(index))
                if replay.phase == "move":
                    turns_done += 1
                run.wait_game(replay, f"move {index + 1} made")
            elif mode == "trade":
                active = replay.active_companies()
                _low, high = replay.trade_limits(active[0])
                if high > 0 and trades < 3:
                    # Buy the most of the first company (Enter, m), then try one share too many of it.
                    trades += 1
                    press(mover, status, "Return", "m")
                    replay.apply(Trade(active[0], high))
                    run.wait_game(replay, "the purchase")
                    status = run.status()
                    too_many = str(replay.trade_limits(active[0])[1] + 1)
                    row = view.company_row_rect(0, tuple(window_of(status, mover.name)["size"]))
                    click(mover, status, row.centerx, row.centery)
                    run.wait(lambda s: s["mode"] == "amount", "the amount field")
                    press(mover, status, *too_many, "Return")
                    run.wait(lambda s: s["mode"] == "trade", "invalid amount shown, then trading again")
                    assert run.status()["game"] == replay.to_dict()
                press(mover, status, "Escape")
                replay.apply(EndTurn())
                turns_done += 1
                run.wait_game(replay, "the end of the turn")
            else:
                raise AssertionError(f"unexpected mode {mode}")
            assert not replay.is_terminal()
        assert trades > 0 and seen == {"move", "announce", "trade"}
        status = run.wait(lambda s: s["mode"] == "move", "a move prompt")
        for server in xvfb3:
            wait_map(server, status, replay)
        # Quit: q asks, n cancels, q y ends the game for everybody.
        mover = seats[status["actor"]]
        press(mover, status, "q")
        run.wait(lambda s: s["mode"] == "quit", "Really Quit?")
        press(mover, status, "n")
        run.wait(lambda s: s["mode"] == "move", "quit cancelled")
        press(mover, status, "q", "y")
        status = run.wait(lambda s: s["over"] and s["mode"] == "over", "the final standings")
        assert [w["stage"] for w in status["windows"]] == ["final"] * 3
        assert status["game"] == replay.to_dict()
        for server in xvfb3:
            click(server, status, 300, 300)
        run.wait(lambda s: [w["stage"] for w in s["windows"]] == ["chart"] * 3, "the charts")
        for server in xvfb3:
            press(server, status, "space")
    finally:
        code, out, err = run.finish()
    assert code == 0, err
    assert "Traceback" not in err
    lines = out.splitlines()
    assert lines[-1] == "Thank you for playing Star Lanes!"
    ranking = [replay.players[p].name for p in replay.standings()]
    assert [line.split()[0] for line in lines[1:3]] == ranking


def test_a_dead_display_hands_its_player_to_the_computer(tmp_path):
    with Xvfb() as d1, Xvfb() as d2:
        run = Run(["--seed", "3", "--names", "Ann,Bob", "--delay", "0.05", f"1:{d1.name}", f"2:{d2.name}"],
                  tmp_path, d1.env())
        try:
            status = run.wait(lambda s: len(s["windows"]) == 2 and s["mode"] == "move", "two windows")
            d2.stop()
            status = run.wait(lambda s: s["controllers"] == ["human", "hard"], "Bob handed to the computer")
            assert [w["display"] for w in status["windows"]] == [d1.name]
            assert status["notice"] == "Bob's window closed: the computer plays for Bob."
            turns = len(status["game"]["history"])
            # Ann plays on; Bob's turns are played by the computer, until two more turns have been played.
            for _ in range(30):
                status = run.wait(lambda s: s["actor"] == 0, "Ann's window to act")
                if status["mode"] == "move" and len(status["game"]["history"]) >= turns + 2:
                    break
                if status["mode"] == "announce":
                    press(d1, status, "space")
                    run.wait(lambda s, n=status["pages"]: s["pages"] < n or s["mode"] != "announce", "page")
                elif status["mode"] == "move":
                    press(d1, status, "1")
                    run.wait(lambda s: s["mode"] != "move" or s["game"]["current"] == 1, "Ann's move")
                elif status["mode"] == "trade":
                    press(d1, status, "Escape")
                    run.wait(lambda s: s["game"]["current"] == 1 or s["mode"] != "trade", "Ann's turn ends")
            assert status["mode"] == "move" and len(status["game"]["history"]) >= turns + 2
            assert status["controllers"] == ["human", "hard"]
            # At Ann's prompt nothing moves: the window follows a resize, the map laid out at the new size.
            wait_map(d1, status, Game.from_dict(status["game"]))
            d1.xdotool("windowsize", str(window_of(status, d1.name)["window_id"]), "720", "540")
            status = run.wait(lambda s: window_of(s, d1.name)["size"] == [720, 540], "the resized frame")
            wait_map(d1, status, Game.from_dict(status["game"]))
            press(d1, status, "q", "y")
            status = run.wait(lambda s: s["mode"] == "over", "the end")
            press(d1, status, "q")
        finally:
            code, out, err = run.finish()
    assert code == 0, err
    assert "Traceback" not in err
    assert out.splitlines()[-1] == "Thank you for playing Star Lanes!"


def test_a_game_left_without_windows_says_so_and_resume_seats_lost_players_again(tmp_path):
    """The last window's display dies: the shell is told the game is unfinished and where it is saved;
    resuming with a player string for the player the computer took over seats them as a human again."""
    save = tmp_path / "g.json"
    with Xvfb() as d1, Xvfb() as d2:
        run = Run(["--seed", "3", "--names", "Ann,Bob", "--save", str(save), f"1:{d1.name}", f"2:{d2.name}"],
                  tmp_path, d1.env())
        try:
            run.wait(lambda s: len(s["windows"]) == 2 and s["mode"] == "move", "two windows")
            d2.stop()
            run.wait(lambda s: s["controllers"] == ["human", "hard"], "Bob handed to the computer")
            assert json.loads(save.read_text())["controllers"] == ["human", "hard"]
            d1.stop()
        finally:
            code, out, err = run.finish()
    assert code == 0 and "Traceback" not in err, err
    assert f"The game was left unfinished (no window is left); it is saved in {save}" in out.splitlines()
    resume = f"{as_typed(STARLANES[0])} -m starlanes --resume {save} PLAYERSTRING..."
    assert f"Go on with: {resume}" in out.splitlines()
    with Xvfb() as d3, Xvfb() as d4:
        run = Run(["--resume", str(save), f"1:{d3.name}", f"2:{d4.name}"], tmp_path, d3.env())
        try:
            status = run.wait(lambda s: len(s["windows"]) == 2, "both windows")
            assert status["controllers"] == ["human", "human"]
            assert sorted(w["display"] for w in status["windows"]) == sorted([d3.name, d4.name])
            d4.stop()
            d3.stop()
        finally:
            code, out, err = run.finish()
    assert code == 0 and "Traceback" not in err, err
    assert "left unfinished" in out


def test_a_game_of_computers_left_unwatched_is_saved_as_far_as_it_went(tmp_path):
    """With every player a computer the save is written at each computer step, not only at a person's
    prompt: the observer's display dies mid-game, and the save holds the game as the status file last showed
    it (not the opening, nor nothing at all), and resuming it goes on from there."""
    save = tmp_path / "g.json"
    with Xvfb() as d1:
        run = Run(["--seed", "8", "--players", "2", "--computer", "2", "--delay", "0.05", "--save", str(save),
                   f"0:{d1.name}"], tmp_path, d1.env())
        try:
            run.wait(lambda s: len(s["game"]["history"]) >= 4, "four moves of the computers")
            d1.stop()
        finally:
            code, out, err = run.finish()
        last = run.status()
    assert code == 0 and "Traceback" not in err, err
    assert f"The game was left unfinished (no window is left); it is saved in {save}" in out.splitlines()
    saved = json.loads(save.read_text())
    assert saved["controllers"] == ["hard", "hard"]
    assert last is not None and len(saved["game"]["history"]) >= 4 and saved["game"] == last["game"]
    with Xvfb() as d2:
        run = Run(["--resume", str(save), f"0:{d2.name}"], tmp_path, d2.env())
        try:
            status = run.wait(lambda s: len(s["windows"]) == 1, "the observer's window")
            assert len(status["game"]["history"]) >= len(saved["game"]["history"])
            assert status["game"]["history"][:4] == saved["game"]["history"][:4]
            d2.stop()
        finally:
            code, out, err = run.finish()
    assert code == 0 and "Traceback" not in err, err


def run_starlanes(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([*STARLANES, *args], env=env, capture_output=True, text=True, timeout=deadline(10),
                          stdin=subprocess.DEVNULL)


def assert_one_line_error(result: subprocess.CompletedProcess, culprit: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("starlanes: ") and culprit in lines[0], lines[0]
    assert result.stdout == ""


def test_startup_errors_are_one_line_and_exit_2(xvfb, tmp_path):
    env = xvfb.env()
    assert_one_line_error(run_starlanes(["1x:" + xvfb.name], env), '"1x:' + xvfb.name + '"')
    assert_one_line_error(run_starlanes(["--players", "2", f"3:{xvfb.name}"], env), "no player 3")
    assert_one_line_error(run_starlanes([f"1:{xvfb.name}", f"1:{xvfb.name}"], env), "player 1")
    assert_one_line_error(run_starlanes(["--players", "5", f"1:{xvfb.name}"], env), "--players")
    assert_one_line_error(run_starlanes([f"5:{xvfb.name}"], env), f'"5:{xvfb.name}": there is no player 5')
    assert_one_line_error(run_starlanes(["--names", "A,B,C", f"1:{xvfb.name}"], env), "--names")
    assert_one_line_error(run_starlanes(["--names", "x" * 21, f"1:{xvfb.name}"], env), "--names")
    assert_one_line_error(run_starlanes(["--status", str(tmp_path / "s.json")], env), "--status")
    missing = ":" + str(next(n for n in range(600, 700) if not Path(f"/tmp/.X11-unix/X{n}").exists()
                             and not Path(f"/tmp/.X{n}-lock").exists()))
    result = run_starlanes([f"1:{xvfb.name}", f"2:{missing}"], env)
    assert_one_line_error(result, f'"{missing}"')
    assert "Star Lanes" not in subprocess.run(["xwininfo", "-display", xvfb.name, "-root", "-children"],
                                              capture_output=True, text=True, timeout=deadline(3)).stdout
    no_display = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    assert_one_line_error(run_starlanes([f"1:{xvfb.name}"], no_display), "DISPLAY")


def test_computer_players_finish_a_game_that_an_observer_watches(xvfb, tmp_path):
    from starlanes import ai

    seed = 12
    run = Run(["--seed", str(seed), "--players", "2", "--computer", "2", "--level", "easy", "--delay", "0",
               f"0:{xvfb.name}"], tmp_path, xvfb.env())
    replay = Game.new(["Player 1", "Player 2"], random.Random(seed))
    while not replay.is_terminal():
        for action in ai.choose(replay, "easy"):
            replay.apply(action)
    try:
        status = run.wait(lambda s: s["mode"] == "over", "the end of the game")
        assert status["game"] == replay.to_dict()
        assert status["controllers"] == ["easy", "easy"] and status["actor"] is None
        wait_map(xvfb, status, replay)
        leave_the_end(xvfb, run, status)
    finally:
        code, out, err = run.finish()
    assert code == 0, err
    ranking = [replay.players[p].name for p in replay.standings()]
    assert [line.split("  ")[0] for line in out.splitlines()[1:3]] == ranking


def test_1977_rules_in_a_window_computers_to_the_48th_move(xvfb, tmp_path):
    from starlanes import ai

    seed = 5
    run = Run(["--rules", "1977", "--seed", str(seed), "--players", "3", "--computer", "3", "--delay", "0",
               f"0:{xvfb.name}"], tmp_path, xvfb.env())
    replay = Game.new(["Player 1", "Player 2", "Player 3"], random.Random(seed), RULES_1977)
    while not replay.is_terminal():
        for action in ai.choose(replay, "hard"):
            replay.apply(action)
    try:
        status = run.wait(lambda s: s["mode"] == "over", "the end of the game")
        assert status["game"] == replay.to_dict()
        assert status["game"]["rules"] == "1977" and status["game"]["moves"] == 48
        wait_map(xvfb, status, replay)
        leave_the_end(xvfb, run, status)
    finally:
        code, out, err = run.finish()
    assert code == 0, err
    ranking = [replay.players[p].name for p in replay.standings()]
    assert [line.split("  ")[0] for line in out.splitlines()[1:4]] == ranking


def test_1977_trading_by_keys_and_a_click_in_a_window(xvfb, tmp_path):
    """S19 under decisions 7 and 8 in X: the company asked A, then C; refusals leave the state alone."""
    from starlanes.save import save_game

    grid = ["."] * CELLS_1977
    grid[cell_index(0, 0)] = "A"
    grid[cell_index(11, 8)] = "C"
    companies = [Company(1, 300), Company(0, 100), Company(1, 700), Company(0, 100), Company(0, 100)]
    players = [Player("Ann", 1000, [2, 0, 4, 0, 0]), Player("Bob")]
    replay = Game(grid, players, random.Random(3), companies, candidates=[cell_index(5, 4)], rules=RULES_1977)
    path = tmp_path / "s19.json"
    save_game(path, replay, ["human", "human"])
    run = Run(["--resume", str(path), f"1,2:{xvfb.name}"], tmp_path, xvfb.env())
    try:
        status = run.wait(lambda s: s["mode"] == "move" and s["windows"], "Ann's move prompt")
        wait_map(xvfb, status, replay)
        press(xvfb, status, "1")
        replay.apply(Move(0))
        status = run.wait(lambda s: s["mode"] == "trade", "the company asked")
        assert status["game"] == replay.to_dict() and status["game"]["asking"] == 0
        press(xvfb, status, "5", "Return")
        run.wait(lambda s: s["mode"] == "invalid", "Invalid amount!")
        press(xvfb, status, "3", "Return")
        replay.apply(Trade(0, 3))
        status = run.wait_game(replay, "A bought")
        row = view.company_row_rect(1, tuple(window_of(status, xvfb.name)["size"]))
        click(xvfb, status, row.centerx, row.centery)
        run.wait(lambda s: s["mode"] == "amount", "C's amount opened by a click")
        press(xvfb, status, "minus", "6", "Return")
        run.wait(lambda s: s["mode"] == "invalid", "Invalid amount!")
        assert run.status()["game"] == replay.to_dict()
        press(xvfb, status, "minus", "4", "Return")
        replay.apply(Trade(2, -4))
        status = run.wait_game(replay, "C sold and the turn over")
        assert replay.players[0].cash == 3070 and replay.current == 1 and replay.phase == "move"
        press(xvfb, status, "q", "y")
        status = run.wait(lambda s: s["mode"] == "over", "the final standings")
        leave_the_end(xvfb, run, status)
    finally:
        code, out, err = run.finish()
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].split() == ["Bob", "$0", "$6000", "$6000"]
    assert lines[2].split() == ["Ann", "$1500", "$3070", "$4570"]


def shows_line(server: Xvfb, status: dict, path: Path, text: str, line: int = 0) -> bool:
    """Whether a screenshot of ``server`` (xwd, converted to PNG) shows ``text`` as line ``line`` of the
    general window, bold, exactly as the view draws it, with nothing else drawn below it."""
    win = window_of(status, server.name)
    left, top = origin(server, win["window_id"])
    size = tuple(win["size"])
    shot = pygame.surfarray.array3d(pygame.image.load(str(server.screenshot(path)))).transpose(1, 0, 2)
    inner = view.layout(size).general
    x = left + inner.x + view.PAD
    y = top + inner.y + view.PANEL_HEAD + 4 + line * view.line_height()
    image = render_text(text, view.TEXT_POINTS, view.HEAD, True, False)
    patch = pygame.Surface(image.get_size(), 0, 32)
    patch.fill(view.PANEL)
    patch.blit(image, (0, 0))
    expected = pygame.surfarray.array3d(patch).transpose(1, 0, 2)
    height, width = expected.shape[:2]
    below = shot[y + view.line_height(): top + inner.bottom - view.PAD, x: left + inner.right - view.PAD]
    return bool(np.array_equal(shot[y:y + height, x:x + width], expected) and (below == view.PANEL).all())


def wait_shows(server: Xvfb, status: dict, path: Path, text: str) -> None:
    end = time.monotonic() + DEADLINE_S
    while not shows_line(server, status, path, text):
        assert time.monotonic() < end, f"{server.name} never showed {text!r} (screenshot {path})"
        time.sleep(0.1)


def test_the_window_not_in_turn_says_whose_turn_it_is(tmp_path):
    """Bob's window at Ann's move prompt said "Press a number or click a numbered sector.": it says whose
    turn it is, and only that, while Ann's window shows her prompt; then the other way round."""
    with Xvfb() as d1, Xvfb() as d2:
        run = Run(["--seed", "7", "--names", "Ann,Bob", f"1:{d1.name}", f"2:{d2.name}"], tmp_path, d1.env())
        replay = Game.new(["Ann", "Bob"], random.Random(7))
        seats = {0: d1, 1: d2}
        try:
            status = run.wait(lambda s: len(s["windows"]) == 2 and s["mode"] == "move", "two windows")
            for _ in range(2):
                mover, other = replay.current, 1 - replay.current
                name, other_name = replay.players[mover].name, replay.players[other].name
                status = run.wait(lambda s, m=mover: s["mode"] == "move" and s["actor"] == m,
                                  f"{name}'s move")
                assert window_of(status, seats[other].name)["lines"] == [f"It is {name}'s turn."]
                prompt = f"{name}, enter your move [1-5]:"
                assert window_of(status, seats[mover].name)["lines"][0] == prompt
                wait_shows(seats[other], status, tmp_path / f"{other_name}.png", f"It is {name}'s turn.")
                assert not shows_line(seats[mover], status, tmp_path / f"{name}.png", f"It is {name}'s turn.")
                press(seats[mover], status, "1")
                replay.apply(Move(0))
                if replay.phase == "trade":
                    status = run.wait(lambda s: s["mode"] in ("trade", "announce"), f"{name}'s trading")
                    assert window_of(status, seats[other].name)["lines"][-1] == f"It is {name}'s turn."
                    press(seats[mover], status, "Escape")
                    replay.apply(EndTurn())
                run.wait_game(replay, f"{name}'s turn over")
            press(seats[replay.current], run.status(), "q", "y")
            status = run.wait(lambda s: s["mode"] == "over", "the end")
            for server in (d1, d2):
                leave_the_end(server, run, status)
                status = run.status()
        finally:
            code, _out, err = run.finish()
    assert code == 0, err


def shows_quit_box(server: Xvfb, status: dict, path: Path) -> bool:
    """Whether a screenshot of ``server`` shows the whole "Really Quit? (y/n)" pop-up: the bold question on
    one line exactly as the view draws it, the pop-up's fill below it and its lower border whole."""
    win = window_of(status, server.name)
    left, top = origin(server, win["window_id"])
    size = tuple(win["size"])
    shot = pygame.surfarray.array3d(pygame.image.load(str(server.screenshot(path)))).transpose(1, 0, 2)
    rect = view.popup_rect(size, " Quit ", [("Really Quit? (y/n)", "bold")]).move(left, top)
    image = render_text("Really Quit? (y/n)", view.TEXT_POINTS, view.HEAD, True, False)
    patch = pygame.Surface(image.get_size(), 0, 32)
    patch.fill(view.POPUP)
    patch.blit(image, (0, 0))
    expected = pygame.surfarray.array3d(patch).transpose(1, 0, 2)
    x, y = rect.x + 2 * view.PAD, rect.y + view.PANEL_HEAD + view.PAD
    height, width = expected.shape[:2]
    text = shot[y:y + height, x:x + width]
    below = shot[y + height:rect.bottom - 2, rect.x + 2:rect.right - 2]
    border = shot[rect.bottom - 2:rect.bottom, rect.x:rect.right]
    return bool(x + width <= rect.right - 2 * view.PAD and np.array_equal(text, expected)
                and len(below) >= view.PAD and (below == view.POPUP).all() and (border == view.BORDER).all())


def test_the_really_quit_box_is_drawn_whole(tmp_path):
    """The 1977 game's "Really Quit? (y/n)" box was cut off at the edge of the Companies panel ("(y/n)" and
    the lower border missing: the box was measured for the question in a plain face, drawn bold, so the
    question wrapped into a second line the box had no room for). The screenshot shows it whole."""
    with Xvfb() as display:
        run = Run(["--rules", "1977", "--seed", "3", "--names", "Ann,Bob", f"1,2:{display.name}"], tmp_path,
                  display.env())
        try:
            status = run.wait(lambda s: len(s["windows"]) == 1 and s["mode"] == "move", "the window")
            press(display, status, "q")
            status = run.wait(lambda s: s["popup"] == "Quit", "Really Quit?")
            shot = tmp_path / "quit.png"
            end = time.monotonic() + DEADLINE_S
            while not shows_quit_box(display, status, shot):
                assert time.monotonic() < end, f"the quit box is not whole (screenshot {shot})"
                time.sleep(0.1)
            press(display, status, "y")
            status = run.wait(lambda s: s["mode"] == "over", "the end")
            leave_the_end(display, run, status)
        finally:
            code, out, err = run.finish()
    assert code == 0, err
    assert ("The game was left unfinished: Ann quit.\n"
            "It was not saved (--save FILE saves a game to go on with later).\n") in out

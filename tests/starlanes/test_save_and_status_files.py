"""Star Lanes' save and status files: a ``--status`` file that is also the save is refused at the start, and
a game left unfinished tells the players (the pop-up, the windows) and the shell the truth about its save: who
quit, where it is saved, or that it could not be saved there and why.

The terminal game runs in a real tmux pane (keys with ``send-keys``, the screen with ``capture-pane``); the X
front end runs in-process through ``starlanes.cli.main`` with stand-in windows, so the whole path from the
command line to what the shell is told is the program's own.
"""

from __future__ import annotations

import errno
import os
import random
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from deadline import wait_until
from tmux_pane import Pane

from common.cli import UsageError, refuse_same_file, same_file
from common.displays import Seat
from common.loop import Closed, Inbox, Key
from starlanes import cli, session, view, xfront
from starlanes.rules import Game
from starlanes.save import HUMAN, save_game
from starlanes.session import Session
from starlanes.xfront import XGame


def new_game() -> Game:
    """A new 2-player game (Ann, Bob) with Ann at her first move prompt."""
    game = Game.new(["Ann", "Bob"], random.Random(4))
    assert game.current == 0
    return game


def saved_game(path: Path) -> Path:
    save_game(path, new_game(), [HUMAN, HUMAN])
    return path


# ------------------------------------------------------------------------- --status on the save's own file


class NoWindows(Exception):
    """Raised instead of opening a window: the command got past every check made at the start."""


@pytest.fixture
def no_windows(monkeypatch):
    """``starlanes`` with player strings stops where it would open its windows (:class:`NoWindows`)."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise NoWindows

    monkeypatch.setattr(xfront, "open_windows", refuse)
    monkeypatch.delenv("DISPLAY", raising=False)


def links(folder: Path) -> None:
    """The save sl.json in ``folder``, a hard link and a symbolic link to it, and a link to the folder."""
    save = saved_game(folder / "sl.json")
    os.link(save, folder / "hard.json")
    (folder / "soft.json").symlink_to("sl.json")
    (folder / "alias").symlink_to(folder, target_is_directory=True)


@pytest.mark.parametrize(("args", "message"), [
    (["--save", "x.json", "--status", "x.json"], "--status and --save name the same file x.json"),
    (["--resume", "sl.json", "--status", "sl.json"], "--status and --resume name the same file sl.json"),
    (["--resume", "hard.json", "--status", "sl.json"], "--status and --resume name the same file hard.json"),
    (["--resume", "sl.json", "--status", "soft.json"], "--status and --resume name the same file sl.json"),
    (["--resume", "sl.json", "--save", "y.json", "--status", "./alias/y.json"],
     "--status and --save name the same file y.json"),
    (["--save", "sub/../x.json", "--status", "alias/x.json"],
     "--status and --save name the same file sub/../x.json"),
], ids=["same-name", "resume", "hard-link", "symbolic-link", "linked-folder", "another-spelling"])
def test_a_status_file_that_is_the_save_is_refused_before_anything_starts(tmp_path, monkeypatch, capsys,
                                                                           no_windows, args, message):
    """``--status`` on the file of ``--save`` or ``--resume`` (by any path to it) is one line and status 2,
    before a window opens or a file is written: it ran, and the status JSON left a save no --resume reads."""
    monkeypatch.chdir(tmp_path)
    links(tmp_path)
    (tmp_path / "sub").mkdir()
    before = (tmp_path / "sl.json").read_bytes()
    assert cli.main([*args, "1,2::0"]) == 2
    assert capsys.readouterr() == ("", f"starlanes: {message}: each needs its own\n")
    assert (tmp_path / "sl.json").read_bytes() == before
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "y.json").exists()


def test_the_check_comes_first_in_the_terminal_game_too(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["--save", "x.json", "--status", "x.json"]) == 2
    assert capsys.readouterr().err == ("starlanes: --status and --save name the same file x.json: each needs "
                                       "its own\n")


def test_a_status_file_of_its_own_is_taken(tmp_path, monkeypatch, no_windows):
    monkeypatch.chdir(tmp_path)
    links(tmp_path)
    with pytest.raises(NoWindows):   # past every check: the windows would open now
        cli.main(["--resume", "sl.json", "--save", "x.json", "--status", "st.json", "1,2::0"])
    with pytest.raises(NoWindows):
        cli.main(["--save", "alias/x.json", "--status", "alias/st.json", "1,2::0"])


@pytest.mark.parametrize(("status", "reason"), [
    (".", "is a directory, not a regular file"),
    ("/dev/null", "is a character device, not a regular file"),
    ("none/st.json", "cannot write in {tmp_path}/none: no such folder"),
    ("/proc/st.json", "cannot write in /proc: not writable"),
], ids=["folder", "device", "missing-folder", "unwritable-folder"])
@pytest.mark.parametrize("seats", [["1,2::0"], []], ids=["x-windows", "terminal"])
def test_a_status_file_that_cannot_be_written_is_refused_as_the_save_is(tmp_path, monkeypatch, capsys,
                                                                        no_windows, status, reason, seats):
    """``--status .`` in X windows was said once and the game played on without it, where ``--save .`` is
    refused at the start: both are one line and status 2 before a window opens, in either front end."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["--status", status, *seats]) == 2
    reason = reason.format(tmp_path=tmp_path.resolve())
    assert capsys.readouterr() == ("", f"starlanes: --status {status}: {reason}\n")
    assert not (tmp_path / "none").exists()


def test_same_file_knows_a_file_by_any_path_to_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    links(tmp_path)
    assert same_file("sl.json", "hard.json") and same_file("soft.json", "alias/sl.json")
    assert same_file("new.json", "alias/new.json")   # files still to be written
    assert same_file("alias/../new.json", str(tmp_path.parent / "new.json"))
    (tmp_path / "dangling.json").symlink_to("later.json")
    assert same_file("dangling.json", "later.json")   # the link would write the file it names
    assert not same_file("sl.json", "new.json") and not same_file("new.json", "other.json")
    refuse_same_file("--status", None, [("--save", "sl.json")])
    refuse_same_file("--status", "st.json", [("--save", None), ("--resume", ""), ("--save", "sl.json")])
    with pytest.raises(UsageError, match=r"^--status and -o name the same file hard\.json: each needs its"):
        refuse_same_file("--status", "sl.json", [("--save", "x.json"), ("-o", "hard.json")])


# ------------------------------------------------------------------- a quit after a failed save (the session)


def quit_session(save: Path) -> Session:
    """A session of :func:`new_game` saving to ``save``, at Ann's move prompt."""
    game_session = Session(new_game(), [HUMAN, HUMAN], Inbox(), delay=0.0, save_path=str(save),
                           echo_errors=False)
    game_session.advance()
    return game_session


def test_a_quit_after_the_save_folder_went_says_it_could_not_be_saved_and_why(tmp_path):
    """The folder of the save went during the game: the quit said "It was not saved (--save FILE saves a game
    to go on with later)." although --save was given."""
    folder = tmp_path / "sd2"
    folder.mkdir()
    save = folder / "x.json"
    game_session = quit_session(save)
    assert save.exists()
    shutil.rmtree(folder)
    for key in ("q", "y"):
        game_session.press(key)
    assert game_session.saves.failure is not None
    assert game_session.left_lines() == [
        ("The game was left unfinished: Ann quit.", "bold"),
        (f"It could not be saved to {save} (cannot write in {folder}: no such folder).", "")]


def test_a_quit_after_a_failed_save_offers_the_last_good_one(tmp_path, monkeypatch):
    """A full disk: the file still holds the save of an earlier prompt, and the quit says how to go on from
    it; a save that works again is said as usual."""
    save = tmp_path / "x.json"
    game_session = quit_session(save)
    first = save.read_bytes()
    write = session.save_game

    def full(path: object, *args: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(session, "save_game", full)
    game_session.press("q")
    game_session.press("y")
    assert save.read_bytes() == first
    assert game_session.left_lines()[1:] == [
        (f"It could not be saved to {save} (No space left on device).", ""),
        ("The last good save is still there: go on from it by", ""), (f"starlanes --resume {save}", "")]
    monkeypatch.setattr(session, "save_game", write)
    game_session.autosave()
    assert game_session.saves.problem is None and game_session.left_lines()[1:] == [
        ("It is saved: go on with it by", ""), (f"starlanes --resume {save}", "")]


def test_a_save_that_never_worked_offers_no_file(tmp_path, monkeypatch):
    """Without one good save the file (made by someone else meanwhile) is not offered to go on from."""
    save = tmp_path / "x.json"

    def broken(path: object, *args: object) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO), str(path))

    monkeypatch.setattr(session, "save_game", broken)
    game_session = quit_session(save)
    save.write_text("someone else's\n")
    game_session.press("q")
    game_session.press("y")
    assert game_session.left_lines()[1:] == [(f"It could not be saved to {save} (Input/output error).", "")]


# ------------------------------------------------------------------- the X front end: what the shell is told


class FakeWindow:
    """Stands in for common.x11.Window."""

    def __init__(self, display: str) -> None:
        self.display = display
        self.size = view.DEFAULT_SIZE
        self.window_id = 0
        self.closed = False

    def present(self, surface: object, rects: object = None) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def play_in_fake_windows(monkeypatch, args: list[str], events: list[object],
                         when_open: Callable[[], None] = lambda: None) -> tuple[int, list[XGame]]:
    """``starlanes ARGS`` with stand-in windows, one per seat; ``events`` (a str: that key in the first
    window) arrive once the windows are open (after ``when_open``). Returns the exit status and the game
    played."""
    played: list[XGame] = []
    run = XGame.run

    def open_windows(seats: list[Seat], names: list[str], inbox: Inbox, **_: object) -> dict:
        when_open()
        for event in events:
            inbox.put(Key("seat0", event) if isinstance(event, str) else event)
        return {f"seat{i}": (FakeWindow(seat.display or ""), seat) for i, seat in enumerate(seats)}

    def record(xgame: XGame) -> int:
        played.append(xgame)
        return run(xgame)

    monkeypatch.setattr(xfront, "open_windows", open_windows)
    monkeypatch.setattr(XGame, "run", record)
    monkeypatch.delenv("DISPLAY", raising=False)
    return cli.main(args), played


def test_the_shell_gives_the_reason_the_windows_give_after_a_quit(tmp_path, monkeypatch, capsys):
    """``q`` ``y`` in a window: the windows said "Ann quit.", the shell "(no window is left)"."""
    monkeypatch.chdir(tmp_path)
    saved_game(tmp_path / "sl.json")
    status, played = play_in_fake_windows(monkeypatch, ["--resume", "sl.json", "1,2::0"], ["q", "y", "q"])
    out, err = capsys.readouterr()
    assert (status, err) == (0, "")
    left = ["The game was left unfinished: Ann quit.", "It is saved: go on with it by",
            "starlanes --resume sl.json PLAYERSTRING..."]
    assert out.splitlines()[-4:] == [*left, "Thank you for playing Star Lanes!"]
    assert "no window is left" not in out
    assert [text for text, _ in played[0].session.left_lines()] == left   # what the windows showed


@pytest.mark.parametrize(("events", "first"), [
    (["q", "y", "q"], "The game was left unfinished: Player 1 quit."),
    # every window closed: "(no window is left) and was not saved (see --save)" although --save was given
    ([Closed("seat0")], "The game was left unfinished (no window is left)."),
])
def test_the_shell_says_why_a_game_left_in_windows_could_not_be_saved(tmp_path, monkeypatch, capsys, events,
                                                                      first):
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "sd2"
    folder.mkdir()
    status, _ = play_in_fake_windows(monkeypatch, ["--seed", "4", "--save", "sd2/x.json", "1,2::0"],
                                     events, when_open=lambda: shutil.rmtree(folder))
    out, err = capsys.readouterr()
    assert status == 0
    assert out.splitlines()[-3:] == [
        first, f"It could not be saved to sd2/x.json (cannot write in {folder}: no such folder).",
        "Thank you for playing Star Lanes!"]
    assert err == "starlanes: cannot write the save sd2/x.json: No such file or directory\n"


# --------------------------------------------------------------------- the terminal game, in a real terminal


def popup_text(screen: str, title: str) -> str:
    """The text inside the pop-up titled ``title`` on ``screen``, without its border, all white space gone
    (its lines wrap where the pop-up is narrow, long words too)."""
    lines = screen.split("\n")
    top = next(i for i, line in enumerate(lines) if "┌─" + title in line)
    left = lines[top].index("┌─" + title)
    right = lines[top].index("┐", left)
    inside = []
    for line in lines[top + 1:]:
        if line[left:left + 1] == "└":
            break
        inside.append(line[left + 1:right])
    return "".join("".join(inside).split())


def test_a_quit_at_the_terminal_after_the_save_folder_went_says_why_it_is_not_saved(tmp_path):
    """``starlanes --computer 1 --save sd2/x.json``, the folder sd2 removed during play, ``q`` ``y``: the
    pop-up and the shell said "It was not saved (--save FILE saves a game to go on with later)."."""
    folder = tmp_path / "sd2"
    folder.mkdir()
    save = folder / "x.json"
    pane = Pane([sys.executable, "-m", "starlanes", "--seed", "4", "--computer", "1", "--save", "sd2/x.json"],
                tmp_path)
    try:
        pane.wait_for(r"How many players \(1-4\)\?")
        pane.send("2")
        pane.wait_for(r"Player 1, enter your name:")
        pane.send("Ann", "Enter")
        pane.wait_for(r"Computer 2_")
        pane.send("Enter")
        pane.wait_for(r"Ann, enter your move")
        wait_until(save.exists, "the save at Ann's move prompt")
        shutil.rmtree(folder)
        pane.send("q")
        pane.wait_for(r"Really Quit")
        pane.send("y")
        pane.wait_for(r"GAME OVER - Final Standings")

        def drawn() -> str:   # the screen can be read while the pop-up is drawn over the quit question
            screen = pane.text()
            inside = popup_text(screen, " GAME OVER") if "┌─ GAME OVER" in screen else ""
            return inside if "Pressanykey" in inside else ""

        shown = wait_until(drawn, "the whole GAME OVER pop-up", seconds=10)
        why = f"It could not be saved to sd2/x.json (cannot write in {folder}: no such folder)."
        assert "".join(f"The game was left unfinished: Ann quit. {why} Press any key".split()) in shown, shown
        assert "--saveFILE" not in shown
        pane.send("x")
        pane.wait_for(r"Net worth per turn")
        pane.send("x")
        wait_until(lambda: pane.rc.exists() and pane.rc.read_text(), "the program's end", seconds=5)
        assert pane.rc.read_text() == "0\n"
        pane.wait_for(r"Thank you for playing Star Lanes!")  # tmux may show the last output after the status
        lines = [line.rstrip() for line in pane.text(joined=True).split("\n")]
        end = lines.index("Thank you for playing Star Lanes!")
        assert lines[end - 2:end] == ["The game was left unfinished: Ann quit.", why]
    finally:
        pane.close()

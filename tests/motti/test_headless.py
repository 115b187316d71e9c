"""Headless matches, the turn cap and games that cannot end, from the command line (spec/motti.md §2.9, §2.10,
issue 10): real ``python -m motti`` processes, no display and no terminal."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from deadline import deadline, wait_until
from motti_maps import T13

from motti.mapfile import parse_map

ISLANDS = """\
motti-map 1
size 7 2
players 2
capital 1 0 0
capital 2 6 1
grid
aaa.bbb
aaa.bbb
"""


def motti(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    return subprocess.run([sys.executable, "-m", "motti", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=deadline(100), stdin=subprocess.DEVNULL)


def test_headless_computer_game_is_won_and_the_status_says_so(tmp_path):
    (tmp_path / "t13.map").write_text(T13)
    done = motti(tmp_path, "t13.map", "--computer", "1,2", "--headless", "--seed", "1", "--status", "s.json",
                 "--save", "saved.map")
    assert done.returncode == 0, done.stderr
    # Player 1's Guerilla onto the free capital diagonal to its wall takes it at once (T13).
    assert done.stdout == "P1 wins after 1 turn\n" and done.stderr == ""
    status = json.loads((tmp_path / "s.json").read_text())
    assert (status["winner"], status["turns"], status["result"], status["turn"]) == (1, 1, "win", None)
    saved = (tmp_path / "saved.map").read_text().splitlines()
    assert saved[0] == "# motti saved game: resume with motti FILE --headless"
    assert {"turns 1", "reset-rule strict", "capital-rule v3", "computer 1 medium",
            "computer 2 medium"} <= set(saved)
    assert not [line for line in saved if line.split()[:1] in (["turn"], ["attacks"])]


def test_ctrl_c_stops_a_headless_match_and_says_how_to_resume_it(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    match = subprocess.Popen([sys.executable, "-m", "motti", "generate", "--seed", "2", "--computer", "1,2",
                              "--headless", "--delay", "0.05", "--save", "m.map", "--status", "s.json"],
                             cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             stdin=subprocess.DEVNULL)

    def turns() -> int:
        try:
            return int(json.loads((tmp_path / "s.json").read_text())["turns"])
        except (OSError, ValueError, KeyError):
            return 0

    try:
        wait_until(lambda: turns() >= 1, "the first turn played", seconds=60)
        match.send_signal(signal.SIGINT)
        out, err = match.communicate(timeout=deadline(60))
    finally:
        match.kill()
    assert match.returncode == 130, err
    # (the command as typed: here ``python -m motti``)
    said = r"motti: stopped; it is saved in m\.map \(.+ m\.map --headless --save m\.map resumes it\)\n"
    assert re.fullmatch(said, out), out
    first = (tmp_path / "m.map").read_text().splitlines()[0]
    assert first == "# motti saved game: resume with motti FILE --headless"


def test_headless_turn_cap_ends_on_land(tmp_path):
    done = motti(tmp_path, "generate", "--seed", "5", "--computer", "1,2", "--headless", "--max-turns", "3",
                 "--status", "s.json")
    assert done.returncode == 0, done.stderr
    status = json.loads((tmp_path / "s.json").read_text())
    assert status["turns"] == 3 and status["result"] in ("land", "draw")
    land = {p: sum(row.lower().count(chr(ord("a") + p - 1)) for row in status["board"]) for p in (1, 2)}
    most = max(land.values())
    counts = "–".join(str(n) for n in sorted(land.values(), reverse=True))
    if status["result"] == "land":
        assert land[status["winner"]] == most > min(land.values())
        assert done.stdout == f"P{status['winner']} wins on land after 3 turns: {counts}\n"
    else:
        assert status["winner"] is None and done.stdout == f"draw on land after 3 turns: {counts}\n"


def test_headless_without_a_seed_says_the_one_it_chose_and_that_seed_replays_the_match(tmp_path):
    argv = ("generate", "-w", "12", "-h", "9", "--computer", "1,2", "--level", "easy", "--headless",
            "--max-turns", "40")
    chosen = motti(tmp_path, *argv)
    assert chosen.returncode == 0, chosen.stderr
    found = re.fullmatch(r"motti: seed (\d+)\n", chosen.stderr)
    assert found, chosen.stderr
    again = motti(tmp_path, *argv, "--seed", found[1])
    assert again.returncode == 0 and again.stderr == ""
    assert again.stdout == chosen.stdout and re.fullmatch(r"(P[12] wins|draw) .*\n", again.stdout)


@pytest.mark.parametrize("option", ["--save", "-o"])
def test_the_status_file_and_a_map_file_must_differ(tmp_path, option):
    done = motti(tmp_path, "generate", "--seed", "4", "--computer", "1,2", "--headless", "--status", "g.map",
                 option, "./g.map")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"motti: --status and {option} name the same file ./g.map: each needs its own\n"
    assert not (tmp_path / "g.map").exists()


def test_the_status_file_must_not_be_the_map_being_played(tmp_path):
    (tmp_path / "saved.map").write_text(ISLANDS)
    done = motti(tmp_path, "saved.map", "--computer", "1,2", "--headless", "--status", "./saved.map")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("motti: --status ./saved.map is the map being played: the status would overwrite "
                           "it\n")
    assert (tmp_path / "saved.map").read_text() == ISLANDS
    # Nor -o: a saved game written over with the bare map would lose its turn, rules and computer players.
    done = motti(tmp_path, "saved.map", "--computer", "1,2", "--headless", "-o", "saved.map")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "motti: -o saved.map is the map being played: the map would overwrite it\n"
    assert (tmp_path / "saved.map").read_text() == ISLANDS
    os.link(tmp_path / "saved.map", tmp_path / "linked.map")   # the same file under another name
    done = motti(tmp_path, "linked.map", "--computer", "1,2", "--headless", "--status", "saved.map")
    assert done.returncode == 2
    assert done.stderr == "motti: --status saved.map is the map being played: the status would overwrite it\n"
    assert (tmp_path / "saved.map").read_text() == ISLANDS


def test_headless_islands_are_a_draw_at_once(tmp_path):
    (tmp_path / "islands.map").write_text(ISLANDS)
    done = motti(tmp_path, "islands.map", "--computer", "1,2", "--headless", "--seed", "3", "--status",
                 "s.json")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "draw: no player can reach another\n"
    status = json.loads((tmp_path / "s.json").read_text())
    assert (status["winner"], status["turns"], status["result"]) == (None, 0, "draw")


@pytest.mark.parametrize(("argv", "error"), [
    (["--computer", "2"], "motti: --headless: player 1 is not a computer player (name every player with "
                          "--computer)\n"),
    (["--computer", "1,2", "-c"], "motti: -c: --headless plays without display or terminal\n"),
])
def test_headless_refuses_humans_and_displays(tmp_path, argv, error):
    (tmp_path / "t13.map").write_text(T13)
    done = motti(tmp_path, "t13.map", "--headless", *argv)
    assert done.returncode == 2 and done.stderr == error and done.stdout == ""


def test_headless_names_every_human_player_in_plural(tmp_path):
    done = motti(tmp_path, "generate", "-p", "4", "--seed", "1", "--computer", "2", "--headless")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("motti: --headless: players 1, 3, 4 are not computer players (name every player "
                           "with --computer)\n")


def test_script_mode_announces_the_end_and_writes_the_whole_state(tmp_path):
    (tmp_path / "t13.map").write_text(T13)
    (tmp_path / "moves").write_text("attack 3,1\n")
    done = motti(tmp_path, "t13.map", "--script", "moves", "--seed", "0", "--final", "end.map",
                 "--reset-rule", "empty", "--max-turns", "50")
    final = (tmp_path / "end.map").read_text().splitlines()
    # Seed 0 draws 3 first: the attack on (3,1) fails and the game goes on.
    assert done.returncode == 0 and done.stdout == "", done.stderr
    assert {"turn 1", "attacks 5", "turns 0", "reset-rule empty", "capital-rule v3",
            "max-turns 50"} <= set(final)
    assert not [line for line in final if line.startswith("takeable")]


def test_script_mode_on_islands_says_the_game_is_a_draw(tmp_path):
    (tmp_path / "islands.map").write_text(ISLANDS)
    (tmp_path / "moves").write_text("pass\n")
    done = motti(tmp_path, "islands.map", "--script", "moves", "--seed", "0")
    assert done.returncode == 2
    assert done.stderr == ("motti: moves:1: the game is over (draw: no player can reach another); no further "
                           "action is possible\n")
    (tmp_path / "moves").write_text("# nothing to play\n")
    done = motti(tmp_path, "islands.map", "--script", "moves", "--seed", "0")
    assert done.returncode == 0 and done.stdout == "draw: no player can reach another\n"


def test_max_turns_must_be_a_positive_number(tmp_path):
    done = motti(tmp_path, "generate", "--max-turns", "0", "--headless", "--computer", "1,2")
    assert done.returncode == 2
    assert done.stderr == "motti: argument --max-turns: expected a whole number of at least 1, found '0'\n"


@pytest.mark.parametrize("seed", ["\u0663", " 5", "1_0", "1.5", "abc"])
def test_a_seed_is_written_in_ascii_digits(tmp_path, seed):
    done = motti(tmp_path, "generate", "--seed", seed, "--headless", "--computer", "1,2")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"motti: argument --seed: expected a whole number of at least 0, found {seed!r}\n"


def test_a_seed_too_long_for_a_number_is_refused_and_quoted_short(tmp_path):
    done = motti(tmp_path, "generate", "--seed", "9" * 5000, "--headless", "--computer", "1,2")
    assert done.returncode == 2 and done.stdout == ""
    shown = "9" * 40 + "..."
    assert done.stderr == f"motti: argument --seed: expected a whole number of at least 0, found '{shown}'\n"


TWO_SAVED = """\
motti-map 1
size 10 3
players 2
capital 1 0 1
capital 2 9 1
turn 2
attacks 6
{lines}grid
aaaaabbbbb
aaaaabbbbb
aaaaabbbbb
"""


def test_a_save_resumes_with_its_turns_rules_cap_and_computer_players(tmp_path):
    lines = "turns 5\nreset-rule empty\ncapital-rule v2\nmax-turns 6\ncomputer 2 medium\n"
    (tmp_path / "saved.map").write_text(TWO_SAVED.format(lines=lines))
    # Only player 1 is named a computer player here: player 2 is one in the save, so the match is headless.
    done = motti(tmp_path, "saved.map", "--computer", "1", "--headless", "--seed", "2", "--save", "again.map",
                 "--max-turns", "40", "--reset-rule", "strict")
    assert done.returncode == 0, done.stderr
    assert "after 6 turns" in done.stdout                       # the save's cap, not the command line's
    again = (tmp_path / "again.map").read_text().splitlines()
    assert {"turns 6", "reset-rule empty", "capital-rule v2", "max-turns 6", "computer 1 medium",
            "computer 2 medium"} <= set(again)


@pytest.mark.parametrize(("argv", "levels"), [
    ([], {"computer 1 medium", "computer 2 easy"}),                     # the save's level, else medium
    (["--level", "hard"], {"computer 1 hard", "computer 2 hard"}),      # --level overrides the save's
    (["--level", "hard", "--computer", "1,2:medium"], {"computer 1 hard", "computer 2 medium"}),
])
def test_a_saves_computer_levels_give_way_to_the_command_lines(tmp_path, argv, levels):
    (tmp_path / "saved.map").write_text(TWO_SAVED.format(lines="max-turns 6\ncomputer 2 easy\n"))
    done = motti(tmp_path, "saved.map", "--computer", "1", "--headless", "--seed", "2", "--save", "again.map",
                 *argv)
    assert done.returncode == 0, done.stderr
    again = (tmp_path / "again.map").read_text().splitlines()
    assert {line for line in again if line.startswith("computer ")} == levels


def test_a_save_without_the_new_lines_takes_the_command_line_then_the_defaults(tmp_path):
    (tmp_path / "saved.map").write_text(TWO_SAVED.format(lines=""))
    done = motti(tmp_path, "saved.map", "--computer", "1,2", "--headless", "--seed", "2", "--save",
                 "again.map", "--max-turns", "2", "--capital-rule", "v2")
    assert done.returncode == 0, done.stderr
    assert "after 2 turns" in done.stdout
    again = (tmp_path / "again.map").read_text().splitlines()
    assert {"turns 2", "reset-rule strict", "capital-rule v2", "max-turns 2"} <= set(again)
    # The game is over (the cap): the count of §2.8 is not saved, a loader computes it from the board.
    assert not [line for line in again if line.startswith("takeable ")]


def test_headless_status_holds_the_last_announcement_and_turn(tmp_path):
    # The windows' and console's status fields: the last announcement and the cells the last turn changed.
    (tmp_path / "t13.map").write_text(T13)
    done = motti(tmp_path, "t13.map", "--computer", "1,2", "--headless", "--seed", "1", "--status", "s.json")
    assert done.returncode == 0, done.stderr
    status = json.loads((tmp_path / "s.json").read_text())
    assert status["message"] == ("P1 guerilla at 3,1 — captured the capital of P2 — encircled 8 cells of "
                                 "P2 — P2 is out — P1 wins after 1 turn")
    # The whole of P2's land changes hands: its capital captured, the other 8 cells divided as encircled.
    cells = [[x, y, "captured" if (x, y) == (3, 1) else "encircled"] for y in range(3) for x in range(3, 6)]
    assert status["last_turn"] == {"player": 1, "action": "guerilla", "cells": cells, "reset": False}


THREE = """\
motti-map 1
size 9 3
players 3
{capital3}grid
aaabbb{ccc}
aaabbb{ccc}
aaabbb{ccc}
"""


@pytest.mark.parametrize(("text", "argv"), [
    # player 3 left out by -p, then eliminated in a saved game
    (THREE.format(capital3="capital 1 0 1\ncapital 2 4 1\ncapital 3 7 1\n", ccc="ccc"), ["-p", "2"]),
    (THREE.format(capital3="capital 1 0 1\ncapital 2 4 1\neliminated 3\n", ccc="..."), []),
])
def test_computer_naming_a_player_who_is_out_is_an_error(tmp_path, text, argv):
    (tmp_path / "three.map").write_text(text)
    done = motti(tmp_path, "three.map", "--computer", "1,3:hard,2", "--headless", "--max-turns", "2", *argv)
    assert done.returncode == 2
    assert done.stderr == ("motti: --computer: player 3 is out of this game (players left: 1, 2); name only "
                           "those\n")
    done = motti(tmp_path, "three.map", "--computer", "1,2", "--headless", "--max-turns", "2", "--seed", "1",
                 *argv)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("capital3", [
    "capital 1 0 1\ncapital 2 4 1\ncapital 3 7 1\n",
    # a saved game whose only computer player is out: nobody left for --level to set
    "capital 1 0 1\ncapital 2 4 1\neliminated 3\ncomputer 3 easy\n",
])
def test_a_level_with_no_computer_player_is_an_error(tmp_path, capital3):
    (tmp_path / "three.map").write_text(THREE.format(capital3=capital3, ccc="ccc" if "capital 3" in capital3
                                                     else "..."))
    done = motti(tmp_path, "three.map", "--level", "hard", "--headless", "--max-turns", "2")
    assert done.returncode == 2
    assert done.stderr == ("motti: --level hard: no computer player to play at it (name them with "
                           "--computer, e.g. --computer 2)\n")


def test_a_level_that_no_computer_player_takes_is_an_error(tmp_path):
    # Every computer player has a level of its own: --level would change nothing. With one player left to it,
    # it plays (and a save's levels, which --level overrides, never make it an error).
    (tmp_path / "three.map").write_text(THREE.format(capital3="capital 1 0 1\ncapital 2 4 1\ncapital 3 7 1\n",
                                                     ccc="ccc"))
    done = motti(tmp_path, "three.map", "--computer", "1:hard,2:easy,3:easy", "--level", "medium",
                 "--headless", "--max-turns", "2")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("motti: --level medium: every computer player has a level of its own (as in "
                           "--computer 2:hard); leave --level out, or name the players without one\n")
    done = motti(tmp_path, "three.map", "--computer", "1:hard,2:easy,3", "--level", "medium",
                 "--headless", "--max-turns", "2", "--save", "saved.map")
    assert done.returncode == 0, done.stderr
    assert {"computer 1 hard", "computer 2 easy", "computer 3 medium"} <= set(
        (tmp_path / "saved.map").read_text().splitlines())


def test_p_on_a_saved_game_keeps_its_state_lines_for_the_players_left(tmp_path):
    # Player 3, in turn, is disabled by -p 2: the turn goes to the next player left, with a whole turn; the
    # computer players left, the rules, the turns played and the cap stay as saved.
    saved = THREE.format(capital3="capital 1 0 1\ncapital 2 4 1\ncapital 3 7 1\nturn 3\nattacks 2\nturns 7\n"
                                  "reset-rule empty\ncapital-rule v2\nmax-turns 9\ncomputer 1 easy\n"
                                  "computer 2 hard\ncomputer 3 medium\n", ccc="ccc")
    (tmp_path / "saved.map").write_text(saved)
    done = motti(tmp_path, "saved.map", "-p", "2", "--headless", "--seed", "1", "--save", "again.map")
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "again.map").read_text()
    board = parse_map(text).board
    land = sorted((int((board.land & (board.owner == p)).sum()) for p in (1, 2)), reverse=True)
    assert land[0] == int((board.land & (board.owner == 2)).sum()) > land[1]
    assert done.stdout == f"P2 wins on land after 9 turns: {land[0]}–{land[1]}\n"
    again = text.splitlines()
    assert {"turns 9", "reset-rule empty", "capital-rule v2", "max-turns 9", "computer 1 easy",
            "computer 2 hard", "eliminated 3"} <= set(again)
    assert not any(line.startswith("computer 3") for line in again)


FULL_DISK = """\
set -u
mount -t tmpfs -o size=512k tmpfs disk || exit 97
cd disk
{motti} generate --seed 4 --computer 1,2 --headless --max-turns 30 --delay 0.1 --save saved.map \\
    > ../out/stdout 2> ../out/stderr &
game=$!
until [ -s saved.map ]; do sleep 0.01; done
kill -STOP $game
cp saved.map ../out/good.map
dd if=/dev/zero of=fill bs=4k 2> /dev/null
kill -CONT $game
wait $game
echo $? > ../out/status
rm fill
cp saved.map ../out/saved.map
"""


def test_headless_plays_on_when_the_disk_fills_and_keeps_the_last_good_save(tmp_path):
    """A real full disk: a tmpfs of 512 KiB mounted in a user namespace of its own, filled while the match is
    stopped (SIGSTOP) after its first save."""
    (tmp_path / "disk").mkdir()
    (tmp_path / "out").mkdir()
    motti_command = " ".join([sys.executable, "-m", "motti"])
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    done = subprocess.run(["unshare", "--map-root-user", "--mount", "sh", "-c",
                           FULL_DISK.format(motti=motti_command)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=deadline(100))
    if done.returncode == 97 or "unshare:" in done.stderr:
        pytest.skip(f"no tmpfs in a user namespace here: {done.stderr.strip()}")
    out = tmp_path / "out"
    assert (out / "status").read_text() == "0\n", (out / "stderr").read_text()
    assert (out / "stderr").read_text() == "motti: cannot write the save saved.map: No space left on device\n"
    assert re.fullmatch(r"(P[12] wins( on land)?|draw on land) after \d+ turns?(: \d+–\d+)?\n",
                        (out / "stdout").read_text())
    # The save on the full disk is the last one written before it filled, whole, and resumes.
    assert (out / "saved.map").read_text() == (out / "good.map").read_text()
    resumed = motti(out, "saved.map", "--headless", "--seed", "1", "--max-turns", "1")
    assert resumed.returncode == 0, resumed.stderr


def test_headless_removes_the_temporaries_of_a_killed_process_and_keeps_a_running_ones(tmp_path):
    # What a `kill -9` mid-write leaves beside the save: .NAME.PID.XXXXXXXX.tmp of a process that is gone.
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    stale = tmp_path / f".saved.map.{int(gone.stdout)}.k3j_x9q2.tmp"
    live = tmp_path / f".saved.map.{os.getpid()}.a8b7c6d5.tmp"     # this test's own process is running
    for left in (stale, live):
        left.write_text("motti-map 1\nsize 6")
    (tmp_path / "t13.map").write_text(T13)
    done = motti(tmp_path, "t13.map", "--computer", "1,2", "--headless", "--seed", "1", "--save", "saved.map")
    assert done.returncode == 0, done.stderr
    assert not stale.exists() and live.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["t13.map", "saved.map", live.name])


#: Spec §9 T9 with player 3 in turn: its Defend on (3,2) closes the pocket (2,2) of player 2, which players 1
#: and 3 reach at the same distance.
T9 = """\
motti-map 1
size 6 5
players 3
capital 1 0 0
capital 2 5 0
capital 3 3 0
turn 3
grid
aaaccb
aAAccb
aAbccb
aAAccb
aaaccb
"""


@pytest.mark.parametrize(("argv", "heir", "word"), [
    ([], "c", "mover"), (["--tie-rule", "mover"], "c", "mover"), (["--tie-rule", "lowest"], "a", "lowest")])
def test_the_tie_rule_option_divides_a_tied_pocket_and_is_saved(tmp_path, argv, heir, word):
    (tmp_path / "t9.map").write_text(T9)
    (tmp_path / "moves").write_text("defend 3,2\n")
    done = motti(tmp_path, "t9.map", "--script", "moves", "--seed", "0", "--final", "end.map", "--status",
                 "s.json", *argv)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    final = (tmp_path / "end.map").read_text().splitlines()
    assert final[final.index("grid") + 3] == f"aA{heir}Ccb"
    assert f"tie-rule {word}" in final
    status = json.loads((tmp_path / "s.json").read_text())
    assert status["rules"] == {"reset_rule": "strict", "capital_rule": "v3", "tie_rule": word,
                               "max_turns": None}
    taker = "" if heir == "c" else "P1 "     # the mover's own encirclement names no taker
    assert status["message"] == f"P3 defended 1 cell — {taker}encircled 1 cell of P2"


def test_a_resumed_saves_rule_lines_win_and_stderr_names_each_option_overruled(tmp_path):
    lines = "turns 5\nreset-rule empty\ncapital-rule v2\ntie-rule lowest\nmax-turns 6\ncomputer 2 medium\n"
    (tmp_path / "saved.map").write_text(TWO_SAVED.format(lines=lines))
    done = motti(tmp_path, "saved.map", "--computer", "1", "--headless", "--seed", "2", "--save", "again.map",
                 "--reset-rule", "strict", "--capital-rule", "v3", "--tie-rule", "mover", "--max-turns", "40")
    assert done.returncode == 0
    assert done.stderr == ("motti: this save's reset-rule empty is used\n"
                           "motti: this save's capital-rule v2 is used\n"
                           "motti: this save's tie-rule lowest is used\n"
                           "motti: this save's max-turns 6 is used\n")
    assert "after 6 turns" in done.stdout
    again = (tmp_path / "again.map").read_text().splitlines()
    assert {"reset-rule empty", "capital-rule v2", "tie-rule lowest", "max-turns 6"} <= set(again)
    # Options that agree with the save, and options the save does not hold, say nothing.
    (tmp_path / "saved.map").write_text(TWO_SAVED.format(lines="reset-rule empty\nmax-turns 6\n"))
    done = motti(tmp_path, "saved.map", "--computer", "1,2", "--headless", "--seed", "2", "--save",
                 "again.map", "--reset-rule", "empty", "--max-turns", "6", "--tie-rule", "lowest",
                 "--capital-rule", "v2")
    assert (done.returncode, done.stderr) == (0, "")
    again = (tmp_path / "again.map").read_text().splitlines()
    assert {"reset-rule empty", "capital-rule v2", "tie-rule lowest", "max-turns 6"} <= set(again)


def test_a_bad_tie_rule_is_a_one_line_error(tmp_path):
    done = motti(tmp_path, "generate", "--tie-rule", "first", "--headless", "--computer", "1,2")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("motti: argument --tie-rule: invalid choice: 'first' (choose from 'mover', "
                           "'lowest')\n")

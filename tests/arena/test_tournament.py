"""``arena tournament``: schedule, standings (spec/arena.md §2.8), real tournaments over TCP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import csv
import itertools
import json
import logging
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from arena_helpers import join, play_out, seat_server, until
from deadline import deadline, wait_until

from arena import ratings, replay, tournament
from arena.mapfile import find_map, load_arena
from arena.ratings import Rating
from arena.server import Diagnostics, copy_name
from arena.tournament import (
    BOT_GROUPS,
    Bot,
    Config,
    GameRecord,
    GameRunner,
    Scheduled,
    SeatResult,
    TournamentError,
    _GameLog,
    _Process,
    _stop_group,
    clean_up_killed_game,
    format_standings,
    parse_bots,
    python_safe_path,
    schedule,
    seat_status,
    standings,
)

# A bot that joins, then misbehaves: "crash" exits with status 3 after the first START, "hang" never moves,
# "quit" leaves at once, "fail" exits with status 4 at once.
BAD_BOT = """\
import socket, sys, time
mode, port = sys.argv[1], int(sys.argv[2])
sock = socket.create_connection(("127.0.0.1", port))
buffer = b""
while True:
    data = sock.recv(4096)
    if not data:
        break
    buffer += data
    if mode == "refuse" and b"ID " in buffer:
        sock.sendall(b"ID_NOT_OKAY|")
        while sock.recv(4096):  # until the server drops the connection
            pass
        sys.exit(0)
    if b"ID " in buffer and b"ID_OKAY" not in buffer:
        sock.sendall(b"ID_OKAY|")
        buffer += b"ID_OKAY"
        if mode in ("quit", "fail"):
            sys.exit(4 if mode == "fail" else 0)
    if b"START" in buffer:
        print("round 1 reached", flush=True)
        if mode == "crash":
            print("giving up", file=sys.stderr, flush=True)
            sys.exit(3)
        time.sleep(3600)
"""


def test_schedule_every_pair_meets_equally_often_and_seed_decides():
    games = schedule(5, ["office", "field"], 10, 2, seed=4)
    assert [g.number for g in games] == list(range(1, 21))
    assert [g.map for g in games[:4]] == ["office", "field", "office", "field"]
    for name in ("office", "field"):
        lineups = Counter(tuple(sorted(g.seats)) for g in games if g.map == name)
        assert lineups == Counter({pair: 1 for pair in itertools.combinations(range(5), 2)})
    assert schedule(5, ["office", "field"], 10, 2, seed=4) == games
    other = schedule(5, ["office", "field"], 10, 2, seed=5)
    assert [g.seed for g in other] != [g.seed for g in games]


def test_schedule_balances_bots_per_map_and_pairs_overall():
    games = schedule(6, ["a", "b", "c"], 12, 4, seed=1)
    for name in ("a", "b", "c"):
        seats = Counter(b for g in games if g.map == name for b in g.seats)
        assert seats == Counter(dict.fromkeys(range(6), 8))
    # 36 games of 6 pairs each: 216 meetings for 15 pairs, 14.4 each at best
    pairs = Counter(p for g in games for p in itertools.combinations(sorted(g.seats), 2))
    assert len(pairs) == 15 and set(pairs.values()) == {14, 15}
    exact = schedule(5, ["a", "b"], 10, 3, seed=1)  # every line-up of 3 of 5 once per map
    assert set(Counter(p for g in exact for p in itertools.combinations(sorted(g.seats), 2)).values()) == {6}
    with pytest.raises(ValueError, match=r"2\.\.3 players"):
        schedule(3, ["a"], 1, 4, seed=0)


@pytest.mark.parametrize(("command", "label"), [
    # the label was the first 32 characters, "java -cp classes de.binfalse.mar": no main class
    ("java -cp classes de.binfalse.mar.Main 127.0.0.1 {port}", "java de.binfalse.mar.Main"),
    ("java -Xmx64m -classpath lib/a.jar:classes Bot {host} {port}", "java Bot"),
    ("java -jar /opt/bots/mar.jar {host} {port}", "java mar.jar"),
    ("python3 -u -W ignore /opt/bots/b.py --fast {port}", "python3 b.py --fast"),
    ("python3 -m mybots.smart {port}", "python3 mybots.smart"),
    ("./bots/runme --level 3 {port}", "runme --level 3"),
    # a comment was part of the label: `sleep 600 #`, `python3 aimless.py # v2`
    ("./runme {port} # v2", "runme"),
    ("python3 'bots/aimless.py' {port} # v2", "python3 aimless.py"),
    ("# Ann's bot\npython3 aimless.py {port} # it's v2\n", "python3 aimless.py"),
    # a quoted path with a space was split at it: `python3 "my aimless.py"`
    ('python3 "my bots/aimless.py" {port}', "python3 aimless.py"),
    ("python3 'my bots/my bot.py' {port}", "python3 'my bot.py'"),
    # the command after a `cd` was cut off: `cd "my bots" && python3`, no script
    ('cd "my bots" && python3 aimless.py {port}', "python3 aimless.py"),
    ("cd bots; exec java -jar a.jar {port}", "java a.jar"),
    # a backslash-escaped space was a word's end: `cd 'my bots' && python3`, no script
    (r"cd my\ bots && python3 aimless.py {port}", "python3 aimless.py"),
    (r"python3 my\ bots/aimless.py {port}", "python3 aimless.py"),
    # a backslash-newline (a line continuation) was a word holding a newline: `python3 aimless.py '\n'`
    ("python3 aimless.py \\\n  {port}", "python3 aimless.py"),
    ("python3 aim\\\nless.py {port}", "python3 aimless.py"),
    ("python3 'my\nbot.py' {port}", "python3 'my bot.py'"),
    ("python3 'bot\x1b[2J.py' {port}", "python3 bot?[2J.py"),
    # a shell's -c command (the word holding {port}) was left out: `sh`, `bash`
    ('sh -c "python3 bots/b.py {port}"', "python3 b.py"),
    ("bash -c 'exec python3 bots/b.py {port}'", "python3 b.py"),
    ("/bin/sh -e -o pipefail -c 'java -jar bots/a.jar {port}'", "java a.jar"),
    # ... and one taking the port as $1 was garbled: `sh 'b.py" "$1"' sh`
    ("""sh -c 'python3 "my bots/b.py" "$1"' sh {port}""", "python3 b.py"),
    # env, its options and assignments came first: `env -i bin python3 b.py`
    ("env -i PATH=/usr/bin python3 b.py {port}", "python3 b.py"),
    ("/usr/bin/env -u HOME -- LANG=C python3 b.py {port}", "python3 b.py"),
    ("PYTHONPATH=bots OMP_NUM_THREADS=1 python3 b.py {port}", "python3 b.py"),
    # a redirection was part of the label: `python3 b.py null`
    ("python3 b.py {port} > /dev/null 2>&1", "python3 b.py"),
    # any word holding a brace was a placeholder: `python3`
    ('python3 "bots{v2}/aimless.py" {port}', "python3 aimless.py"),
    ("python3 ${HOME}/x/alice.py {port}", "python3 alice.py"),
    ("python3 --port={port} b.py {host}:{port}", "python3 b.py"),
    # timeout and nice came first and the script was cut off: `timeout 5 python3`
    ("timeout 5 python3 alice_strategy.py {port}", "python3 alice_strategy.py"),
    ("timeout -s KILL 5 python3 -u aimless.py {port}", "python3 aimless.py"),
    ("timeout --signal=TERM -k 2 --foreground 1m nice -n 10 python3 b.py {port}", "python3 b.py"),
    ("/usr/bin/nice -n -5 -- java -jar bots/a.jar {port}", "java a.jar"),
    ("nice python3 b.py {port}", "python3 b.py"),
    ("timeout 5 sh -c 'exec python3 b.py {port}'", "python3 b.py"),
    # a label cut short ended on an option without its value: `python3 arena bot --strategy`
    ("python3 -m arena bot --strategy random {host} {port}", "python3 arena bot"),
    ("python3 b.py --level 3 --depth 12 --name x {port}", "python3 b.py --level 3"),
    ("python3 b.py -v --level 3 -q --name x {port}", "python3 b.py -v --level 3"),
    ("python3 bot.py --level=3 --depth=12 {port}", "python3 bot.py --level=3"),
    ("python3 b.py -O3 --depth 1234567890 {port}", "python3 b.py -O3"),
    ("./mybot_with_a_fairly_long_name --strategy flee {port}", "mybot_with_a_fairly_long_name"),
])
def test_a_command_bot_is_labelled_by_its_main_class_or_script(command, label):
    (entrant,) = parse_bots([command])
    assert entrant.name == label


def test_bots_run_by_a_shell_are_labelled_by_their_own_commands():
    # two different bots given as `sh -c '...'` were `sh` and `sh#2`
    bots = ["sh -c 'python3 a.py {port}'", "sh -c 'python3 b.py {port}'", "sh -c 'exec python3 b.py {port}'"]
    assert [b.name for b in parse_bots(bots)] == ["python3 a.py", "python3 b.py", "python3 b.py#2"]


def test_the_same_command_with_a_comment_is_labelled_as_the_same_command_given_twice():
    # "python3 'bots/aimless.py' {port} # v2" beside "python3 bots/aimless.py {port}" was labelled
    # "python3 aimless.py # v2": two labels for one bot
    bots = ["python3 bots/aimless.py {port}", "python3 'bots/aimless.py' {port} # v2"]
    assert [b.name for b in parse_bots(bots)] == [b.name for b in parse_bots([bots[0], bots[0]])] == [
        "python3 aimless.py", "python3 aimless.py#2"]


def test_a_quote_in_a_comment_is_the_comment_s_and_paths_in_it_stay_as_written(tmp_path, capsys):
    # "python3 bot.py {port} # Ann's version" was refused: "No closing quotation", though sh skips comments
    from arena.cli import main

    (tmp_path / "b.py").write_text("")
    command = "# Ann's bot\npython3 b.py {port} # Ann's version of b.py"
    (bot,) = parse_bots([command], base=tmp_path)
    assert (bot.name, bot.spec) == ("python3 b.py",
                                    f"# Ann's bot\npython3 {tmp_path}/b.py {{port}} # Ann's version of b.py")
    (echo,) = parse_bots(["echo {port} # Ann's version"])
    assert subprocess.run(echo.argv(4000, 1), capture_output=True, text=True, check=True).stdout == "4000\n"
    # an unbalanced quote outside a comment is still refused, in one line (this # is quoted: no comment)
    unbalanced = "python3 'b.py {port} # v2"
    with pytest.raises(TournamentError, match="No closing quotation"):
        parse_bots([unbalanced], base=tmp_path)
    out = tmp_path / "out"
    assert main(["tournament", "flee", unbalanced, "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"arena: bot {unbalanced!r}: No closing quotation\n"
    assert not out.exists()


def test_bots_differing_in_a_braced_variable_or_behind_timeout_keep_their_scripts_apart():
    # `${HOME}/x/alice.py` and `.../bob.py` were `python3` and `python3#2`; behind timeout,
    # `timeout 5 python3` and `timeout 5 python3#2`
    bots = ["python3 ${HOME}/x/alice.py {port}", "python3 ${HOME}/x/bob.py {port}",
            "timeout 5 python3 alice_strategy.py {port}", "timeout 5 python3 bob_strategy.py {port}"]
    assert [b.name for b in parse_bots(bots)] == ["python3 alice.py", "python3 bob.py",
                                                  "python3 alice_strategy.py", "python3 bob_strategy.py"]


def test_a_command_never_takes_an_example_bot_s_name(tmp_path):
    # "bots/hunt {port}" was labelled hunt, and the example bot hunt became hunt#2 (its rating went too)
    names = [b.name for b in parse_bots(["bots/hunt {port}", "hunt", "./flee {port}", "bots/hunt {port}"],
                                        base=tmp_path)]
    assert names == ["hunt#2", "hunt", "flee#2", "hunt#3"]


def test_a_linked_interpreter_is_made_absolute_as_the_link(tmp_path):
    # ".venv/bin/python mybot.py {port}" became the base Python the link points to, outside the virtual
    # environment: "No module named 'arena'", and the bot never connected.
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    (tmp_path / "venv" / "bin" / "python").symlink_to(sys.executable)
    (tmp_path / "b.py").write_text("")
    (bot,) = parse_bots(["venv/bin/python b.py {port}"], base=tmp_path)
    assert bot.spec == f"{tmp_path}/venv/bin/python {tmp_path}/b.py {{port}}"


def test_paths_in_a_shell_s_command_string_and_with_braces_are_made_absolute(tmp_path):
    # The command string of `sh -c` ran as written in the seat's folder: "can't open file .../my bots/b.py";
    # a path holding a brace was taken for a placeholder and left relative.
    for folder in ("my bots", "bots", "bots{v2}"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "b.py").write_text("")
    commands = ["""sh -c 'python3 "my bots/b.py" "$1"' sh {port}""",
                "bash -c 'exec python3 bots/b.py {port}'",
                "/bin/sh -e -o pipefail -c 'cd bots && python3 b.py {port}' > log.txt",
                'timeout 5 sh -xc "python3 bots/b.py {host} {port}"',
                """sh -c 'python3 "$1" {port}' sh bots/b.py""",
                "cd bots && sh -c 'python3 bots/b.py {port}'",
                """sh -c "python3 bots/b.py $HOME {port}" """,
                "sh -c 'python3 elsewhere.py {port}'",
                """sh -c "python3 'bots/b.py {port}" """,
                'python3 "bots{v2}/b.py" {port}',
                "python3 bots/{port}.py"]
    assert [b.spec for b in parse_bots(commands, base=tmp_path)] == [
        f"""sh -c 'python3 '"'"'{tmp_path}/my bots/b.py'"'"' "$1"' sh {{port}}""",
        f"bash -c 'exec python3 {tmp_path}/bots/b.py {{port}}'",
        f"/bin/sh -e -o pipefail -c 'cd {tmp_path}/bots && python3 b.py {{port}}' > log.txt",
        f"timeout 5 sh -xc 'python3 {tmp_path}/bots/b.py {{host}} {{port}}'",
        f"""sh -c 'python3 "$1" {{port}}' sh {tmp_path}/bots/b.py""",
        f"cd {tmp_path}/bots && sh -c 'python3 bots/b.py {{port}}'",  # run in bots: bots/bots/b.py
        """sh -c "python3 bots/b.py $HOME {port}" """,  # the outer shell expands $HOME: left to it
        "sh -c 'python3 elsewhere.py {port}'",  # nothing to rewrite: as written
        """sh -c "python3 'bots/b.py {port}" """,  # unbalanced quotes: the inner shell's to refuse
        f"python3 '{tmp_path}/bots{{v2}}/b.py' {{port}}",
        "python3 bots/{port}.py"]


def test_parse_bots_names_commands_and_relative_paths(tmp_path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "b.py").write_text("")
    entrants = parse_bots(["hunt", "hunt", "python3 bots/b.py {host} {port}"], base=tmp_path)
    assert [b.name for b in entrants] == ["hunt", "hunt#2", "python3 b.py"]
    assert entrants[2].strategy is None
    assert entrants[2].spec == f"python3 {tmp_path}/bots/b.py {{host}} {{port}}"
    assert entrants[2].argv(4000, 1) == ["/bin/sh", "-c", f"python3 {tmp_path}/bots/b.py 127.0.0.1 4000"]
    assert entrants[0].argv(4000, 9)[-6:] == ["--strategy", "hunt", "--seed", "9", "127.0.0.1", "4000"]
    with pytest.raises(TournamentError, match="expected an example bot"):
        parse_bots(["java -jar a.jar"])
    # a word too long to be a file's name was a traceback; it reaches the shell as written
    long = "x" * 300 + ".py"
    assert parse_bots([f"python3 {long} {{port}}"], base=tmp_path)[0].spec == f"python3 {long} {{port}}"


@pytest.mark.parametrize("command", [
    "python3 bots/aimless.py 15000 # {port}",
    "python3 bots/aimless.py 15000 #{port}",
    "# {port}\npython3 bots/aimless.py 15000",
    "sh -c 'python3 bots/aimless.py 15000 # {port}'",
    "bash -c \"sh -c 'python3 bots/aimless.py 15000 # {port}'\"",
])
def test_a_command_whose_only_port_is_in_a_comment_is_refused(tmp_path, capsys, command):
    # taken, its bot dialled port 15000 in every game, the shell having skipped the comment with the port
    from arena.cli import main

    out = tmp_path / "out"
    assert main(["tournament", "flee", command, "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"arena: bot {command!r}: expected an example bot (random, flee, hunt, smart) or a command "
        f"containing {{port}} outside a comment (the shell skips a comment)\n")
    assert not out.exists()


def test_a_port_outside_a_comment_is_the_bot_s_whatever_comment_follows():
    bots = ["sh -c 'sleep 600' {port}", "python3 b.py {port} # v2",
            "sh -c 'python3 c.py \"$1\" # v2' sh {port}", "sh -c 'python3 d.py {port} # v2'",
            "PORT={port} python3 e.py # {port}", "python3 f.py > {port}.log"]
    assert [b.name for b in parse_bots(bots)] == [
        "sleep 600", "python3 b.py", "python3 c.py", "python3 d.py", "python3 e.py", "python3 f.py"]


@pytest.mark.parametrize(("command", "why"), [
    ("python3 b.py {port} &&", "Syntax error: end of file unexpected"),
    ("python3 b.py {port} )", 'Syntax error: ")" unexpected'),
    ("if python3 b.py {port}", "Syntax error: end of file unexpected (expecting \"then\")"),
])
def test_a_command_the_shell_cannot_read_is_refused_in_its_words(tmp_path, capsys, command, why):
    # taken, it was labelled "python3 b.py &&" and its bot never connected, in every game
    from arena.cli import main

    out = tmp_path / "out"
    assert main(["tournament", "flee", command, "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"arena: bot {command!r}: /bin/sh cannot read it: {why}\n"
    assert not out.exists()


def test_relative_paths_made_absolute_keep_the_shell_syntax_around_them(tmp_path):
    # Operators, redirections and variables once came out quoted ('&&', '>'), so the shell ran something else.
    # What follows a cd is the shell's to find in the folder it went to.
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "my bot.py").write_text("")
    (tmp_path / "bots" / "b.py").write_text("")
    command = ("python3 bots/b.py {host} $HOME {port} > log.txt 2>&1 | tee -a x; "
               "exec 'bots/my bot.py' {port}; cd bots && python3 b.py {port}")
    (spec,) = [b.spec for b in parse_bots([command], base=tmp_path)]
    assert spec == (f"python3 {tmp_path}/bots/b.py {{host}} $HOME {{port}} > log.txt 2>&1 | tee -a x; "
                    f"exec '{tmp_path}/bots/my bot.py' {{port}}; cd {tmp_path}/bots && python3 b.py {{port}}")
    with pytest.raises(TournamentError, match="No closing quotation"):
        parse_bots(["python3 'bots/b.py {port}"], base=tmp_path)


def test_a_file_named_without_a_folder_is_made_absolute_unless_a_command_or_a_redirection(tmp_path):
    # `python3 b.py {port}` run where b.py lies found no b.py: the bot runs in its own working folder.
    # A folder named without a `/` is a path only for `cd` (`python3 -m arena` names a module).
    for name in ("b.py", "b", "log.txt"):
        (tmp_path / name).write_text("")
    (tmp_path / "arena").mkdir()
    command = ("python3 b.py {port} > log.txt; b {port} 2>log.txt && (b b.py {port}) | b <log.txt; "
               "python3 -m arena {port}; cd arena && echo arena {port}")
    (spec,) = [b.spec for b in parse_bots([command], base=tmp_path)]
    assert spec == (f"python3 {tmp_path}/b.py {{port}} > log.txt; b {{port}} 2>log.txt && "
                    f"(b {tmp_path}/b.py {{port}}) | b <log.txt; python3 -m arena {{port}}; "
                    f"cd {tmp_path}/arena && echo arena {{port}}")


def test_quoted_paths_with_spaces_are_made_absolute_and_labelled_by_their_script(tmp_path):
    (tmp_path / "my bots").mkdir()
    (tmp_path / "my bots" / "aimless.py").write_text("")
    commands = ['python3 "my bots/aimless.py" {port}', 'cd "my bots" && python3 aimless.py {port}']
    entrants = parse_bots(commands, base=tmp_path)
    assert [b.name for b in entrants] == ["python3 aimless.py", "python3 aimless.py#2"]
    assert [b.spec for b in entrants] == [f"python3 '{tmp_path}/my bots/aimless.py' {{port}}",
                                          f"cd '{tmp_path}/my bots' && python3 aimless.py {{port}}"]


def test_a_results_folder_holding_a_tournament_is_refused(tmp_path, capsys):
    # Games of two runs once mixed in one folder (and a rerun's bots found the last run's files in theirs).
    from arena.cli import main

    out = tmp_path / "results"
    (out / "games" / "001-office-s5" / "0-hunt").mkdir(parents=True)
    args = ["tournament", "hunt", "flee", "--games", "1", "--out", str(out)]
    assert main(args) == 2
    assert capsys.readouterr().err == (f"arena: the results folder {out} already holds a tournament (games); "
                                       f"give another --out\n")
    assert [p.name for p in (out / "games").iterdir()] == ["001-office-s5"]


@pytest.mark.e2e
def test_a_web_port_in_use_leaves_no_results_folder_behind(tmp_path, monkeypatch, capsys):
    # The refusal left DIR/games behind, and the next run with the same --out was refused as a tournament's.
    from arena.cli import main

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    out = tmp_path / "results"
    taken = socket.socket()
    try:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for where in (["--out", str(out)], []):  # without --out: nothing under $XDG_STATE_HOME either
            assert main(["tournament", "hunt", "flee", "--games", "1", "--web", str(port), *where]) == 2
            assert capsys.readouterr().err == (f"arena: --web: cannot listen on 127.0.0.1:{port}: Address "
                                               f"already in use\n")
    finally:
        taken.close()
    assert not out.exists() and not (tmp_path / "state").exists()
    # a results folder refused after the port was taken gives the port back
    (tmp_path / "other" / "games").mkdir(parents=True)
    assert main(["tournament", "hunt", "flee", "--games", "1", "--web", str(port),
                 "--out", str(tmp_path / "other")]) == 2
    assert "already holds a tournament (games)" in capsys.readouterr().err
    with socket.socket() as again:
        again.bind(("127.0.0.1", port))
        again.listen()
    # the same --out is a tournament's results folder now
    assert main(["tournament", "hunt", "flee", "--games", "1", "--seed", "3", "--prep-ms", "20",
                 "--move-ms", "100", "--out", str(out), "-q"]) == 0
    assert json.loads((out / "standings.json").read_text())["played"] == 1
    assert capsys.readouterr().out.endswith(f"results: {out}\n")


STARTED_HERE_BOT = """\
import os, sys
import helper  # beside this script: its folder is first on its sys.path
print(helper.WORD, os.getcwd(), os.environ.get("PYTHONSAFEPATH"), sep="\\n")
"""


@pytest.mark.e2e
@pytest.mark.parametrize(("modules", "safe_path"), [
    (("common", "arena"), None),
    (("socket", "threading", "signal"), None),
    (("socket", "threading", "signal", "common", "arena"), ""),
])
def test_a_tournament_started_beside_modules_named_as_python_s_or_the_project_s_plays_its_example_bots(
        tmp_path, modules, safe_path):
    # A common.py in the folder the tournament was started from took the place of the project's common
    # package in the example bots' fork server: every one failed ("No module named 'common.cli'") and never
    # connected, with a traceback per game on stderr; an arena.py there ended the fork server itself. A
    # socket.py, threading.py or signal.py there was imported by the game processes and multiprocessing's
    # resource tracker as they started: every game process died and no game was played (exit status 1).
    # The bot given as a command keeps PYTHONSAFEPATH as the user had it: unset, or set (to nothing here,
    # which leaves the safe path off, so that its script still finds its module beside it).
    here = tmp_path / "here"
    (here / "my bots").mkdir(parents=True)
    for name in modules:
        (here / f"{name}.py").write_text(f"raise RuntimeError('the folder\\'s {name}.py was imported')\n")
    (here / "my bots" / "helper.py").write_text("WORD = 'helped'\n")
    (here / "my bots" / "run.py").write_text(STARTED_HERE_BOT)
    arena = Path(sys.executable).with_name("arena")  # the console script, as a user runs it
    assert arena.is_file(), "make install puts the arena command beside the venv's python"
    command = f'{sys.executable} "my bots/run.py" {{port}}'
    out = tmp_path / "results"
    env = {name: value for name, value in os.environ.items() if name != "PYTHONSAFEPATH"}
    if safe_path is not None:
        env["PYTHONSAFEPATH"] = safe_path
    done = subprocess.run([str(arena), "tournament", "hunt", "flee", command, "--games", "1", "--jobs", "1",
                           "--seed", "1", "--prep-ms", "100", "--move-ms", "200", "--out", str(out)],
                          cwd=here, env=env, capture_output=True, text=True, timeout=deadline(60))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "imported" not in done.stderr
    assert "Warning" not in done.stderr and "died" not in done.stderr
    data = json.loads((out / "standings.json").read_text())
    assert data["played"] == 1
    (game,) = data["games"]
    seats = {s["bot"]: s for s in game["seats"]}
    label = f"{Path(sys.executable).name} run.py"
    assert set(seats) == {"hunt", "flee", label}
    for name in ("hunt", "flee"):
        assert seats[name]["status"] == "ok" and seats[name]["diagnostics"]["joined"]
        assert seats[name]["exit"] == 0
    assert sum(Fraction(seats[name]["points"]) for name in ("hunt", "flee")) > 0
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("game 1/1 done")]
    shown = {name: f"{name} {seats[name]['shown']}" for name in ("hunt", "flee")}
    assert shown["hunt"] + "," in line or shown["hunt"] + " |" in line
    assert shown["flee"] + "," in line or shown["flee"] + " |" in line
    assert f"{label} 0.00 (never connected)" in line and line.count("never connected") == 1
    # the bot given as a command ran in its own folder, its environment as the tournament's, and found its
    # module beside its script
    seat = seats[label]
    folder = (out / game["folder"] / f"{seat['seat']}-{copy_name(label)}").resolve()
    assert (folder / "stdout.txt").read_text().splitlines() == ["helped", str(folder), str(safe_path)]
    assert seat["status"] == "never connected" and seat["exit"] == 0


MARKING_MAIN = """import os, sys
with open(os.environ["MAIN_RUNS"], "a") as runs:
    print(os.getpid(), __name__, file=runs)
if __name__ == "__main__":
    from arena.cli import main
    sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("started", [["started.py"], ["-m", "started"]])
def test_the_example_bots_do_not_run_the_main_module_of_the_program_the_tournament_started_from(
        tmp_path, started):
    # As the tournament's process starts its game processes multiprocessing runs the program's main module
    # in each (as __mp_main__), by its path or its module name (python -m), and it did so again in every
    # example bot forked for their games: on a Dask worker (the `dask` command's module, 0.3 s of imports)
    # each game took twice as long as without one, five times with `python -m distributed.cli.dask_worker`.
    (tmp_path / "started.py").write_text(MARKING_MAIN)
    runs = tmp_path / "runs.txt"
    out = tmp_path / "results"
    done = subprocess.run([sys.executable, *started, "tournament", "hunt", "flee", "random", "--games", "2",
                           "--players", "3", "--jobs", "1", "--seed", "1", "--prep-ms", "50", "--move-ms",
                           "500", "--out", str(out), "-q"],
                          cwd=tmp_path, env={**os.environ, "MAIN_RUNS": str(runs)}, capture_output=True,
                          text=True, timeout=deadline(60))
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "standings.json").read_text())
    assert data["played"] == 2
    assert all(seat["status"] == "ok" for game in data["games"] for seat in game["seats"])
    names = sorted(line.split()[1] for line in runs.read_text().splitlines())
    assert names == ["__main__", "__mp_main__"]  # the program, then its one game process; no bot


def test_the_tournament_s_pythons_start_with_a_safe_path_and_its_command_bots_with_the_user_s(monkeypatch):
    monkeypatch.setenv("PYTHONSAFEPATH", "")
    with python_safe_path():
        assert os.environ["PYTHONSAFEPATH"] == "1"
        assert tournament._command_env is not None and tournament._command_env["PYTHONSAFEPATH"] == ""
        given = tournament._command_env
        with python_safe_path():  # within one already: nothing changes
            assert os.environ["PYTHONSAFEPATH"] == "1" and tournament._command_env is given
        assert tournament._command_env is given
    assert os.environ["PYTHONSAFEPATH"] == "" and tournament._command_env is None
    monkeypatch.delenv("PYTHONSAFEPATH")
    with python_safe_path():
        assert os.environ["PYTHONSAFEPATH"] == "1"
        assert tournament._command_env is not None and "PYTHONSAFEPATH" not in tournament._command_env
    assert "PYTHONSAFEPATH" not in os.environ and tournament._command_env is None


AIMLESS_HERE = """\
import os, sys
print("the aimless.py in", os.path.basename(os.path.dirname(os.path.abspath(__file__))), "port", sys.argv[1])
"""


def _one_game_from(here, bots, out):
    """The standings (``standings.json``) of a one-game tournament of *bots* started in the folder *here*,
    its results in *out*, by the installed ``arena`` command."""
    arena = Path(sys.executable).with_name("arena")
    done = subprocess.run([str(arena), "tournament", *bots, "--games", "1", "--seed", "1", "--prep-ms", "100",
                           "--move-ms", "200", "--out", str(out)],
                          cwd=here, capture_output=True, text=True, timeout=deadline(60))
    assert done.returncode == 0, done.stderr
    return json.loads((out / "standings.json").read_text())


@pytest.mark.e2e
def test_a_bot_given_with_a_cd_runs_the_script_in_the_folder_it_went_to(tmp_path):
    # `cd "my bots" && python3 aimless.py {port}` ran the aimless.py beside "my bots", made absolute against
    # the folder the tournament was started from; `cd my\ bots && ...` could not cd ("can't cd to my bots")
    # and was labelled `cd 'my bots' && python3`; `python3 my\ bots/aimless.py` was not made absolute.
    here = tmp_path / "here"
    (here / "my bots").mkdir(parents=True)
    (here / "aimless.py").write_text(AIMLESS_HERE)
    (here / "my bots" / "aimless.py").write_text(AIMLESS_HERE)
    python = shlex.quote(sys.executable)
    bots = ["hunt", "flee", f'cd "my bots" && {python} aimless.py {{port}}',
            f"cd my\\ bots && {python} aimless.py {{port}}", f"{python} my\\ bots/aimless.py {{port}}",
            f"(cd 'my bots' && {python} aimless.py {{port}}); {python} aimless.py {{port}}"]
    out = tmp_path / "results"
    data = _one_game_from(here, bots, out)
    label = f"{Path(sys.executable).name} aimless.py"
    inside, beside = here / "my bots", here
    entrants = data["settings"]["bots"]
    assert [b["spec"] for b in entrants[2:]] == [
        f"cd '{inside}' && {python} aimless.py {{port}}", f"cd '{inside}' && {python} aimless.py {{port}}",
        f"{python} '{inside}/aimless.py' {{port}}",
        f"(cd '{inside}' && {python} aimless.py {{port}}); {python} {beside}/aimless.py {{port}}"]
    assert [b["name"] for b in entrants[2:5]] == [label, f"{label}#2", f"{label}#3"]
    assert entrants[5]["name"].startswith(f"{label};")  # after the subshell, the next command
    (game,) = data["games"]
    ran = {}
    for seat in game["seats"]:
        if seat["bot"] not in ("hunt", "flee"):
            folder = out / game["folder"] / f"{seat['seat']}-{copy_name(seat['bot'])}"
            said = (folder / "stdout.txt").read_text().splitlines()
            ran[seat["bot"]] = [line.rsplit(" ", 1) for line in said]
            assert (folder / "stderr.txt").read_text() == "" and seat["exit"] == 0
    assert len(game["seats"]) == 6 and all(port.isdigit() for lines in ran.values() for _, port in lines)
    assert {name: [line for line, _ in lines] for name, lines in ran.items()} == {
        label: ["the aimless.py in my bots port"], f"{label}#2": ["the aimless.py in my bots port"],
        f"{label}#3": ["the aimless.py in my bots port"],
        entrants[5]["name"]: ["the aimless.py in my bots port", "the aimless.py in here port"]}


CONNECTING_HERE = """\
import os, sys
print("the aimless.py in", os.path.basename(os.path.dirname(os.path.abspath(__file__))), file=sys.stderr)
sys.stderr.flush()
os.execv(sys.executable, [sys.executable, "-m", "arena", "bot", "--strategy", "random", "127.0.0.1",
                          sys.argv[1]])
"""


@pytest.mark.e2e
def test_a_bot_given_as_a_shell_s_command_string_runs_its_script_and_connects(tmp_path):
    # `sh -c 'python3 "my bots/aimless.py" "$1"' sh {port}` (the docs' own example) and `bash -c 'exec python3
    # bots/aimless.py {port}'` ran in the seat's folder as written: "can't open file .../my bots/aimless.py".
    here = tmp_path / "here"
    for folder in ("my bots", "bots"):
        (here / folder).mkdir(parents=True)
        (here / folder / "aimless.py").write_text(CONNECTING_HERE)
    python = shlex.quote(sys.executable)
    assert python == sys.executable  # put inside single quotes below as it is
    bots = ["hunt", f"""sh -c '{python} "my bots/aimless.py" "$1"' sh {{port}}""",
            f"bash -c 'exec {python} bots/aimless.py {{port}}'"]
    out = tmp_path / "results"
    data = _one_game_from(here, bots, out)
    label = f"{Path(sys.executable).name} aimless.py"
    entrants = data["settings"]["bots"]
    assert [b["name"] for b in entrants] == ["hunt", label, f"{label}#2"]
    assert [b["spec"] for b in entrants[1:]] == [
        f"""sh -c '{python} '"'"'{here}/my bots/aimless.py'"'"' "$1"' sh {{port}}""",
        f"bash -c 'exec {python} {here}/bots/aimless.py {{port}}'"]
    (game,) = data["games"]
    said = {}
    for seat in game["seats"]:
        folder = out / game["folder"] / f"{seat['seat']}-{copy_name(seat['bot'])}"
        said[seat["bot"]] = (folder / "stderr.txt").read_text()
        assert seat["status"] == "ok" and seat["exit"] == 0, (seat, said[seat["bot"]])
    assert said == {"hunt": "", label: "the aimless.py in my bots\n",
                    f"{label}#2": "the aimless.py in bots\n"}


@pytest.mark.e2e
def test_tournaments_started_in_the_same_second_get_folders_of_their_own(tmp_path, monkeypatch, capsys):
    # Two tournaments without --out started in one second shared the folder named after that second: their
    # games mixed and each rewrote the other's standings.
    from arena import cli

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.setattr(cli.time, "strftime", lambda fmt: "20261202-005900")
    first = tmp_path / "arena" / "tournaments" / "20261202-005900"
    (first / "games").mkdir(parents=True)  # another tournament, still playing its first game
    args = ["tournament", "hunt", "flee", "--games", "1", "--prep-ms", "20", "--jobs", "1", "-q"]
    assert cli.main(args) == 0
    assert capsys.readouterr().out.endswith(f"results: {first}-2\n")
    assert list((first / "games").iterdir()) == [] and not (first / "standings.json").exists()
    (game,) = (first.with_name(f"{first.name}-2") / "games").iterdir()
    assert game.name.startswith("001-office-s") and (game / "replay.jsonl").is_file()


def test_an_out_that_is_no_folder_is_named_so(tmp_path, capsys):
    # "--out /dev/null" said "cannot create the results folder /dev/null: File exists".
    from arena.cli import main

    plain = tmp_path / "results.txt"
    plain.write_text("mine\n")
    for out in ("/dev/null", str(plain)):
        assert main(["tournament", "hunt", "flee", "--games", "1", "--out", out]) == 2
        assert capsys.readouterr().err == (f"arena: --out {out}: not a folder (the results go in a folder of "
                                           f"their own)\n")
    assert plain.read_text() == "mine\n"
    # a name too long for the file system was a traceback (OSError from the check for an existing file)
    long = tmp_path / ("x" * 300)
    assert main(["tournament", "hunt", "flee", "--games", "1", "--out", str(long)]) == 2
    assert capsys.readouterr().err == f"arena: cannot create the results folder {long}: File name too long\n"


def test_an_empty_map_name_is_refused(tmp_path, capsys):
    # "--maps office," dropped the empty entry silently while "--maps ," was refused.
    from arena.cli import main

    for maps in ("office,", ",field", "office,,field", ","):
        assert main(["tournament", "hunt", "flee", "--maps", maps, "--out", str(tmp_path / "r")]) == 2
        assert capsys.readouterr().err == (f"arena: --maps {maps!r}: expected distinct comma-separated maps, "
                                           f"none empty\n")
    assert not (tmp_path / "r").exists()


@pytest.mark.e2e
def test_a_map_file_with_a_comma_in_its_name_is_one_map(tmp_path, capsys):
    # --maps "my office,v2.map" was split into "my office" and "v2.map": no such map.
    from arena.cli import main

    room = tmp_path / "my office,v2.map"
    room.write_text("#####\n#...#\n#...#\n#####\n")
    out = tmp_path / "r"
    assert main(["tournament", "hunt", "flee", "--maps", str(room), "--games", "1", "--seed", "3",
                 "--move-ms", "200", "--prep-ms", "50", "--quiet-rounds", "2", "--out", str(out)]) == 0
    data = json.loads((out / "standings.json").read_text())
    assert data["settings"]["maps"] == ["my office,v2"] and data["played"] == 1
    assert "1 game of 2 on my office,v2, 1 at once" in capsys.readouterr().err


@pytest.mark.e2e
def test_the_first_line_counts_one_game_and_the_games_played_at_once(tmp_path, capsys):
    # It said "1 games of 2 on office, 2 at once" for one game with --jobs 2.
    from arena.cli import main

    out = tmp_path / "r"
    assert main(["tournament", "hunt", "flee", "--games", "1", "--jobs", "2", "--seed", "3",
                 "--move-ms", "100", "--prep-ms", "50", "--out", str(out)]) == 0
    first = capsys.readouterr().err.splitlines()[0]
    assert first == f"tournament: 2 bots, 1 game of 2 on office, 1 at once, seed 3; results in {out}"


@pytest.mark.slow
def test_stopping_a_bot_records_the_signal_that_ended_it():
    # A bot the tournament had to stop had only "exit": null in standings.json.
    async def stopped(command: str) -> tuple[int | None, str | None]:
        process = await asyncio.create_subprocess_shell(command, start_new_session=True)
        proc = _Process(bot=0, seat=0, process=process)
        await _stop_group(proc)
        return proc.exit, proc.killed

    assert asyncio.run(stopped("exit 5")) == (5, None)
    assert asyncio.run(stopped("sleep 60")) == (None, "SIGTERM")
    assert asyncio.run(stopped("trap '' TERM; sleep 60; sleep 60")) == (None, "SIGKILL")


@pytest.mark.slow
def test_a_command_bot_has_its_second_after_sigterm_though_its_shell_ends_at_once(tmp_path):
    # A bot given as a command runs under /bin/sh, which SIGTERM ends at once: its group was then SIGKILLed
    # at once, so a bot saving its work on SIGTERM lost it, and one ignoring SIGTERM was recorded as ended
    # by SIGTERM. ("; true" keeps the shell as the process started, as for any command with an operator.)
    saved = tmp_path / "saved.txt"
    ready = tmp_path / "ready"
    (tmp_path / "graceful.py").write_text(
        "import pathlib, signal, sys, time\n"
        "def stop(*_):\n"
        "    time.sleep(0.3)\n"
        "    pathlib.Path(sys.argv[1]).write_text('saved')\n"
        "    sys.exit(0)\n"
        "signal.signal(signal.SIGTERM, stop)\n"
        "pathlib.Path(sys.argv[2]).touch()\n"
        "time.sleep(60)\n")
    (tmp_path / "stubborn.py").write_text(
        "import pathlib, signal, sys, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "pathlib.Path(sys.argv[1]).touch()\ntime.sleep(60)\n")

    async def stopped(command: str) -> tuple[int | None, str | None]:
        ready.unlink(missing_ok=True)
        process = await asyncio.create_subprocess_shell(command, start_new_session=True)
        end = time.monotonic() + deadline(10)
        while not ready.exists():  # the bot's SIGTERM handler is set (a busy machine starts it late)
            assert time.monotonic() < end, "the bot did not start"
            await asyncio.sleep(0.02)
        proc = _Process(bot=0, seat=0, process=process)
        await _stop_group(proc)
        return proc.exit, proc.killed

    python = sys.executable
    graceful = f"{python} {tmp_path / 'graceful.py'} {saved} {ready}; true"
    assert asyncio.run(stopped(graceful)) == (None, "SIGTERM")
    assert saved.read_text() == "saved"
    assert asyncio.run(stopped(f"{python} {tmp_path / 'stubborn.py'} {ready}; true")) == (None, "SIGKILL")


def test_a_seat_is_hung_after_rounds_of_silence_not_after_one_slow_last_move():
    # A bot that missed only the last round's deadline was once recorded as "hung".
    def silent(since: int | None) -> Diagnostics:
        return Diagnostics(0, silent_since=since)

    assert seat_status(silent(None), 90) == "ok"
    assert seat_status(silent(90), 90) == seat_status(silent(87), 90) == "ok"
    assert seat_status(silent(86), 90) == seat_status(silent(1), 90) == "hung"
    assert seat_status(silent(1), 2) == "hung"  # silent through a short game
    assert seat_status(Diagnostics(0, silent_since=3, left_round=3, left_reason="x"), 90) == "left"
    assert seat_status(Diagnostics(0, joined=False, silent_since=1), 90) == "never connected"
    assert seat_status(None, 90) == "never connected"


def _record(number: int, map_name: str, *seats: tuple[int, Fraction, int, str | None, int]) -> GameRecord:
    game = Scheduled(number, map_name, number, tuple(s[0] for s in seats))
    record = GameRecord(game, Path("."))
    for seat, (bot, points, rank, cause, catches) in enumerate(seats):
        record.seats.append(SeatResult(bot, seat, seat, points=points, rank=rank, cause=cause,
                                       catches=catches))
    return record


def test_standings_mean_per_map_summed_over_maps():
    entrants = [Bot("a", "a", None), Bot("b", "b", None), Bot("c", "c", None)]
    records = [
        _record(1, "office", (0, Fraction(10), 1, "FORCED", 0), (1, Fraction(5), 2, "CAUGHT", 0)),
        _record(2, "office", (0, Fraction(20), 1, "CAUGHT", 2), (2, Fraction(20), 1, "ENERGY", 1)),
        _record(3, "field", (0, Fraction(3), 2, "CAUGHT", 0), (1, Fraction(13), 1, "CAP", 1)),
        _record(4, "field", (1, Fraction(7), 1, "CAUGHT", 0), (2, Fraction(1, 3), 2, "CAUGHT", 0)),
    ]
    stopped = _record(5, "field", (2, Fraction(100), 1, None, 0), (0, Fraction(0), 2, None, 0))
    stopped.stopped = "interrupted"
    rows = standings(entrants, [*records, stopped], ["office", "field"])
    # a: office (10 + 20) / 2 = 15, field 3 -> 18; b: office 5, field (13 + 7) / 2 = 10 -> 15;
    # c: office 20, field 1/3 -> 61/3 = 20.33 (the stopped game does not count)
    assert [(r.bot, r.rank, r.points) for r in rows] == [
        ("c", 1, Fraction(61, 3)), ("a", 2, Fraction(18)), ("b", 3, Fraction(15))]
    c, a, b = rows
    assert a.per_map == {"office": Fraction(15), "field": Fraction(3)}
    assert (a.games, a.wins, a.catches, a.caught, a.mean_rank) == (3, 2, 2, 2, Fraction(4, 3))
    assert (b.games, b.wins, b.catches, b.caught, b.mean_rank) == (3, 2, 1, 2, Fraction(4, 3))
    assert (c.games, c.wins, c.caught) == (2, 1, 1)  # rank 1 shared with a in game 2 counts as a win
    text = format_standings(rows, ["office", "field"]).splitlines()
    assert text[1].split() == ["1", "c", "20.33", "20.00", "0.33", "2", "1", "1", "1", "1.50",
                               "-0.66", "22.72", "±", "7.80", "3", "-"]
    # by rating (openskill, games 1..4 in order: a beat b, a tied c, b beat a, b beat c), b is first: it
    # won all but one of its games; c, first on points, has the least sure rating
    assert [(r.bot, r.rating_rank, round(r.rating.mu, 4), round(r.rating.sigma, 4)) for r in rows] == [
        ("c", 3, 22.7243, 7.7955), ("a", 2, 24.4992, 7.6014), ("b", 1, 27.8217, 7.5816)]
    assert [r.rating.games for r in rows] == [2, 3, 3]
    tie = _record(1, "office", (0, Fraction(4), 1, None, 0), (1, Fraction(4), 1, None, 0))
    tied = standings(entrants, [tie], ["office"])
    assert [(r.bot, r.rank) for r in tied] == [("a", 1), ("b", 1), ("c", None)]  # c played no game


def test_the_standings_table_keeps_its_columns_with_wide_names():
    # A bot or map named in wide characters (two columns each) was padded by its characters, not its columns
    entrants = [Bot("東京", "東京", None), Bot("osaka-bay", "osaka-bay", None)]
    game = _record(1, "大阪", (0, Fraction(10), 1, None, 0), (1, Fraction(5), 2, None, 0))
    text = format_standings(standings(entrants, [game], ["大阪"]), ["大阪"]).splitlines()
    heads = ["rank  bot         points     大阪 games wins catches",  # 東京 and 大阪 take 4 columns each
             "   1  東京         10.00    10.00     1    1       0",
             "   2  osaka-bay     5.00     5.00     1    0       0"]
    assert all(line.startswith(head) for line, head in zip(text, heads, strict=True)), text


def test_a_bot_that_played_no_game_has_no_place_and_comes_after_the_bots_that_did():
    # A bot whose every seat was a fault before round 1 (it never connected, or crashed in the preparation)
    # was ranked among the others, on the points of its idle body, and rated on its body's places.
    entrants = [Bot(name, name, None) for name in ("a", "b", "c", "d")]
    first = _record(1, "office", (0, Fraction(10), 1, None, 0), (1, Fraction(5), 2, None, 0),
                    (2, Fraction(9), 3, None, 0))
    second = _record(2, "office", (3, Fraction(7), 1, None, 0), (0, Fraction(4), 2, None, 0),
                     (2, Fraction(8), 3, None, 0))
    first.seats[2].status, first.seats[2].diagnostics = "never connected", Diagnostics(2, joined=False)
    second.seats[2].status, second.seats[2].exit = "crashed", 3
    second.seats[2].diagnostics = Diagnostics(2, left_round=0, left_reason="connection lost")
    records = [first, second]
    assert tournament.players(records) == {0, 1, 3}
    rows = standings(entrants, records, ["office"])
    assert [(r.bot, r.rank, r.points, r.games, r.rating_rank) for r in rows] == [
        ("a", 1, Fraction(7), 2, 2), ("d", 1, Fraction(7), 1, 1), ("b", 3, Fraction(5), 1, 3),
        ("c", None, Fraction(0), 0, None)]
    c = rows[3]
    assert (c.per_map, c.wins, c.catches, c.caught, c.mean_rank) == ({}, 0, 0, 0, None)
    assert c.faults == {"never connected": 1, "crashed": 1}
    # c's seats are left out of the ratings: it keeps a new bot's rating, the others are rated among
    # themselves, and c is not written to a ratings file
    expected = ratings.rate([[("a", 1), ("b", 2)], [("d", 1), ("a", 2)]], names=["a", "b", "c", "d"])
    assert {r.bot: r.rating for r in rows} == expected and c.rating == Rating()
    assert set(tournament.rated_here(entrants, records)) == {"a", "b", "d"}
    assert format_standings(rows, ["office"]).splitlines()[1:] == [
        "   1  a       7.00     7.00     2    1       0      0      1.50    1.41  24.88 ± 7.82     2  -",
        "   1  d       7.00     7.00     1    1       0      0      1.00    3.76  27.94 ± 8.06     1  -",
        "   3  b       5.00     5.00     1    0       0      0      2.00   -1.83  22.36 ± 8.07     3  -",
        "   -  c          -        -     0    0       0      0         -    0.00  25.00 ± 8.33     -  "
        "1 never connected, 1 crashed"]
    assert [r.rating_cells() for r in rows] == [  # the web page's rating columns, as the table's
        {"rating": "1.41", "spread": "24.88 ± 7.82", "rated": "2"},
        {"rating": "3.76", "spread": "27.94 ± 8.06", "rated": "1"},
        {"rating": "-1.83", "spread": "22.36 ± 8.07", "rated": "3"},
        {"rating": "0.00", "spread": "25.00 ± 8.33", "rated": "-"}]
    assert c.as_json() == {
        "rank": None, "bot": "c", "points": None, "points_exact": None, "per_map": {}, "games": 0, "wins": 0,
        "catches": 0, "caught": 0, "mean_rank": None, "faults": {"never connected": 1, "crashed": 1},
        "rating": {"mu": 25.0, "sigma": 8.3333, "conservative": 0.0, "games": 0}, "rating_rank": None}


def _tournament(args: list[str], out: Path, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "arena", "tournament", *args, "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)


@pytest.mark.e2e
@pytest.mark.slow
def test_small_tournament_with_a_crash_a_hang_and_a_bot_that_never_connects(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text(BAD_BOT)
    command_bot = f"{sys.executable} -m arena bot --strategy random {{host}} {{port}}"
    bots = ["hunt", "flee", command_bot, f"{sys.executable} {script} crash {{port}}",
            f"{sys.executable} {script} hang {{port}}", "sh -c 'sleep 600' {port}"]
    out = tmp_path / "results"
    # The bot that never connects holds its game for --connect-ms: long enough for a Python bot to start on
    # a busy machine (about 0.1 s of CPU), short enough for the test.
    proc = _tournament([*bots, "--maps", "office,field", "--games", "1", "--players", "6", "--jobs", "2",
                        "--seed", "11", "--prep-ms", "100", "--move-ms", "300", "--quiet-rounds", "2",
                        "--connect-ms", "8000"], out)
    stdout, stderr = proc.communicate(timeout=deadline(80))
    assert proc.returncode == 0, stderr
    assert "game 1/2 done" in stderr and "game 2/2 done" in stderr and "(crashed)" in stderr
    data = json.loads((out / "standings.json").read_text())
    assert data["played"] == data["scheduled"] == 2
    names = [b.name for b in parse_bots(bots)]
    python = Path(sys.executable).name
    assert names[3:] == [f"{python} bad.py crash", f"{python} bad.py hang", "sleep 600"]
    expected = schedule(6, ["office", "field"], 1, 6, seed=11)
    assert [(g["map"], g["seed"]) for g in data["games"]] == [(g.map, g.seed) for g in expected]
    for game, planned in zip(data["games"], expected, strict=True):
        assert [s["bot"] for s in game["seats"]] == [names[b] for b in planned.seats]
        status = {s["bot"]: s["status"] for s in game["seats"]}
        assert status[names[0]] == status[names[1]] == status[names[2]] == "ok"
        assert status[names[3]] == "crashed" and status[names[5]] == "never connected"
        assert status[names[4]] == "hung"
        crash = next(s for s in game["seats"] if s["bot"] == names[3])
        assert crash["exit"] == 3 and crash["diagnostics"]["left_round"] == 1
        hang = next(s for s in game["seats"] if s["bot"] == names[4])
        assert (hang["exit"], hang["killed"]) == (None, "SIGTERM")  # it was once just "exit": null
        assert all(s["killed"] is None for s in game["seats"] if s["bot"] not in (names[4], names[5]))
        assert hang["diagnostics"]["silent_since"] == 1 and hang["diagnostics"]["missing"] == game["rounds"]
        folder = out / game["folder"]
        rep = replay.load(folder / "replay.jsonl")
        assert replay.verify(rep).ok
        assert rep.header["seed"] == game["seed"] and rep.final["rounds"] == game["rounds"]
        assert all("ms" in line for line in rep.rounds)
        # the players' points in the replay are the seats' points in the results
        points = {row["id"]: row["points"] for row in rep.final["table"]}
        assert {s["id"]: s["points"] for s in game["seats"]} == points
        crash_dir = next(folder.glob("*crash*"))
        assert (crash_dir / "stdout.txt").read_text() == "round 1 reached\n"
        assert (crash_dir / "stderr.txt").read_text() == "giving up\n"
        assert len(list(folder.glob("*/stdout.txt"))) == 6
        for seat in [s for s in game["seats"] if s["bot"] in ("hunt", "flee")]:
            # an example bot (forked, not started as a command) ends as `arena bot` does, in its own folder
            bot_dir = next(folder.glob(f"{seat['seat']}-*"))
            assert (bot_dir / "stdout.txt").read_text() == (
                f"bot {seat['id']} ({seat['bot']}): game over after round {game['rounds']}\n")
            assert (bot_dir / "stderr.txt").read_text() == "" and seat["exit"] == 0
        log = (folder / "server.log").read_text()
        assert "diagnostics: refused" in log
    rows = list(csv.reader((out / "standings.csv").open()))
    assert rows[0][:5] == ["rank", "bot", "points", "office", "field"]
    assert {r[1] for r in rows[1:]} == set(names)
    by_bot = {r["bot"]: r for r in data["standings"]}
    assert by_bot["sleep 600"]["faults"] == {"never connected": 2}
    assert by_bot[names[3]]["faults"] == {"crashed": 2} and by_bot[names[4]]["faults"] == {"hung": 2}
    assert stdout.startswith("standings after 2 of 2 games\n")
    assert f"results: {out}" in stdout


@pytest.mark.e2e
def test_a_bot_whose_program_ends_at_once_has_no_place_in_any_form_of_the_standings(tmp_path):
    # It was ranked 3rd, on its idle body's points, in the print, standings.csv and standings.json, and its
    # body's place went into the ratings file.
    league = tmp_path / "league.json"
    bots = ["hunt", "flee", "sh -c 'exit 3' {port}"]
    out = tmp_path / "results"
    done = subprocess.run([sys.executable, "-m", "arena", "tournament", *bots, "--maps", "office", "--games",
                           "1", "--players", "3", "--jobs", "1", "--seed", "5", "--prep-ms", "50",
                           "--move-ms", "300", "--ratings", str(league), "--out", str(out)],
                          capture_output=True, text=True, timeout=deadline(60))
    assert done.returncode == 0, done.stderr
    assert [b.name for b in parse_bots(bots)] == ["hunt", "flee", "exit 3"]
    data = json.loads((out / "standings.json").read_text())
    (game,) = data["games"]
    assert {s["bot"]: s["status"] for s in game["seats"]} == {
        "hunt": "ok", "flee": "ok", "exit 3": "never connected"}
    lines = done.stdout.splitlines()
    assert lines[0] == "standings after 1 of 1 games"
    assert lines[1] == ("rank  bot      points   office games wins catches caught mean rank  rating    "
                        "mu ± sigma rated  faults")
    placed = [(str(row["rank"]), row["bot"]) for row in data["standings"][:2]]
    assert [tuple(line.split()[:2]) for line in lines[2:4]] == placed
    assert sorted(bot for _, bot in placed) == ["flee", "hunt"]
    assert lines[4] == ("   -  exit 3        -        -     0    0       0      0         -    0.00  "
                        "25.00 ± 8.33     -  1 never connected")
    rows = list(csv.reader((out / "standings.csv").open()))
    assert [tuple(row[:2]) for row in rows[1:3]] == placed
    assert rows[3] == ["", "exit 3", "", "", "0", "0", "0", "0", "", "0.0000", "25.0000", "8.3333", "",
                       "1", "0", "0", "0", "0"]
    assert [row["rank"] for row in data["standings"][:2]] == [1, 2]
    assert data["standings"][2] == {
        "rank": None, "bot": "exit 3", "points": None, "points_exact": None, "per_map": {}, "games": 0,
        "wins": 0, "catches": 0, "caught": 0, "mean_rank": None, "faults": {"never connected": 1},
        "rating": {"mu": 25.0, "sigma": 8.3333, "conservative": 0.0, "games": 0}, "rating_rank": None}
    # hunt and flee are rated by their places between themselves; the bot that did not play is not rated
    rated = ratings.load(league)
    expected = ratings.rate([[(s["bot"], s["rank"]) for s in game["seats"] if s["bot"] != "exit 3"]])
    assert sorted(rated) == ["flee", "hunt"]
    assert {n: (round(r.mu, 4), round(r.sigma, 4), r.games) for n, r in rated.items()} == {
        n: (round(r.mu, 4), round(r.sigma, 4), r.games) for n, r in expected.items()}


def _left_behind(group: int, folder: Path) -> list[str]:
    """Command lines of the processes still in process group *group* or working under *folder* (the bots)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            pgid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[2])
            cwd = Path(os.readlink(entry / "cwd"))
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile, or not ours to read
        if pgid == group or cwd.is_relative_to(folder):
            found.append(command)
    return found


def _game_processes(tournament: int) -> list[int]:
    """The game processes (multiprocessing's spawned workers) of the tournament process *tournament*."""
    found = []
    with contextlib.suppress(OSError):  # one gone meanwhile
        for pid in Path(f"/proc/{tournament}/task/{tournament}/children").read_text().split():
            if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
    return found


def _wait_for_sleepers(tournament: int, folder: Path, n: int) -> None:
    """Wait until *n* ``sleep`` bots (``sh -c 'sleep 600' {port}``) run under *folder*."""
    end = time.monotonic() + deadline(20)
    while sum(c.startswith("sleep") for c in _left_behind(tournament, folder)) < n:
        assert time.monotonic() < end, "the bots did not start"
        time.sleep(0.05)


def _wait_for_a_game_played(out: Path) -> None:
    """Wait (at most ``deadline(40)``) until the standings under *out* count a game played."""
    end = time.monotonic() + deadline(40)
    while time.monotonic() < end:
        if (out / "standings.json").exists() and json.loads((out / "standings.json").read_text())["played"]:
            return
        time.sleep(0.2)


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.parametrize("whom", ["group", "tournament"])
def test_ctrl_c_stops_the_tournament_and_prints_the_standings_so_far(tmp_path, whom):
    # "group": Ctrl-C in a terminal reaches the whole foreground process group (the tournament and its game
    # processes); "tournament": kill -INT of the tournament's process alone.
    out = tmp_path / "results"
    proc = _tournament(["hunt", "flee", "random", "--maps", "office", "--games", "50", "--players", "3",
                        "--jobs", "2", "--seed", "3", "--prep-ms", "50", "--move-ms", "200",
                        "--quiet-rounds", "30"], out, start_new_session=True)
    _wait_for_a_game_played(out)
    if whom == "group":
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=deadline(20))
    assert proc.returncode == 130, stderr
    assert _left_behind(proc.pid, tmp_path) == []  # no game process, no bot
    assert "Traceback" not in stderr
    data = json.loads((out / "standings.json").read_text())
    assert data["stopped"] == "interrupted" and 1 <= data["played"] < 50
    assert stdout.startswith(f"standings after {data['played']} of 50 games (interrupted)\n")
    assert sorted(line.split()[1] for line in stdout.splitlines()[2:5]) == ["flee", "hunt", "random"]
    cut = [g for g in data["games"] if g["stopped"]]
    assert len(cut) <= 2  # the games under way in the two game processes
    # the progress line of a cut game says so (it once read "done", with every bot at 0.00 and a silent one
    # "hung"); the lines come in the order the games ended
    assert sorted(line for line in stderr.splitlines() if "stopped" in line or "count" in line) == sorted(
        f"game #{g['game']} office, seed {g['seed']}: stopped: interrupted (does not count)" for g in cut)
    for game in cut:  # the game under way was cut short; begun, its replay ends with the table so far
        if not (out / game["folder"] / "replay.jsonl").exists():  # stopped while its bots were starting
            assert sorted(s["bot"] for s in game["seats"]) == ["flee", "hunt", "random"]
            continue
        rep = replay.load(out / game["folder"] / "replay.jsonl")
        assert rep.final["stopped"] == "interrupted" and replay.verify(rep).ok


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.parametrize(("sig", "why"), [(signal.SIGINT, "interrupted"), (signal.SIGTERM, "terminated")])
def test_a_signal_while_the_game_processes_start_stops_the_tournament_as_later(tmp_path, sig, why):
    # Ctrl-C during a game process's imports was a KeyboardInterrupt traceback from it, SIGTERM ended it
    # without a word, and either way its game was "a game process died".
    out = tmp_path / "results"
    proc = _tournament(["hunt", "flee", "--games", "4", "--jobs", "2", "--seed", "3"], out,
                       start_new_session=True)
    end = time.monotonic() + deadline(20)
    while time.monotonic() < end and not _game_processes(proc.pid):
        time.sleep(0.005)
    os.killpg(proc.pid, sig)
    stdout, stderr = proc.communicate(timeout=deadline(20))
    assert proc.returncode == 128 + sig, stderr
    assert "Traceback" not in stderr and "died" not in stderr
    assert stdout.startswith(f"standings after 0 of 4 games ({why})\n")
    assert _left_behind(proc.pid, tmp_path) == []


@pytest.mark.e2e
@pytest.mark.slow
def test_a_closed_terminal_stops_the_tournament_and_its_bots(tmp_path):
    # SIGHUP to the whole process group (the terminal closed) killed the game processes at once, leaving the
    # bots they had started running, and the tournament without its standings.
    out = tmp_path / "results"
    proc = _tournament(["hunt", "sh -c 'sleep 600' {port}", "--games", "4", "--jobs", "2", "--seed", "3",
                        "--connect-ms", "120000"], out, start_new_session=True)
    _wait_for_sleepers(proc.pid, tmp_path, 2)
    end = time.monotonic() + deadline(20)
    while sum(" joined " in log.read_text() for log in out.glob("games/*/server.log")) < 2:
        assert time.monotonic() < end, "hunt did not join"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGHUP)
    stdout, stderr = proc.communicate(timeout=deadline(20))
    assert proc.returncode == 129, stderr
    assert _left_behind(proc.pid, tmp_path) == []
    assert "Traceback" not in stderr
    assert stdout.startswith("standings after 0 of 4 games (hung up)\n")
    data = json.loads((out / "standings.json").read_text())
    assert data["stopped"] == "hung up"
    # stopped before round 1, a game still says how each seat's bot ended (its seats were once left empty)
    assert len(data["games"]) == 2
    for game in data["games"]:
        seats = {s["bot"]: (s["status"], s["exit"], s["killed"]) for s in game["seats"]}
        assert seats == {"hunt": ("ok", 0, None), "sleep 600": ("never connected", None, "SIGTERM")}


@pytest.mark.e2e
@pytest.mark.slow
def test_a_tournament_started_with_nohup_outlives_its_terminal(tmp_path):
    # nohup starts a program ignoring SIGHUP; the tournament handled it anyway, and a closed terminal stopped
    # it ("hung up"). Here SIGHUP goes to the whole process group, and once it is no longer pending for the
    # tournament (taken or discarded), SIGTERM: the SIGTERM stops it.
    out = tmp_path / "results"
    proc = _tournament(["hunt", "sh -c 'sleep 600' {port}", "--games", "4", "--jobs", "2", "--seed", "3",
                        "--connect-ms", "120000"], out, start_new_session=True,
                       preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    _wait_for_sleepers(proc.pid, tmp_path, 2)
    os.killpg(proc.pid, signal.SIGHUP)

    def hang_up_pending() -> bool:
        status = Path(f"/proc/{proc.pid}/status").read_text()
        pending = int(re.search(r"^ShdPnd:\s*([0-9a-f]+)$", status, re.MULTILINE).group(1), 16)
        return bool(pending & 1 << (signal.SIGHUP - 1))

    wait_until(lambda: not hang_up_pending(), "SIGHUP taken by the tournament", 20)
    os.killpg(proc.pid, signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=deadline(20))
    assert proc.returncode == 143, stderr
    assert stdout.startswith("standings after 0 of 4 games (terminated)\n")
    assert _left_behind(proc.pid, tmp_path) == []


@pytest.mark.e2e
@pytest.mark.slow
def test_a_game_process_killed_stops_the_tournament_with_one_line(tmp_path):
    out = tmp_path / "results"
    proc = _tournament(["hunt", "flee", "--maps", "office", "--games", "50", "--jobs", "1", "--seed", "3",
                        "--prep-ms", "50", "--move-ms", "200"], out)
    _wait_for_a_game_played(out)
    (game_process,) = _game_processes(proc.pid)
    os.kill(game_process, signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=deadline(20))
    assert proc.returncode == 1, stderr
    assert "Traceback" not in stderr
    (line,) = [line for line in stderr.splitlines() if "does not count" in line]
    assert line.endswith(": a game process died (does not count)")
    data = json.loads((out / "standings.json").read_text())
    assert data["stopped"] == "a game process died" and data["played"] >= 1
    assert stdout.startswith(f"standings after {data['played']} of 50 games (a game process died)\n")


@pytest.mark.e2e
@pytest.mark.slow
def test_the_bots_of_a_game_process_killed_are_stopped_by_the_tournament(tmp_path):
    # A killed game process cannot stop the bots it started: one that does not notice its server is gone
    # (here it never connects) ran on after the tournament.
    out = tmp_path / "results"
    proc = _tournament(["hunt", "sh -c 'sleep 600' {port}", "--games", "2", "--jobs", "1", "--seed", "3",
                        "--connect-ms", "120000"], out, start_new_session=True)
    _wait_for_sleepers(proc.pid, tmp_path, 1)
    (game_process,) = _game_processes(proc.pid)
    os.kill(game_process, signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=deadline(20))
    assert proc.returncode == 1, stderr
    assert stdout.startswith("standings after 0 of 2 games (a game process died)\n")
    end = time.monotonic() + deadline(3)  # hunt leaves by itself once its server is gone
    while time.monotonic() < end and _left_behind(proc.pid, tmp_path):
        time.sleep(0.1)
    assert _left_behind(proc.pid, tmp_path) == []
    assert not list(out.glob("games/*/.bot-groups"))


def test_a_bot_started_before_its_group_was_written_is_stopped_with_its_killed_game(tmp_path):
    # The game process writes a bot's group once the bot has started: killed in between (seen in CI under
    # load), its bot was left running. The bots work in the game's folder, which tells them apart.
    game = tmp_path / "games" / "1"
    (game / "1-sleep").mkdir(parents=True)
    (game / BOT_GROUPS).write_text("")
    bot = subprocess.Popen(["sh", "-c", "sleep 600; true"], cwd=game / "1-sleep", start_new_session=True)
    try:
        end = time.monotonic() + deadline(10)
        while not any(c.startswith("sleep") for c in _left_behind(bot.pid, tmp_path)):
            assert time.monotonic() < end, "the bot did not start"
            time.sleep(0.05)
        clean_up_killed_game(game)
        assert bot.wait(timeout=deadline(10)) == -signal.SIGKILL
        end = time.monotonic() + deadline(10)
        while _left_behind(bot.pid, tmp_path) and time.monotonic() < end:
            time.sleep(0.05)
        assert _left_behind(bot.pid, tmp_path) == []
        assert not (game / BOT_GROUPS).exists()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(bot.pid, signal.SIGKILL)


@pytest.mark.e2e
@pytest.mark.slow
def test_a_bot_that_joins_and_leaves_before_the_start_does_not_stall_the_game(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text(BAD_BOT)
    out = tmp_path / "results"
    proc = _tournament(["hunt", "flee", f"{sys.executable} {script} quit {{port}}",
                        f"{sys.executable} {script} fail {{port}}",
                        f"{sys.executable} {script} refuse {{port}}", "--maps", "office", "--games", "1",
                        "--players", "5", "--seed", "1", "--prep-ms", "50", "--move-ms", "300",
                        "--quiet-rounds", "2", "--connect-ms", "60000"], out)
    _stdout, stderr = proc.communicate(timeout=deadline(40))
    assert proc.returncode == 0, stderr
    (game,) = json.loads((out / "standings.json").read_text())["games"]
    seats = {s["bot"].split()[-1]: s for s in game["seats"]}
    assert seats["hunt"]["status"] == seats["flee"]["status"] == "ok"
    # Each left the lobby (its seat became an idle body) or, had it joined last, the preparation: either
    # way it did connect (both were once recorded as "never connected"), and a failing exit is a crash.
    assert (seats["quit"]["status"], seats["quit"]["exit"]) == ("left", 0)
    assert (seats["fail"]["status"], seats["fail"]["exit"]) == ("crashed", 4)
    for seat in (seats["quit"], seats["fail"]):
        assert seat["diagnostics"]["joined"] is True and seat["diagnostics"]["left_round"] == 0
        # closed, reset when the bot exits with messages unread, or found closing as the server wrote to it
        assert seat["diagnostics"]["left_reason"].startswith(("closed the connection", "connection error",
                                                              "connection lost"))
    # One that answered ID_NOT_OKAY did connect too (it was "never connected", its diagnostics "never
    # joined").
    assert (seats["refuse"]["status"], seats["refuse"]["exit"]) == ("left", 0)
    assert seats["refuse"]["diagnostics"]["left_round"] == 0
    assert seats["refuse"]["diagnostics"]["left_reason"] == "answered ID_NOT_OKAY"
    log = (out / game["folder"] / "server.log").read_text()
    assert log.count("left in round 0 (") == 3
    assert replay.verify(replay.load(out / game["folder"] / "replay.jsonl")).ok


def _seating_config(tmp_path: Path) -> Config:
    return Config(parse_bots(["hunt", "flee"]), {"office": load_arena(find_map("office"))}, 1, 2, tmp_path)


def test_a_bot_that_takes_the_last_seat_and_leaves_before_the_game_begins_gets_its_idle_body(tmp_path):
    # The seating stopped watching once every seat was taken. A bot that joined the last free seat and left
    # before the server's task began the game left its seat empty: the tournament waited in the lobby for
    # ever. The server here listens but does not run yet, as in the moment between the join and the begin.
    config = _seating_config(tmp_path)

    async def go():
        server = await seat_server(2)
        ended = [await asyncio.create_subprocess_exec("true") for _seat in range(2)]
        for process in ended:
            await process.wait()
        processes = [_Process(bot=seat, seat=seat, process=process) for seat, process in enumerate(ended)]
        stays, _ = await asyncio.to_thread(join, server.seat_ports[0])
        leaves, _ = await asyncio.to_thread(join, server.seat_ports[1])
        await until(lambda: server.joined_seats == {0: 0, 1: 1}, "both seats to join")
        ids: dict[int, int] = {}
        absent: set[int] = set()
        not_run = asyncio.get_running_loop().create_future()
        seating = asyncio.create_task(GameRunner(config, lambda: None)._seat(server, processes, not_run, ids,
                                                                             absent))
        await until(lambda: ids == {0: 0, 1: 1}, "the seating to see both seats taken")
        leaves.close()
        await until(lambda: server.joined_seats == {0: 0}, "seat 1's bot to leave")
        await until(lambda: absent == {1}, "seat 1's idle body")
        game = asyncio.create_task(server.run())
        await seating
        await asyncio.to_thread(play_out, stays)
        await game
        return server, ids

    server, ids = asyncio.run(go())
    assert ids == {0: 0, 1: 1} and server.wire_ids == [0, 1] and server.connected == [True, False]
    left = {d.id: d for d in server.diagnostics()}[1]
    assert left.left_round == 0  # closed, or reset with CONNECTED unread
    assert left.left_reason.startswith(("closed the connection", "connection error"))


def test_a_bot_that_leaves_because_its_game_stopped_in_the_lobby_keeps_its_seat(tmp_path):
    # A closed terminal stopped a game in the lobby; the stop disconnected the bot that had joined, which
    # exited at once, and the seating, still polling until the server's task ended, gave its seat an idle
    # body: the standings said it "never connected" (seen once in test_a_closed_terminal_stops_...).
    config = _seating_config(tmp_path)

    async def go():
        server = await seat_server(2)
        running = asyncio.create_task(server.run())
        ended = await asyncio.create_subprocess_exec("true")
        await ended.wait()
        waiting = await asyncio.create_subprocess_exec("sleep", "600")
        processes = [_Process(bot=0, seat=0, process=ended), _Process(bot=1, seat=1, process=waiting)]
        client, _ = await asyncio.to_thread(join, server.seat_ports[0])
        ids: dict[int, int] = {}
        absent: set[int] = set()
        not_done = asyncio.get_running_loop().create_future()  # the server's task, still ending
        seating = asyncio.create_task(GameRunner(config, lambda: None)._seat(server, processes, not_done, ids,
                                                                             absent))
        try:
            await until(lambda: ids == {0: 0}, "the seating to see seat 0 taken")
            server.stop("hung up")
            await running
            await until(lambda: server.joined_seats == {}, "the stop to disconnect seat 0's bot")
            await asyncio.wait_for(seating, deadline(10))
        finally:
            client.close()
            waiting.kill()
            await waiting.wait()
        return ids, absent

    ids, absent = asyncio.run(go())
    assert (ids, absent) == ({0: 0}, set())


@pytest.mark.e2e
def test_a_replay_that_cannot_be_written_is_named_in_the_progress_the_results_and_at_the_end(tmp_path):
    import resource

    def small_files() -> None:  # a disk that fills up: writing past 16 KB fails (EFBIG: SIGXFSZ is ignored)
        resource.setrlimit(resource.RLIMIT_FSIZE, (16_000, 16_000))

    out = tmp_path / "results"
    proc = _tournament(["hunt", "flee", "--maps", "office", "--games", "1", "--seed", "3", "--prep-ms", "50",
                        "--move-ms", "2000"], out, preexec_fn=small_files)
    stdout, stderr = proc.communicate(timeout=deadline(40))
    assert proc.returncode == 0, stderr
    (game,) = json.loads((out / "standings.json").read_text())["games"]
    assert game["replay_error"] == "File too large" and game["error"] is None
    assert "hunt" in stdout and " | replay not written: File too large | elapsed " in stderr
    name = Path(game["folder"]).name
    assert stderr.splitlines()[-1] == f"arena: 1 replay not written: {name} (File too large)"
    assert "cannot write the replay" in (out / game["folder"] / "server.log").read_text()
    assert not (out / game["folder"] / "replay.jsonl").exists()  # no truncated replay under the replay's name
    assert (out / game["folder"] / "replay.jsonl.partial").stat().st_size <= 16_000


@pytest.mark.e2e
@pytest.mark.slow
def test_standings_that_cannot_be_written_stop_the_tournament_and_keep_their_last_version(tmp_path):
    # A disk that filled up under standings.json ended the tournament with "cannot write the output", no
    # standings printed and a standings.json cut in the middle.
    import resource

    def small_files() -> None:  # writing past 16 KB fails (EFBIG: SIGXFSZ is ignored)
        resource.setrlimit(resource.RLIMIT_FSIZE, (16_000, 16_000))

    out = tmp_path / "results"
    proc = _tournament(["hunt", "flee", "random", "smart", "--games", "10", "--jobs", "1", "--seed", "3",
                        "--prep-ms", "50", "--move-ms", "2000"], out, preexec_fn=small_files)
    stdout, stderr = proc.communicate(timeout=deadline(100))
    assert proc.returncode == 1, stderr
    heading = stdout.splitlines()[0]
    assert heading.endswith(" games (the results cannot be written: File too large)"), stdout
    assert stderr.splitlines()[-1] == (f"arena: standings.csv and standings.json in {out} are out of date "
                                       f"(File too large): only the table above is complete")
    assert "Traceback" not in stderr
    data = json.loads((out / "standings.json").read_text())  # the last version written, whole
    played = int(heading.split()[2])
    assert 0 < data["played"] < played < 10
    assert not list(out.glob(".*.tmp"))  # no temporary left beside them (common.save.write_atomic)
    rows = list(csv.reader((out / "standings.csv").open(newline="")))
    assert rows[0][:3] == ["rank", "bot", "points"] and len(rows) == 5


def test_a_server_log_that_cannot_be_written_is_no_traceback_on_stderr(capsys):
    # Every line of a game's server.log on a full disk printed logging's "--- Logging error ---" traceback.
    handler = _GameLog("/dev/full", encoding="utf-8")
    logger = logging.getLogger("arena.test-full-log")
    logger.addHandler(handler)
    try:
        logger.warning("round 1: no MOVE in time from [1]")
        logger.warning("round 2: no MOVE in time from [1]")
    finally:
        logger.removeHandler(handler)
        handler.close()
    assert capsys.readouterr().err == ""
    assert handler.failed == "No space left on device"


def test_a_game_whose_folder_cannot_be_made_is_recorded_not_raised(tmp_path):
    # The game's folder and server.log were made outside the game's error handling: an error there ended the
    # tournament with a traceback or one line, instead of one game that does not count.
    out = tmp_path / "results"
    out.mkdir()
    (out / "games").write_text("a file where the games folder goes\n")
    config = Config(parse_bots(["hunt", "flee"]), {"office": load_arena(find_map("office"))}, 1, 2, out)
    record = asyncio.run(GameRunner(config, lambda: None).play(Scheduled(1, "office", 5, (0, 1))))
    assert record.error == "Not a directory (games/001-office-s5)" and not record.counts
    assert record.full is None and record.seats == []


def test_the_default_jobs_are_the_cores_the_tournament_may_use(tmp_path):
    # --jobs defaulted to every core of the machine, also under taskset or a container's CPU set.
    out = tmp_path / "r"
    done = subprocess.run([sys.executable, "-m", "arena", "tournament", "hunt", "flee", "--games", "2",
                           "--seed", "3", "--move-ms", "100", "--prep-ms", "50", "--out", str(out)],
                          capture_output=True, text=True, timeout=deadline(40),
                          preexec_fn=lambda: os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}))
    assert done.returncode == 0, done.stderr
    first = done.stderr.splitlines()[0]
    assert first == f"tournament: 2 bots, 2 games of 2 on office, 1 at once, seed 3; results in {out}"


@pytest.mark.e2e
@pytest.mark.slow
def test_the_map_copy_of_a_game_process_killed_is_removed_by_the_tournament(tmp_path):
    # A killed game process cannot remove the map copy its server handed the bots: it stayed in the folder of
    # map copies for good.
    run = tmp_path / "run"
    run.mkdir()
    out = tmp_path / "results"
    proc = _tournament(["hunt", "flee", "--games", "2", "--jobs", "1", "--seed", "3", "--prep-ms", "60000"],
                       out, env={**os.environ, "XDG_RUNTIME_DIR": str(run)})
    killed = False
    try:
        # the game begins (its map copy is made) and waits in its preparation
        end = time.monotonic() + deadline(20)
        while time.monotonic() < end and not list(out.glob("games/*/.map-copy")):
            time.sleep(0.1)
        (note,) = out.glob("games/*/.map-copy")
        (copy,) = run.glob("arena/*.map")
        assert note.read_text().strip() == str(copy.resolve())
        (game_process,) = _game_processes(proc.pid)
        os.kill(game_process, signal.SIGKILL)
        killed = True
    finally:
        if not killed:  # what failed above: the tournament stops its game and bots
            proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=deadline(20))
    assert proc.returncode == 1, stderr
    assert stdout.startswith("standings after 0 of 2 games (a game process died)\n")
    assert not copy.exists() and not note.exists()


def test_the_time_left_counts_the_games_played_at_once(tmp_path):
    import time

    from arena.mapfile import find_map, load_arena
    from arena.tournament import Config, Tournament, progress_line, time_left

    config = Config(parse_bots(["hunt", "flee"]), {"office": load_arena(find_map("office"))}, games=10,
                    players=2, out=tmp_path, jobs=2, seed=1)
    t = Tournament(config)
    first = GameRecord(t.schedule[0], tmp_path, rounds=61, seconds=4.0)
    t.records.append(first)
    t.under_way = {2: time.monotonic() - 4.0}
    # 9 games left, two at a time, game 2 begun with game 1 and about done: 4 s * 8 / 2 = 16 s (the time
    # since the start over the games ended said 36 s).
    assert time_left(t) == pytest.approx(16.0, abs=0.1)
    assert progress_line(t, first).endswith(", about 0:16 left")
    t.records += [GameRecord(game, tmp_path, seconds=5.0 + k % 2) for k, game in enumerate(t.schedule[1:9])]
    mean = (4 + 4 * 11) / 9
    t.under_way = {10: 100.0}
    assert time_left(t, now=101.0) == pytest.approx(mean - 1)   # the last game, under way for 1 s
    assert time_left(t, now=200.0) == 0.0                       # under way longer than the mean
    t.records.append(GameRecord(t.schedule[9], tmp_path, seconds=5.0))
    t.under_way = {}
    assert time_left(t) == 0.0


def test_the_time_left_counts_the_time_each_game_under_way_has_run(tmp_path):
    """Game 4 of 6 ends, the other game process has just begun game 5, this one begins game 6: two games of
    the mean time still to play, one on each process. Counting the games under way as half played said
    half that."""
    from arena.mapfile import find_map, load_arena
    from arena.tournament import Config, Tournament, time_left

    config = Config(parse_bots(["hunt", "flee"]), {"office": load_arena(find_map("office"))}, games=6,
                    players=2, out=tmp_path, jobs=2, seed=1)
    t = Tournament(config)
    assert t.total == 6
    t.records += [GameRecord(game, tmp_path, seconds=2.0) for game in t.schedule[:4]]
    t.under_way = {5: 50.0}
    assert time_left(t, now=50.0) == pytest.approx(2.0)
    assert time_left(t, now=51.5) == pytest.approx(2.0)   # game 6 not yet handed out: 2 s from now
    t.under_way = {5: 50.0, 6: 51.5}
    assert time_left(t, now=51.5) == pytest.approx(2.0)
    assert time_left(t, now=53.0) == pytest.approx(0.5)


# A bot that connects to its seat's port and never answers ID ("silent"), or one that joins, opens a second
# connection to the same port, prints what that got, and exits with status 3 before round 1 ("twice").
SEAT_BOT = """\
import socket, sys, time
mode, port = sys.argv[1], int(sys.argv[2])
sock = socket.create_connection(("127.0.0.1", port))
if mode == "silent":
    time.sleep(3600)
buffer = b""
while b"|" not in buffer:
    buffer += sock.recv(4096)
sock.sendall(b"ID_OKAY|")
second = socket.create_connection(("127.0.0.1", port))
got = b""
while data := second.recv(4096):
    got += data
print(got.decode(), flush=True)
sys.exit(3)
"""


@pytest.mark.e2e
@pytest.mark.slow
def test_seats_keep_their_bots_ids_and_the_log_says_why_a_bot_or_connection_was_dropped(tmp_path):
    # A bot connected but silent when --connect-ms ran out was dropped "the game is full" and its seat's idle
    # body got a new id, named in the diagnostics and the standings; so did the seat of a bot that crashed
    # before round 1. A bot's second connection to its port got DISCONNECT with no line in server.log.
    script = tmp_path / "seat.py"
    script.write_text(SEAT_BOT)
    out = tmp_path / "results"
    proc = _tournament(["hunt", f"{sys.executable} {script} silent {{port}}",
                        f"{sys.executable} {script} twice {{port}}", "--games", "1", "--players", "3",
                        "--seed", "5", "--jobs", "1", "--prep-ms", "50", "--move-ms", "300", "--quiet-rounds",
                        "2", "--connect-ms", "8000"], out)
    _stdout, stderr = proc.communicate(timeout=deadline(60))
    assert proc.returncode == 0, stderr
    (game,) = json.loads((out / "standings.json").read_text())["games"]
    assert [s["id"] for s in game["seats"]] == [s["seat"] for s in game["seats"]]
    seats = {s["bot"].split()[-1]: s for s in game["seats"]}
    silent, twice = seats["silent"], seats["twice"]
    assert (silent["status"], silent["diagnostics"]["joined"]) == ("never connected", False)
    assert (twice["status"], twice["exit"], twice["diagnostics"]["left_round"]) == ("crashed", 3, 0)
    folder = out / game["folder"]
    assert replay.load(folder / "replay.jsonl").header["ids"] == [0, 1, 2]
    bot_folder = folder / f"{twice['seat']}-{copy_name(twice['bot'])}"
    assert (bot_folder / "stdout.txt").read_text() == "DISCONNECT|\n"
    log = [line.split(" ", 2)[2] for line in (folder / "server.log").read_text().splitlines()]
    assert f"client {silent['seat']} disconnected: no ID_OKAY within 8000 ms" in log
    turned = [line for line in log if " turned away: " in line]
    assert len(turned) == 1 and turned[0].endswith(
        f" to seat {twice['seat']} turned away: a second connection (client {twice['seat']} holds the seat)")
    assert not [line for line in log if "the game is full" in line]
    diagnostics = {line.split(" diagnostics: ")[0]: line for line in log if " diagnostics: " in line}
    assert sorted(diagnostics) == ["client 0", "client 1", "client 2"]
    assert diagnostics[f"client {silent['seat']}"].endswith(", never joined")
    assert ", left in round 0 (" in diagnostics[f"client {twice['seat']}"]

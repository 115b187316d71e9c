"""The server over real TCP on 127.0.0.1 (spec/arena.md §3, §4; S16, S17, S18)."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import shlex
import socket
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from arena_helpers import (
    RawClient,
    ServerThread,
    in_threads,
    join,
    play_out,
    seat_server,
    small_arena,
    until,
    wait_for,
)
from deadline import deadline

from arena import protocol as wire
from arena.rules import DIRECTIONS, Arena, Game, TeamChange
from arena.server import ArenaServer, round_messages, round_payloads, send_order
from arena.vision import visibility

MOVES = ["NORTH", "NORTH_EAST", "EAST", "SOUTH_EAST", "SOUTH", "SOUTH_WEST", "WEST", "NORTH_WEST", "NONE"]


def rounds_of(messages: list[str]) -> tuple[list[list[str]], list[str]]:
    """Split a client's received messages into the per-round blocks (ending with START) and the tail."""
    blocks, block = [], []
    for message in messages:
        block.append(message)
        if message.startswith("START "):
            blocks.append(block)
            block = []
    return blocks, block


def expected_block(arena: Arena, state: dict, previous_changes: list[TeamChange], index: int,
                   ids: list[int]) -> list[str]:
    game = Game.from_snapshot(arena, state)
    seen = visibility(arena, game.players)
    return [wire.format_message(m) for m in round_messages(game, index, seen, previous_changes, ids)]


def test_send_order_rotates_from_round_mod_n():
    assert send_order(12, 6) == [0, 1, 2, 3, 4, 5]
    assert send_order(13, 6) == [1, 2, 3, 4, 5, 0]
    assert send_order(5, 3) == [2, 0, 1]


def test_s17_round_bytes():
    arena = Arena(walls=np.zeros((12, 14), dtype=bool), toxicity=np.ones((12, 14), dtype=np.int16),
                  name="s17")
    arena.toxicity[3, 4] = 4
    players = [
        {"id": 0, "x": 10, "y": 8, "facing": "WEST", "team": "BLUE", "energy": 9990},
        {"id": 1, "x": 1, "y": 10, "facing": "NORTH", "team": "RED", "energy": 9000},
        {"id": 2, "x": 2, "y": 10, "facing": "NORTH", "team": "RED", "energy": 9000},
        {"id": 3, "x": 3, "y": 10, "facing": "NORTH", "team": "RED", "energy": 9000},
        {"id": 4, "x": 4, "y": 3, "facing": "NORTH", "team": "BLUE", "energy": 9873},
        {"id": 5, "x": 7, "y": 3, "facing": "WEST", "team": "RED", "energy": 9500},
    ]
    state = {"round": 11, "quiet": 0, "quiet_rounds": 30, "max_rounds": 180,
             "players": [dict(p, stay=1, points="0/1", switch_round=None, catches=0) for p in players]}
    game = Game.from_snapshot(arena, state)
    seen = {4: {5}}
    messages = round_messages(game, 4, seen, [TeamChange(5, "RED", "FORCED")], [0, 1, 2, 3, 4, 5])
    assert wire.encode(*messages) == (b"SET 4,3 NORTH|SEE_PLAYER 10,8 WEST 0|SEE_PLAYER 7,3 WEST 5|"
                                      b"TOXIC 4,3 0.04|LIFE 98.73 4|TEAMCHANGE RED 5|START 12|")
    fast = round_payloads(game, seen, [TeamChange(5, "RED", "FORCED")], [0, 1, 2, 3, 4, 5])
    assert fast[4] == wire.encode(*messages)
    # the same player as the server sees it with real vision: 5 is in the cone, 1..3 behind it
    assert 5 in visibility(arena, game.players)[4]
    assert not {1, 2, 3} & visibility(arena, game.players)[4]


def test_round_payloads_are_the_encoded_round_messages():
    """The server's fast path sends exactly the normative messages, whatever the wire ids and changes."""
    rng = random.Random(16)
    arena = Arena(walls=np.zeros((9, 11), dtype=bool), toxicity=np.ones((9, 11), dtype=np.int16), name="m")
    arena.walls[4, 2:9] = True
    arena.toxicity[::2, ::3] = 20
    for _ in range(40):
        game = Game(arena, rng.randint(2, 16), rng)
        for p in game.players:
            p.team = rng.choice(("BLUE", "RED"))
            p.facing = rng.choice(DIRECTIONS)
            p.energy = rng.randrange(0, 10001)
        game.round = rng.randrange(0, 99)
        ids = rng.sample(range(40), len(game.players))
        changes = [TeamChange(p.id, "RED", "CAUGHT") for p in rng.sample(game.players, rng.randint(0, 2))]
        seen = visibility(arena, game.players)
        fast = round_payloads(game, seen, changes, ids)
        assert fast == [wire.encode(*round_messages(game, k, seen, changes, ids)) for k in range(len(ids))]


def test_complete_game_split_and_packed_messages_in_normative_order():
    st = ServerThread(players=3, quiet_rounds=3)
    results: dict[int, list[str]] = {}

    def client(seed: int) -> None:
        rng = random.Random(seed)
        c, n = join(st.port, rng)
        while True:
            message = c.recv()
            if message is None:
                break
            if message.startswith("START "):
                direction, view = rng.choice(MOVES), rng.choice(MOVES[:8])
                # packed: a PING and the MOVE in one write, itself cut into random pieces
                c.send(f"PING|MOVE {direction} {view}|".encode())
        results[n] = c.received
        c.close()

    threads = in_threads(*(lambda s=s: client(s) for s in (1, 2, 3)))
    st.join()
    for t in threads:
        t.join(deadline(3))
    assert sorted(results) == [0, 1, 2]
    game_rounds = len(st.rounds)
    assert game_rounds >= 1 and st.states[-1]["round"] == game_rounds
    for n, messages in results.items():
        head = [m for m in messages if m.startswith(("ID ", "CONNECTED", "MAP "))]
        assert messages[0] == f"ID {n}" and any(m.startswith("MAP /") for m in head)
        body = messages[messages.index(next(m for m in messages if m.startswith("MAP "))) + 1:]
        blocks, tail = rounds_of(body)
        assert len(blocks) == game_rounds
        for r, block in enumerate(blocks, 1):
            previous = st.rounds[r - 2][2] if r > 1 else []
            assert block == expected_block(st.arena, st.states[r - 1], previous, n, [0, 1, 2]), (n, r)
        last_changes = [f"TEAMCHANGE {c.team} {c.id}" for c in sorted(st.rounds[-1][2], key=lambda c: c.id)]
        assert tail == [*last_changes, "DISCONNECT"]
    # the moves each round were applied as received; the final table is the game's standings
    table = [(row.rank, row.id, row.points) for row in st.table]
    game = Game.from_snapshot(st.arena, st.states[-1])
    assert sorted(table) == sorted(game.standings())
    assert all(p.team != "BLUE" for p in game.players)


def test_s18_a_2010_bot_plays_a_whole_game():
    """From the 2010 protocol pages only: buffer on '|', ID_OKAY, read the MAP file, MOVE per START."""
    st = ServerThread(players=2, quiet_rounds=4)
    outcome: dict[int, tuple[bool, int, int]] = {}
    modes: dict[int, tuple[int, int]] = {}

    def bot_2010(slot: int) -> None:
        sock = socket.create_connection(("127.0.0.1", st.port), timeout=deadline(10))
        buffer, rows, starts, got_disconnect = "", [], 0, False
        while True:
            data = sock.recv(1024)
            if not data:
                break
            buffer += data.decode("ascii")
            while "|" in buffer:
                message, buffer = buffer.split("|", 1)
                parts = message.split(" ")
                if parts[0] == "ID":
                    sock.sendall(b"ID_OKAY|")
                elif parts[0] == "MAP":
                    with open(message[4:]) as handle:
                        rows = handle.read().splitlines()
                    copy = Path(message[4:])
                    modes[slot] = (copy.stat().st_mode & 0o777, copy.parent.stat().st_mode & 0o777)
                elif parts[0] == "START":
                    starts += 1
                    sock.sendall(b"MOVE EAST SOUTH|" if starts % 2 else b"MOVE WEST NORTH|")
                elif parts[0] == "DISCONNECT":
                    got_disconnect = True
        sock.close()
        outcome[slot] = (got_disconnect, starts, len(rows))

    threads = in_threads(lambda: bot_2010(0), lambda: bot_2010(1))
    st.join()
    for t in threads:
        t.join(deadline(3))
    assert outcome[0] == (True, len(st.rounds), 8) and outcome[1] == (True, len(st.rounds), 8)
    assert modes == {0: (0o644, 0o755), 1: (0o644, 0o755)}  # readable by bots of any user (§3)
    assert all(moves for _, moves, _ in st.rounds)


def test_s16_bad_line_third_move_silence_second_move_and_300_bytes(caplog):
    caplog.set_level(logging.INFO, logger="arena.server")
    st = ServerThread(players=4, quiet_rounds=3, move_ms=5000)
    clients = [join(st.port)[0] for _ in range(4)]
    a, b, c, d = clients
    for client in clients:
        client.until("START 1")
    a.send(b"MOVE EAST EAST|")
    wait_for(lambda: st.received() == 1, "A's move")
    b.send(b"MOVE SOUTH SOUTH|")
    wait_for(lambda: st.received() == 2, "B's move")
    c.send(b"MOVE NNE NORTH|")
    c.send(b"MOVE NORTH_EAST NORTH|")
    wait_for(lambda: st.received() == 3, "C's move")
    c.send(b"MOVE WEST WEST|")  # a second MOVE in the same round: ignored
    # D stays silent: round 1 ends at the deadline
    wait_for(lambda: len(st.rounds) == 1, "round 1")
    _number, moves, _ = st.rounds[0]
    assert moves == [(0, "EAST", "EAST"), (1, "SOUTH", "SOUTH"), (2, "NORTH_EAST", "NORTH")]
    assert st.states[1]["players"][2]["facing"] == "NORTH"
    assert st.states[1]["players"][3]["facing"] == "NORTH" and st.states[1]["players"][3]["stay"] == 1
    log_text = caplog.text
    assert "client 2: ignored a bad message: MOVE: expected a direction or NONE, got 'NNE'\n" in log_text
    assert "ignored a second MOVE in round 1: 'MOVE WEST WEST'" in log_text
    # round 2: D sends 300 bytes without '|' and is disconnected; its body stays on the map
    for client in (a, b, c, d):
        client.until("START 2")
    d.send(b"M" * 300)
    assert d.eof()
    for client in (a, b, c):
        assert "DISCONNECTED 3" in client.until("DISCONNECTED 3")[-1]
    threads = in_threads(*(lambda cl=cl: play_out(cl) for cl in (a, b, c)))
    for client in (a, b, c):
        client.send(b"MOVE NONE NORTH|")
    st.join()
    for t in threads:
        t.join(deadline(3))
    final = st.states[-1]["players"][3]
    assert final["connected"] is False and (final["x"], final["y"]) == (st.states[1]["players"][3]["x"],
                                                                        st.states[1]["players"][3]["y"])
    assert "more than 256 bytes without '|'" in caplog.text
    assert len(st.rounds) == st.states[-1]["round"]


def test_ignored_messages_are_logged_once_each_then_only_counted(caplog):
    caplog.set_level(logging.INFO, logger="arena.server")
    st = ServerThread(players=2, quiet_rounds=2, move_ms=20000)
    (a, _), (b, _) = join(st.port), join(st.port)
    for client in (a, b):
        client.until("START 1")
    a.send(b"JUNK ONE|JUNK  TWO|JUNK THREE|JUNK FOUR|JUNK FIVE|")
    a.send(b"MOVE NONE NORTH|")
    wait_for(lambda: st.received() == 1, "A's move")
    threads = in_threads(lambda: play_out(a), lambda: play_out(b))
    b.send(b"MOVE NONE NORTH|")
    st.join()
    for t in threads:
        t.join(deadline(3))
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("client 0: ")]
    assert [line for line in lines if "ignored" in line] == [
        "client 0: ignored a bad message: unknown command 'JUNK'",
        "client 0: ignored a bad message: words must be separated by exactly one space: 'JUNK  TWO'",
        "client 0: ignored a bad message: unknown command 'JUNK' (further ignored messages are only counted)",
        "client 0: 5 messages ignored in all, 2 of them not logged",
    ]


def test_rounds_without_a_move_are_logged_three_times_then_only_counted(caplog):
    # "round N: no MOVE in time from [2]" was logged in every one of 90 rounds for a silent bot
    caplog.set_level(logging.INFO, logger="arena.server")
    st = ServerThread(players=2, quiet_rounds=3, move_ms=50)
    (a, _), (b, _) = join(st.port), join(st.port)
    threads = in_threads(a.eof, b.eof)  # both read everything and never move, until the server closes
    st.join()
    for t in threads:
        t.join(deadline(3))
    rounds = st.states[-1]["round"]
    assert rounds == 6  # MAXR = 2 players × F 3: nobody catches anybody
    lines = [r.getMessage() for r in caplog.records if "MOVE" in r.getMessage()]
    assert lines == [
        "round 1: no MOVE in time from [0, 1]",
        "round 2: no MOVE in time from [0, 1]",
        "round 3: no MOVE in time from [0, 1] "
        "(further rounds without a MOVE from clients 0, 1 are only counted)",
        "client 0: 6 rounds without a MOVE in time in all, 3 of them not logged",
        "client 1: 6 rounds without a MOVE in time in all, 3 of them not logged",
    ]
    assert [d.missing for d in st.server.diagnostics()] == [6, 6]


def test_unknown_command_and_flood(caplog):
    caplog.set_level(logging.INFO, logger="arena.server")
    st = ServerThread(players=3, quiet_rounds=2, move_ms=20000)
    (a, _), (b, _), (c, _) = join(st.port), join(st.port), join(st.port)
    for client in (a, b, c):
        client.until("START 1")
    a.send(b"HELLO WORLD|FOO|MOVE NORTH NORTH|")
    b.send(b"PING|" * 65)
    assert b.eof()
    c.send(b"MOVE NONE EAST|")
    # the round ends once every connected player has moved: the flooder is no longer waited for
    wait_for(lambda: len(st.rounds) == 1, "round 1")
    assert [m[0] for m in st.rounds[0][1]] == [0, 2]
    assert "ignored a bad message: unknown command 'HELLO'" in caplog.text
    assert "ignored a bad message: unknown command 'FOO'" in caplog.text
    assert "more than 64 messages in one round" in caplog.text
    threads = in_threads(lambda: play_out(a), lambda: play_out(c))
    st.join()
    for t in threads:
        t.join(deadline(3))
    assert st.states[-1]["players"][1]["connected"] is False


def test_silent_client_dropped_after_id_timeout_id_not_reused(caplog):
    caplog.set_level(logging.INFO, logger="arena.server")
    st = ServerThread(players=2, quiet_rounds=2, id_timeout_ms=300, ping_ms=100)
    silent = RawClient(st.port)
    assert silent.recv() == "ID 0"
    assert silent.eof()
    assert "PING" in silent.received  # idle clients are pinged while the server waits for players
    refuser = RawClient(st.port)
    assert refuser.recv() == "ID 1"
    refuser.send(b"ID_NOT_OKAY|")
    assert refuser.eof()
    (a, ida), (b, idb) = join(st.port), join(st.port)
    assert (ida, idb) == (2, 3)
    late = RawClient(st.port)
    threads = in_threads(lambda: play_out(a), lambda: play_out(b))
    assert late.recv() == "DISCONNECT" and late.eof()
    st.join()
    for t in threads:
        t.join(deadline(3))
    assert st.server.wire_ids == [2, 3]
    assert "client 0 disconnected: no ID_OKAY within 300 ms" in caplog.text
    assert any(m.startswith("SEE_PLAYER") and m.endswith(" 3") for m in a.received)
    assert "CONNECTED 3" in a.received


def test_disconnect_mid_round_does_not_stall_and_late_move_is_ignored(caplog):
    caplog.set_level(logging.INFO, logger="arena.server")
    # a round would wait 60 s for a missing MOVE: the game finishes in time only if a closed client is not
    # waited for
    st = ServerThread(players=3, quiet_rounds=2, move_ms=60000, round_pause_ms=1000)
    (a, _), (b, _), (c, _) = join(st.port), join(st.port), join(st.port)
    for client in (a, b, c):
        client.until("START 1")
    c.close()
    for client in (a, b):
        client.send(b"MOVE NONE NORTH|")
    wait_for(lambda: len(st.rounds) == 1, "round 1")
    # a late MOVE for round 1, after the round closed and before round 2 opens: ignored
    a.send(b"MOVE EAST EAST|")
    wait_for(lambda: "outside a round" in caplog.text, "the late MOVE to be logged")
    threads = in_threads(lambda: play_out(a), lambda: play_out(b))
    st.join()
    for t in threads:
        t.join(deadline(3))
    assert all(2 not in [m[0] for m in moves] for _, moves, _ in st.rounds)
    assert st.states[2]["players"][0]["facing"] == "NORTH"
    assert "DISCONNECTED 2" in a.received
    assert st.states[-1]["players"][2]["connected"] is False


def test_final_table_points_and_ranks():
    st = ServerThread(players=2, quiet_rounds=2)
    threads = in_threads(*(lambda: play_out(join(st.port)[0]) for _ in range(2)))
    st.join()
    for t in threads:
        t.join(deadline(3))
    state = st.states[-1]
    for row in st.table:
        player = state["players"][row.id]
        assert row.points == Fraction(player["points"])
        assert row.switch_round == player["switch_round"]
        assert row.catches == player["catches"]
    assert [row.rank for row in st.table] == sorted(row.rank for row in st.table)


# --- the command line: one-line errors, exit 2 ------------------------------------------------------------

def _arena(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True,
                          timeout=deadline(20), cwd=cwd, env={**os.environ, **env})


def _write_map(tmp_path: Path) -> Path:
    path = tmp_path / "room.map"
    path.write_text("".join("".join("#" if w else " " for w in row) + "\n" for row in small_arena().walls))
    return path


def test_port_in_use_is_one_line_exit_2(tmp_path):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    try:
        done = _arena("serve", str(_write_map(tmp_path)), "--port", str(port), "--players", "2",
                      "--replay", str(tmp_path / "r.jsonl"))
    finally:
        busy.close()
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last == f"arena: cannot listen on 127.0.0.1:{port}: Address already in use"
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "r.jsonl").exists()


@pytest.mark.parametrize(("command", "missing"), [("serve", "MAP"), ("play", "MAP"), ("replay", "FILE")])
def test_a_missing_argument_names_only_what_is_required(command: str, missing: str) -> None:
    # The spectators' 0:DISPLAY strings are optional: they were once listed as required too.
    done = _arena(command, PATH="/usr/bin:/bin")
    assert done.returncode == 2
    assert done.stderr == (f"arena: the following arguments are required: {missing} "
                           f"({sys.executable} -m arena {command} --help shows the usage)\n")


def test_a_missing_or_unknown_argument_says_where_the_usage_is(capsys, tmp_path) -> None:
    # "arena" alone said "arena: the following arguments are required: COMMAND", and no more: a new user had
    # no hint of where to look. The hint names the command as the user can type it again: its bare name only
    # where the search path finds it, else as it was started (.venv/bin/arena, /path/to/python -m arena).
    from arena.cli import main

    bin_dir = os.path.dirname(sys.executable)
    python = os.path.basename(sys.executable)
    installed = os.path.join(bin_dir, "arena")
    elsewhere = "/usr/bin:/bin"                                  # the venv not on the search path
    link = tmp_path / "my tools" / "ar"                           # the command under another name and a space
    link.parent.mkdir()
    link.symlink_to(installed)
    runs = [
        ([sys.executable, "-m", "arena"], elsewhere, "COMMAND", f"{sys.executable} -m arena"),
        ([sys.executable, "-m", "arena"], f"{bin_dir}:{elsewhere}", "COMMAND", f"{python} -m arena"),
        ([installed, "serve"], elsewhere, "MAP", f"{installed} serve"),
        (["arena", "serve"], f"{bin_dir}:{elsewhere}", "MAP", "arena serve"),
        ([str(link), "serve"], elsewhere, "MAP", f"'{link}' serve"),
    ]
    for argv, path, missing, hint in runs:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=deadline(20),
                              env={**os.environ, "PATH": path})
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == (f"arena: the following arguments are required: {missing} ({hint} --help "
                               f"shows the usage)\n")
        usage = subprocess.run([*shlex.split(hint), "--help"], capture_output=True, text=True,
                               timeout=deadline(20), env={**os.environ, "PATH": path})   # runs as typed
        assert usage.returncode == 0 and usage.stdout.startswith("usage: arena"), usage.stderr
    unknown = _arena("replay", "game.jsonl", "--vrify", PATH=elsewhere)
    assert (unknown.returncode, unknown.stdout) == (2, "")
    assert unknown.stderr == (f"arena: unrecognized arguments: --vrify ({sys.executable} -m arena replay "
                              f"--help shows the usage)\n")
    assert main(["serve"]) == 2  # run in-process: pytest's __main__ is not arena's, nor its command
    assert capsys.readouterr().err == ("arena: the following arguments are required: MAP (arena serve --help "
                                       "shows the usage)\n")
    assert main(["serve", "office", "--players", "1"]) == 2  # an error that says what was expected: no hint
    assert capsys.readouterr().err == "arena: argument --players: expected a number 2..16, got '1'\n"


def test_bad_map_and_toxic_files_name_file_line_column(tmp_path):
    missing = _arena("serve", str(tmp_path / "nope.map"))
    assert missing.returncode == 2
    assert missing.stderr.startswith(f"arena: {tmp_path / 'nope.map'}: no such map file")
    bad = tmp_path / "bad.map"
    bad.write_text("####\n# x#\n####\n")
    done = _arena("serve", str(bad))
    assert done.returncode == 2
    assert done.stderr.strip() == f"arena: {bad}:2:3: unexpected character 'x' (expected '#', ' ' or '.')"
    good = _write_map(tmp_path)
    toxic = tmp_path / "room.toxic"
    toxic.write_text("  \n  ?\n")
    done = _arena("serve", str(good))
    assert done.returncode == 2 and done.stderr.startswith(f"arena: {toxic}:2:3: unexpected character '?'")
    assert "Traceback" not in done.stderr
    assert _arena("serve", str(good), "--players", "1").returncode == 2
    assert _arena("serve", str(good), "1:somewhere:0").returncode == 2


@pytest.mark.parametrize("argv", [
    ["serve", "office", "--quiet-rounds", "0"], ["serve", "office", "--players", "1"],
    ["serve", "office", "--players", "17"], ["play", "office", "--bots", "0"],
    ["serve", "office", "--port", "70000"], ["serve", "office", "--port", "-1"],
    ["serve", "office", "--move-ms", "-5"], ["serve", "office", "--prep-ms", "99999999999"],
    ["play", "office", "--round-ms", "x"], ["play", "office", "--linger-ms", "-1"],
    ["replay", "LAST.jsonl", "--step-ms", "-1"], ["replay", "LAST.jsonl", "0::63", "--step-ms", "19"],
    ["replay", "LAST.jsonl", "--step-ms", "5"], ["serve", "office", "--id-timeout-ms", "0"],
    ["bot", "127.0.0.1", "99999"], ["bot", "127.0.0.1", "0"],
])
def test_numeric_options_are_range_checked_at_parse_time(argv, capsys):
    from arena.cli import main

    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1, "one line, no usage block"
    assert error.startswith("arena: ") and "expected a" in error


def test_the_id_timeout_is_an_option_shown_in_help(capsys):
    from arena.cli import _parser

    _, commands = _parser()
    for name in ("serve", "play"):
        assert "--id-timeout-ms T" in commands[name].format_help()
        assert commands[name].parse_args(["office", "--id-timeout-ms", "2500"]).id_timeout_ms == 2500
        assert commands[name].parse_args(["office"]).id_timeout_ms == 10000


def test_replay_path_that_cannot_be_created_is_refused_before_any_bot_joins(tmp_path):
    target = tmp_path / "replays"
    target.mkdir()
    done = _arena("serve", str(_write_map(tmp_path)), "--players", "2", "--port", "0",
                  "--replay", str(target))
    assert done.returncode == 2
    assert done.stderr.strip() == f"arena: cannot write the replay {target}: Is a directory"
    fresh = tmp_path / "new.jsonl"
    from arena.replay import ReplayWriter

    ReplayWriter(fresh).prepare()
    assert not fresh.exists()


def test_per_bot_diagnostics_refused_late_missing_ignored(caplog):
    caplog.set_level(logging.INFO, logger="arena.server")
    corridor = Arena(walls=np.zeros((1, 2), dtype=bool), toxicity=np.ones((1, 2), dtype=np.int16),
                     name="pair")
    st = ServerThread(corridor, players=2, quiet_rounds=2, move_ms=400)
    (a, _), (b, _) = join(st.port), join(st.port)

    def late_bot() -> None:  # misses round 1, answers it during round 2, then a second MOVE in round 2
        a.until("START 1")
        a.until("START 2")
        a.send(b"MOVE NORTH NORTH|MOVE NORTH NORTH|")
        play_out(a, b"MOVE NORTH NORTH|")

    def pushing_bot() -> None:  # one junk message, then always into the other player
        b.send(b"JUNK|")
        while True:
            block = []
            while not block or not block[-1].startswith(("START", "DISCONNECT")):
                message = b.recv()
                if message is None:
                    return
                block.append(message)
            if block[-1] == "DISCONNECT":
                return
            x = int(next(m for m in block if m.startswith("SET ")).split()[1].split(",")[0])
            b.send(b"MOVE EAST NORTH|" if x == 0 else b"MOVE WEST NORTH|")

    threads = in_threads(late_bot, pushing_bot)
    st.join()
    for t in threads:
        t.join(deadline(3))
    rounds = len(st.rounds)
    late, pushing = st.server.diagnostics()
    assert (late.refused, late.late, late.missing, late.ignored) == (
        {"wall": rounds - 1, "player": 0, "corner": 0}, 1, 1, 1)
    assert (pushing.refused, pushing.late, pushing.missing, pushing.ignored) == (
        {"wall": 0, "player": rounds, "corner": 0}, 0, 0, 1)
    assert late.silent_since is None and late.left_round is None
    assert (f"client 0 diagnostics: refused {rounds - 1} (wall {rounds - 1}, player 0, corner 0), late 1, "
            f"missing 1, ignored 1") in caplog.text
    assert (f"client 1 diagnostics: refused {rounds} (wall 0, player {rounds}, corner 0), late 0, missing 0, "
            f"ignored 1") in caplog.text


@pytest.mark.e2e
def test_seat_ports_give_seat_k_wire_id_k_whoever_connects_first():
    # Ids once followed the order of connection, so the same seeded game gave a bot another id run by run.
    st = ServerThread(players=3, seat_ports=True)
    ports = st.server.seat_ports
    (c2, id2) = join(ports[2])
    quitter = RawClient(ports[0])
    assert quitter.recv() == "ID 0"
    quitter.send(b"ID_NOT_OKAY|")
    assert quitter.eof()
    (c0, id0), (c1, id1) = join(ports[0]), join(ports[1])
    assert (id0, id1, id2) == (3, 1, 2)  # seat 0's second client: the next id after the seats'
    threads = in_threads(*(lambda c=c: play_out(c) for c in (c0, c1, c2)))
    st.join()
    for t in threads:
        t.join(deadline(3))
    assert st.server.wire_ids == [3, 1, 2]


def _peer(client: RawClient) -> str:
    return repr(client.sock.getsockname())


async def _three_seats() -> tuple[ArenaServer, asyncio.Task]:
    """A server for 3 players with a port per seat, listening, its game waiting for them (the task)."""
    server = await seat_server(3)
    return server, asyncio.create_task(server.run())


def test_a_bot_whose_connection_is_gone_as_it_joins_is_not_counted_as_joined(caplog):
    # A bot that answered ID_OKAY and died at once was counted as joined when the server's first write to it
    # (CONNECTED) found the connection gone: the write dropped it, and it was put in the lobby all the same,
    # so its seat played as its own (status "ok" in a tournament) and not as an idle body. The test breaks
    # the connection on the server's side at the moment its ID_OKAY is read.
    caplog.set_level(logging.INFO, logger="arena.server")

    async def go():
        server, game = await _three_seats()
        first, _ = await asyncio.to_thread(join, server.seat_ports[0])
        await until(lambda: server.joined_seats == {0: 0}, "seat 0 to join")
        second = await asyncio.to_thread(RawClient, server.seat_ports[1])
        assert await asyncio.to_thread(second.recv) == "ID 1"
        (gone,) = server._pending
        gone.writer.transport.abort()
        server._handle(gone, "ID_OKAY")
        joined, waiting = server.joined_seats, server.waiting_for
        if joined != {0: 0}:  # counted as joined: the seat is taken, so no idle body can take it
            server.stop("the test failed")
            await game
            return server, joined, waiting, [], []
        bodies = [server.add_absent(1), server.add_absent(2)]
        heard = await asyncio.to_thread(play_out, first)
        await game
        second.close()
        return server, joined, waiting, bodies, heard

    server, joined, waiting, bodies, heard = asyncio.run(go())
    assert (joined, waiting, bodies) == ({0: 0}, 2, [1, 2])
    # the bot waiting in the lobby never heard of client 1: neither CONNECTED 1 nor DISCONNECTED 1
    assert not [m for m in heard if m in ("CONNECTED 1", "DISCONNECTED 1")], heard
    assert server.wire_ids == [0, 1, 2] and server.connected == [True, False, False]
    messages = [r.getMessage() for r in caplog.records]
    joined_at = messages.index("client 1 joined (2 of 3)")
    assert joined_at < messages.index("client 1 disconnected: connection lost")
    left = {d.id: d for d in server.diagnostics()}[1]
    assert (left.joined, left.left_round, left.left_reason) == (True, 0, "connection lost")


def test_an_idle_body_has_the_id_of_its_seats_bot_and_turned_away_connections_are_logged(caplog):
    # A tournament gives a seat whose bot has not joined in time an idle body. A bot connected but silent
    # was then dropped "the game is full" as the game began, and its seat's idle body took a new id (3),
    # as did that of a bot that joined and left; connections turned away left no line in the log.
    caplog.set_level(logging.INFO, logger="arena.server")

    async def go():
        server, game = await _three_seats()
        ports = server.seat_ports
        seated, _ = await asyncio.to_thread(join, ports[0])
        silent = await asyncio.to_thread(RawClient, ports[1])
        assert await asyncio.to_thread(silent.recv) == "ID 1"
        leaver, _ = await asyncio.to_thread(join, ports[2])
        await until(lambda: server.joined_seats == {0: 0, 2: 2}, "seats 0 and 2 to join")
        leaver.sock.shutdown(socket.SHUT_WR)
        await until(lambda: server.joined_seats == {0: 0}, "seat 2's bot to leave")
        turned = []
        for port in (ports[0], ports[1]):
            second = await asyncio.to_thread(RawClient, port)
            assert await asyncio.to_thread(second.eof) and second.received == ["DISCONNECT"]
            turned.append(_peer(second))
        ids = [server.add_absent(2)]
        idle = await asyncio.to_thread(RawClient, ports[2])
        assert await asyncio.to_thread(idle.eof) and idle.received == ["DISCONNECT"]
        ids.append(server.add_absent(1))
        assert await asyncio.to_thread(silent.eof)
        await until(lambda: server.game is not None, "the game to begin")
        under_way = await asyncio.to_thread(RawClient, server.port)
        assert await asyncio.to_thread(under_way.eof) and under_way.received == ["DISCONNECT"]
        await asyncio.to_thread(play_out, seated)
        await game
        leaver.close()
        return server, ids, turned, _peer(idle), _peer(under_way)

    server, ids, turned, idle, under_way = asyncio.run(go())
    assert ids == [2, 1]
    assert server.wire_ids == [0, 1, 2]
    messages = [r.getMessage() for r in caplog.records]
    for seat, peer in enumerate(turned):
        assert (f"connection from {peer} to seat {seat} turned away: a second connection (client {seat} "
                f"holds the seat)") in messages
    assert f"connection from {idle} to seat 2 turned away: the seat is an idle body (client 2)" in messages
    assert f"connection from {under_way} turned away: the game is under way" in messages
    assert "client 1 disconnected: no ID_OKAY within 60000 ms" in messages
    assert not [m for m in messages if "the game is full" in m]
    summaries = [m for m in messages if " diagnostics: " in m]
    assert [m.split(" diagnostics: ")[0] for m in summaries] == ["client 0", "client 1", "client 2"]
    assert summaries[1].endswith(", never joined")
    assert summaries[2].endswith(", left in round 0 (closed the connection)")

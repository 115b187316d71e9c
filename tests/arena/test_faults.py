"""Regression tests for faults found by testers (issue: tournaments, diagnostics and faults), real TCP on
127.0.0.1 and the real command line."""

from __future__ import annotations

import logging
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from arena_helpers import RawClient, ServerThread, in_threads, join, play_out
from deadline import deadline

from arena import replay
from arena.mapfile import MapError, find_map, load_arena

ROOM = "\n".join(["#########", "#       #", "#  ###  #", "#       #", "#########"]) + "\n"


def arena_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "arena", *args]


def listening_port(proc: subprocess.Popen) -> int:
    """The port an ``arena serve --port 0`` logs (``arena: listening on 127.0.0.1:PORT``)."""
    for line in proc.stderr:
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        if found:
            return int(found.group(1))
    raise AssertionError("the server never said where it listens")


@pytest.mark.e2e
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_mid_game_disconnects_every_bot_prints_the_table_and_removes_the_map_copy(tmp_path, signum):
    map_file = tmp_path / "my office,v2.map"
    map_file.write_text(ROOM)
    record = tmp_path / "game.jsonl"
    proc = subprocess.Popen(arena_cmd("serve", str(map_file), "--players", "2", "--port", "0", "--seed", "4",
                                      "--prep-ms", "50", "--move-ms", "60000", "--replay", str(record)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = listening_port(proc)
        (a, _), (b, _) = join(port), join(port)
        received = [a.until("START 1"), b.until("START 1")]
        paths = {next(m for m in messages if m.startswith("MAP ")).split(" ", 1)[1] for messages in received}
        assert len(paths) == 1
        copy = Path(paths.pop())
        # 2010 bots split messages on spaces and commas: the copy's name has neither
        assert re.fullmatch(r"my_office_v2-[A-Za-z0-9._-]+\.map", copy.name) and copy.is_file()
        a.send(b"MOVE EAST NORTH|")
        proc.send_signal(signum)
        assert a.until("DISCONNECT")[-1] == "DISCONNECT" and b.until("DISCONNECT")[-1] == "DISCONNECT"
        stdout, stderr = proc.communicate(timeout=deadline(10))
    finally:
        if proc.poll() is None:
            proc.kill()
    reason = "terminated" if signum == signal.SIGTERM else "interrupted"
    assert proc.returncode == 128 + signum, stderr
    lines = stdout.splitlines()
    assert lines[0] == f"game stopped before round 1 ({reason})"
    assert lines[1].split() == ["id", "points", "switch", "catches", "rank"]
    assert [line.split() for line in lines[2:4]] == [["0", "0.00", "-", "0", "1"],
                                                     ["1", "0.00", "-", "0", "1"]]
    assert lines[4] == f"replay: {record}"
    assert not copy.exists()
    rep = replay.load(record)
    assert rep.final["stopped"] == reason and rep.final["rounds"] == 0 and replay.verify(rep).ok


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_in_the_lobby_stops_the_server_without_a_traceback(tmp_path, signum):
    # A bot waiting in the lobby when the server stopped had its reading cancelled, not ended: Python 3.11
    # printed "Exception in callback StreamReaderProtocol..." and a traceback of CancelledError. It is told
    # the game is over (DISCONNECT) before its connection is closed, as the bots of a game under way are.
    proc = subprocess.Popen(arena_cmd("serve", "office", "--players", "3", "--port", "0", "--replay",
                                      str(tmp_path / "r.jsonl")),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = listening_port(proc)
        waiting, _ = join(port)
        for line in proc.stderr:
            if "joined (1 of 3)" in line:
                break
        proc.send_signal(signum)
        assert waiting.until("DISCONNECT")[-1] == "DISCONNECT"
        assert waiting.eof()
        _stdout, stderr = proc.communicate(timeout=deadline(10))
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signum, stderr
    reason = "terminated" if signum == signal.SIGTERM else "interrupted"
    last = [f"arena: stopping: {reason}", f"arena: {reason} before the game began"]
    assert stderr.splitlines()[-2:] == last


@pytest.mark.e2e
def test_a_replay_that_cannot_be_written_mid_game_is_one_warning_and_the_game_goes_on():
    done = subprocess.run(arena_cmd("play", "office", "--bots", "2", "--no-window", "--replay", "/dev/full",
                                    "--seed", "2", "--quiet-rounds", "2", "--round-ms", "0",
                                    "--prep-ms", "50", "-q"),
                          capture_output=True, text=True, timeout=deadline(40))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "arena: cannot write the replay /dev/full: No space left on device; the game goes on without it"]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("game over after ")
    assert lines[-2] == "replay: not written (No space left on device)"


def test_a_replay_path_that_can_never_be_written_is_refused_before_any_bot_joins(tmp_path):
    (tmp_path / "file").write_text("")
    target = tmp_path / "file" / "game.jsonl"
    done = subprocess.run(arena_cmd("serve", "office", "--port", "0", "--replay", str(target)),
                          capture_output=True, text=True, timeout=deadline(20))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"arena: cannot write the replay {target}: Not a directory"]


def test_a_replay_is_not_written_over_the_map_or_its_toxicity_file(tmp_path, monkeypatch):
    # "arena play myoffice.map ... --replay myoffice.map" played and wrote the replay over the map
    monkeypatch.chdir(tmp_path)
    (tmp_path / "myoffice.map").write_text(ROOM)
    (tmp_path / "myoffice.toxic").write_text("\n 9\n")
    (tmp_path / "other.toxic").write_text("0\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.map").symlink_to("myoffice.map")
    os.link(tmp_path / "myoffice.toxic", tmp_path / "hard.jsonl")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    map_is, toxic_is = "the map being played", "the toxicity file of the map being played"
    cases = [
        (["play", "myoffice.map", "--bots", "2"], "myoffice.map", map_is, ""),
        (["serve", "myoffice.map"], "myoffice.map", map_is, ""),
        (["serve", "myoffice.map"], "sub/../myoffice.map", map_is, ""),
        (["play", "link.map", "--bots", "2"], "myoffice.map", map_is, " (link.map)"),
        (["serve", "myoffice.map"], "myoffice.toxic", toxic_is, ""),
        (["play", "myoffice.map", "--bots", "2"], "hard.jsonl", toxic_is, " (myoffice.toxic)"),
        (["serve", "myoffice.map", "--toxic", "other.toxic"], "other.toxic", toxic_is, ""),
        (["serve", "office"], str(find_map("office")), map_is, ""),
    ]
    for command, target, what, spelled in cases:
        quiet = "--no-window" if command[0] == "play" else "-q"
        done = subprocess.run(arena_cmd(*command, "--port", "0", quiet, "--prep-ms", "0", "--replay", target),
                              capture_output=True, text=True, timeout=deadline(20))
        assert (done.returncode, done.stdout, done.stderr) == (
            2, "", f"arena: --replay {target} is {what}{spelled}: the replay would overwrite it\n"), command
    # a map with no toxicity file yet: a replay written where it is looked for would become it
    (tmp_path / "plain.map").write_text(ROOM)
    before["plain.map"] = ROOM.encode()
    for command in (["play", "plain.map", "--bots", "2", "--no-window"], ["serve", "plain.map", "-q"]):
        done = subprocess.run(arena_cmd(*command, "--port", "0", "--prep-ms", "0", "--replay", "plain.toxic"),
                              capture_output=True, text=True, timeout=deadline(20))
        assert (done.returncode, done.stdout, done.stderr) == (
            2, "", "arena: --replay plain.toxic is where the map's toxicity file is looked for: the replay "
                   "would be read as its toxicity in every later game\n"), command
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
    # another file beside them is written as before
    done = subprocess.run(arena_cmd("play", "myoffice.map", "--bots", "2", "--no-window", "--prep-ms", "0",
                                    "--round-ms", "0", "--replay", "game.jsonl"),
                          capture_output=True, text=True, timeout=deadline(60))
    assert done.returncode == 0, done.stderr
    assert replay.load(tmp_path / "game.jsonl").header["map"] == "myoffice"


def test_no_room_names_the_players_that_need_a_cell(tmp_path):
    walls = tmp_path / "walls.map"
    walls.write_text("###\n###\n")
    with pytest.raises(MapError) as info:
        load_arena(walls, players=5)
    assert str(info.value) == f"{walls}: 0 free cells, but 5 players need one each"
    done = subprocess.run(arena_cmd("serve", str(walls), "--players", "5", "--port", "0"),
                          capture_output=True, text=True, timeout=deadline(20))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"arena: {walls}: 0 free cells, but 5 players need one each"]


@pytest.mark.parametrize("web", [[], ["--web", "0"]])
def test_play_on_a_busy_port_prints_exactly_one_line(web):
    # With --web it said "watch the game at http://..." first, for a game that never started.
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(arena_cmd("play", "office", "--bots", "3", "--no-window", "--port", str(port),
                                        *web), capture_output=True, text=True, timeout=deadline(20))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"arena: cannot listen on 127.0.0.1:{port}: Address already in use"]
    assert done.stdout == ""


@pytest.mark.e2e
def test_the_preparation_has_its_own_64_message_limit_and_round_1_counts_from_its_start():
    st = ServerThread(players=3, prep_ms=1500, move_ms=20000, quiet_rounds=2)
    (a, _), (b, _) = join(st.port), join(st.port)
    a.send(b"PING|" * 40)  # waiting for the third player
    c, _ = join(st.port)
    for client in (a, b, c):
        client.until("MAP ")
    a.send(b"PING|" * 60)  # 40 + 60 before round 1: within the limits of waiting and of the preparation
    c.send(b"PING|" * 65)  # more than 64 in the preparation
    assert c.eof()
    a.until("START 1")
    a.send(b"PING|" * 60 + b"MOVE NONE NORTH|")  # 61 in round 1
    threads = in_threads(lambda: play_out(a), lambda: play_out(b))
    st.join()
    for t in threads:
        t.join(deadline(3))
    first, second, third = st.server.diagnostics()
    assert first.left_round is None and second.left_round is None
    assert third.left_round == 0 and third.left_reason == "more than 64 messages during the preparation"
    assert len(st.rounds) >= 2 and st.rounds[0][1][0] == (0, "NONE", "NORTH")


@pytest.mark.e2e
def test_a_flood_while_waiting_for_players_is_named_so(caplog):
    # A client sending more than 64 messages before the game began was "disconnected: more than 64 messages
    # in one round", though no round had begun.
    caplog.set_level(logging.INFO, logger="arena.server")
    st = ServerThread(players=3, quiet_rounds=2, move_ms=20000)
    (a, _), (b, _) = join(st.port), join(st.port)
    b.send(b"PING|" * 65)
    assert b.eof()
    (c, _), (d, _) = join(st.port), join(st.port)
    threads = in_threads(lambda: play_out(a), lambda: play_out(c), lambda: play_out(d))
    st.join()
    for t in threads:
        t.join(deadline(3))
    assert "client 1 disconnected: more than 64 messages while waiting for players (between two PINGs)" \
        in caplog.text
    assert "in one round" not in caplog.text


@pytest.mark.parametrize(("command", "option"), [
    (["serve", "office", "--port", "0"], "--replay"),
    (["play", "office", "--no-window"], "--replay"),
    (["tournament", "hunt", "flee", "--maps", "office"], "--out"),
])
def test_an_empty_file_name_is_refused_naming_the_option(command, option):
    # `--replay ''` wrote to the default replay folder and `--out ''` to a dated results folder.
    done = subprocess.run(arena_cmd(*command, option, ""), capture_output=True, text=True,
                          timeout=deadline(20))
    assert (done.returncode, done.stderr, done.stdout) == (2, f"arena: {option}: empty file name\n", "")


@pytest.mark.e2e
def test_the_replay_folders_are_made_at_the_first_write_not_at_the_start(tmp_path):
    target = tmp_path / "no" / "such" / "game.jsonl"
    proc = subprocess.Popen(arena_cmd("serve", "office", "--players", "2", "--port", "0", "--replay",
                                      str(target)), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        listening_port(proc)
        assert not (tmp_path / "no").exists()  # checked, not made
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=deadline(10))
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and list(tmp_path.iterdir()) == []
    writer = replay.ReplayWriter(target)
    writer.prepare()
    assert list(tmp_path.iterdir()) == []
    writer.open()
    writer.close()
    assert target.is_file() and target.stat().st_size == 0


def test_a_replay_under_a_file_that_is_a_folder_is_still_refused_at_the_start(tmp_path):
    (tmp_path / "taken").mkdir()
    with pytest.raises(IsADirectoryError):
        replay.ReplayWriter(tmp_path / "taken").prepare()
    (tmp_path / "file").write_text("")
    with pytest.raises(NotADirectoryError):
        replay.ReplayWriter(tmp_path / "file" / "a" / "game.jsonl").prepare()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "taken"]


@pytest.mark.e2e
def test_a_replay_cut_short_by_a_file_size_limit_is_left_as_partial(tmp_path):
    import resource

    def small_files() -> None:  # writing past 16 KB fails (EFBIG: SIGXFSZ is ignored)
        resource.setrlimit(resource.RLIMIT_FSIZE, (16_000, 16_000))

    target = tmp_path / "game.jsonl"
    done = subprocess.run(arena_cmd("play", "office", "--bots", "4", "--no-window", "--replay", str(target),
                                    "--seed", "2", "--round-ms", "0", "--prep-ms", "50", "-q"),
                          capture_output=True, text=True, timeout=deadline(40), preexec_fn=small_files)
    assert done.returncode == 0, done.stderr
    partial = tmp_path / "game.jsonl.partial"
    assert done.stderr.splitlines() == [
        f"arena: cannot write the replay {target}: File too large; the game goes on without it (what was "
        f"written is in {partial})"]
    assert done.stdout.splitlines()[-2] == (f"replay: not written (File too large); the rounds before are in "
                                            f"{partial}")
    assert not target.exists() and 0 < partial.stat().st_size <= 16_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.jsonl.partial"]  # no LAST.jsonl either
    # The rounds before are in FILE.partial: its last line, cut short by the limit, is left out (the whole
    # file was refused, "not JSON"). Once in thousands of games the limit falls at the end of a line.
    lines = partial.read_bytes().split(b"\n")
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    shown = subprocess.run(arena_cmd("replay", str(partial)), capture_output=True, text=True,
                           timeout=deadline(20), env=env)
    assert shown.returncode == 0 and shown.stdout.endswith("(no final table: the game was cut off)\n")
    rounds = len(lines) - 2
    assert shown.stderr == (f"arena: {partial}:{len(lines)}: the last line is cut short; using the {rounds} "
                            f"rounds before it\n" if lines[-1] else "")
    assert f"round {rounds:>4}: " in shown.stdout


@pytest.mark.e2e
@pytest.mark.parametrize("folder", ["my tmp", "tmp,2010"])
def test_the_map_line_holds_no_space_or_comma_whatever_tmpdir_holds(tmp_path, folder):
    # A 2010 bot splits the server's messages on spaces and commas: a TMPDIR of "my tmp" put a space in the
    # MAP line and the bot read the map from "/.../my".
    unsafe = tmp_path / folder
    unsafe.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    env["TMPDIR"] = str(unsafe)
    proc = subprocess.Popen(arena_cmd("serve", "office", "--players", "2", "--port", "0", "--seed", "4",
                                      "--prep-ms", "50", "--move-ms", "60000", "--replay",
                                      str(tmp_path / "game.jsonl")),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        port = listening_port(proc)
        (a, _), (b, _) = join(port), join(port)
        received = a.until("START 1")
        b.until("START 1")
        (line,) = [m for m in received if m.startswith("MAP ")]
        path = line.removeprefix("MAP ")
        assert re.fullmatch(r"[^\s,|]+", path) and Path(path).is_file(), line
        assert Path(path).parent == Path(f"/tmp/arena-{os.getuid()}").resolve()
        assert list(unsafe.iterdir()) == []
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=deadline(10))
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143 and not Path(path).exists()


@pytest.mark.e2e
def test_serve_logs_each_connection_it_turns_away_and_why(tmp_path):
    # A third bot of a game of two was turned away (DISCONNECT, closed) with no line in the server's log,
    # not even "connected from".
    proc = subprocess.Popen(arena_cmd("serve", "office", "--players", "2", "--port", "0", "--prep-ms", "50",
                                      "--move-ms", "60000", "--replay", str(tmp_path / "game.jsonl")),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = listening_port(proc)
        (a, _), (b, _) = join(port), join(port)
        a.until("MAP ")
        b.until("MAP ")
        third = RawClient(port)
        peer = third.sock.getsockname()
        assert third.eof() and third.received == ["DISCONNECT"]
        for client in (a, b, third):
            client.close()
        _stdout, stderr = proc.communicate(timeout=deadline(30))
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    assert f"arena: connection from {peer!r} turned away: the game is under way" in stderr.splitlines()

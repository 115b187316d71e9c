"""The web spectator (spec/arena.md §4): the replay page's contents, and live games served to many WebSocket
viewers over real TCP (slow ones dropped, bad input answered or closed)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys

import pytest
from deadline import deadline
from web_helpers import ServeProcess, handshake, http_get, instant_bots, read_all

from arena import look, replay, view, web
from arena.rules import VECTORS

VIEWERS = 50
STALLED = 10


def page_data(text: str) -> tuple[dict, list[dict]]:
    """The config and the replay lines a page holds."""
    config = re.search(r'<script type="application/json" id="arena-config">(.*?)</script>', text, re.S)
    data = re.search(r'<script type="application/x-ndjson" id="arena-replay">(.*?)</script>', text, re.S)
    assert config and data
    return json.loads(config.group(1)), [json.loads(line) for line in data.group(1).splitlines() if line]


def arena_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "arena", *args]


def test_the_page_holds_the_replay_and_the_x_spectators_colours_and_words():
    lines = [b'{"type":"header","map":"</script><!-- office"}', b'{"type":"round","round":1}']
    text = web.page(lines, title="</script> x", step_ms=100)
    config, records = page_data(text)
    assert records == [{"type": "header", "map": "</script><!-- office"}, {"type": "round", "round": 1}]
    assert text.count("</script>") == 3  # the page's own three scripts, none from the data
    assert "<title>arena &lt;/script&gt; x</title>" in text
    assert config["title"] == "</script> x" and config["step_ms"] == 100 and config["live"] is False
    assert config["vectors"] == {k: list(v) for k, v in VECTORS.items()}
    colours = config["look"]
    assert colours["team"] == {"BLUE": list(view.BLUE_RGB), "RED": list(view.RED_RGB)}
    assert colours["wall"] == list(view.WALL_RGB) == [40, 40, 40]
    assert colours["free"][0] == list(view.free_colour(1)) and colours["free"][19] == [150, 200, 110]
    assert colours["legend"] == look.LEGEND and colours["head"] == look.HEAD
    assert [c[0] for c in colours["panel_columns"]] == view.PANEL_HEADING.split()


def test_the_page_and_the_x_view_word_a_stopped_game_as_the_print_does():
    config, _ = page_data(web.page([], title="office"))
    assert config["look"]["stopped"] == list(look.STOPPED)  # the page picks one as look.counted does
    said = {0: "game stopped before round 1 (interrupted)", 1: "game stopped after 1 round (interrupted)",
            2: "game stopped after 2 rounds (interrupted)", 85: "game stopped after 85 rounds (interrupted)"}
    for rounds, text in said.items():
        fields = {"rounds": rounds, "why": "interrupted"}
        filled = re.sub(r"\{(\w+)\}", lambda m, f=fields: str(f[m.group(1)]),
                        config["look"]["stopped"][min(rounds, 2)])
        assert filled == look.ending(rounds, "interrupted") == text
        state = {"round": rounds, "max_rounds": 90, "players": [{"team": "BLUE"}, {"team": "RED"}]}
        assert look.head_text("office", state, over=True, stopped="interrupted", note="paused") == \
            f"office  round {rounds}/90   blue 1  red 1   {text}   paused"
    assert look.ending(85) == "game over after 85 rounds" and look.ending(1) == "game over after 1 round"


def test_the_x_view_and_the_page_say_the_same_title():
    state = {"round": 7, "max_rounds": 120, "players": [{"team": "BLUE"}, {"team": "RED"}, {"team": "RED"}]}
    assert look.head_text("office", state) == "office  round 7/120   blue 1  red 2"
    assert look.head_text("office", state, over=True, note="paused") == \
        "office  round 7/120   blue 1  red 2   game over   paused"
    assert look.head_text("office", {"players": [], "waiting": 1}) == "office  waiting for 1 bot"
    filled = re.sub(r"\{(\w+)\}", lambda m: str({"title": "office", "round": 7, "max_rounds": 120, "blues": 1,
                                                   "reds": 2}[m.group(1)]), look.HEAD)
    assert filled == look.head_text("office", state)  # the page fills the same template the same way


def test_replay_html_errors_are_one_line(tmp_path):
    game = tmp_path / "game.jsonl"
    played = subprocess.run(arena_cmd("play", "office", "--bots", "3", "--no-window", "--round-ms", "0",
                                      "--prep-ms", "0", "--seed", "2", "--replay", str(game), "-q"),
                            capture_output=True, text=True, timeout=deadline(40))
    assert played.returncode == 0, played.stderr
    missing = subprocess.run(arena_cmd("replay", str(game), "--html", str(tmp_path / "no" / "x.html")),
                             capture_output=True, text=True, timeout=deadline(20))
    assert missing.returncode == 2
    assert missing.stderr == f"arena: cannot write {tmp_path / 'no' / 'x.html'}: No such file or directory\n"
    both = subprocess.run(arena_cmd("replay", str(game), "--html", str(tmp_path / "x.html"), "--verify"),
                          capture_output=True, text=True, timeout=deadline(20))
    assert both.returncode == 2 and both.stderr.count("\n") == 1 and "--html" in both.stderr
    assert not (tmp_path / "x.html").exists()
    made = subprocess.run(arena_cmd("replay", str(game), "--html", str(tmp_path / "x.html")),
                          capture_output=True, text=True, timeout=deadline(20))
    assert made.returncode == 0
    _, records = page_data((tmp_path / "x.html").read_text(encoding="utf-8"))
    assert records == [json.loads(line) for line in game.read_text(encoding="utf-8").splitlines()]


def test_a_page_is_not_written_over_the_replay_it_shows(tmp_path, monkeypatch):
    # "arena replay srv.jsonl --html srv.jsonl" printed "page: srv.jsonl (90 rounds)": the replay was lost
    monkeypatch.chdir(tmp_path)
    game = tmp_path / "srv.jsonl"
    played = subprocess.run(arena_cmd("play", "office", "--bots", "2", "--no-window", "--round-ms", "0",
                                      "--prep-ms", "0", "--seed", "5", "--replay", str(game), "-q"),
                            capture_output=True, text=True, timeout=deadline(40))
    assert played.returncode == 0, played.stderr
    recorded = game.read_bytes()
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.jsonl").symlink_to(game)
    os.link(game, tmp_path / "hard.html")
    for read, page, spelled in (("srv.jsonl", "srv.jsonl", ""), ("srv.jsonl", "sub/../srv.jsonl", ""),
                                ("srv.jsonl", "link.jsonl", " (srv.jsonl)"),
                                ("link.jsonl", "hard.html", " (link.jsonl)"),
                                (str(game), "./srv.jsonl", "")):
        refused = subprocess.run(arena_cmd("replay", read, "--html", page), capture_output=True, text=True,
                                 timeout=deadline(20))
        assert (refused.returncode, refused.stdout, refused.stderr) == (
            2, "", f"arena: --html {page} is the replay being read{spelled}: the page would overwrite it\n")
        assert game.read_bytes() == recorded
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hard.html", "link.jsonl", "srv.jsonl", "sub"]


def test_a_web_port_in_use_is_refused_before_anything_starts(tmp_path):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        run = subprocess.run(arena_cmd("serve", "office", "--web", str(port), "--replay",
                                       str(tmp_path / "r")), capture_output=True, text=True,
                             timeout=deadline(20))
    finally:
        taken.close()
    assert run.returncode == 2
    assert run.stderr == f"arena: --web: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    bad = subprocess.run(arena_cmd("play", "office", "--web", "70000"), capture_output=True, text=True,
                         timeout=deadline(20))
    assert bad.returncode == 2 and "--web" in bad.stderr and "70000" in bad.stderr


def test_the_games_own_port_is_refused_for_the_web_page_before_anything_starts(tmp_path):
    # "arena serve office --port P --web P" said "watch the game at http://127.0.0.1:P/", then that it could
    # not listen on P, which it held itself
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    port = str(free.getsockname()[1])
    free.close()
    for command in (("serve", "office"), ("play", "office", "--no-window")):
        argv = arena_cmd(*command, "--port", port, "--web", port, "--replay", str(tmp_path / "r"))
        run = subprocess.run(argv, capture_output=True, text=True, timeout=deadline(20))
        assert (run.returncode, run.stdout, run.stderr) == (
            2, "", f"arena: --web {port} is the game's --port {port}: give the web page a port of its own "
                   f"(0: any free port)\n")
    assert list(tmp_path.iterdir()) == []


def test_a_web_host_without_a_web_port_is_refused_before_anything_starts(tmp_path):
    # "--web-host 0.0.0.0" alone served nothing and said nothing: the room of viewers waited for a page.
    for command in (("serve", "office", "--replay", str(tmp_path / "r")),
                    ("play", "office", "--no-window", "--replay", str(tmp_path / "r")),
                    ("tournament", "hunt", "flee", "--out", str(tmp_path / "t"))):
        run = subprocess.run(arena_cmd(*command, "--web-host", "0.0.0.0"), capture_output=True, text=True,
                             timeout=deadline(20))
        assert (run.returncode, run.stdout, run.stderr) == (
            2, "", "arena: --web-host is the address of --web's page: give --web PORT too\n"), command
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("option", "argv"), [("--host", ["--host", ""]),
                                              ("--web-host", ["--web", "0", "--web-host", ""]),
                                              ("--web-host", ["--web", "0", "--web-host", " "])])
def test_an_empty_address_is_refused_before_anything_starts(option, argv, tmp_path):
    # "--web 0 --web-host ''" served the page on 127.0.0.1 as if no address were given; "--host ''" listened
    # on every interface.
    run = subprocess.run(arena_cmd("serve", "office", *argv, "--replay", str(tmp_path / "r")),
                         capture_output=True, text=True, timeout=deadline(20))
    assert (run.returncode, run.stdout, run.stderr) == (
        2, "", f"arena: argument {option}: an empty address (0.0.0.0 listens on every interface)\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("host", "web_host", "clash"), [
    ("127.0.0.1", "127.0.0.1", True), ("127.0.0.1", "127.0.0.2", False), ("127.0.0.1", "::1", False),
    ("0.0.0.0", "127.0.0.2", True), ("127.0.0.1", "::", True), ("127.0.0.1", "localhost", True),
    ("127.0.0.1", "::ffff:127.0.0.1", True), ("127.0.0.1", "127.1", True)])
def test_the_same_port_number_is_refused_for_addresses_that_can_clash(host, web_host, clash):
    # --web-host ::ffff:127.0.0.1 (127.0.0.1 written as IPv6) once passed, and the bind failed later.
    from arena.cli import _may_share

    assert _may_share(host, web_host) is clash


def test_the_games_port_number_serves_the_web_page_too_on_another_address(tmp_path):
    # "--port P --web P" was refused even when the game and the page listened on two different addresses.
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    port = str(free.getsockname()[1])
    free.close()
    argv = arena_cmd("play", "office", "--no-window", "--host", "127.0.0.1", "--port", port, "--web", port,
                     "--web-host", "127.0.0.2", "--move-ms", "200", "--prep-ms", "50", "--seed", "3",
                     "--replay", str(tmp_path / "r.jsonl"))
    run = subprocess.run(argv, capture_output=True, text=True, timeout=deadline(60))
    assert run.returncode == 0, run.stderr
    assert f"http://127.0.0.2:{port}/" in run.stderr + run.stdout
    assert replay.verify(replay.load(tmp_path / "r.jsonl")).ok


async def read_viewer(port: int, out: list[bytes]) -> str:
    """A WebSocket viewer reading every message into *out*; how its connection ended."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    async with connect(f"ws://127.0.0.1:{port}/ws", proxy=None, max_size=None, compression=None,
                       open_timeout=deadline(20)) as ws:
        try:
            async for message in ws:
                out.append(message.encode() if isinstance(message, str) else message)
        except ConnectionClosed as exc:
            return f"closed {exc.rcvd.code if exc.rcvd else None}"
        return f"closed {ws.close_code}"


@pytest.mark.e2e
def test_fifty_viewers_some_never_reading_follow_a_game_that_never_waits_for_them(tmp_path):
    game = tmp_path / "game.jsonl"
    server = ServeProcess("serve", "metropolis", "--players", "16", "--port", "0", "--web", "0", "--prep-ms",
                          "3000", "--move-ms", "5000", "--seed", "3", "--replay", str(game))
    try:
        stalled = [handshake(server.web_port, receive_buffer=4096) for _ in range(STALLED)]
        readers: list[list[bytes]] = [[] for _ in range(VIEWERS - STALLED)]

        async def watch() -> list[str]:
            return await asyncio.gather(*(read_viewer(server.web_port, out) for out in readers))

        result: list[str] = []
        import threading

        thread = threading.Thread(target=lambda: result.extend(asyncio.run(watch())), daemon=True)
        thread.start()
        instant_bots(server.port, 16, seed=3)
        assert server.wait() == 0, server.lines
        thread.join(deadline(20))
        ends = [read_all(sock) for sock in stalled]
    finally:
        server.kill()
    written = game.read_bytes()
    rounds = written.count(b'"type":"round"')
    assert rounds > 150 and written.endswith(b"\n") and b'"type":"final"' in written.splitlines()[-1]
    assert result == ["closed 1001"] * len(readers)  # the relay said it was going away, at the end
    for out in readers:  # every line of the replay, in order, in whole lines
        assert b"".join(out) == written
    # each stalled viewer was dropped: its connection ends early, without the closing frame the others got
    close_frame = bytes([0x88, 0x02]) + (1001).to_bytes(2, "big")
    assert all(len(got) < len(written) and not got.endswith(close_frame) for got in ends), [*map(len, ends)]
    assert sum("dropped" in line for line in server.lines) == STALLED
    # the game never waited for them: the bots' moves all came (no round timed out at 5 s)
    assert not any("no MOVE in time" in line for line in server.lines)


@pytest.mark.e2e
def test_bad_http_and_websocket_input_is_answered_or_closed(tmp_path):
    game = tmp_path / "game.jsonl"
    server = ServeProcess("serve", "office", "--players", "2", "--port", "0", "--web", "0", "--prep-ms", "0",
                          "--round-ms", "20", "--seed", "4", "--replay", str(game))
    try:
        port = server.web_port
        assert http_get(port, b"GARBAGE\r\n\r\n") == b""  # not HTTP: closed
        assert http_get(port, b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 404")
        assert http_get(port, b"GET /ws HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 426")
        assert http_get(port, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc") == b""
        huge = b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"y" * 100_000 + b"\r\n\r\n"
        assert http_get(port, huge).startswith(b"HTTP/1.1 431")
        half = socket.create_connection(("127.0.0.1", port))
        half.sendall(b"GET / HTTP/1.1\r\nHo")
        half.close()
        page = http_get(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert page.startswith(b"HTTP/1.1 200") and b"text/html" in page and b'"live":true' in page
        loud = handshake(port)  # a viewer that sends a frame too big: closed with 1009, the others go on
        loud.sendall(bytes([0x81, 0xFE, 0x20, 0x00]) + bytes(4) + b"x" * 0x2000)
        answer = loud.recv(64)
        assert answer[0] == 0x88 and int.from_bytes(answer[2:4], "big") == 1009  # a close frame: too big
        loud.close()
        elsewhere = (b"GET /elsewhere HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        assert http_get(port, elsewhere).startswith(b"HTTP/1.1 404")
        out: list[bytes] = []
        instant_bots(server.port, 2, seed=4)
        ended = asyncio.run(read_viewer(port, out))
        assert server.wait() == 0, server.lines
    finally:
        server.kill()
    assert ended == "closed 1001"
    assert b"".join(out) == game.read_bytes()
    assert not any("Traceback" in line or "Error" in line for line in server.lines), server.lines

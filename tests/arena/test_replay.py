"""Replays (spec/arena.md §4): written by every game, re-simulation reproduces every state exactly."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from arena_helpers import small_arena
from deadline import deadline

from arena import look, replay
from arena.bots import run_bot
from arena.server import ArenaServer, Settings


def play_game(path, *, players=4, seed=11, quiet_rounds=4) -> ArenaServer:
    """A real game over loopback TCP with the example bots, writing a replay to *path*."""
    writer = replay.ReplayWriter(path, last=True)
    server = ArenaServer(small_arena(), Settings(players=players, port=0, move_ms=3000, prep_ms=20, seed=seed,
                                                 quiet_rounds=quiet_rounds), [writer])

    async def go():
        await server.start()
        strategies = ["hunt", "flee", "random", "hunt"]
        bots = [asyncio.create_task(run_bot("127.0.0.1", server.port, strategies[i % 4], random.Random(i),
                                            timeout_s=deadline(10))) for i in range(players)]
        await server.run()
        await asyncio.wait_for(asyncio.gather(*bots), deadline(10))

    asyncio.run(go())
    return server


def test_replay_resimulates_exactly_and_matches_the_game(tmp_path):
    path = tmp_path / "game.jsonl"
    server = play_game(path)
    rep = replay.load(path)
    head = rep.header
    assert head["map"] == "room" and head["seed"] == 11 and head["players"] == 4 and head["quiet_rounds"] == 4
    assert head["max_rounds"] == 16 and head["ids"] == [0, 1, 2, 3]
    assert head["walls"][4] == "#  #####   #" and head["toxicity"][1][1] == 10
    assert len(rep.rounds) == server.game.round and [r["round"] for r in rep.rounds] == list(
        range(1, server.game.round + 1))
    assert rep.rounds[-1]["state"] == server.game.snapshot()
    assert all(all(isinstance(m, list) and len(m) == 3 for m in r["moves"]) for r in rep.rounds)
    verdict = replay.verify(rep)
    assert verdict.ok and verdict.rounds == [] and verdict.ending == []
    final = rep.final["table"]
    assert [(r["rank"], r["id"], Fraction(r["points"])) for r in final] == \
        sorted(server.game.standings(), key=lambda t: (t[0], t[1]))
    assert (tmp_path / "LAST.jsonl").read_text() == path.read_text()


def test_tampered_replay_is_detected(tmp_path):
    path = tmp_path / "game.jsonl"
    play_game(path, seed=3)
    lines = path.read_text().splitlines()
    rounds = [i for i, line in enumerate(lines) if json.loads(line)["type"] == "round"]
    target = None
    for i in rounds:
        obj = json.loads(lines[i])
        if obj["moves"]:
            pid, direction, facing = obj["moves"][0]
            obj["moves"][0] = [pid, direction, "SOUTH" if facing != "SOUTH" else "NORTH"]
            lines[i] = json.dumps(obj)
            target = obj["round"]
            break
    assert target is not None
    path.write_text("\n".join(lines) + "\n")
    assert replay.verify(replay.load(path)).rounds[:1] == [target]
    head = json.loads(lines[0])
    head["seed"] += 1
    lines[0] = json.dumps(head)
    path.write_text("\n".join(lines) + "\n")
    assert replay.verify(replay.load(path)).rounds[0] == 0


def test_verify_checks_the_final_table_and_that_the_game_finishes(tmp_path):
    path = tmp_path / "game.jsonl"
    play_game(path, seed=5)
    lines = path.read_text().splitlines()
    final = json.loads(lines[-1])
    assert final["type"] == "final"
    winner = final["table"][0]
    forged = {**final, "table": [{**winner, "points": "9999/1", "shown": "9999.00"}, *final["table"][1:]]}
    cases = {
        "forged.jsonl": ([*lines[:-1], json.dumps(forged)],
                         [f"final table row 1: points '9999/1', re-simulated {winner['points']!r}",
                          f"final table row 1: shown '9999.00', re-simulated {winner['shown']!r}"]),
        "nofinal.jsonl": (lines[:-1], [f"no final table (the game finished in round {final['rounds']})"]),
        "cut.jsonl": (lines[:3], ["the game does not finish: the replay stops after round 2 with blue "
                                  "players left"]),
    }
    for name, (text, problems) in cases.items():
        (tmp_path / name).write_text("\n".join(text) + "\n")
        verdict = replay.verify(replay.load(tmp_path / name))
        assert verdict.rounds == [] and verdict.ending == problems and not verdict.ok
        done = subprocess.run([sys.executable, "-m", "arena", "replay", "--verify", str(tmp_path / name)],
                              capture_output=True, text=True, timeout=deadline(20))
        assert done.returncode == 1
        assert done.stdout.splitlines() == [f"{tmp_path / name}: {problem}" for problem in problems]


def play_two_hunt_bots(path, observer, prep_ms):
    """A game of two ``hunt`` bots on the small arena over TCP, its replay written to *path*, with *observer*
    (which may stop it) watching."""
    server = ArenaServer(small_arena(), Settings(players=2, port=0, move_ms=3000, prep_ms=prep_ms, seed=3),
                         [replay.ReplayWriter(path), observer])

    async def go():
        await server.start()
        bots = [asyncio.create_task(run_bot("127.0.0.1", server.port, "hunt", random.Random(i),
                                            timeout_s=deadline(10)))
                for i in range(2)]
        await server.run()
        await asyncio.wait_for(asyncio.gather(*bots), deadline(10))

    asyncio.run(go())


class StopAfterRound3:
    """An observer that stops the game after round 3, as SIGINT does."""

    def on_start(self, server):
        pass

    def on_round(self, server, result, moves):
        if server.game.round == 3:
            server.stop("interrupted")

    def on_end(self, server, table):
        pass


class StopInPauseAfterRound1:
    """An observer that stops the game as SIGINT does, once the pause after round 1 has begun."""

    def on_start(self, server):
        pass

    def on_round(self, server, result, moves):
        if server.game.round == 1:   # runs when the round's pause yields to the event loop
            asyncio.get_running_loop().call_soon(server.stop, "interrupted")

    def on_end(self, server, table):
        pass


def test_a_stop_ends_the_pause_between_rounds_at_once(tmp_path):
    # --round-ms 86400000 (a day, which the guide allows): a signal during the pause after a round waited out
    # the rest of the pause before the game ended
    path = tmp_path / "paused.jsonl"
    server = ArenaServer(small_arena(), Settings(players=2, port=0, move_ms=3000, prep_ms=20, seed=3,
                                                 round_pause_ms=86_400_000),
                         [replay.ReplayWriter(path), StopInPauseAfterRound1()])

    async def go():
        await server.start()
        bots = [asyncio.create_task(run_bot("127.0.0.1", server.port, "hunt", random.Random(i),
                                            timeout_s=deadline(10)))
                for i in range(2)]
        table = await asyncio.wait_for(server.run(), deadline(30))
        await asyncio.wait_for(asyncio.gather(*bots), deadline(10))
        return table

    table = asyncio.run(go())
    assert len(table) == 2 and server.stopped == "interrupted"
    assert replay.load(path).final["rounds"] == 1
    done = subprocess.run([sys.executable, "-m", "arena", "replay", "--verify", str(path)],
                          capture_output=True, text=True, timeout=deadline(20))
    assert (done.returncode, done.stdout) == (   # "all 1 rounds" before
        0, f"{path}: the 1 round and the table so far reproduced exactly "
           f"(the game was stopped after round 1: interrupted)\n")


def test_verify_of_a_game_stopped_by_a_signal_says_so(tmp_path):
    # A replay of a game stopped early (its last line says "stopped") is checked as far as it went; --verify
    # said "all 3 rounds and the final table reproduced exactly", as for a finished game.
    path = tmp_path / "stopped.jsonl"
    play_two_hunt_bots(path, StopAfterRound3(), prep_ms=20)
    rep = replay.load(path)
    assert rep.final["stopped"] == "interrupted" and rep.final["rounds"] == 3 and replay.verify(rep).ok
    done = subprocess.run([sys.executable, "-m", "arena", "replay", "--verify", str(path)],
                          capture_output=True, text=True, timeout=deadline(20))
    assert (done.returncode, done.stdout) == (
        0, f"{path}: all 3 rounds and the table so far reproduced exactly "
           f"(the game was stopped after round 3: interrupted)\n")


def _printed(path: Path) -> list[str]:
    """The lines ``arena replay PATH`` prints (no display: the print, not the window); it must exit 0."""
    env = {key: value for key, value in os.environ.items() if key != "DISPLAY"}
    done = subprocess.run([sys.executable, "-m", "arena", "replay", str(path)], capture_output=True,
                          text=True, timeout=deadline(20), env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_print_of_a_game_stopped_by_a_signal_says_it_was_stopped(tmp_path):
    # "arena replay" printed "game over after 3 rounds" and the table, though the game had been stopped
    path = tmp_path / "stopped.jsonl"
    play_two_hunt_bots(path, StopAfterRound3(), prep_ms=20)
    out = _printed(path)
    assert out[-4] == "game stopped after 3 rounds (interrupted)"
    assert out[-3].split() == ["id", "points", "switch", "catches", "rank"]
    assert [line.split()[0] for line in out[-2:]] == ["0", "1"]
    assert sum(1 for line in out if line.startswith("round ")) == 3


def test_the_page_s_line_of_a_game_stopped_by_a_signal_says_it_was_stopped(tmp_path):
    # "arena replay --html" printed "page: OUT (3 rounds)", though the print, the page and the window say
    # the game was stopped
    path = tmp_path / "stopped.jsonl"
    play_two_hunt_bots(path, StopAfterRound3(), prep_ms=20)
    page = tmp_path / "stopped.html"
    env = {key: value for key, value in os.environ.items() if key != "DISPLAY"}
    made = subprocess.run([sys.executable, "-m", "arena", "replay", str(path), "--html", str(page)],
                          capture_output=True, text=True, timeout=deadline(20), env=env)
    assert (made.returncode, made.stderr) == (0, "") and page.is_file()
    assert made.stdout == f"page: {page} (game stopped after 3 rounds (interrupted))\n"
    assert _printed(path)[-4] == "game stopped after 3 rounds (interrupted)"


def test_verify_a_game_stopped_before_round_1(tmp_path):
    # A game stopped in its preparation (SIGTERM after MAP): --verify said "all 0 rounds and the table so far
    # reproduced exactly (the game was stopped after round 0: terminated)".
    class StopAtStart:
        def on_start(self, server):
            server.stop("terminated")

        def on_round(self, server, result, moves):
            pass

        def on_end(self, server, table):
            pass

    path = tmp_path / "stopped.jsonl"
    play_two_hunt_bots(path, StopAtStart(), prep_ms=2000)
    rep = replay.load(path)
    assert rep.final["stopped"] == "terminated" and rep.final["rounds"] == 0 and not rep.rounds
    done = subprocess.run([sys.executable, "-m", "arena", "replay", "--verify", str(path)],
                          capture_output=True, text=True, timeout=deadline(20))
    assert (done.returncode, done.stdout) == (
        0, f"{path}: the start and the table so far reproduced exactly "
           f"(the game was stopped before round 1: terminated)\n")



class StopAfter:
    """An observer that stops the game, as SIGINT does, after round *rounds* (0: as the game begins, in its
    preparation)."""

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds

    def on_start(self, server):
        if self.rounds == 0:
            server.stop("interrupted")

    def on_round(self, server, result, moves):
        if server.game.round == self.rounds:
            server.stop("interrupted")

    def on_end(self, server, table):
        pass


@pytest.mark.parametrize(("rounds", "said"), [
    (0, "game stopped before round 1 (interrupted)"),
    (1, "game stopped after 1 round (interrupted)"),
    (3, "game stopped after 3 rounds (interrupted)")])
def test_a_game_stopped_by_a_signal_is_worded_by_the_rounds_it_played(tmp_path, caplog, rounds, said):
    # A game stopped before round 1 printed "game stopped after 0 rounds (interrupted)" (--verify said
    # "stopped before round 1"), and one stopped after round 1 "game stopped after 1 rounds"
    caplog.set_level(logging.INFO, logger="arena.server")
    path = tmp_path / "stopped.jsonl"
    play_two_hunt_bots(path, StopAfter(rounds), prep_ms=2000 if rounds == 0 else 20)
    rep = replay.load(path)
    assert rep.final["stopped"] == "interrupted" and rep.final["rounds"] == len(rep.rounds) == rounds
    assert look.ending(rounds, "interrupted") == said
    logged = [r.getMessage() for r in caplog.records if r.name == "arena.server"]
    assert any(re.fullmatch(rf"{re.escape(said)}, [0-2] red", line) for line in logged), logged
    out = _printed(path)
    assert out[-4] == said and sum(1 for line in out if line.startswith("round ")) == rounds
    page = tmp_path / "stopped.html"
    made = subprocess.run([sys.executable, "-m", "arena", "replay", str(path), "--html", str(page)],
                          capture_output=True, text=True, timeout=deadline(20))
    assert (made.returncode, made.stdout) == (0, f"page: {page} ({said})\n"), made.stderr


def test_the_end_of_a_game_is_worded_by_its_rounds():
    assert [look.ending(n, "terminated") for n in (0, 1, 2, 41)] == [
        "game stopped before round 1 (terminated)", "game stopped after 1 round (terminated)",
        "game stopped after 2 rounds (terminated)", "game stopped after 41 rounds (terminated)"]
    assert [look.ending(n) for n in (1, 2, 72)] == [
        "game over after 1 round", "game over after 2 rounds", "game over after 72 rounds"]
    # the count of rounds in replay --html's line and the tournament's progress lines; --verify's
    assert [look.counted(look.ROUNDS, n) for n in (0, 1, 2, 41)] == ["0 rounds", "1 round", "2 rounds",
                                                                     "41 rounds"]
    assert [look.counted(look.ALL_ROUNDS, n) for n in (0, 1, 2)] == ["no round", "the 1 round",
                                                                     "all 2 rounds"]


def test_default_path_and_last_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    path = replay.default_path("office", 42, when=0)
    assert path.parent == tmp_path / "state" / "arena" / "replays"
    assert path.name.endswith("-office-s42.jsonl")
    assert len(path.name) == len("19700101-000000-office-s42.jsonl")
    # a map file may have a name of 250 characters: the replay's (and the tournament folders') once went
    # past the file system's 255 bytes (play refused the game, a tournament died with a traceback)
    long_name = replay.default_path("m" * 248 + " x", 42, when=0).name
    assert long_name.endswith(f"-{'m' * 64}-s42.jsonl") and len(long_name) < 100
    assert replay.default_path("my office,v2", 1, when=0).name.endswith("-my_office_v2-s1.jsonl")
    monkeypatch.delenv("XDG_STATE_HOME")
    assert replay.replay_dir() == replay.Path.home() / ".local" / "state" / "arena" / "replays"


def test_unreadable_replays_are_one_line_errors(tmp_path):
    play_game(tmp_path / "game.jsonl", seed=2)
    head = (tmp_path / "game.jsonl").read_text().splitlines()[0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(head + '\n{not json\n')
    with pytest.raises(replay.ReplayError, match=r"bad.jsonl:2: not JSON"):
        replay.load(bad)
    other = tmp_path / "other.jsonl"
    other.write_text('{"type": "round"}\n')
    with pytest.raises(replay.ReplayError, match=r"other.jsonl:1: expected an arena replay header"):
        replay.load(other)
    done = subprocess.run([sys.executable, "-m", "arena", "replay", str(tmp_path / "missing.jsonl")],
                          capture_output=True, text=True, timeout=deadline(20))
    assert done.returncode == 2 and done.stderr.startswith("arena: ") and done.stderr.count("\n") == 1


def test_a_device_is_refused_and_a_pipe_is_read(tmp_path):
    # "arena replay --verify /dev/zero" read until memory ran out (here: up to the limit set for the test)
    import resource

    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    done = subprocess.run([sys.executable, "-m", "arena", "replay", "--verify", "/dev/zero"],
                          capture_output=True, text=True, timeout=deadline(40), preexec_fn=limit_memory)
    refused = "arena: /dev/zero: cannot read: a device, not a replay file\n"
    assert (done.returncode, done.stderr) == (2, refused)
    path = tmp_path / "game.jsonl"
    play_game(path, seed=2)
    done = subprocess.run([sys.executable, "-m", "arena", "replay", "--verify", "/dev/stdin"],
                          input=path.read_bytes(), capture_output=True,  # through a pipe
                          timeout=deadline(20))
    assert done.returncode == 0 and done.stdout.endswith(b"reproduced exactly\n"), done.stderr


def test_cli_prints_rounds_and_final_table_and_verifies(tmp_path):
    path = tmp_path / "game.jsonl"
    server = play_game(path, seed=5)
    out = _printed(path)
    assert out[0].startswith("map room, 4 players, seed 5, F 4")
    assert sum(1 for line in out if line.startswith("round ")) == server.game.round
    assert f"game over after {server.game.round} rounds" in out
    header = out.index(f"game over after {server.game.round} rounds") + 1
    assert out[header].split() == ["id", "points", "switch", "catches", "rank"]
    assert len(out) == header + 1 + 4
    checked = subprocess.run([sys.executable, "-m", "arena", "replay", "--verify", str(path)],
                             capture_output=True, text=True, timeout=deadline(20))
    assert checked.returncode == 0 and "reproduced exactly" in checked.stdout


def test_every_replay_state_renders_with_the_pinned_colours(tmp_path):
    from arena.view import BLUE_RGB, RED_RGB, WALL_RGB, Renderer, default_size, free_colour, layout

    assert free_colour(1) == (235, 235, 225) and free_colour(20) == (150, 200, 110)
    assert default_size(12, 8) == (480 + 240, 8 * 32 + 72)
    lay = layout((620, 328), 12, 8)
    assert (lay.c, lay.x0, lay.y0) == (31, 4, 48)
    path = tmp_path / "game.jsonl"
    play_game(path, seed=8)
    rep = replay.load(path)
    renderer = Renderer(rep.arena, title="room", ids=rep.header["ids"])
    size = default_size(rep.arena.width, rep.arena.height)
    lay = layout(size, rep.arena.width, rep.arena.height)
    for _, state in rep.states():
        surface = renderer.render(state, size)
        assert surface.get_size() == size
        for p in state["players"]:
            colour = BLUE_RGB if p["team"] == "BLUE" else RED_RGB
            assert tuple(surface.get_at(lay.cell_centre(p["x"], p["y"])))[:3] == colour
        for y in range(rep.arena.height):
            for x in range(rep.arena.width):
                if rep.arena.walls[y, x] and all(max(abs(p["x"] - x), abs(p["y"] - y)) >= 3
                                                 for p in state["players"]):
                    probe = (lay.x0 + lay.c * x + 1, lay.y0 + lay.c * y + lay.c // 2)
                    assert tuple(surface.get_at(probe))[:3] == WALL_RGB


def test_score_panel_has_the_printed_tables_columns_under_headings_and_fits(tmp_path):
    from arena import view
    from arena.view import PANEL_HEADING, PANEL_W, TOP_H, panel_font_size, panel_row

    assert PANEL_HEADING.split() == ["#", "id", "points", "energy", "sw", "catch"]
    widest = panel_row(16, 15, "9999.00", "100.00", "999", 16)
    assert widest.split() == ["16", "15", "9999.00", "100.00", "999", "16"]
    # every heading ends where its column ends (all right-aligned)
    ends = [i + 1 for i, ch in enumerate(PANEL_HEADING) if ch != " " and (i + 1 == len(PANEL_HEADING)
                                                                            or PANEL_HEADING[i + 1] == " ")]
    assert ends == [i + 1 for i, ch in enumerate(widest) if ch != " " and (i + 1 == len(widest)
                                                                            or widest[i + 1] == " ")]
    fitted = panel_font_size(PANEL_W - 28, [PANEL_HEADING, widest], 20)
    assert 10 <= fitted < 20 and view._font(fitted, True).size(widest)[0] <= PANEL_W - 28
    assert view._font(fitted + 1, True).size(widest)[0] > PANEL_W - 28
    path = tmp_path / "game.jsonl"
    play_game(path, seed=5)
    rep = replay.load(path)
    size = view.default_size(rep.arena.width, rep.arena.height)
    surface = view.Renderer(rep.arena, ids=rep.header["ids"]).render(rep.rounds[-1]["state"], size,
                                                                 table=rep.final["table"])
    panel = [tuple(surface.get_at((x, y)))[:3] for x in range(size[0] - 3, size[0])
             for y in range(TOP_H, size[1] - 30)]
    assert set(panel) == {view.BACKGROUND_RGB}
    assert any(tuple(surface.get_at((x, y)))[:3] != view.BACKGROUND_RGB
               for x in range(size[0] - 40, size[0] - 3) for y in range(TOP_H, TOP_H + 14))


def test_output_into_a_closed_pipe_exits_quietly(tmp_path):
    path = tmp_path / "game.jsonl"
    play_game(path, seed=3)
    lines = path.read_text().splitlines()
    head, first = lines[0], json.loads(lines[1])
    with open(tmp_path / "long.jsonl", "w") as long:
        long.write(head + "\n")
        for number in range(1, 5001):
            long.write(json.dumps({**first, "round": number}) + "\n")
    env = {**os.environ}
    env.pop("DISPLAY", None)
    reader = subprocess.Popen([sys.executable, "-m", "arena", "replay", str(tmp_path / "long.jsonl")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert reader.stdout.readline().startswith(b"map room")
    reader.stdout.close()
    _, err = reader.communicate(timeout=deadline(20))
    assert err == b"" and reader.returncode == 141


def _edited(lines: list[str], index: int, edit) -> str:
    obj = json.loads(lines[index])
    edit(obj)
    return "\n".join([*lines[:index], json.dumps(obj), *lines[index + 1:]]) + "\n"


def _first_move(obj: dict, slot: int, value) -> None:
    obj["moves"][0][slot] = value


@pytest.mark.parametrize(("line", "edit", "message"), [
    (0, lambda h: h.update(walls=h["walls"][:3]), "header: toxicity must match the walls: 3 rows of 12"),
    (0, lambda h: h.update(walls=["#" * 3, *h["walls"][1:]]), "header: walls must be equal rows"),
    (0, lambda h: h.update(players=99), "$.players: expected int <= 16"),
    (0, lambda h: h.update(ids=[5] * len(h["ids"])), "header: wire ids must be distinct"),
    (0, lambda h: h.update(players=1), "header: 4 wire ids for 1 player (one each)"),
    (0, lambda h: h["initial"]["players"][1].update(x=-1), "$.initial.players[1].x: expected int >= 0"),
    ("move", lambda r: _first_move(r, 1, "UP"), "$.moves[0][1]: invalid enum value 'UP'"),
    ("move", lambda r: _first_move(r, 0, 99), "moves: bad or repeated player 99"),
    ("move", lambda r: _first_move(r, 2, "NONE"), "$.moves[0][2]: invalid enum value 'NONE'"),
    ("move", lambda r: r.update(round=7000), "expected round"),
    ("move", lambda r: r["state"]["players"][0].update(team="GREEN"),
     "$.state.players[0].team: invalid enum value 'GREEN'"),
    (-1, lambda f: f["table"][0].update(id=99), "final: table rows must name the header's ids"),
    (-1, lambda f: f.update(stopped=5), "$.stopped: expected str | null, got int"),
    (-1, lambda f: f.update(stopped=""), "$.stopped: expected str of length >= 1"),
])
def test_malformed_replay_lines_are_file_line_errors(tmp_path, line, edit, message):
    path = tmp_path / "game.jsonl"
    play_game(path, seed=4)
    lines = path.read_text().splitlines()
    if line == "move":
        line = next(i for i, text in enumerate(lines) if json.loads(text).get("moves"))
    line %= len(lines)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(_edited(lines, line, edit))
    with pytest.raises(replay.ReplayError) as error:
        replay.load(bad)
    assert str(error.value).startswith(f"{bad}:{line + 1}: {message}")


def _played_with(tmp_path, name, where, text):
    """The replay of a played game (seed 4) written to *name* with the line *text* put before its line
    *where* (0-based; None: after the last), and the 1-based number of that line."""
    path = tmp_path / "game.jsonl"
    play_game(path, seed=4)
    lines = path.read_text().splitlines()
    where = len(lines) if where is None else where
    bad = tmp_path / name
    bad.write_text("\n".join([*lines[:where], text, *lines[where:]]) + "\n")
    return bad, where + 1


@pytest.mark.parametrize(("text", "message"), [
    ("{}", '$: expected an object with "type" "round" or "final", got an object without "type"'),
    ('{"round": 5}', '$: expected an object with "type" "round" or "final", got an object without "type"'),
    ("[1,2,3]", '$: expected an object with "type" "round" or "final", got an array'),
    ("null", '$: expected an object with "type" "round" or "final", got null'),
    ('"round"', '$: expected an object with "type" "round" or "final", got a string'),
    ('{"type": "bogus"}', '$.type: expected "round" or "final", got "bogus"'),
    ('{"type": null}', '$.type: expected "round" or "final", got null'),
    ('{"type": "header", "format": 1}', '$.type: expected "round" or "final", got "header"'),
])
def test_a_line_of_no_known_type_names_what_was_expected(tmp_path, text, message):
    # "obj.jsonl:5: unexpected line type None": a word of Python's, not of the replay format
    bad, _ = _played_with(tmp_path, "obj.jsonl", 4, text)
    env = {**os.environ}
    env.pop("DISPLAY", None)
    for args in ([str(bad)], ["--verify", str(bad)]):
        done = subprocess.run([sys.executable, "-m", "arena", "replay", *args], capture_output=True,
                              text=True, timeout=deadline(20), env=env)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", f"arena: {bad}:5: {message}\n")


@pytest.mark.parametrize(("text", "message"), [
    ("{}", "a line after the final table (nothing follows it)"),
    ('{"type": "round"}', 'a "round" line after the final table (nothing follows it)'),
])
def test_a_line_after_the_final_table_is_named_in_the_formats_words(tmp_path, text, message):
    bad, line = _played_with(tmp_path, "after.jsonl", None, text)
    with pytest.raises(replay.ReplayError) as error:
        replay.load(bad)
    assert str(error.value) == f"{bad}:{line}: {message}"


def test_binary_and_cut_replays_from_the_command_line(tmp_path):
    path = tmp_path / "game.jsonl"
    play_game(path, seed=4)
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(path.read_bytes()[:200] + b"\n\xff\xfe\x00\x81")
    env = {**os.environ}
    env.pop("DISPLAY", None)
    for args in (["--verify", str(binary)], [str(binary), "0::99"]):
        done = subprocess.run([sys.executable, "-m", "arena", "replay", *args], capture_output=True,
                              text=True, timeout=deadline(20), env=env)
        assert done.returncode == 2
        assert done.stderr == f"arena: {binary}:2: not a text file\n"


def test_players_on_the_big_map_are_discs_of_at_least_4_px_radius():
    from arena.mapfile import find_map, load_arena
    from arena.rules import Game
    from arena.view import BLUE_RGB, PLAYER_MIN_RADIUS, Renderer, layout

    arena = load_arena(find_map("metropolis"))
    state = Game(arena, 16, random.Random(3)).snapshot()
    size = (1280, 1024)
    lay = layout(size, arena.width, arena.height)
    assert lay.c < 2 * PLAYER_MIN_RADIUS
    surface = Renderer(arena, title="metropolis").render(state, size)
    for p in state["players"]:
        cx, cy = lay.cell_centre(p["x"], p["y"])
        for dx, dy in ((3, 0), (-3, 0), (0, 3), (0, -3), (2, 2), (-2, -2)):
            assert tuple(surface.get_at((cx + dx, cy + dy)))[:3] == BLUE_RGB
        assert tuple(surface.get_at((cx - PLAYER_MIN_RADIUS - 1, cy)))[:3] == (255, 255, 255)  # the rim


def test_verify_names_the_round_the_player_and_the_field(tmp_path):
    path = tmp_path / "game.jsonl"
    play_game(path, seed=3)
    lines = path.read_text().splitlines()
    obj = json.loads(lines[2])  # round 2
    obj["state"]["players"][1]["energy"] -= 7
    lines[2] = json.dumps(obj)
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n")
    verdict = replay.verify(replay.load(tmp_path / "bad.jsonl"))
    energy = obj["state"]["players"][1]["energy"]
    ids = json.loads(lines[0])["ids"]
    final = json.loads(lines[-1])
    assert [d["id"] for d in final["diagnostics"]] == ids
    assert all(isinstance(json.loads(line)["ms"], float) for line in lines[1:-1])
    assert verdict.rounds == [2]
    assert verdict.details == [f"round 2: player 1 (id {ids[1]}) energy: recorded {energy}, "
                               f"re-simulated {energy + 7}"]
    done = subprocess.run([sys.executable, "-m", "arena", "replay", "--verify", str(tmp_path / "bad.jsonl")],
                          capture_output=True, text=True, timeout=deadline(20))
    assert done.returncode == 1
    bad = tmp_path / "bad.jsonl"
    assert done.stdout.splitlines() == [f"{bad}: 1 round differs from the re-simulation: [2]",
                                        f"{bad}: {verdict.details[0]}"]


def test_verify_counts_the_start_apart_from_the_rounds(tmp_path):
    # Another seed gives another start (round 0, before round 1) as well as other rounds: "the start and N
    # rounds differ", N the rounds of the game, where it once said N + 1 rounds.
    path = tmp_path / "game.jsonl"
    play_game(path, seed=3)
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    head["seed"] += 1
    lines[0] = json.dumps(head)
    path.write_text("\n".join(lines) + "\n")
    verdict = replay.verify(replay.load(path))
    played = len(replay.load(path).rounds)
    assert verdict.rounds[0] == 0 and verdict.rounds[1:] and max(verdict.rounds) <= played
    done = subprocess.run([sys.executable, "-m", "arena", "replay", "--verify", str(path)],
                          capture_output=True, text=True, timeout=deadline(20))
    assert done.returncode == 1
    rounds = len(verdict.rounds) - 1
    differ = "1 round differs" if rounds == 1 else f"{rounds} rounds differ"
    first = done.stdout.splitlines()[0]
    assert first.startswith(f"{path}: the start and {differ} from the re-simulation: [0, ")
    assert len(verdict.rounds) > 10 and first.endswith(", ...]")  # the list is cut, and says so


def test_view_cones_are_clipped_to_the_board():
    from arena.view import BLUE_RGB, Renderer, default_size, layout

    arena = small_arena()
    cone = tuple(int(v * 0.6) for v in BLUE_RGB)
    state = {"round": 1, "max_rounds": 8, "players": [
        {"id": 0, "x": 5, "y": 7, "facing": "SOUTH", "team": "BLUE", "energy": 10000, "points": "0/1",
         "switch_round": None, "catches": 0},
        {"id": 1, "x": 0, "y": 3, "facing": "WEST", "team": "BLUE", "energy": 10000, "points": "0/1",
         "switch_round": None, "catches": 0}]}
    size = default_size(arena.width, arena.height)
    lay = layout(size, arena.width, arena.height)
    surface = Renderer(arena, title="room").render(state, size)
    board = (lay.x0, lay.y0, lay.x0 + lay.c * arena.width, lay.y0 + lay.c * arena.height)

    def cone_pixels(inside: bool) -> int:
        return sum(1 for x in range(size[0]) for y in range(size[1])
                   if (board[0] <= x < board[2] and board[1] <= y < board[3]) == inside
                   and tuple(surface.get_at((x, y)))[:3] == cone)

    # both players face off the board (south from the bottom row, west from the left column): the parts of
    # their cones on the board are drawn, nothing of them in the legend band, the margin or the panel
    assert cone_pixels(inside=True) > 0
    assert cone_pixels(inside=False) == 0


def _line_spans(data: bytes) -> list[tuple[int, int]]:
    """(start, end) byte offsets of each line of *data* (a file ending in a newline), the newline left out."""
    spans, start = [], 0
    for line in data.split(b"\n")[:-1]:
        spans.append((start, start + len(line)))
        start += len(line) + 1
    return spans


def _recorded(tmp_path) -> tuple[bytes, replay.Replay, list[tuple[int, int]]]:
    """A game of seed 4 recorded by the server: the replay file's bytes, the replay and its lines' spans."""
    path = tmp_path / "game.jsonl"
    play_game(path, seed=4)
    data = path.read_bytes()
    return data, replay.load(path), _line_spans(data)


def test_a_replay_cut_inside_its_last_line_keeps_the_rounds_before(tmp_path):
    # A game stopped or a full disk leaves the last line cut mid-JSON (FILE.partial): the whole file was
    # refused with "FILE:N: not JSON (Input data was truncated)" and the rounds before it were lost.
    data, full, spans = _recorded(tmp_path)
    rounds = len(full.rounds)
    assert len(spans) == rounds + 2 and full.final is not None
    cut = tmp_path / "game.jsonl.partial"
    final_start, final_end = spans[-1]
    for offset in (final_start + 1, (final_start + final_end) // 2, final_end - 1):  # inside the final line
        cut.write_bytes(data[:offset])
        rep = replay.load(cut)
        assert rep.rounds == full.rounds and rep.final is None and rep.header == full.header
        assert rep.cut_short == (f"{cut}:{rounds + 2}: the last line is cut short; using the {rounds} "
                                 f"rounds before it")
    cut.write_bytes(data[:spans[3][0] + 25] + b"\n \n\n")  # round 3 cut, and only whitespace after it
    rep = replay.load(cut)
    assert rep.rounds == full.rounds[:2] and rep.final is None
    assert rep.cut_short == f"{cut}:4: the last line is cut short; using the 2 rounds before it"
    cut.write_bytes(data[:spans[1][0] + 10])
    rep = replay.load(cut)
    assert rep.rounds == [] and rep.cut_short == f"{cut}:2: the last line is cut short; using the start " \
                                                 f"before it (no round)"
    cut.write_bytes(data[:spans[2][0]])  # cut at a line's end: complete rounds, nothing cut short
    assert replay.load(cut).cut_short is None and len(replay.load(cut).rounds) == 1


def _refusal(path, data: bytes) -> str:
    """The one-line ReplayError of loading *data* written to *path*."""
    path.write_bytes(data)
    with pytest.raises(replay.ReplayError) as error:
        replay.load(path)
    return str(error.value)


def test_a_line_cut_short_anywhere_but_at_the_end_is_still_an_error(tmp_path):
    data, _, spans = _recorded(tmp_path)
    bad = tmp_path / "bad.jsonl"
    # round 3 cut, round 4 after it
    assert _refusal(bad, data[:spans[3][0] + 25] + b"\n" + data[spans[4][0]:]) == (
        f"{bad}:4: not JSON (Input data was truncated)")
    assert _refusal(bad, data + data[:30]) == (  # a line cut short after the final table
        f"{bad}:{len(spans) + 1}: not JSON (Input data was truncated)")
    for last in (b"no replay line", b'{"type":"round",,"round":3}', b'{"type":"final"}}'):  # not cut: bad
        assert _refusal(bad, data[:spans[2][0]] + last + b"\n").startswith(
            f"{bad}:3: not JSON (JSON is malformed: ")
    for offset in (1, 10, 300, spans[0][1] - 1):  # the header itself cut short
        assert _refusal(bad, data[:offset]) == (
            f"{bad}:1: the header line is cut short: there is nothing to replay")


def test_a_replay_cut_inside_a_character_of_its_last_line(tmp_path):
    # A replay holding UTF-8 (the writer escapes it, an edited file need not), cut inside a character of its
    # last line, is cut short like any other; a broken character elsewhere is no text file.
    path = tmp_path / "game.jsonl"
    play_game(path, seed=4)
    lines = path.read_text().splitlines()
    final = json.loads(lines[-1])
    final["diagnostics"][0]["left_reason"] = "déconnecté"
    data = "\n".join([*lines[:-1], json.dumps(final, ensure_ascii=False)]).encode() + b"\n"
    cut = tmp_path / "game.jsonl.partial"
    cut.write_bytes(data[:data.index("é".encode()) + 1])
    rep = replay.load(cut)
    assert len(rep.rounds) == len(lines) - 2 and rep.final is None
    assert rep.cut_short == f"{cut}:{len(lines)}: the last line is cut short; using the {len(lines) - 2} " \
                            f"rounds before it"
    broken = data[:data.index("é".encode()) + 1] + b"\n"
    assert _refusal(cut, broken) == f"{cut}:{len(lines)}: not a text file"


def test_a_replay_cut_at_any_byte_loads_the_lines_before_or_is_one_line_error(tmp_path):
    # The file grows one byte at a time (appended: rewriting it each time costs a flush), and is loaded at
    # every length: the header cut short is a one-line error, else every complete line is kept, and a line
    # cut short at the end is said to be.
    data, full, spans = _recorded(tmp_path)
    cut = tmp_path / "cut.jsonl"
    with cut.open("wb") as growing:
        for offset in range(len(data) + 1):
            growing.write(data[offset - 1:offset] if offset else b"")
            growing.flush()
            if offset < spans[0][1]:
                with pytest.raises(replay.ReplayError) as error:
                    replay.load(cut)
                assert str(error.value) == (
                    f"{cut}:1: empty file (expected an arena replay header)" if offset == 0 else
                    f"{cut}:1: the header line is cut short: there is nothing to replay")
                continue
            rep = replay.load(cut)
            complete = sum(1 for _, end in spans if end <= offset)
            inside = [n for n, (start, end) in enumerate(spans, 1) if start < offset < end]
            assert rep.header == full.header
            assert rep.rounds == full.rounds[:complete - 1]
            assert rep.final == (full.final if complete == len(spans) else None)
            if inside:
                before = f"the {complete - 1} round{'' if complete == 2 else 's'} before it" if complete > 1 \
                    else "the start before it (no round)"
                assert rep.cut_short == f"{cut}:{inside[0]}: the last line is cut short; using {before}"
            else:
                assert rep.cut_short is None


def test_the_command_line_shows_and_verifies_a_replay_cut_short(tmp_path):
    path = tmp_path / "game.jsonl"
    play_game(path, seed=4)
    data = path.read_bytes()
    spans = _line_spans(data)
    rounds = len(spans) - 2
    cut = tmp_path / "game.jsonl.partial"
    cut.write_bytes(data[:spans[-1][0] + 40])
    note = f"arena: {cut}:{rounds + 2}: the last line is cut short; using the {rounds} rounds before it\n"
    env = {**os.environ}
    env.pop("DISPLAY", None)

    def arena(*args):
        return subprocess.run([sys.executable, "-m", "arena", "replay", *args], capture_output=True,
                              text=True, timeout=deadline(20), env=env)

    shown = arena(str(cut))
    assert (shown.returncode, shown.stderr) == (0, note)
    out = shown.stdout.splitlines()
    assert out[0].startswith("map room, 4 players, seed 4") and len(out) == rounds + 2
    assert out[-2].startswith(f"round {rounds:>4}: ") and out[-1] == "(no final table: the game was cut off)"
    checked = arena("--verify", str(cut))
    assert (checked.returncode, checked.stderr) == (1, note)
    finished = replay.load(path).final["rounds"]
    assert checked.stdout == f"{cut}: no final table (the game finished in round {finished})\n"
    page = tmp_path / "page.html"
    made = arena(str(cut), "--html", str(page))
    assert (made.returncode, made.stderr) == (0, note)
    assert made.stdout == f"page: {page} ({rounds} rounds, cut off: no final table)\n" and page.is_file()
    cut.write_bytes(data[:100])
    refused = arena(str(cut))
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == f"arena: {cut}:1: the header line is cut short: there is nothing to replay\n"

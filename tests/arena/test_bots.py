"""The example bots (spec/arena.md §4): protocol only, sensible strategies, whole games over TCP."""

from __future__ import annotations

import asyncio
import random
import signal
import socket
import struct
import subprocess
import sys
import threading

import pytest
from arena_helpers import join, small_arena
from deadline import deadline
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import protocol as wire
from arena.bots import BotError, Brain, Example, facing_towards, play, play_example, read_map, run_bot
from arena.rules import VECTORS
from arena.server import ArenaServer, Settings

OPEN_MAP = "##########\n#        #\n#        #\n#        #\n#   ##   #\n#        #\n#        #\n##########\n"


@pytest.fixture
def map_file(tmp_path):
    path = tmp_path / "open.map"
    path.write_text(OPEN_MAP)
    return path


def brain_at(strategy: str, map_file, x: int, y: int, *, me: int = 0, team: str = "BLUE") -> Example:
    brain = Example(strategy, random.Random(1))
    assert brain.handle(wire.Id(me)) == [wire.IdOkay()]
    brain.handle(wire.Map(str(map_file)))
    brain.handle(wire.Set(x, y, "NORTH"))
    if team == "RED":
        brain.handle(wire.TeamChange("RED", me))
    return brain


def step(direction: str, x: int, y: int) -> tuple[int, int]:
    dx, dy = VECTORS.get(direction, (0, 0))
    return x + dx, y + dy


def chebyshev(a, b) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def test_read_map_and_facing():
    assert facing_towards(3, -3) == "NORTH_EAST"
    assert facing_towards(-5, 1) == "WEST"
    assert facing_towards(0, 2) == "SOUTH"


def test_brain_reads_the_map_and_answers_start(map_file):
    walls = read_map(str(map_file))
    assert (len(walls), len(walls[0])) == (8, 10) and walls[4][4] and not walls[1][1]
    brain = brain_at("random", map_file, 1, 1)
    (reply,) = brain.handle(wire.Start(1))
    assert isinstance(reply, wire.Move) and reply.view in VECTORS
    # from the corner (1,1) only E, SE, S (and NONE) exist
    assert set(brain.legal()) == {"EAST", "SOUTH_EAST", "SOUTH"}
    assert brain.handle(wire.Disconnect()) == [] and brain.done


def test_hunt_chases_the_nearest_seen_blue_as_red(map_file):
    brain = brain_at("hunt", map_file, 2, 2, team="RED")
    brain.handle(wire.SeePlayer(7, 6, "NORTH", 3))
    brain.handle(wire.SeePlayer(8, 1, "NORTH", 4))
    brain.handle(wire.TeamChange("RED", 4))
    (move,) = brain.handle(wire.Start(5))
    assert chebyshev(step(move.direction, 2, 2), (7, 6)) == 4
    assert move.view == "SOUTH_EAST"


def test_hunt_remembers_a_blue_that_left_its_view(map_file):
    brain = brain_at("hunt", map_file, 1, 6, team="RED")
    brain.handle(wire.SeePlayer(8, 6, "NORTH", 2))
    brain.handle(wire.Start(1))
    brain.handle(wire.Set(2, 6, "EAST"))
    (move,) = brain.handle(wire.Start(2))  # blue 2 not seen this round: last-seen position is kept
    assert move.direction == "EAST"


def test_flee_moves_away_from_a_red_and_off_toxic_cells(map_file):
    brain = brain_at("flee", map_file, 4, 2)
    brain.handle(wire.SeePlayer(3, 2, "EAST", 1))
    brain.handle(wire.TeamChange("RED", 1))
    (move,) = brain.handle(wire.Start(3))
    assert chebyshev(step(move.direction, 4, 2), (3, 2)) == 2
    assert move.view == "WEST"  # keeps the red in sight
    calm = brain_at("flee", map_file, 5, 5)
    calm.handle(wire.Toxic(5, 5, 20))
    calm.stay = 3
    (move,) = calm.handle(wire.Start(4))
    assert move.direction != "NONE"


def test_smart_blue_keeps_out_of_a_reds_reach_and_watches_it(map_file):
    """A red three steps west: it keeps three steps away (a red two steps away catches next round)."""
    brain = brain_at("smart", map_file, 4, 2)
    brain.handle(wire.SeePlayer(1, 2, "EAST", 1))
    brain.handle(wire.TeamChange("RED", 1))
    (move,) = brain.handle(wire.Start(1))
    assert chebyshev(step(move.direction, 4, 2), (1, 2)) >= 3
    assert move.view == "WEST"


def test_smart_blue_walks_between_cells_it_knows_to_be_clean(map_file):
    """Staying costs toxicity × (stay + 1) (§2.5): it steps to the one neighbour it knows costs 0.01 rather
    than stay or try a cell it has not stood on."""
    brain = brain_at("smart", map_file, 3, 2)
    brain.handle(wire.Toxic(3, 2, 1))
    brain.handle(wire.Set(2, 2, "NORTH"))
    brain.handle(wire.Toxic(2, 2, 1))
    brain.handle(wire.Start(2))
    brain.handle(wire.Set(2, 2, "NORTH"))
    (move,) = brain.handle(wire.Start(3))
    assert move.direction == "EAST"


def test_smart_blue_keeps_out_of_every_blues_reach_just_before_a_forced_switch(map_file):
    """No change for 27 rounds: the forced switch comes at the end of round 30 (§2.6), and any blue may be
    the one switched. The cells west of the bot are clean, those east of it toxic: eleven rounds before the
    switch it steps west, next to a blue on (2,2); two rounds before it, it pays for a toxic cell three steps
    from that blue, and faces it."""
    brain = brain_at("smart", map_file, 4, 2, me=1)
    for x, y, toxic in ((3, 1, 1), (3, 2, 1), (3, 3, 1), (4, 1, 20), (4, 3, 20), (5, 1, 20), (5, 2, 20),
                        (5, 3, 20), (4, 2, 1)):
        brain.handle(wire.Toxic(x, y, toxic))
    moves = {}
    for r in range(1, 29):
        brain.handle(wire.Set(4, 2, "NORTH"))
        brain.handle(wire.SeePlayer(2, 2, "NORTH", 0))
        (moves[r],) = brain.handle(wire.Start(r))
        if r == 19:
            assert brain.planner.rounds_to_switch() == 11
    assert brain.planner.rounds_to_switch() == 2
    assert brain.planner.switch_threats() == [((2, 2), 0, 0)]
    assert chebyshev(step(moves[19].direction, 4, 2), (2, 2)) == 1
    assert chebyshev(step(moves[28].direction, 4, 2), (2, 2)) == 3
    assert moves[28].view == "WEST"


def test_smart_blue_minds_only_the_blues_that_could_reach_it_after_a_forced_switch(tmp_path):
    """A corridor x = 1..20: two rounds before the switch, a blue 6 cells away counts, one 7 away does not
    (keeping away from it would only cost energy); three rounds before it, none does."""
    path = tmp_path / "corridor.map"
    path.write_text("######################\n#                    #\n######################\n")
    brain = brain_at("smart", path, 8, 1, me=1)
    for r in (27, 28):
        brain.handle(wire.Set(8, 1, "NORTH"))
        brain.handle(wire.SeePlayer(2, 1, "NORTH", 0))
        brain.handle(wire.SeePlayer(14, 1, "NORTH", 2))
        brain.handle(wire.SeePlayer(15, 1, "NORTH", 3))
        brain.handle(wire.Start(r))
        assert brain.planner.switch_threats() == ([] if r == 27 else [((2, 1), 0, 0), ((14, 1), 0, 2)])


def test_smart_counts_the_rounds_to_a_forced_switch_from_the_last_team_change(map_file):
    """A team change reported at the start of round 41 happened in round 40: the next forced switch ends
    round 70 (§2.6)."""
    brain = brain_at("smart", map_file, 4, 2, me=1)
    brain.handle(wire.Start(40))
    assert brain.planner.rounds_to_switch() == -10
    brain.handle(wire.Set(4, 2, "NORTH"))
    brain.handle(wire.TeamChange("RED", 0))
    brain.handle(wire.Start(41))
    assert brain.planner.rounds_to_switch() == 29


def test_smart_blue_leaves_a_toxic_room_for_cleaner_cells(tmp_path):
    """In a toxic corridor (0.08 everywhere it has stood) it heads for the gap to the next corridor."""
    path = tmp_path / "two.map"
    path.write_text("##########\n#        #\n######## #\n#        #\n##########\n")
    brain = brain_at("smart", path, 2, 1)
    for r, x in enumerate((2, 3, 2), start=1):
        brain.handle(wire.Set(x, 1, "EAST"))
        brain.handle(wire.Toxic(x, 1, 8))
        brain.handle(wire.Start(r))
    brain.handle(wire.Set(3, 1, "EAST"))
    brain.handle(wire.Toxic(3, 1, 8))
    (move,) = brain.handle(wire.Start(4))
    assert move.direction in ("EAST", "SOUTH_EAST")


def test_smart_blue_walks_to_a_clean_pair_of_cells_rather_than_to_and_fro_onto_a_toxic_one(tmp_path):
    """On a clean cell (4,1) whose two neighbours cost 0.02, walking to and fro costs 0.015 a round: it heads
    for the clean pair (1,1), (2,1) two steps west instead, where to and fro costs 0.01."""
    path = tmp_path / "corridor.map"
    path.write_text("#######\n#     #\n#######\n")
    for seed in range(6):
        brain = Example("smart", random.Random(seed))
        brain.handle(wire.Id(0))
        brain.handle(wire.Map(str(path)))
        for r, (x, toxic) in enumerate(((1, 1), (2, 1), (3, 2), (5, 2), (4, 1)), start=1):
            brain.handle(wire.Set(x, 1, "NORTH"))
            brain.handle(wire.Toxic(x, 1, toxic))
            (move,) = brain.handle(wire.Start(r))
        assert move.direction == "WEST"


def test_smart_blue_counts_the_room_it_has_left_to_run(tmp_path):
    """A corridor x = 1..10 with a red on (1,1) seen this round: a cell is the blue's room when it gets there
    (one step a round, its first step onto the cell given) before the red can reach it or a neighbour."""
    path = tmp_path / "corridor.map"
    path.write_text("############\n#          #\n############\n")
    brain = brain_at("smart", path, 5, 1)
    brain.handle(wire.SeePlayer(1, 1, "EAST", 1))
    brain.handle(wire.TeamChange("RED", 1))
    brain.handle(wire.Start(1))
    planner = brain.planner
    danger = planner.distances((1, 1))
    # onto (4,1) now: 4..10, each reached after x - 3 rounds, the red's x - 1 rounds to it leave a margin
    assert planner.territory((4, 1), danger) == 7
    assert planner.territory((5, 1), danger) == 6
    assert planner.territory((3, 1), danger) == 0  # the red reaches (2,1), next to it, in the same round
    (move,) = brain.handle(wire.Start(2))
    assert move.direction == "EAST"


def test_smart_blue_counts_a_catch_round_a_wall_corner(tmp_path):
    """A red on (2,1) needs three steps to the gap (4,3), but after one step, on (3,2), it is next to the gap
    with one open corner, (4,2): a catch (§2.6) where no step is allowed (§2.4). The gap counts as two rounds
    away, and the blue on (4,2) does not step into it."""
    path = tmp_path / "gap.map"
    path.write_text("##########\n#        #\n#        #\n#### #####\n#        #\n##########\n")
    brain = brain_at("smart", path, 4, 2)
    brain.handle(wire.SeePlayer(2, 1, "EAST", 1))
    brain.handle(wire.TeamChange("RED", 1))
    (move,) = brain.handle(wire.Start(1))
    assert move.direction in ("EAST", "NORTH_EAST")
    planner = brain.planner
    assert planner.distances((2, 1))[(4, 3)] == 3
    assert planner.round_corner[(3, 2)] == ((4, 3),)
    danger = planner.danger(planner.sightings("RED"))
    assert danger[(4, 3)] == 2 and danger[(4, 2)] == 2 and danger[(6, 2)] == 4


def test_smart_blue_guesses_toxicity_from_the_nearest_known_cell_and_along_a_corridor(tmp_path):
    """A toxic corridor (0.12) below a clean one, joined by a gap at (4,2): a cell never stood on takes the
    value of the nearest cell stood on, a toxic one's also along its row up to the wall. Back on the clean gap
    it steps up into the clean corridor rather than stay (staying costs 0.02) or go back down."""
    path = tmp_path / "corridors.map"
    path.write_text("############\n#          #\n#### #######\n#          #\n############\n")
    brain = brain_at("smart", path, 4, 2)
    for r, (x, y, toxic) in enumerate(((4, 2, 1), (4, 3, 12), (5, 3, 12), (4, 2, 1)), start=1):
        brain.handle(wire.Set(x, y, "NORTH"))
        brain.handle(wire.Toxic(x, y, toxic))
        if r < 4:
            brain.handle(wire.Start(r))
    planner = brain.planner
    assert planner.toxicity((4, 1)) == 1  # one step from the gap, two from the corridor
    assert planner.toxicity((10, 3)) == 12 and planner.toxicity((1, 3)) == 12  # along the toxic row
    assert planner.toxicity((10, 1)) == 1  # beyond the wall, far from any known cell
    (move,) = brain.handle(wire.Start(4))
    assert move.direction == "NORTH"


def test_smart_red_closes_in_on_the_blue_and_faces_it(map_file):
    brain = brain_at("smart", map_file, 2, 2, team="RED")
    brain.handle(wire.SeePlayer(7, 6, "NORTH", 3))
    (move,) = brain.handle(wire.Start(1))
    assert chebyshev(step(move.direction, 2, 2), (7, 6)) == 4
    assert move.view == "SOUTH_EAST"


def test_smart_reds_close_to_a_blue_leave_it_the_least_room(tmp_path):
    """A corridor x = 1..10, a blue in sight on (5,1), this red on (2,1): the blue reaches x = 4..10 before a
    red on (2,1) could, x = 5..10 before one on (3,1); with a team-mate red on (9,1) only x = 4..6 and 5..6
    are left. The red steps east."""
    path = tmp_path / "corridor.map"
    path.write_text("############\n#          #\n############\n")
    brain = brain_at("smart", path, 2, 1, team="RED")
    brain.handle(wire.SeePlayer(5, 1, "WEST", 3))
    (move,) = brain.handle(wire.Start(1))
    assert move.direction == "EAST" and move.view == "EAST"
    planner = brain.planner
    assert planner.room_left((5, 1), [(2, 1)]) == 7 and planner.room_left((5, 1), [(3, 1)]) == 6
    assert planner.room_left((5, 1), [(2, 1), (9, 1)]) == 3
    assert planner.room_left((5, 1), [(3, 1), (9, 1)]) == 2


def test_smart_red_leaves_a_sighting_it_has_checked_for_a_goal_it_keeps(map_file):
    """A blue seen on (3,2) in round 1 is long gone by round 20: a red that stood there since goes on to a
    cell it has not stood on lately, the same goal round after round, instead of waiting where it was seen."""
    brain = brain_at("smart", map_file, 5, 2, team="RED")
    brain.handle(wire.SeePlayer(3, 2, "NORTH", 1))
    brain.handle(wire.Start(1))
    for r in range(2, 20):
        brain.handle(wire.Set(3, 2, "NORTH"))
        brain.handle(wire.Start(r))
    brain.handle(wire.Set(3, 2, "NORTH"))
    (move,) = brain.handle(wire.Start(20))
    goal = brain.planner._explore
    assert move.direction != "NONE" and goal is not None and goal != (3, 2)
    assert brain.planner.distances(goal)[step(move.direction, 3, 2)] < brain.planner.distances(goal)[(3, 2)]
    x, y = step(move.direction, 3, 2)
    brain.handle(wire.Set(x, y, "NORTH"))
    brain.handle(wire.Start(21))
    assert brain.planner._explore == goal or goal == (x, y)


def test_unknown_strategy_is_refused():
    with pytest.raises(ValueError, match="unknown strategy"):
        Example("camp")


def test_trailing_rows_of_spaces_are_map_rows_as_the_server_reads_them(tmp_path):
    from arena.mapfile import load_arena, normalised_text

    source = tmp_path / "tail.map"
    source.write_text("#####\n#...#\n##.##\n.....\n.....\n")
    arena = load_arena(source)
    copy = tmp_path / "copy.map"
    copy.write_text(normalised_text(arena))
    walls = read_map(str(copy))
    assert arena.walls.shape == (5, 5)
    assert walls == tuple(tuple(row) for row in arena.walls.tolist())
    brain = brain_at("hunt", copy, 2, 4, team="RED")
    assert set(brain.legal()) == {"NORTH", "NORTH_EAST", "NORTH_WEST", "EAST", "WEST"}
    brain.handle(wire.SeePlayer(0, 3, "NORTH", 1))
    (reply,) = brain.handle(wire.Start(1))
    assert reply.direction in ("WEST", "NORTH_WEST")


def test_hunt_never_crashes_on_a_cell_it_thinks_is_a_wall(map_file):
    brain = brain_at("hunt", map_file, 0, 0, team="RED")
    brain.handle(wire.SeePlayer(8, 6, "NORTH", 1))
    for r in range(1, 4):
        (reply,) = brain.handle(wire.Start(r))
        assert reply.direction == "NONE"


def test_every_strategy_plays_whole_games_over_tcp():
    async def go(seed: int):
        server = ArenaServer(small_arena(), Settings(players=4, port=0, move_ms=3000, prep_ms=20, seed=seed,
                                                     quiet_rounds=5))
        await server.start()
        tasks = [asyncio.create_task(run_bot("127.0.0.1", server.port, s, random.Random(seed),
                                             timeout_s=deadline(10)))
                 for s in ("random", "flee", "hunt", "smart")]
        await server.run()
        return server, await asyncio.wait_for(asyncio.gather(*tasks), deadline(10))

    for seed in (1, 2):
        server, brains = asyncio.run(go(seed))
        assert all(b.done for b in brains)
        assert sorted(b.id for b in brains) == [0, 1, 2, 3]
        assert all(b.round == server.game.round for b in brains)
        # every bot answered every round: nobody was left to the deadline
        assert all(server.connected)


def test_the_blocking_driver_plays_whole_games_as_the_asyncio_one():
    # `arena bot` plays with play() (a blocking socket, no event loop): here in threads against a real server
    async def go():
        server = ArenaServer(small_arena(), Settings(players=4, port=0, move_ms=3000, prep_ms=20, seed=3,
                                                     quiet_rounds=5))
        await server.start()
        threads = [asyncio.create_task(asyncio.to_thread(play, "127.0.0.1", server.port, s, random.Random(3),
                                                         timeout_s=deadline(10)))
                   for s in ("random", "flee", "hunt", "smart")]
        await server.run()
        return server, await asyncio.wait_for(asyncio.gather(*threads), deadline(10))

    server, brains = asyncio.run(go())
    assert all(b.done for b in brains)
    assert sorted(b.id for b in brains) == [0, 1, 2, 3]
    assert all(b.round == server.game.round for b in brains)
    assert all(server.connected)


def test_a_brain_of_your_own_plays_through_both_drivers():
    # A bot author's Brain: it decides in choose(), the drivers do the rest (the guide's "Writing a bot").
    class StandStill(Brain):
        rounds: list[int]

        def choose(self) -> tuple[str, str]:
            self.rounds.append(self.round)
            return "NONE", "EAST"

    def mine(seed: int) -> StandStill:
        brain = StandStill(random.Random(seed))
        brain.rounds = []
        return brain

    async def go():
        server = ArenaServer(small_arena(), Settings(players=2, port=0, move_ms=3000, prep_ms=20, seed=3,
                                                     quiet_rounds=3))
        await server.start()
        blocking = asyncio.create_task(asyncio.to_thread(play, "127.0.0.1", server.port,
                                                         timeout_s=deadline(10), brain=mine(1)))
        on_loop = asyncio.create_task(run_bot("127.0.0.1", server.port, timeout_s=deadline(10),
                                              brain=mine(2)))
        await server.run()
        return server, await asyncio.wait_for(asyncio.gather(blocking, on_loop), deadline(10))

    server, brains = asyncio.run(go())
    for brain in brains:
        assert isinstance(brain, StandStill) and brain.done
        assert brain.rounds == list(range(1, server.game.round + 1))   # every START went to its choose()
    rounds = server.game.round
    assert [(p.stay, p.facing) for p in server.game.players] == [(rounds, "EAST")] * 2   # never moved


def test_bot_command_without_a_server_is_one_line_exit_2():
    import socket
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    command = [sys.executable, "-m", "arena", "bot", "--strategy", "flee", "127.0.0.1", str(port)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=deadline(20))
    assert done.returncode == 2
    assert done.stderr.strip() == f"arena: cannot connect to 127.0.0.1:{port}: Connection refused"


def test_the_bot_command_does_not_import_numpy():
    # A tournament starts every bot of every game: numpy's import once doubled a bot's start-up time.
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    script = ("import atexit, runpy, sys; "
              "atexit.register(lambda: print(sorted(m for m in ('numpy', 'scipy') if m in sys.modules))); "
              f"sys.argv = ['arena', 'bot', '--strategy', 'smart', '127.0.0.1', '{port}']; "
              "runpy.run_module('arena', run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=deadline(20))
    assert done.returncode == 2 and "cannot connect" in done.stderr
    assert done.stdout == "[]\n"


def _one_shot_server(script) -> tuple[int, threading.Thread]:
    """A TCP listener on 127.0.0.1 that runs *script(conn)* for its first client, then closes."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve() -> None:
        conn, _ = listener.accept()
        with listener, conn:
            conn.settimeout(deadline(10))
            script(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener.getsockname()[1], thread


def test_a_reset_after_the_game_started_ends_the_game_not_a_connect_error(map_file):
    def script(conn):
        conn.sendall(f"ID 3|MAP {map_file}|SET 1,1 NORTH|START 1|".encode())
        while b"MOVE" not in conn.recv(4096):
            pass
        conn.sendall(b"SET 2,2 EAST|")
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    port, thread = _one_shot_server(script)
    brain = asyncio.run(run_bot("127.0.0.1", port, "random", random.Random(2), timeout_s=deadline(10)))
    thread.join(deadline(10))
    assert brain.id == 3 and brain.round == 1
    port, thread = _one_shot_server(script)
    brain = play("127.0.0.1", port, "random", random.Random(2), timeout_s=deadline(10))
    thread.join(deadline(10))
    assert brain.id == 3 and brain.round == 1


def test_bot_command_names_an_unreadable_map_and_an_unknown_host(tmp_path, capsys):
    from arena.cli import main

    missing = tmp_path / "gone.map"
    port, thread = _one_shot_server(lambda conn: (conn.sendall(f"ID 0|MAP {missing}|".encode()),
                                                  conn.recv(4096), conn.recv(4096)))
    assert main(["bot", "127.0.0.1", str(port)]) == 2
    thread.join(deadline(10))
    assert capsys.readouterr().err == f"arena: cannot read the map {missing}: No such file or directory\n"
    # a server's MAP naming a device is refused, not read forever
    port, thread = _one_shot_server(lambda conn: (conn.sendall(b"ID 0|MAP /dev/zero|"),
                                                  conn.recv(4096), conn.recv(4096)))
    assert main(["bot", "127.0.0.1", str(port)]) == 2
    thread.join(deadline(10))
    assert capsys.readouterr().err == "arena: cannot read the map /dev/zero: not a regular file\n"
    assert main(["bot", "nohost.invalid", "15499"]) == 2
    unknown = "Name or service not known"
    assert capsys.readouterr().err == f"arena: cannot connect to nohost.invalid:15499: {unknown}\n"
    replay = tmp_path / "r.jsonl"
    assert main(["serve", "office", "--host", "bogus.invalid", "--replay", str(replay), "-q"]) == 2
    assert capsys.readouterr().err == f"arena: cannot listen on bogus.invalid:15000: {unknown}\n"
    # a host name with a part longer than 63 characters was a traceback (UnicodeError from its encoding)
    long = "x" * 64
    assert main(["bot", long, "15499"]) == 2
    assert capsys.readouterr().err == f"arena: cannot connect to {long}:15499: not a valid host name\n"
    assert main(["serve", "office", "--host", long, "--replay", str(replay), "-q"]) == 2
    assert capsys.readouterr().err == f"arena: cannot listen on {long}:15000: not a valid host name\n"


def test_bot_command_plays_to_disconnect_and_names_a_server_that_speaks_no_arena(map_file):
    def script(conn):
        conn.sendall(f"ID 3|MAP {map_file}|SET 1,1 NORTH|TOXIC 1,1 0.01|LIFE 100.00 3|START 1|".encode())
        assert conn.recv(4096).startswith(b"ID_OKAY|")
        conn.sendall(b"TEAMCHANGE RED 3|DISCONNECT|")
        conn.recv(4096)

    port, thread = _one_shot_server(script)
    command = [sys.executable, "-m", "arena", "bot", "--strategy", "smart", "127.0.0.1", str(port)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=deadline(20))
    thread.join(deadline(10))
    assert (done.returncode, done.stdout, done.stderr) == (0, "bot 3 (smart): game over after round 1\n", "")

    port, thread = _one_shot_server(lambda conn: (conn.sendall(b"HTTP/1.1 400 Bad Request|"),
                                                  conn.recv(4096)))
    command = [sys.executable, "-m", "arena", "bot", "127.0.0.1", str(port)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=deadline(20))
    thread.join(deadline(10))
    assert done.returncode == 2
    assert done.stderr == (f"arena: 127.0.0.1:{port} does not speak the arena protocol: "
                           f"unknown command 'HTTP/1.1'\n")


def test_smart_keeps_its_path_searches_and_they_match_fresh_ones(map_file, monkeypatch):
    from arena import smart

    brain = brain_at("smart", map_file, 2, 2)
    planner = smart.Planner(brain)
    dist, first = planner.first_steps((2, 2), 3)
    assert planner.first_steps((2, 2), 3)[0] is dist
    assert dist == smart.Planner(brain_at("smart", map_file, 2, 2)).first_steps((2, 2), 3)[0]
    assert dist[(5, 2)] == 3 and first[(5, 2)] in ("EAST", "NORTH_EAST", "SOUTH_EAST") and (6, 2) not in dist
    monkeypatch.setattr(smart, "KEPT_SEARCHES", 4)
    for x in range(1, 9):
        planner.distances((x, 1), 2)
        assert len(planner._searches) <= 4
    assert planner.distances((2, 2), 3) == dist


def test_a_stop_after_the_game_is_over_changes_nothing():
    # a tournament stopping while a game that has just ended closes its connections: that game counts
    class LateStop:
        def on_start(self, server):
            pass

        def on_round(self, server, result, moves):
            pass

        def on_end(self, server, table):
            server.stop("interrupted")

    async def go():
        server = ArenaServer(small_arena(), Settings(players=2, port=0, move_ms=3000, prep_ms=20, seed=5,
                                                     quiet_rounds=5), [LateStop()])
        await server.start()
        bots = [asyncio.create_task(run_bot("127.0.0.1", server.port, "hunt", random.Random(5),
                                            timeout_s=deadline(10)))
                for _ in range(2)]
        table = await server.run()
        await asyncio.gather(*bots)
        return server, table

    server, table = asyncio.run(go())
    assert server.stopped is None and server.playing.is_over() and len(table) == 2


def test_bot_command_names_a_silent_port_and_a_server_that_turns_it_away(capsys):
    # A listener that never sends ID kept the bot waiting for ever; a server that closed the connection at
    # once (its game full or under way) had the bot print "bot None (hunt): game over after round 0", exit 0.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    expected = rf"^127.0.0.1:{port} sent no ID within 0.5 s of connecting: is it an arena server\?$"
    with listener, pytest.raises(BotError, match=expected):
        play("127.0.0.1", port, "hunt", random.Random(1), id_wait_s=0.5)
    port, thread = _one_shot_server(lambda conn: None)
    from arena.cli import main

    assert main(["bot", "127.0.0.1", str(port)]) == 2
    thread.join(deadline(10))
    assert capsys.readouterr() == ("", f"arena: 127.0.0.1:{port} closed the connection before sending ID "
                                       f"(a game that is full, under way or stopping turns bots away)\n")


def test_bot_command_turned_away_by_a_real_server_whose_game_is_full(capsys):
    # A real server answers a client of a game already full with DISCONNECT before closing: the bot took
    # that for the end of its game ("bot None (hunt): game over after round 0", exit 0).
    from arena.cli import main

    async def go():
        server = ArenaServer(small_arena(), Settings(players=2, port=0, move_ms=3000, prep_ms=20_000, seed=5))
        await server.start()
        bots = [asyncio.create_task(run_bot("127.0.0.1", server.port, "hunt", random.Random(k),
                                            timeout_s=deadline(20)))
                for k in range(2)]
        game = asyncio.create_task(server.run())
        while server.waiting_for:
            await asyncio.sleep(0.01)
        status = await asyncio.to_thread(main, ["bot", "127.0.0.1", str(server.port)])
        server.stop("interrupted")
        await game
        await asyncio.gather(*bots)
        return server.port, status

    port, status = asyncio.run(go())
    assert status == 2
    assert capsys.readouterr() == ("", f"arena: 127.0.0.1:{port} closed the connection before sending ID "
                                       f"(a game that is full, under way or stopping turns bots away)\n")


def test_bot_command_says_when_the_server_went_away_mid_game(map_file, capsys):
    from arena.cli import main

    def script(conn):
        conn.sendall(f"ID 2|MAP {map_file}|SET 1,1 NORTH|START 1|".encode())
        while b"MOVE" not in conn.recv(4096):
            pass
        conn.sendall(b"SET 2,2 EAST|START 2|")
        while b"MOVE" not in conn.recv(4096):
            pass

    port, thread = _one_shot_server(script)
    assert main(["bot", "--strategy", "random", "127.0.0.1", str(port)]) == 0
    thread.join(deadline(10))
    assert capsys.readouterr() == (
        "bot 2 (random): the server closed the connection in round 2, without DISCONNECT\n", "")


def test_bot_command_says_when_the_game_was_stopped_before_round_1(map_file, capsys):
    # a server stopped by a signal in the preparation sends DISCONNECT before any START: the bot said
    # "game over after round 0", then "game over before round 1"
    from arena.cli import main

    def script(conn):
        conn.sendall(f"ID 1|MAP {map_file}|".encode())
        assert conn.recv(4096).startswith(b"ID_OKAY|")
        conn.sendall(b"DISCONNECT|")
        conn.recv(4096)

    port, thread = _one_shot_server(script)
    assert main(["bot", "--strategy", "smart", "127.0.0.1", str(port)]) == 0
    thread.join(deadline(10))
    assert capsys.readouterr() == ("bot 1 (smart): game stopped before round 1\n", "")


@pytest.mark.e2e
def test_bot_command_says_the_last_round_played_when_the_server_is_stopped_mid_round():
    # `arena serve` sent SIGTERM in round 31 said "game stopped after 30 rounds (terminated)" and its bots
    # "game over after round 31": the round under way is dropped, and the server then sent the team changes
    # of round 30 a second time.
    server = subprocess.Popen([sys.executable, "-m", "arena", "serve", "office", "--players", "3", "--port",
                               "0", "--seed", "3", "--prep-ms", "50", "--move-ms", "60000", "--quiet-rounds",
                               "1", "--replay", "/dev/null"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    bots = []
    try:
        assert server.stderr is not None
        port = next(int(line.rsplit(":", 1)[1]) for line in server.stderr if "listening on " in line)
        raw, raw_id = join(port)
        bots = [subprocess.Popen([sys.executable, "-m", "arena", "bot", "127.0.0.1", str(port)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        raw.until("START 1")
        raw.send(b"MOVE NONE NORTH|")
        before = raw.until("START 2")
        assert [m for m in before if m.startswith("TEAMCHANGE ")], "round 1 ends with a forced switch"
        server.send_signal(signal.SIGTERM)
        assert raw.eof()
        said = [bot.communicate(timeout=deadline(20)) for bot in bots]
        stdout, stderr = server.communicate(timeout=deadline(20))
    finally:
        for proc in (server, *bots):
            if proc.poll() is None:
                proc.kill()
    assert server.returncode == 143, stderr
    assert stdout.splitlines()[0] == "game stopped after 1 round (terminated)"
    assert raw.received[raw.received.index("START 2") + 1:] == ["DISCONNECT"]
    ids = sorted({0, 1, 2} - {raw_id})
    assert sorted(said) == [(f"bot {n} (hunt): game stopped after round 1\n", "") for n in ids]
    assert [bot.returncode for bot in bots] == [0, 0]


def test_a_bot_of_a_game_stopped_between_rounds_says_the_round_it_played_last():
    # A stop between two rounds ends a game after the round whose START the bots had: its team changes come
    # before DISCONNECT, and a bot knows that round was played; blues are left, so the game was stopped.
    class StopAfterRound1:
        def on_start(self, server):
            pass

        def on_round(self, server, result, moves):
            if result.round == 1:
                server.stop("interrupted")

        def on_end(self, server, table):
            pass

    async def go():
        server = ArenaServer(small_arena(), Settings(players=3, port=0, move_ms=3000, prep_ms=20, seed=5,
                                                     quiet_rounds=1), [StopAfterRound1()])
        await server.start()
        game = asyncio.create_task(server.run())
        lines = await asyncio.gather(*(asyncio.to_thread(play_example, "127.0.0.1", server.port, "flee", k)
                                       for k in range(3)))
        await game
        return server, lines

    server, lines = asyncio.run(go())
    assert server.stopped == "interrupted" and server.playing.round == 1
    assert sum(p.team == "RED" for p in server.playing.players) == 1
    assert sorted(lines) == [f"bot {n} (flee): game stopped after round 1" for n in range(3)]


def queue_search(brain: Brain, sources, limit, here=None, first_steps=False):
    """A plain breadth-first search with a queue, as the bots' searches were first written: the reference
    their layer-by-layer searches must match, cell for cell and in the same order (the bots' choices among
    equal cells follow that order)."""
    from collections import deque

    dist = {s: 0 for s in sources}
    first = {s: "NONE" for s in sources}
    queue = deque(dist)
    while queue:
        cell = queue.popleft()
        d = dist[cell] + 1
        if (limit is not None and d > limit) or (here in dist and d > dist[here] + 2):
            break
        for direction, nxt in brain.steps(cell):
            if nxt not in dist:
                dist[nxt] = d
                first[nxt] = direction if cell in sources else first[cell]
                queue.append(nxt)
    return (dist, first) if first_steps else dist


@settings(max_examples=150, deadline=None)
@given(st.integers(3, 9), st.integers(3, 9), st.data())
def test_layered_searches_match_a_queue_search_cell_for_cell_in_order(width, height, data):
    from arena.smart import HORIZON, Planner

    rows = data.draw(st.lists(st.lists(st.booleans(), min_size=width, max_size=width), min_size=height,
                              max_size=height))
    brain = Example("smart", random.Random(1))
    brain.walls = tuple(tuple(row) for row in rows)
    free = [(x, y) for y in range(height) for x in range(width) if not rows[y][x]]
    if not free:
        return
    sources = data.draw(st.lists(st.sampled_from(free), min_size=1, max_size=3, unique=True))
    limit = data.draw(st.none() | st.integers(0, 12))
    brain.x, brain.y = data.draw(st.sampled_from(free))
    here = (brain.x, brain.y)
    found = brain.distances(sources, limit)
    assert list(found.items()) == list(queue_search(brain, sources, limit, here).items())
    found = brain.distances(sources, limit, around_self=False)
    assert list(found.items()) == list(queue_search(brain, sources, limit).items())
    planner = Planner(brain)
    start, depth = sources[0], HORIZON if limit is None else limit
    dist, first = planner.first_steps(start, depth)
    want_dist, want_first = queue_search(brain, [start], depth, first_steps=True)
    assert list(dist.items()) == list(want_dist.items())
    assert first == want_first


def test_a_brain_of_your_own_that_chooses_no_move_word_is_told_at_once(map_file):
    """A subclass's ``choose()`` must give the words of ``MOVE`` (§3): a typo was sent as written, and the
    server only counted it as ignored, round after round."""

    class Typo(Brain):
        def choose(self) -> tuple[str, str]:
            return ("NONE", "WEST") if self.round == 1 else ("NorthEast", "WEST")

    brain = Typo()
    brain.handle(wire.Id(0))
    brain.handle(wire.Map(str(map_file)))
    assert brain.handle(wire.Start(1)) == [wire.Move("NONE", "WEST")]
    with pytest.raises(ValueError, match=r"returned \('NorthEast', 'WEST'\): expected a direction"):
        brain.handle(wire.Start(2))

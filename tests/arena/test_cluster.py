"""``arena tournament --cluster``: a real Dask scheduler and two real workers on 127.0.0.1 play the games."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from fractions import Fraction
from pathlib import Path

import pytest
from arena_helpers import wait_for
from deadline import deadline, wait_until

from arena import replay

distributed = pytest.importorskip("distributed")

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

BIN = Path(sys.executable).parent
BOTS = ["random", "flee", "hunt", "smart"]
START_S = 40.0
"""A base for deadline(): a scheduler and two workers start in about 5 s on an idle machine."""
TOURNAMENT_S = 300.0
"""A base for deadline(): the longest tournament here."""


class Cluster:
    """``dask scheduler`` and ``dask worker`` processes (one thread each, named by *workers*, a and b by
    default, local directories under *folder*), each in a session of its own; a worker started in the folder
    *cwd* (default: this process's) with a nanny unless *nanny* is false; ``address``: the scheduler's;
    ``workers``: name -> worker address."""

    def __init__(self, folder: Path, workers: tuple[str, ...] = ("a", "b"), *, cwd: Path | None = None,
                 nanny: bool = True) -> None:
        self.folder = folder
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        scheduler_file = folder / "scheduler.json"
        self._start("scheduler", [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--no-dashboard", "--scheduler-file", str(scheduler_file)])
        wait_for(lambda: scheduler_file.exists() and scheduler_file.stat().st_size > 0, "the scheduler",
                 START_S)
        self.address = json.loads(scheduler_file.read_text())["address"]
        self.workers: dict[str, str] = {}
        if workers:
            self.add(*workers, cwd=cwd, nanny=nanny)

    def add(self, *workers: str, cwd: Path | None = None, nanny: bool = True,
            command: tuple[str, ...] = (str(BIN / "dask"), "worker")) -> None:
        """Start the workers named *workers* (each by *command*) and wait until the scheduler has them all."""
        for name in workers:
            self._start(name, [*command, self.address, "--name", name, "--nthreads", "1", "--host",
                               "127.0.0.1", "--no-dashboard", "--local-directory", str(self.folder / name),
                               *([] if nanny else ["--no-nanny"])], cwd)
        with distributed.Client(self.address, timeout=deadline(START_S)) as client:

            def all_in() -> dict[str, str] | None:
                info = client.scheduler_info()["workers"]
                known = {w["name"]: address for address, w in info.items()}
                return known if set(workers) <= set(known) else None

            known = wait_until(all_in, f"workers {', '.join(workers)} in the scheduler", START_S)
        self.workers.update({name: known[name] for name in workers})

    def _start(self, name: str, argv: list[str], cwd: Path | None = None) -> None:
        log = open(self.folder / f"{name}.log", "wb")  # noqa: SIM115 (kept for the process's life)
        self.processes[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=cwd,
                                                start_new_session=True)
        log.close()

    def kill(self, name: str) -> None:
        """SIGKILL the process group of *name*: the scheduler, or a worker's nanny, the worker and its game
        processes."""
        os.killpg(self.processes[name].pid, signal.SIGKILL)
        self.processes[name].wait()
        self.workers.pop(name, None)

    def close(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(deadline(10))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.fixture
def cluster(tmp_path):
    made = Cluster(tmp_path)
    yield made
    made.close()


def tournament(cluster: Cluster, out: Path, games: int, *, prep_ms: int = 100) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(BIN / "arena"), "tournament", *BOTS, "--games", str(games), "--players", "4", "--maps", "office",
         "--prep-ms", str(prep_ms), "--move-ms", "2000", "--seed", "5", "--out", str(out),
         "--cluster", cluster.address],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_the_tournament_s_client(cluster: Cluster) -> None:
    """Wait until a tournament's client has reached the scheduler of *cluster*."""
    with distributed.Client(cluster.address, timeout=deadline(START_S)) as client:
        def clients() -> int:  # the scheduler's own, this one and the tournament's
            return len(client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.clients))

        wait_until(lambda: clients() >= 3, "the tournament's client in the scheduler", START_S)


def games_under_way(worker: Path) -> list[Path]:
    """The folders of the games being played under the local directory *worker* of a Dask worker."""
    return [f for f in worker.glob("**/arena-*/games/*") if (f / "replay.jsonl").exists()]


def check_games(out: Path, data: dict) -> None:
    """Every game counts once, its replay re-simulates exactly and its final table is the seats' points; the
    standings are each bot's mean over the games (one map, every bot in every game)."""
    numbers = [g["game"] for g in data["games"]]
    assert numbers == list(range(1, data["scheduled"] + 1)) and data["played"] == data["scheduled"]
    totals = dict.fromkeys(BOTS, Fraction(0))
    for game in data["games"]:
        assert game["error"] is None and game["stopped"] is None
        rep = replay.load(str(out / game["folder"] / "replay.jsonl"))
        verdict = replay.verify(rep)
        assert verdict.rounds == [] and verdict.ending == []
        final = {row["id"]: Fraction(row["points"]) for row in rep.final["table"]}
        for seat in game["seats"]:
            assert final[seat["id"]] == Fraction(seat["points"])
            totals[seat["bot"]] += Fraction(seat["points"])
        assert (out / game["folder"] / "server.log").stat().st_size > 0
    for row in data["standings"]:
        assert Fraction(row["points_exact"]) == totals[row["bot"]] / data["scheduled"]
        assert row["games"] == data["scheduled"]


def test_a_tournament_of_12_games_on_two_dask_workers(cluster, tmp_path):
    out = tmp_path / "out"
    run = tournament(cluster, out, 12)
    stdout, stderr = run.communicate(timeout=deadline(TOURNAMENT_S))
    assert run.returncode == 0, stderr
    data = json.loads((out / "standings.json").read_text())
    check_games(out, data)
    workers = [g["worker"] for g in data["games"]]
    assert set(workers) == set(cluster.workers.values())  # both workers played
    assert data["settings"]["cluster"] == cluster.address
    assert stdout.startswith("standings after 12 of 12 games\n")
    assert stderr.count(" done (#") == 12 and "game 12/12 done" in stderr
    for name in ("a", "b"):  # each worker's folder of the tournament's games is gone with the tournament
        assert list((tmp_path / name).glob("*/worker-*")) and not list((tmp_path / name).glob("**/arena-*"))


def test_a_worker_started_beside_modules_named_as_python_s_plays_the_example_bots(tmp_path):
    # Locally every Python a tournament starts runs with a safe path (PYTHONSAFEPATH); on a worker its game
    # processes did not: each started as "python -c ..." in the worker's folder, imported the socket.py there
    # in place of Python's own and died ("a game process died", no game played, exit status 1). The worker
    # runs without a nanny: a nanny starts its worker that way too, which Dask's own imports do not survive.
    here = tmp_path / "here"
    here.mkdir()
    for name in ("socket", "signal", "threading", "arena", "common"):
        (here / f"{name}.py").write_text(f"raise RuntimeError('the folder\\'s {name}.py was imported')\n")
    made = Cluster(tmp_path, ("a",), cwd=here, nanny=False)
    try:
        out = tmp_path / "out"
        run = tournament(made, out, 2)
        stdout, stderr = run.communicate(timeout=deadline(TOURNAMENT_S))
    finally:
        made.close()
    assert run.returncode == 0, stderr
    assert "died" not in stderr and stdout.startswith("standings after 2 of 2 games\n")
    data = json.loads((out / "standings.json").read_text())
    check_games(out, data)
    assert all(seat["status"] == "ok" for game in data["games"] for seat in game["seats"])
    assert "was imported" not in (tmp_path / "a.log").read_text()


def test_a_worker_killed_mid_game_has_its_game_played_again_elsewhere(cluster, tmp_path):
    out = tmp_path / "out"
    run = tournament(cluster, out, 6, prep_ms=1500)
    under_way = wait_until(lambda: games_under_way(tmp_path / "a"), "a game under way on worker a", START_S)
    cluster.kill("a")
    stdout, stderr = run.communicate(timeout=deadline(TOURNAMENT_S))
    assert run.returncode == 0, stderr
    data = json.loads((out / "standings.json").read_text())
    check_games(out, data)
    lost = next(g for g in data["games"] if Path(g["folder"]).name == under_way[0].name)
    assert lost["worker"] == cluster.workers["b"]
    assert stdout.startswith("standings after 6 of 6 games\n")

    def nothing_left_of_a() -> bool:  # its game's bots end with their server
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and str(tmp_path / "a") in os.readlink(entry / "cwd"):
                    return False
            except OSError:
                continue
        return True

    wait_for(nothing_left_of_a, "the bots of worker a's game to end", START_S)


def test_a_game_lost_with_the_only_worker_is_played_by_the_next_to_join(tmp_path):
    # Worker a plays alone and is killed mid-game; the game waits for a worker, and b plays it when it joins.
    # When the tournament's settings went to the workers once, as scattered data, a held the only copy, and
    # the game and every one left were cancelled ("already forgotten"): the same happened to a cluster of
    # several workers when the one holding the copy died (Dask's memory manager drops all copies but one).
    cluster = Cluster(tmp_path, ("a",))
    try:
        out = tmp_path / "out"
        run = tournament(cluster, out, 3, prep_ms=1500)
        under_way = wait_until(lambda: games_under_way(tmp_path / "a"), "a game under way on worker a",
                               START_S)
        cluster.kill("a")
        cluster.add("b")
        stdout, stderr = run.communicate(timeout=deadline(TOURNAMENT_S))
        assert run.returncode == 0, stderr
        assert stdout.startswith("standings after 3 of 3 games\n")
        data = json.loads((out / "standings.json").read_text())
        check_games(out, data)
        assert {g["worker"] for g in data["games"]} == {cluster.workers["b"]}
        assert any(Path(g["folder"]).name == under_way[0].name for g in data["games"])
    finally:
        cluster.close()


MARKING_WORKER = """import os, sys
with open(os.environ["MAIN_RUNS"], "a") as runs:
    print(os.getpid(), __name__, file=runs)
if __name__ == "__main__":
    from distributed.cli.dask_worker import main
    sys.exit(main())
"""


@pytest.mark.parametrize("started", [["worker.py"], ["-m", "worker"]])
def test_a_worker_s_game_processes_and_bots_do_not_run_its_main_module(tmp_path, monkeypatch, started):
    # Each game process a worker started ran the worker's main module again (the `dask` command's, or
    # distributed.cli.dask_worker's run with python -m, as Dask's SSH cluster and job queues do), and so did
    # every example bot forked for its games: 0.3 s of imports each, and a game took two to five times as
    # long on a worker as on the tournament's machine. Here the worker's command is a script that notes each
    # run, given by its path or as a module.
    runs = tmp_path / "runs.txt"
    monkeypatch.setenv("MAIN_RUNS", str(runs))
    (tmp_path / "worker.py").write_text(MARKING_WORKER)
    cluster = Cluster(tmp_path, ())
    try:
        cluster.add("a", command=(sys.executable, *started), cwd=tmp_path)
        out = tmp_path / "out"
        stdout, stderr = tournament(cluster, out, 2).communicate(timeout=deadline(TOURNAMENT_S))
        assert stdout.startswith("standings after 2 of 2 games\n"), stderr
        check_games(out, json.loads((out / "standings.json").read_text()))
    finally:
        cluster.close()
    names = sorted(line.split()[1] for line in runs.read_text().splitlines())
    assert names == ["__main__", "__mp_main__"]  # the nanny, then the worker it started; nothing after


def test_without_cluster_a_tournament_never_imports_dask(tmp_path):
    script = (f"import sys\nfrom arena.cli import main\n"
              f"status = main(['tournament', 'random', 'flee', '--games', '1', '--prep-ms', '50', "
              f"'--jobs', '1', '--out', {str(tmp_path / 'out')!r}, '-q'])\n"
              f"print(status, sorted(m for m in sys.modules\n"
              f"                     if m.split('.')[0] in ('dask', 'distributed')))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=deadline(100))
    assert done.stdout.splitlines()[-1] == "0 []", done.stderr


def test_a_scheduler_out_of_reach_is_one_line_before_anything_starts(tmp_path):
    done = subprocess.run([str(BIN / "arena"), "tournament", "random", "flee", "--out", str(tmp_path / "out"),
                           "--cluster", "tcp://127.0.0.1:1"], capture_output=True, text=True,
                          timeout=deadline(20))
    assert done.returncode == 2
    assert done.stderr == ("arena: --cluster tcp://127.0.0.1:1: cannot reach the scheduler "
                           "(Connection refused)\n")
    assert not (tmp_path / "out").exists()
    bad = subprocess.run([str(BIN / "arena"), "tournament", "random", "flee", "--cluster", "127.0.0.1:8786"],
                         capture_output=True, text=True, timeout=deadline(20))
    assert bad.returncode == 2 and "expected a scheduler's address tcp://HOST:PORT" in bad.stderr
    # --jobs was taken and did nothing
    jobs = subprocess.run([str(BIN / "arena"), "tournament", "random", "flee", "--jobs", "3", "--out",
                           str(tmp_path / "out"), "--cluster", "tcp://127.0.0.1:1"],
                          capture_output=True, text=True, timeout=deadline(20))
    assert (jobs.returncode, jobs.stderr) == (
        2, "arena: --jobs 3 does not apply with --cluster: the workers' threads (dask worker --nthreads) are "
           "how many games are played at once\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("listener", ["silent", "silent, then Ctrl-C", "not Dask", "closes"])
def test_a_listener_that_never_answers_or_is_not_dask_is_one_line_and_ctrl_c_ends_the_wait(
        tmp_path, listener):
    # The scheduler's dashboard port given by mistake (or any listener that says nothing) held the
    # tournament for ever, Ctrl-C and SIGTERM ignored: Dask's connection time limit leaves out its handshake.
    # A listener that answered something else gave a traceback (numpy failing to allocate 3 EiB).
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(deadline(60))
        address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
        run = subprocess.Popen([str(BIN / "arena"), "tournament", "random", "flee", "--out",
                                str(tmp_path / "out"), "--cluster", address],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        server.accept()[0].close()  # the check that something listens, before the tournament starts
        connection, _ = server.accept()  # the tournament's connection to the scheduler
        with connection:
            if listener == "closes":  # each connection, Dask's tries again included

                def close_each() -> None:
                    with contextlib.suppress(OSError):
                        while run.poll() is None:
                            server.accept()[0].close()

                connection.close()
                threading.Thread(target=close_each, daemon=True).start()
            elif listener == "silent, then Ctrl-C":
                run.send_signal(signal.SIGINT)
            elif listener == "not Dask":
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" * 50)
            stdout, stderr = run.communicate(timeout=deadline(60))
    assert "Traceback" not in stderr and "Warning" not in stderr, stderr
    if listener == "silent, then Ctrl-C":
        assert run.returncode == 130, stderr
        assert stdout.startswith("standings after 0 of 10 games (interrupted)"), (stdout, stderr)
        return
    why = {"silent": "the scheduler did not answer within 20 s",
           "not Dask": "what answered there is not a Dask scheduler",
           "closes": "cannot reach the scheduler (the connection was closed)"}[listener]
    assert run.returncode == 2
    assert stderr.endswith(f"\narena: --cluster {address}: {why}\n")
    assert stderr.count("\n") == 2, stderr  # the tournament's first line, then why it ended
    assert not (tmp_path / "out").exists()  # it held an empty games folder, and the same --out was refused


def test_ctrl_c_ends_the_wait_for_a_first_worker(tmp_path):
    # It was ignored: the tournament waited out its minute for a worker, then ended with exit status 2.
    cluster = Cluster(tmp_path, ())
    try:
        run = tournament(cluster, tmp_path / "out", 2)
        wait_for_the_tournament_s_client(cluster)
        run.send_signal(signal.SIGINT)
        stdout, stderr = run.communicate(timeout=deadline(20))
        assert run.returncode == 130, stderr
        assert stdout.startswith("standings after 0 of 2 games (interrupted)"), (stdout, stderr)
        assert "Traceback" not in stderr and "Warning" not in stderr, stderr
        assert stderr.splitlines()[1] == "tournament: waiting up to 60 s for a worker to join the scheduler"
    finally:
        cluster.close()


def test_ctrl_c_while_no_worker_is_left_ends_the_tournament(tmp_path):
    # Worker a is killed mid-game, then the tournament is stopped: it waited, deaf to Ctrl-C and SIGTERM, for
    # a worker to join and play the game (which a worker joining played to its end, and it counted).
    cluster = Cluster(tmp_path, ("a",))
    try:
        out = tmp_path / "out"
        run = tournament(cluster, out, 3, prep_ms=1500)
        wait_until(lambda: games_under_way(tmp_path / "a"), "a game under way on worker a", START_S)
        cluster.kill("a")
        assert run.stderr is not None
        err = run.stderr.fileno()
        said = b""

        def alone() -> bool:  # the line, then Ctrl-C
            nonlocal said
            ready, _, _ = select.select([err], [], [], 0.1)
            said += os.read(err, 65536) if ready else b""
            line = b"tournament: no worker is left; waiting for one to join the scheduler (Ctrl-C stops)"
            return b"\n" + line + b"\n" in said

        wait_until(alone, "the line saying that no worker is left", START_S)
        run.send_signal(signal.SIGINT)
        stdout, stderr = run.communicate(timeout=deadline(60))
        stderr = said.decode() + stderr
        assert run.returncode == 130, stderr
        assert stdout.startswith("standings after 0 of 3 games (interrupted)\n")
        data = json.loads((out / "standings.json").read_text())
        assert data["played"] == 0
        assert [(g["stopped"], g["worker"]) for g in data["games"]] == [("interrupted", None)]
        assert data["settings"]["jobs"] is None and data["settings"]["cluster"] == cluster.address
        assert "Traceback" not in stderr
    finally:
        cluster.close()


def test_a_stop_reaches_the_workers_that_join_after_it(tmp_path):
    # A worker that joined after the stop played the game it was handed to its end.
    from arena import cluster as on_cluster

    cluster = Cluster(tmp_path, ("a",))
    try:
        with distributed.Client(cluster.address, timeout=deadline(START_S)) as client:
            client.register_plugin(on_cluster.StopGames("t0", "interrupted"), name="arena-t0-stop")
            cluster.add("b")
            told = client.run(lambda: dict(on_cluster._stopped))
            assert told == {address: {"t0": "interrupted"} for address in cluster.workers.values()}
    finally:
        cluster.close()


def test_a_scheduler_lost_while_waiting_for_a_first_worker_is_one_line(tmp_path):
    # It was a traceback (Dask's OSError from its wait for workers), and the results folder was left behind
    cluster = Cluster(tmp_path, ())
    try:
        run = tournament(cluster, tmp_path / "out", 2)
        wait_for_the_tournament_s_client(cluster)
        cluster.kill("scheduler")
        _, stderr = run.communicate(timeout=deadline(60))
        assert run.returncode == 2, stderr
        assert stderr.endswith(f"\narena: --cluster {cluster.address}: the connection to the scheduler was "
                               "lost while waiting for a worker\n"), stderr
        assert "Traceback" not in stderr and not (tmp_path / "out").exists()
    finally:
        cluster.close()


def test_ctrl_c_stops_the_games_under_way_on_every_worker(cluster, tmp_path):
    out = tmp_path / "out"
    run = tournament(cluster, out, 6, prep_ms=3000)

    def a_game_on_each_worker() -> bool:
        return all(list((tmp_path / name).glob("**/arena-*/games/*/replay.jsonl")) for name in ("a", "b"))

    wait_for(a_game_on_each_worker, "a game under way on each worker", START_S)
    run.send_signal(signal.SIGINT)
    stdout, stderr = run.communicate(timeout=deadline(TOURNAMENT_S))
    assert run.returncode == 130, stderr
    data = json.loads((out / "standings.json").read_text())
    assert data["stopped"] == "interrupted" and data["played"] == 0
    assert sorted(g["stopped"] for g in data["games"]) == ["interrupted", "interrupted"]
    assert stdout.startswith("standings after 0 of 6 games (interrupted)\n")
    assert stderr.count("stopped: interrupted (does not count)") == 2



def test_losing_the_scheduler_stops_the_tournament_in_one_line(cluster, tmp_path):
    # Dask's message ran over two lines ("... cancelled for reason: scheduler-connection-lost." then "Client
    # lost the connection ..."), and both went into the progress lines and standings.json as they were.
    out = tmp_path / "out"
    run = tournament(cluster, out, 4, prep_ms=1500)
    wait_until(lambda: games_under_way(tmp_path / "a") and games_under_way(tmp_path / "b"),
               "a game under way on each worker", START_S)
    cluster.kill("scheduler")
    stdout, stderr = run.communicate(timeout=deadline(TOURNAMENT_S))
    why = "the connection to the scheduler was lost"
    assert stdout.startswith(f"standings after 0 of 4 games (the cluster failed: {why})\n"), (stdout, stderr)
    data = json.loads((out / "standings.json").read_text())
    assert data["stopped"] == f"the cluster failed: {why}"
    assert [g["error"] for g in data["games"]] == [f"lost: {why}"] * 2
    assert stderr.count(f": lost: {why} (does not count)\n") == 2, stderr
    # nothing in Dask's words ("Failed to reconnect to scheduler after 20.00 seconds", 20 s after the loss)
    assert all(line.startswith(("tournament: ", "game #")) for line in stderr.splitlines()), stderr


def test_a_worker_whose_scheduler_is_lost_stops_its_games_and_ends(tmp_path):
    # Its game processes are not daemonic: the worker closed when its scheduler was lost, but its process
    # waited for the game under way to end, here one whose second bot never connects and may take 10 minutes.
    cluster = Cluster(tmp_path, ("a",))
    started = tmp_path / "bot-started"
    try:
        run = subprocess.Popen(
            [str(BIN / "arena"), "tournament", "random", f"touch {started} && sleep 1000 {{port}}",
             "--games", "1", "--players", "2", "--maps", "office", "--connect-ms", "600000",
             "--out", str(tmp_path / "out"), "--cluster", cluster.address],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(started.exists, "the game's second bot started on worker a", START_S)
        cluster.kill("scheduler")
        assert cluster.processes["a"].wait(deadline(60)) == 0
        stdout, stderr = run.communicate(timeout=deadline(TOURNAMENT_S))
        assert stdout.startswith("standings after 0 of 1 games (the cluster failed: the connection to the "
                                 "scheduler was lost)\n"), (stdout, stderr)
    finally:
        cluster.close()

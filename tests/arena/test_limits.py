"""Bots kept in their bounds (``--bot-memory --bot-cpu --bot-files --bot-fsize --bot-procs``): real bots
that exceed a limit in a real tournament are stopped and recorded, and the other games go on; a Java bot
plays under the default limits."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from arena_helpers import wait_for
from deadline import deadline

from arena.limits import BotLimits, Cgroup, Guard

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# Joins, then does its mischief after the first START: "eat" allocates without end, "fork" forks children
# (each sleeps, then exits; at most 300 of them, so the test is bounded even if the limit failed), "write"
# writes a file without end, "spin" computes without end. It answers every START until then.
BAD_BOT = """\
import os, socket, sys, time
mode, port = sys.argv[1], int(sys.argv[2])
sock = socket.create_connection(("127.0.0.1", port))
buffer = b""
while b"ID " not in buffer:
    buffer += sock.recv(4096)
sock.sendall(b"ID_OKAY|")
while b"START" not in buffer:
    buffer += sock.recv(4096)
sock.sendall(b"MOVE NONE NORTH|")
print("mischief", flush=True)
if mode == "eat":
    food = []
    while True:
        food.append(bytearray(1 << 20))
elif mode == "fork":
    children = 0
    end = time.monotonic() + 60
    while children < 300 and time.monotonic() < end:
        try:
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
            children += 1
        except OSError:
            time.sleep(0.01)
    time.sleep(60)
elif mode == "write":
    with open("big.bin", "wb") as out:
        while True:
            out.write(bytes(1 << 20))
            out.flush()
elif mode == "spin":
    while True:
        pass
"""

JAVA_BOT = """\
import java.io.*;
import java.net.Socket;

public class Bot {
    public static void main(String[] args) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", Integer.parseInt(args[0]))) {
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            StringBuilder message = new StringBuilder();
            int c, moves = 0;
            while ((c = in.read()) != -1) {
                if (c != '|') { message.append((char) c); continue; }
                String text = message.toString().trim();
                message.setLength(0);
                if (text.startsWith("ID ")) out.write("ID_OKAY|".getBytes("US-ASCII"));
                else if (text.startsWith("START")) {
                    out.write("MOVE NONE NORTH|".getBytes("US-ASCII"));
                    moves++;
                }
                else if (text.equals("DISCONNECT")) break;
                out.flush();
            }
            System.out.println("moves " + moves);
        }
    }
}
"""


def run_tournament(tmp_path: Path, bots: list[str], *extra: str, games: int = 2) -> dict:
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", *bots, "--games", str(games), "--prep-ms", "300",
         "--move-ms", "3000", "--jobs", "1", "--seed", "3", "-q", "--out", str(out), *extra],
        capture_output=True, text=True, timeout=deadline(200), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads((out / "standings.json").read_text())


def seats_of(data: dict, bot: str) -> list[dict]:
    return [s for g in data["games"] for s in g["seats"] if s["bot"] == bot]


def test_bots_over_their_memory_processes_file_size_and_cpu_are_stopped_and_the_games_go_on(tmp_path):
    (tmp_path / "bad.py").write_text(BAD_BOT)
    bots = [f"{sys.executable} bad.py {mode} {{port}}" for mode in ("eat", "fork", "write", "spin")]
    data = run_tournament(tmp_path, [*bots, "random"], "--bot-memory", "200", "--bot-procs", "20",
                          "--bot-fsize", "5", "--bot-cpu", "2")
    assert data["played"] == 2 and all(g["error"] is None for g in data["games"])
    expected = {"eat": "memory", "fork": "processes", "write": "file size", "spin": "cpu"}
    for mode, limit in expected.items():
        label = next(b["name"] for b in data["settings"]["bots"] if f" {mode} " in b["spec"])
        seats = seats_of(data, label)
        assert [(s["status"], s["limit"]) for s in seats] == [("over a limit", limit)] * 2, mode
    assert [s["status"] for s in seats_of(data, "random")] == ["ok", "ok"]
    for game in (tmp_path / "out" / "games").iterdir():
        big = next(game.glob("*write*/big.bin"))
        assert big.stat().st_size == 5 << 20  # the file stopped at the limit
    row = next(r for r in data["standings"] if r["bot"] == "random")
    assert row["faults"] == {}
    assert {r["bot"]: r["faults"] for r in data["standings"] if r["bot"] != "random"} == {
        r["bot"]: {"over a limit": 2} for r in data["standings"] if r["bot"] != "random"}


@pytest.mark.parametrize("cap", ["cgroup", "user"])
def test_a_fork_bomb_never_has_more_processes_than_its_limit(tmp_path, monkeypatch, cap):
    """The cap itself, on one bot started as a tournament starts it: its processes are counted while it
    forks, and never pass --bot-procs (the test bot stops at 300 children on its own). "cgroup": by a
    cgroup's pids.max where one can be made; "user": by RLIMIT_NPROC, the bot run as a user of its own
    (arena as root, no cgroup)."""
    python = sys.executable
    if cap == "cgroup":
        probe = Cgroup.make_pids("arena-test", 12)
        if probe is None:
            pytest.skip("no cgroup with pids.max can be made here")
        probe.remove()
    if cap == "user":
        if os.geteuid() != 0 or not os.access("/usr/bin/python3", os.X_OK):
            pytest.skip("needs root and a Python that another user may run (/usr/bin/python3)")
        monkeypatch.setattr(Cgroup, "make_pids", classmethod(lambda cls, name, most: None))
        python = "/usr/bin/python3"
    bomb = ("import os, time\nfor _ in range(300):\n    try:\n        if os.fork() == 0:\n"
            "            time.sleep(20)\n            os._exit(0)\n    except OSError:\n"
            "        time.sleep(0.01)\ntime.sleep(20)\n")
    guard = Guard(BotLimits(procs=12), tmp_path)
    try:
        process = subprocess.Popen([python, "-c", bomb], cwd=tmp_path, start_new_session=True,
                                   preexec_fn=guard.apply)
        peak = 0
        end = time.monotonic() + deadline(20)
        while guard.over(process.pid) is None and time.monotonic() < end:
            peak = max(peak, count(guard, process.pid))
            subprocess.run(["sleep", "0.1"], check=True)
        peak = max(peak, count(guard, process.pid))
        assert guard.over(process.pid) == "processes"
        assert 2 <= peak <= 12
    finally:
        guard.close()
        process.wait(deadline(10))
    wait_for(lambda: count(guard, process.pid) == 0, "the bomb's processes to be gone", 60)


def count(guard: Guard, group: int) -> int:
    """Processes of the bot: in its cgroup, or of its user, or in its process group."""
    if guard.cgroup is not None:
        return len(guard.cgroup.pids())
    found = 0
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and ((guard.uid is not None and entry.stat().st_uid == guard.uid)
                                         or (guard.uid is None and os.getpgid(int(entry.name)) == group)):
                found += 1
        except OSError:
            continue
    return found


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs default-jdk-headless (scripts/sysdeps)")
def test_a_java_bot_plays_under_the_default_limits(tmp_path):
    (tmp_path / "Bot.java").write_text(JAVA_BOT)
    subprocess.run(["javac", "-d", str(tmp_path), str(tmp_path / "Bot.java")], check=True,
                   timeout=deadline(100))
    os.chmod(tmp_path, 0o755)  # a bot run as a user of its own must read its classes
    data = run_tournament(tmp_path, ["random", f"java -cp {tmp_path} Bot {{port}}"], games=1)
    label = next(b["name"] for b in data["settings"]["bots"] if b["spec"].startswith("java"))
    [seat] = seats_of(data, label)
    assert (seat["status"], seat["limit"], seat["exit"]) == ("ok", None, 0)
    game = data["games"][0]
    folder = next((tmp_path / "out" / game["folder"]).glob(f"{seat['seat']}-*"))
    assert (folder / "stdout.txt").read_text() == f"moves {game['rounds']}\n"  # it answered every round


def test_a_cgroup_of_our_own_counts_the_cpu_of_a_tree_of_processes():
    group = Cgroup.make("arena-test")
    if group is None:
        pytest.skip("no cgroup v2 can be made here")
    try:
        subprocess.run([sys.executable, "-c", "n = 0\nfor i in range(3_000_000):\n    n += i"],
                       preexec_fn=group.enter, check=True)
        assert group.cpu_seconds() > 0.05
    finally:
        group.remove()
    assert not group.path.exists()


def test_the_bots_of_arena_play_run_in_their_own_groups_folders_and_limits(tmp_path):
    play = subprocess.Popen([sys.executable, "-m", "arena", "play", "office", "--bots", "3", "--no-window",
                             "--round-ms", "100", "--seed", "2", "--bot-memory", "300", "--bot-files", "64"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    bots: dict[int, Path] = {}

    def three_bots() -> bool:  # this arena play's children running "arena bot" in a folder of its own
        for entry in Path("/proc").iterdir():
            try:
                words = (entry / "cmdline").read_bytes().split(b"\0")
                folder = Path(os.readlink(entry / "cwd"))
                parent = (entry / "status").read_text().split("\nPPid:")[1].split()[0]
            except (OSError, IndexError):
                continue
            # another test's arena play, beside this one, has bots of its own with other limits
            if (words[2:4] == [b"arena", b"bot"] and folder.parent.name.startswith("arena-play-")
                    and int(parent) == play.pid):
                bots[int(entry.name)] = folder
        return len(bots) == 3

    try:
        wait_for(three_bots, "the three bots of arena play", 120)
        for pid, folder in bots.items():
            assert os.getpgid(pid) == pid  # a process group of its own
            assert (folder / "stderr.txt").exists() and folder.name[0].isdigit()
            limits = {line[:26].strip(): line[26:].split()[:2]
                      for line in (Path("/proc") / str(pid) / "limits").read_text().splitlines()[1:]}
            assert limits["Max data size"] == [str(300 << 20)] * 2
            assert limits["Max open files"] == ["64", "64"]
            assert limits["Max cpu time"] == ["600", "601"] and limits["Max file size"] == [str(64 << 20)] * 2
        stdout, stderr = play.communicate(timeout=deadline(100))
    finally:
        if play.poll() is None:
            play.kill()
    assert play.returncode == 0, stderr
    assert stdout.splitlines()[-1].startswith("strategies: 0=")
    assert not any(folder.exists() for folder in bots.values())  # the bots' folders go with the game


def test_an_empty_cgroup_of_a_killed_game_process_is_removed_by_the_next_bot():
    first = Cgroup.make_pids("arena-bot", 8)
    if first is None:
        pytest.skip("no cgroup with pids.max can be made here")
    stale = first.path.with_name("arena-bot-999999999-1")  # no process 999999999: its maker was killed
    stale.mkdir()
    try:
        second = Cgroup.make_pids("arena-bot", 8)
        assert second is not None and not stale.exists() and first.path.exists()  # the live one stays
        second.remove()
    finally:
        first.remove()
        if stale.exists():
            stale.rmdir()

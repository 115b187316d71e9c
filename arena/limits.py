"""Control groups (cgroup v2) of our own: a folder under the cgroup this process is in, to count the CPU
time of a tree of processes and to cap how many processes it may have (``pids.max``).

A cgroup is made only where the system lets us (a cgroup v2 hierarchy mounted, its folder writable: a root
or a delegated user); :meth:`Cgroup.make` returns None elsewhere and the caller does without.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

CGROUP_WAIT_S = 5.0
"""How long :meth:`Cgroup.remove` waits for the processes of a killed cgroup to be gone."""


def _v2_root() -> Path | None:
    """Where the cgroup v2 hierarchy is mounted (``/sys/fs/cgroup``, or ``/sys/fs/cgroup/unified`` on a
    hybrid system), None without one."""
    try:
        with open("/proc/self/mounts", encoding="utf-8") as mounts:
            for line in mounts:
                fields = line.split()
                if len(fields) > 2 and fields[2] == "cgroup2":
                    return Path(fields[1])
    except OSError:
        return None
    return None


def _own_path() -> str:
    """This process's cgroup v2 path (``0::/user.slice/...``), "/" when unknown."""
    with contextlib.suppress(OSError), open("/proc/self/cgroup", encoding="utf-8") as groups:
        for line in groups:
            if line.startswith("0::"):
                return line[3:].strip() or "/"
    return "/"


class Cgroup:
    """One cgroup v2 folder made for us (:meth:`make`); every process moved in (:meth:`add`, or
    :meth:`enter` from a child before it runs its program) and every process those start belong to it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def make(cls, name: str) -> Cgroup | None:
        """A new cgroup *name* (made unique with this process's id) under this process's own, or under the
        hierarchy's root when that one is not ours to write; None where no cgroup v2 can be made."""
        root = _v2_root()
        if root is None:
            return None
        own = root / _own_path().lstrip("/")
        for parent in dict.fromkeys((own, root)):
            path = parent / f"{name}-{os.getpid()}-{time.monotonic_ns()}"
            try:
                path.mkdir()
            except OSError:
                continue
            if (path / "cgroup.procs").exists():
                return cls(path)
            with contextlib.suppress(OSError):
                path.rmdir()
        return None

    def add(self, pid: int) -> None:
        """Move process *pid* into this cgroup (its children to come follow it). Raises OSError."""
        (self.path / "cgroup.procs").write_text(f"{pid}\n", encoding="ascii")

    def enter(self) -> None:
        """Move the calling process into this cgroup (a child's ``preexec_fn``). Raises OSError."""
        self.add(0)

    def cpu_seconds(self) -> float:
        """CPU seconds (user and system) its processes have used, those ended included (``cpu.stat``)."""
        for line in (self.path / "cpu.stat").read_text(encoding="ascii").splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
        raise OSError(f"{self.path / 'cpu.stat'}: no usage_usec")

    def limit_pids(self, most: int) -> bool:
        """Cap its processes and threads at *most* (``pids.max``); False where the pids controller is not
        enabled for it (no ``pids.max``)."""
        target = self.path / "pids.max"
        if not target.exists():
            return False
        try:
            target.write_text(f"{most}\n", encoding="ascii")
        except OSError:
            return False
        return True

    def pids_refused(self) -> int:
        """How often a fork was refused at ``pids.max`` (``pids.events``), 0 when not known."""
        with contextlib.suppress(OSError, ValueError):
            for line in (self.path / "pids.events").read_text(encoding="ascii").splitlines():
                key, _, value = line.partition(" ")
                if key == "max":
                    return int(value)
        return 0

    def pids(self) -> list[int]:
        """The processes in it now."""
        try:
            return [int(p) for p in (self.path / "cgroup.procs").read_text(encoding="ascii").split()]
        except OSError:
            return []

    def kill(self) -> None:
        """SIGKILL every process in it (``cgroup.kill``, or one by one where the kernel has none)."""
        try:
            (self.path / "cgroup.kill").write_text("1\n", encoding="ascii")
            return
        except OSError:
            pass
        for pid in self.pids():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)

    def remove(self) -> None:
        """Kill what is left in it and remove it (a cgroup with processes cannot be removed)."""
        if self.pids():
            self.kill()
        end = time.monotonic() + CGROUP_WAIT_S
        while self.pids() and time.monotonic() < end:
            time.sleep(0.01)
        with contextlib.suppress(OSError):
            self.path.rmdir()

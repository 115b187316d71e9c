"""Bots kept in their bounds (:class:`BotLimits`, :class:`Guard`), and the control groups of our own that
help: a folder under the cgroup this process is in, to count the CPU time of a tree of processes
(:meth:`Cgroup.make`, cgroup v2) and to cap how many processes and threads it may have (``pids.max``,
:meth:`Cgroup.make_pids`: cgroup v2 where its pids controller is ours to use, else the cgroup v1 pids
hierarchy of a hybrid system).

A cgroup is made only where the system lets us (a hierarchy mounted, its folder writable: a root or a
delegated user); elsewhere the ``make`` methods return None and the caller does without: a bot's processes
are then capped by ``RLIMIT_NPROC``, with the bot run as a user of its own when arena runs as root.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import resource
import signal
import time
from dataclasses import dataclass
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


def _v1_root(controller: str) -> Path | None:
    """Where the cgroup v1 hierarchy of *controller* is mounted (``/sys/fs/cgroup/pids``), None without."""
    try:
        with open("/proc/self/mounts", encoding="utf-8") as mounts:
            for line in mounts:
                fields = line.split()
                if len(fields) > 3 and fields[2] == "cgroup" and controller in fields[3].split(","):
                    return Path(fields[1])
    except OSError:
        return None
    return None


def _own_path(controller: str = "") -> str:
    """This process's cgroup path: in the v2 hierarchy (``0::/user.slice/...``), or in the v1 hierarchy of
    *controller* (``8:pids:/...``); "/" when unknown."""
    with contextlib.suppress(OSError), open("/proc/self/cgroup", encoding="utf-8") as groups:
        for line in groups:
            number, _, rest = line.partition(":")
            names, _, path = rest.partition(":")
            if (controller in names.split(",")) if controller else (number == "0" and names == ""):
                return path.strip() or "/"
    return "/"


def _sweep(parent: Path, name: str) -> None:
    """Remove the empty cgroups *name*-PID-... under *parent* whose maker (process PID) is gone: those of a
    game process that was killed (a lost cluster worker's, whose tournament cannot clean up after it)."""
    with contextlib.suppress(OSError):
        for old in parent.glob(f"{name}-*-*"):
            maker = old.name[len(name) + 1:].split("-")[0]
            if not maker.isdigit() or Path(f"/proc/{maker}").exists():
                continue
            with contextlib.suppress(OSError):
                if not (old / "cgroup.procs").read_text(encoding="ascii").split():
                    old.rmdir()


class Cgroup:
    """One cgroup v2 folder made for us (:meth:`make`); every process moved in (:meth:`add`, or
    :meth:`enter` from a child before it runs its program) and every process those start belong to it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def make(cls, name: str) -> Cgroup | None:
        """A new cgroup v2 *name* (made unique with this process's id) under this process's own, or under
        the hierarchy's root when that one is not ours to write; None where no cgroup v2 can be made."""
        root = _v2_root()
        return None if root is None else cls._make(root, root / _own_path().lstrip("/"), name)

    @classmethod
    def make_pids(cls, name: str, most: int) -> Cgroup | None:
        """A new cgroup *name* whose processes and threads are capped at *most* (``pids.max``): cgroup v2
        where the pids controller is enabled for it, else the cgroup v1 pids hierarchy; None where neither
        can be made."""
        candidates = []
        if (v2 := _v2_root()) is not None:
            candidates.append((v2, v2 / _own_path().lstrip("/")))
        if (v1 := _v1_root("pids")) is not None:
            candidates.append((v1, v1 / _own_path("pids").lstrip("/")))
        for root, own in candidates:
            made = cls._make(root, own, name)
            if made is not None and made.limit_pids(most):
                return made
            if made is not None:
                made.remove()
        return None

    @classmethod
    def _make(cls, root: Path, own: Path, name: str) -> Cgroup | None:
        for parent in dict.fromkeys((own, root)):
            _sweep(parent, name)
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
        """SIGKILL every process in it (``cgroup.kill``, or one by one, again until none is left, where the
        kernel has none: a process may fork while the others are killed)."""
        try:
            (self.path / "cgroup.kill").write_text("1\n", encoding="ascii")
            return
        except OSError:
            pass
        end = time.monotonic() + CGROUP_WAIT_S
        while (pids := self.pids()) and time.monotonic() < end:
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what is left in it and remove it (a cgroup with processes cannot be removed)."""
        if self.pids():
            self.kill()
        end = time.monotonic() + CGROUP_WAIT_S
        while self.pids() and time.monotonic() < end:
            time.sleep(0.01)
        with contextlib.suppress(OSError):
            self.path.rmdir()


# --- bots in their bounds -----------------------------------------------------------------------------------

MEMORY, CPU, FILES, FILE_SIZE, PROCESSES = "memory", "cpu", "files", "file size", "processes"
LIMITS = (MEMORY, CPU, FILES, FILE_SIZE, PROCESSES)
"""The limits a bot can exceed, as ``standings.json`` names them."""
BOT_UID_BASE, BOT_UIDS = 61000, 4000
"""The users bots run as when arena runs as root and no cgroup can cap their processes: one of its own per
bot under way (uids 61000..64999, no entry in /etc/passwd needed), so that ``RLIMIT_NPROC``, which counts a
user's processes, counts the bot's alone."""
MARKERS = {
    MEMORY: ("MemoryError", "OutOfMemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory"),
    PROCESSES: ("BlockingIOError: [Errno 11]", "unable to create native thread", "Cannot fork",
                "fork: retry", "Resource temporarily unavailable"),
    FILES: ("Too many open files",),
    FILE_SIZE: ("File too large",),
}
"""What a bot's runtime writes on stderr when a limit stops it (Python, Java, C and C++, the shell)."""
STDERR_TAIL = 16384
"""Bytes at the end of a bot's ``stderr.txt`` looked through for :data:`MARKERS`."""


@dataclass(frozen=True)
class BotLimits:
    """The bounds of each bot a game starts (``--bot-memory MB --bot-cpu S --bot-files N --bot-fsize MB
    --bot-procs N``): data segment (``RLIMIT_DATA``, MiB: malloc and anonymous memory, not the address
    space a JVM reserves), CPU seconds, open files, size of any file it writes (MiB) and processes and
    threads together."""

    memory_mb: int = 1024
    cpu_s: int = 600
    files: int = 256
    fsize_mb: int = 64
    procs: int = 256


def _threads_of(uid: int | None = None, group: int | None = None) -> int:
    """Threads of the processes of user *uid* or of process group *group* (from ``/proc``)."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if uid is not None and os.stat(f"/proc/{entry}").st_uid != uid:
                continue
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()  # state, ppid, pgrp, ... num_threads is the 18th
        if group is not None and (len(fields) < 3 or fields[2] != str(group).encode()):
            continue
        if fields[0] != b"Z" and len(fields) > 17:
            count += int(fields[17])
    return count


def _kill_user(uid: int) -> None:
    """SIGKILL every process of user *uid* at once: a child that becomes that user sends ``kill(-1)``, which
    the kernel delivers to all of them together (one by one, a fork bomb forks again in between)."""
    for _ in range(2):
        pid = os.fork()
        if pid == 0:
            try:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)


class Guard:
    """What keeps one bot within its :class:`BotLimits`, made before the bot starts with its working
    *folder*: a cgroup capping its processes (:meth:`Cgroup.make_pids`) where one can be made, else
    ``RLIMIT_NPROC`` and, when arena runs as root, a user of its own for the bot (:data:`BOT_UID_BASE`; its
    folder is then given to that user, and the bot's command and files must be readable by others).
    :meth:`apply` runs in the bot's process before it runs the bot; :meth:`over` tells during the game
    whether it has reached its processes' cap, :meth:`reached` after it which limit stopped it; :meth:`close`
    kills whatever is left of it and gives back its cgroup and user."""

    def __init__(self, limits: BotLimits, folder: Path) -> None:
        self.limits = limits
        self.cgroup = Cgroup.make_pids("arena-bot", limits.procs)
        self.uid: int | None = None
        self.nproc: int | None = None
        self._slot: int | None = None
        if self.cgroup is None:
            if os.geteuid() == 0:
                self._slot, self.uid = _take_uid()
                os.chown(folder, self.uid, self.uid)
                for name in ("stdout.txt", "stderr.txt"):
                    with contextlib.suppress(OSError):
                        os.chown(folder / name, self.uid, self.uid)
                self.nproc = limits.procs
            else:  # the user's other processes count too
                self.nproc = _threads_of(uid=os.getuid()) + limits.procs

    def __getstate__(self) -> dict[str, object]:
        return {**self.__dict__, "_slot": None}  # the user's lock stays with the game process

    def apply(self) -> None:
        """In the bot's process, before it runs the bot: join the cgroup, set the limits, become the bot's
        user. Raises OSError."""
        if self.cgroup is not None:
            self.cgroup.enter()
        mib = 1 << 20
        limits = self.limits
        wanted = [(resource.RLIMIT_DATA, limits.memory_mb * mib, limits.memory_mb * mib),
                  (resource.RLIMIT_CPU, limits.cpu_s, limits.cpu_s + 1),
                  (resource.RLIMIT_NOFILE, limits.files, limits.files),
                  (resource.RLIMIT_FSIZE, limits.fsize_mb * mib, limits.fsize_mb * mib)]
        if self.nproc is not None:
            wanted.append((resource.RLIMIT_NPROC, self.nproc, self.nproc))
        for which, soft, hard in wanted:
            _, allowed = resource.getrlimit(which)
            if allowed != resource.RLIM_INFINITY:
                soft, hard = min(soft, allowed), min(hard, allowed)
            resource.setrlimit(which, (soft, hard))
        if self.uid is not None:
            os.setgroups([])
            os.setgid(self.uid)
            os.setuid(self.uid)

    def over(self, group: int) -> str | None:
        """:data:`PROCESSES` when the bot (process group *group*) has tried to have more processes and
        threads than its cap, or has them all; None otherwise."""
        if self.cgroup is not None:
            return PROCESSES if self.cgroup.pids_refused() else None
        used = _threads_of(uid=self.uid) if self.uid is not None else _threads_of(group=group)
        return PROCESSES if used >= self.limits.procs else None

    def reached(self, exit: int | None, group: int, folder: Path) -> str | None:
        """Which limit stopped the bot that ran in *folder* and ended with *exit* (its exit status, negative
        for a signal, None when it was stopped), None when none did: its processes' cap, SIGXCPU (CPU),
        SIGXFSZ or a file in its folder as large as the limit (file size), else what its runtime wrote on
        stderr (:data:`MARKERS`)."""
        if (found := self.over(group)) is not None:
            return found
        signals = {signal.SIGXCPU: CPU, signal.SIGXFSZ: FILE_SIZE}
        for sig, name in signals.items():
            if exit in (-sig, 128 + sig):  # killed, or a shell's status for a command it ran so
                return name
        largest = self.limits.fsize_mb << 20
        with contextlib.suppress(OSError):
            if any(p.is_file() and p.stat().st_size >= largest for p in folder.rglob("*")):
                return FILE_SIZE
        if exit in (None, 0):
            return None
        try:
            with open(folder / "stderr.txt", "rb") as handle:
                handle.seek(max(0, handle.seek(0, os.SEEK_END) - STDERR_TAIL))
                tail = handle.read().decode("utf-8", errors="replace")
        except OSError:
            return None
        return next((name for name, marks in MARKERS.items() if any(m in tail for m in marks)), None)

    def note(self) -> str | None:
        """One line naming its cgroup (``cgroup PATH``) or user (``user UID``) for :func:`release`, None
        when it has neither."""
        if self.cgroup is not None:
            return f"cgroup {self.cgroup.path}"
        return None if self.uid is None else f"user {self.uid}"

    def stop(self) -> None:
        """Kill every process of the bot: its cgroup's, or its user's."""
        if self.cgroup is not None:
            self.cgroup.kill()
        if self.uid is not None:
            _kill_user(self.uid)

    def close(self) -> None:
        """Kill what is left of the bot, remove its cgroup and give back its user."""
        self.stop()
        if self.cgroup is not None:
            self.cgroup.remove()
        if self._slot is not None:
            with contextlib.suppress(OSError):
                os.close(self._slot)
            self._slot = None


def _take_uid() -> tuple[int, int]:
    """A bot's user of its own (:data:`BOT_UID_BASE`): the first uid whose lock file (in the system's
    temporary folder) no other bot under way holds; the lock (a file descriptor) is held until
    :meth:`Guard.close`, or the end of the process holding it. Raises OSError when every one is taken."""
    import tempfile

    folder = Path(tempfile.gettempdir()) / "arena-bot-users"
    folder.mkdir(mode=0o700, exist_ok=True)
    for n in range(BOT_UIDS):
        fd = os.open(folder / str(n), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return fd, BOT_UID_BASE + n
    raise OSError(f"all {BOT_UIDS} users for bots are taken")


def release(note: str) -> None:
    """Kill what is left of a bot whose guard is gone (its game process was killed) from its
    :meth:`Guard.note`, and remove its cgroup: only a cgroup folder of a bot (``arena-bot-...``) or a bot's
    user (:data:`BOT_UID_BASE`...)."""
    kind, _, what = note.partition(" ")
    if kind == "cgroup":
        path = Path(what)
        if path.name.startswith("arena-bot-") and (path / "cgroup.procs").exists():
            Cgroup(path).remove()
    elif kind == "user" and what.isdigit() and BOT_UID_BASE <= int(what) < BOT_UID_BASE + BOT_UIDS:
        _kill_user(int(what))

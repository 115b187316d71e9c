"""A game program run as a subprocess with ``--status FILE``, for end-to-end tests.

The programs rewrite their status JSON atomically after every change; tests poll it with a deadline instead of
sleeping.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from deadline import deadline


class StatusRun:
    """``program + args + ["--status", cwd/"status.json"]`` running in *cwd* with *env*."""

    deadline_s = deadline(7)
    poll_s = 0.05

    def __init__(self, program: list[str], args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.status_path = cwd / "status.json"
        self.status_path.unlink(missing_ok=True)
        self.proc = subprocess.Popen([*program, *args, "--status", str(self.status_path)], cwd=cwd, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def status(self) -> dict | None:
        """The status as last written, or None before the first write."""
        try:
            return json.loads(self.status_path.read_text())
        except (OSError, ValueError):
            return None

    def wait(self, predicate: Callable[[dict], bool], what: str) -> dict:
        """Poll the status until *predicate* holds; AssertionError naming *what* at the deadline or exit."""
        end = time.monotonic() + self.deadline_s
        status = None
        while time.monotonic() < end:
            status = self.status()
            if status is not None and predicate(status):
                return status
            if self.proc.poll() is not None:
                break
            time.sleep(self.poll_s)
        raise AssertionError(f"timed out waiting for {what}; last status {status}; exit {self.proc.poll()}")

    def finish(self, timeout: float | None = None) -> tuple[int, str, str]:
        """Wait for the program to end by itself (SIGINT after *timeout* seconds, default ``deadline(5)``;
        SIGKILL ``deadline(3)`` later)."""
        try:
            out, err = self.proc.communicate(timeout=deadline(5) if timeout is None else timeout)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGINT)
            try:
                out, err = self.proc.communicate(timeout=deadline(3))
            except subprocess.TimeoutExpired:
                self.proc.kill()
                out, err = self.proc.communicate(timeout=deadline(2))
        return self.proc.returncode, out, err

    def stop(self) -> tuple[int, str, str]:
        """Ctrl-C the program (if it still runs) and wait for it."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        return self.finish()

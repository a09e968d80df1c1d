"""A local server's child process: its log's tail and its stop.

redis_server.py and postgres_server.py both run a database server as a child with a log file,
quote that log's end when a start fails, and stop the child with a signal it takes as "shut down
cleanly" (SIGKILL after a grace period); the pieces live here once. Only the signal differs.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


def log_tail(path: Path, lines: int = 30, offset: int = 0) -> str:
    """The last `lines` lines of the log written from byte `offset` on (a start's own part of a
    log that earlier starts wrote to as well), or a short note when there is none."""
    try:
        with path.open("rb") as f:
            f.seek(offset)
            text = f.read().decode(errors="replace")
    except OSError:
        return "(no log written)"
    return "\n".join(text.splitlines()[-lines:]) or "(log is empty)"


def stop_child(proc: subprocess.Popen[bytes], stop_signal: int, grace: float) -> None:
    """Send a running child `stop_signal` (its clean shutdown) and wait `grace` seconds for it
    to exit; SIGKILL it after that. A child already gone is left as it is."""
    if proc.poll() is None:
        proc.send_signal(stop_signal)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

"""A local server's child process: its start on a free port, its log's tail and its stop.

redis_server.py and postgres_server.py both run a database server as a child with a log file,
quote that log's end when a start fails, and stop the child with a signal it takes as "shut down
cleanly" (SIGKILL after a grace period); the pieces live here once. Only the signal differs.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
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


def start_on_a_port(
    wanted_port: int | None,
    pick_port: Callable[[], int],
    log_path: Path,
    try_port: Callable[[int], str | None],
    failure: Callable[[int, str, str], Exception],
) -> int:
    """Start a server on `wanted_port`, or on a port picked here when none is wanted; the port
    it serves on. A picked port may be taken by someone else before the server binds it: then
    (its log says "address already in use") another is picked, 3 tries in all; a wanted port
    is tried once.

    `try_port(port)` spawns the server on `port` and waits: None once it serves, else what went
    wrong; `failure(port, what went wrong, this try's log tail)` is the error raised."""
    attempts = 1 if wanted_port else 3
    for attempt in range(attempts):
        port = wanted_port or pick_port()
        offset = log_path.stat().st_size if log_path.exists() else 0
        error = try_port(port)
        if error is None:
            return port
        log = log_tail(log_path, offset=offset)
        in_use = "address already in use" in log.lower()
        if not (in_use and attempt + 1 < attempts):
            raise failure(port, error, log)
    raise AssertionError("unreachable")

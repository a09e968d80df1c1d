"""Ctrl-C in the terminal stops `metro up`'s stack in reverse order, Redis last.

A terminal's Ctrl-C sends SIGINT to its whole foreground process group, not to one process.
Redis once ran in `metro up`'s group: it got the SIGINT itself and shut down first, so the
engine logged connection tracebacks and writes got 503 while the rest was being stopped. Here
`metro up` runs in a group of its own and the SIGINT goes to that whole group, as a terminal
sends it.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.fixtures.processes import free_port
from tests.stack.test_up import up_argv, up_env, wait_none_marked, wait_up

UP_WITHIN_S = 300  # a safety net on a loaded machine; the test waits for "Metro is up"


@pytest.mark.timeout(600)
def test_ctrl_c_to_the_terminals_group_stops_redis_last(tmp_path: Path) -> None:
    log_path = tmp_path / "up.log"
    with log_path.open("wb") as log:
        up = subprocess.Popen(
            up_argv(tmp_path, "--port", str(free_port()), "--ai-workers", "1"),
            env=up_env(tmp_path),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group, as a shell gives a foreground job
        )
    try:
        wait_up(up, lambda: log_path.read_text(errors="replace"), UP_WITHIN_S, text="Metro is up: ")
        os.killpg(up.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        assert up.wait(120) == 0, log_path.read_text()
        said = log_path.read_text()
        order = [said.index(f"stopping {part}") for part in ("gateway", "engine", "redis")]
        assert order == sorted(order), said
        logs = tmp_path / "run" / "logs"
        redis_log = (logs / "redis.log").read_text(errors="replace")
        # Redis was stopped by the supervisor (SIGTERM), last, never by the terminal's SIGINT.
        assert "Received SIGTERM" in redis_log, redis_log[-2000:]
        assert "Received SIGINT" not in redis_log, redis_log[-2000:]
        engine_log = (logs / "engine.log").read_text(errors="replace")
        assert "Traceback" not in engine_log, engine_log[-4000:]
        wait_none_marked(tmp_path)
    finally:
        if up.poll() is None:
            os.killpg(up.pid, signal.SIGKILL)
            up.wait()

"""`metro up` refuses bad set-ups clearly and ties its children's lives to its own.

The full stack (engine, AI, gateway) is exercised in test_stack.py; these need only Redis.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from services.cli.up import port_free, redact
from tests.fixtures.processes import free_port
from tests.fixtures.waits import wait_until


def up_env(tmp_path: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """Our environment for `metro up`, marked with the test's tmp path: every process it starts
    inherits the mark, so leftovers can be found (see marked_processes)."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "GATEWAY_PORT")}
    full_env["METRO_TEST_MARK"] = str(tmp_path)
    full_env.update(env or {})
    return full_env


def up_argv(tmp_path: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "services.cli.up", "--run-dir", str(tmp_path / "run"), *args]


def metro_up(tmp_path: Path, *args: str, env: dict[str, str] | None = None):
    return subprocess.run(
        up_argv(tmp_path, *args),
        env=up_env(tmp_path, env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def marked_processes(tmp_path: Path) -> list[str]:
    """Live processes started under up_env(tmp_path)."""
    mark = f"METRO_TEST_MARK={tmp_path}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or not running(int(entry.name)):
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if mark in environ:
            found.append(f"{entry.name}: {cmdline.decode(errors='replace')}")
    return found


def wait_none_marked(tmp_path: Path, timeout: float = 10.0) -> None:
    """Wait until no process started under up_env(tmp_path) is left; fail naming those left."""
    try:
        wait_until(lambda: not marked_processes(tmp_path), "no marked process left", timeout, 0.1)
    except AssertionError as err:
        raise AssertionError(f"{err}: {marked_processes(tmp_path)}") from None


def wait_up(
    up: subprocess.Popen[Any],
    said: Callable[[], str],
    timeout: float,
    every: float = 0.2,
    text: str = "Metro is up",
) -> None:
    """Wait until `up` has said `text`; fail with all it said if it exits first or is not up in
    time."""
    try:
        wait_until(lambda: text in said() or up.poll() is not None, repr(text), timeout, every)
    except AssertionError as err:
        raise AssertionError(f"{err}; it said:\n{said()}") from None
    assert text in said(), f"it exited {up.returncode}:\n{said()}"


def running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_busy_gateway_port_is_refused_before_anything_starts(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = metro_up(tmp_path, "--port", str(port))
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "--port" in done.stderr
    assert not (tmp_path / "run" / "redis").exists()


def test_a_port_with_a_connection_in_time_wait_is_free(tmp_path: Path) -> None:
    # What a stopped stack leaves: the server closed its side of a connection first, so the
    # gateway's port holds a connection in TIME_WAIT (for up to 60 s) and no listener.
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        served, _ = listener.accept()
        served.close()  # the server's side closes first: its end goes to TIME_WAIT
        assert client.recv(1) == b""
        client.close()
    # The set-up holds: a plain bind (no SO_REUSEADDR) is refused...
    with socket.socket() as plain, pytest.raises(OSError) as refused:
        plain.bind(("127.0.0.1", port))
    assert refused.value.errno == errno.EADDRINUSE
    # ...but the port is free for a server, and `metro up`'s check says so.
    assert port_free("127.0.0.1", port) is None
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert port_free("127.0.0.1", taken.getsockname()[1]) is not None


def test_redis_url_that_does_not_answer_is_named(tmp_path: Path) -> None:
    url = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
    done = metro_up(tmp_path, "--port", str(free_port()), env={"REDIS_URL": url})
    assert done.returncode == 1
    assert "does not answer PING" in done.stderr
    assert "hunter2" not in done.stderr + done.stdout


def test_bad_port_setting_is_a_usage_error(tmp_path: Path) -> None:
    done = metro_up(tmp_path, env={"GATEWAY_PORT": "eighty"})
    assert done.returncode == 2
    assert "GATEWAY_PORT='eighty'" in done.stderr


def test_second_instance_on_the_same_run_dir_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    with (run / "up.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.write("4242")
        lock.flush()
        done = metro_up(tmp_path, "--port", str(free_port()))
    assert done.returncode == 1
    assert "in use by another `metro up` (pid 4242)" in done.stderr


def test_children_die_with_a_killed_supervisor(tmp_path: Path) -> None:
    # A supervisor killed with SIGKILL cannot stop anything; the launcher makes the kernel do it.
    script = (
        "import sys, time\n"
        "from services.cli.up import launcher\n"
        "from services.common.redis_server import RedisServer\n"
        f"server = RedisServer({str(tmp_path / 'redis')!r}, launcher=launcher()).start()\n"
        "print(server.proc.pid, flush=True)\n"
        "time.sleep(300)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        server_pid = int(parent.stdout.readline())
        assert running(server_pid)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        wait_until(lambda: not running(server_pid), "Redis gone with its supervisor", timeout=10)
    finally:
        parent.kill()
        parent.wait()
        if parent.stdout:
            parent.stdout.close()


def test_a_part_that_fails_is_named_with_its_log_and_the_rest_are_stopped(tmp_path: Path) -> None:
    # The AI workers refuse this setting at start-up; the engine and Redis are up by then.
    done = metro_up(tmp_path, "--port", str(free_port()), env={"AI_SEARCH_THREADS": "lots"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(r"ai-[12] exited with status 1 while starting", done.stderr), done.stderr
    assert "ai-1.log ends:" in done.stderr or "ai-2.log ends:" in done.stderr
    assert "AI_SEARCH_THREADS must be an integer" in done.stderr
    assert "engine is healthy" in done.stdout
    assert "stopping engine" in done.stdout and "stopping redis" in done.stdout
    wait_none_marked(tmp_path)


def test_ctrl_c_while_starting_stops_what_was_started(tmp_path: Path) -> None:
    up = subprocess.Popen(
        up_argv(tmp_path, "--port", str(free_port())),
        env=up_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert up.stdout is not None
        seen = []
        for line in up.stdout:
            seen.append(line)
            if "engine is healthy" in line:
                up.send_signal(signal.SIGINT)
                break
        assert up.wait(60) == 0, "".join(seen) + up.stdout.read()
        assert "Metro is up" not in "".join(seen)
        wait_none_marked(tmp_path)
    finally:
        if up.poll() is None:
            up.kill()
            up.wait()
        if up.stdout:
            up.stdout.close()


def test_redact_hides_only_the_password() -> None:
    assert redact("redis://u:secret@h:1/0") == "redis://u:***@h:1/0"
    assert redact("redis://:secret@h:1/0") == "redis://:***@h:1/0"
    assert redact("redis://h:1/0") == "redis://h:1/0"

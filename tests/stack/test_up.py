"""`metro up` refuses bad set-ups clearly and ties its children's lives to its own.

The full stack (engine, AI, gateway) is exercised in test_stack.py; these need only Redis.
"""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from services.cli.up import redact
from tests.fixtures.processes import free_port


def metro_up(tmp_path: Path, *args: str, env: dict[str, str] | None = None):
    full_env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "GATEWAY_PORT")}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "services.cli.up", "--run-dir", str(tmp_path / "run"), *args],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=60,
    )


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
        deadline = time.monotonic() + 10
        while running(server_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not running(server_pid)
    finally:
        parent.kill()
        parent.wait()
        if parent.stdout:
            parent.stdout.close()


def test_redact_hides_only_the_password() -> None:
    assert redact("redis://u:secret@h:1/0") == "redis://u:***@h:1/0"
    assert redact("redis://:secret@h:1/0") == "redis://:***@h:1/0"
    assert redact("redis://h:1/0") == "redis://h:1/0"

"""ServiceProcess starts real children, waits for them, reports failures and leaves none behind."""

from __future__ import annotations

import sys
import urllib.request
from pathlib import Path

import pytest

from tests.fixtures.processes import (
    ServiceGroup,
    ServiceProcess,
    ServiceStartError,
    free_port,
    port_open,
)
from tests.fixtures.waits import wait_until


def running(pid: int) -> bool:
    """True while pid is a live process (a zombie awaiting its reaper counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def http_server(port: int) -> list[str]:
    return [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]


def test_start_waits_for_the_port_then_kill_and_restart(tmp_path: Path) -> None:
    port = free_port()
    with ServiceProcess("web", http_server(port), port=port, log_dir=tmp_path) as web:
        assert urllib.request.urlopen(f"http://{web.address}/").status == 200
        first = web.pid
        web.kill()
        assert not port_open("127.0.0.1", port)
        web.restart()
        assert web.pid != first
        assert urllib.request.urlopen(f"http://{web.address}/").status == 200
    assert not port_open("127.0.0.1", port)
    assert web.log_path.read_text().count("--- start web") == 2


def test_a_child_that_dies_is_reported_with_its_log(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", "import sys; print('no config here'); sys.exit(3)"]
    with pytest.raises(ServiceStartError, match=r"(?s)status 3.*no config here"):
        ServiceProcess("broken", argv, port=free_port(), log_dir=tmp_path).start()


def test_a_child_that_never_gets_ready_is_stopped_and_reported(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", "import time; print('waiting', flush=True); time.sleep(60)"]
    service = ServiceProcess("slow", argv, ready=lambda: False, timeout=1, log_dir=tmp_path)
    with pytest.raises(ServiceStartError, match=r"(?s)not ready within 1s.*waiting"):
        service.start()
    assert not service.alive


def test_stop_takes_grandchildren_and_sigterm_deaf_children(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    script = (
        "import signal, subprocess, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "child = subprocess.Popen(['sleep', '300'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(300)\n"
    )
    service = ServiceProcess(
        "deaf", [sys.executable, "-c", script], ready=pid_file.exists, grace=0.5, log_dir=tmp_path
    )
    service.start()
    parent, grandchild = service.pid, int(pid_file.read_text())
    assert parent is not None and running(parent) and running(grandchild)
    service.stop()
    wait_until(lambda: not running(parent), "the SIGTERM-deaf child gone", timeout=5.0)
    wait_until(lambda: not running(grandchild), "its grandchild gone", timeout=5.0)


def test_group_stops_everything_in_reverse_order(tmp_path: Path) -> None:
    stopped: list[str] = []
    with ServiceGroup(tmp_path) as group:
        for name in ("first", "second"):
            port = free_port()
            service = group.start(name, http_server(port), port=port)
            original_stop = service.stop

            def stop(name: str = name, original_stop=original_stop) -> int | None:
                stopped.append(name)
                return original_stop()

            service.stop = stop  # type: ignore[method-assign]
        ports = [s.port for s in group.services]
        assert all(port_open("127.0.0.1", p) for p in ports if p)
    assert stopped == ["second", "first"]
    assert not any(port_open("127.0.0.1", p) for p in ports if p)
    assert not any(s.alive for s in group.services)

"""The whole stack as a user runs it: `./dev up` from a fresh copy, a game over HTTP, Ctrl-C; and
AI workers sharing hints behind one address list while one of them is stopped.

These start every real part (Redis, engine, AI workers, gateway) as processes.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from services.common.healthcheck import check_grpc, check_http
from tests.fixtures.processes import ROOT, ServiceProcess, free_port, python_module
from tests.fixtures.waits import wait_until
from tests.stack.test_up import wait_up

# ---- HTTP helpers -------------------------------------------------------------------------


def call(
    base: str,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    timeout: float = 60,
) -> tuple[int, Any]:
    """One JSON request; (status, decoded body) for success and error answers alike."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            return reply.status, json.loads(reply.read() or b"null")
    except urllib.error.HTTPError as err:
        with err:
            return err.code, json.loads(err.read() or b"null")


def ok(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    status, answer = call(base, method, path, body, token)
    assert 200 <= status < 300, (method, path, status, answer)
    return answer


def play_human_against_bot(base: str) -> dict[str, Any]:
    """A whole game: seat 0 plays its first legal move each turn, seat 1 is an AI seat that the
    workers move for. Returns the final view."""
    created = ok(
        base,
        "POST",
        "/api/games",
        {
            "game": "metro",
            "seats": [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "easy"}],
        },
    )
    game, token = created["game_id"], created["token"]
    hint = ok(base, "POST", f"/api/games/{game}/hint", {"level": "medium"}, token)
    assert hint["suggestions"], hint
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        view = ok(base, "GET", f"/api/games/{game}", token=token)
        if view["status"] == "over":
            return view
        if view["turn"] != 0:
            time.sleep(0.1)  # the bot's turn: an AI worker moves for it
            continue
        moves = ok(base, "GET", f"/api/games/{game}/legal", token=token)["moves"]
        move = dict(moves[0])
        move.update(expected_version=view["version"], move_id=uuid.uuid4().hex)
        ok(base, "POST", f"/api/games/{game}/moves", move, token)
    raise AssertionError(f"game {game} did not end within 300 s")


# ---- processes ----------------------------------------------------------------------------


def proc_stat(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name, or None when gone or a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return None if fields[0] == "Z" else fields


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = proc_stat(int(entry.name))
            if fields and int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def processes_mentioning(text: str) -> list[str]:
    """Command lines of live processes that contain `text`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or proc_stat(int(entry.name)) is None:
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline:
            found.append(f"{entry.name}: {cmdline}")
    return found


def cpu_ticks(pid: int) -> int:
    fields = proc_stat(pid)
    assert fields is not None, f"process {pid} is gone"
    return int(fields[11]) + int(fields[12])  # utime + stime


def fresh_copy(dest: Path) -> Path:
    """What a clone would hold: tracked files and new files not ignored, nothing generated."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        source = ROOT / name
        if source.is_file():
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return dest


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without what would point a child at our venv or our services."""
    venv_bin = str(Path(sys.executable).parent)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"VIRTUAL_ENV", "PYTHONPATH", "REDIS_URL", "AI_SERVICE_TOKEN", "GATEWAY_PORT"}
    }
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv_bin)
    env.update(extra)
    return env


# ---- tests --------------------------------------------------------------------------------


@pytest.mark.timeout(1200)
def test_dev_up_from_a_fresh_copy_plays_a_game_and_stops_cleanly(tmp_path: Path) -> None:
    copy = fresh_copy(tmp_path / "metro")
    port = free_port()
    log_path = tmp_path / "dev-up.log"
    with log_path.open("wb") as log:
        up = subprocess.Popen(
            ["./dev", "up", "--port", str(port)],
            cwd=copy,
            env=clean_env(),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    started = time.monotonic()
    try:
        # Set-up (venv, install, codegen) then the stack: minutes on a cold machine.
        wait_up(
            up, lambda: log_path.read_text(errors="replace"), 900, every=1, text="Metro is up: "
        )
        base = f"http://127.0.0.1:{port}"
        assert f"Metro is up: {base}/" in log_path.read_text()
        assert (copy / "gen" / "metro" / "v1").is_dir()
        stack = children_of(up.pid)
        # redis, postgres (the archive), engine, two AI workers, the archiver, gateway
        assert len(stack) == 7, processes_mentioning(str(copy))
        for part in ("redis", "postgres", "engine", "ai-1", "ai-2", "archiver", "gateway"):
            assert (copy / ".run" / "logs" / f"{part}.log").exists(), part

        up_s = time.monotonic() - started
        status, health = call(base, "GET", "/healthz")
        assert (status, health["ok"]) == (200, True), health
        game_started = time.monotonic()
        view = play_human_against_bot(base)
        game_s = time.monotonic() - game_started
        assert view["status"] == "over"
        assert view["deck_count"] == 0

        stopping = time.monotonic()
        up.send_signal(signal.SIGINT)
        assert up.wait(60) == 0, log_path.read_text()
        print(
            f"./dev up: up after {up_s:.0f} s, a game against the bot {game_s:.1f} s, "
            f"stopped in {time.monotonic() - stopping:.1f} s"
        )
        left = [pid for pid in stack if proc_stat(pid) is not None]
        assert not left, processes_mentioning(str(copy))
        assert not processes_mentioning(str(copy))
    finally:
        if up.poll() is None:
            up.kill()  # its children follow it (metro up ties their lives to its own)
            up.wait()


def start_backends(
    start_service: Any, redis_url: str, ai_workers: int
) -> tuple[dict[str, str], list[ServiceProcess]]:
    """An engine and `ai_workers` AI processes on free ports; (environment for a gateway, the
    workers)."""
    engine_port = free_port()
    env = {
        "REDIS_URL": redis_url,
        "AI_SERVICE_TOKEN": uuid.uuid4().hex,
        "ENGINE_HOST": "127.0.0.1",
        "ENGINE_PORT": str(engine_port),
        "ENGINE_TARGET": f"127.0.0.1:{engine_port}",
        "AI_HOST": "127.0.0.1",
    }
    start_service(
        "engine",
        python_module("services.engine"),
        env=env,
        port=engine_port,
        ready=lambda: check_grpc(f"127.0.0.1:{engine_port}", timeout=1) is None,
    )
    workers = []
    for i in range(ai_workers):
        port = free_port()
        workers.append(
            start_service(
                f"ai-{i + 1}",
                python_module("services.ai"),
                env={**env, "AI_PORT": str(port)},
                port=port,
                ready=lambda port=port: check_grpc(f"127.0.0.1:{port}", timeout=1) is None,
            )
        )
    env["AI_TARGET"] = "ipv4:" + ",".join(w.address for w in workers)
    return env, workers


def test_gateway_under_gunicorn_with_the_production_config(redis_url: str, start_service) -> None:
    env, _ = start_backends(start_service, redis_url, ai_workers=1)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    gateway = start_service(
        "gunicorn",
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "-c",
            str(ROOT / "deploy" / "gunicorn.conf.py"),
            "services.gateway.live.asgi:create_asgi()",
        ],
        env={
            **env,
            "GATEWAY_HOST": "127.0.0.1",
            "GATEWAY_PORT": str(port),
            "WEB_CONCURRENCY": "2",
            "GATEWAY_THREADS": "4",
        },
        port=port,
        ready=lambda: check_http(f"{base}/healthz", timeout=2) is None,
    )
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "easy"}]
    created = ok(base, "POST", "/api/games", {"game": "metro", "seats": seats})
    view = ok(base, "GET", f"/api/games/{created['game_id']}", token=created["token"])
    assert view["status"] == "playing"
    log = gateway.log_path.read_text()
    assert "Using worker: services.gateway.live.worker.GatewayWorker" in log
    assert log.count("Booting worker with pid") == 2
    assert gateway.stop() == 0  # SIGTERM: a graceful stop


def test_three_ai_workers_share_hints_and_survive_losing_one(redis_url: str, start_service) -> None:
    env, workers = start_backends(start_service, redis_url, ai_workers=3)
    gateway_port = free_port()
    base = f"http://127.0.0.1:{gateway_port}"
    # A load test from one client on one game: above the abuse limits a player is held to.
    limits = {"HINTS_PER_GAME": "16", "HINTS_PER_CLIENT": "16", "RATE_LIMIT_HINTS": "1000/minute"}
    start_service(
        "gateway",
        python_module("services.gateway"),
        env={**env, "GATEWAY_PORT": str(gateway_port), **limits},
        port=gateway_port,
        ready=lambda: check_http(f"{base}/healthz", timeout=2) is None,
    )

    # Two humans, so no bot turn keeps the workers busy; seat 0 is to move and asks for hints.
    created = ok(
        base,
        "POST",
        "/api/games",
        {"game": "metro", "seats": [{"kind": "human", "name": "Ada"}, {"kind": "open"}]},
    )
    game, seat0 = created["game_id"], created["token"]
    ok(base, "POST", f"/api/games/{game}/join", {"name": "Bob"})
    legal = {
        json.dumps({k: v for k, v in m.items() if k != "preview"}, sort_keys=True)
        for m in ok(base, "GET", f"/api/games/{game}/legal", token=seat0)["moves"]
    }
    # A fixed number of search iterations: every hint costs the worker that serves it real CPU.
    level = "mcts-300"

    done: list[float] = []  # when each hint was answered, in order

    def hint(_: int) -> float:
        """One hint for seat 0, checked; returns when it was answered."""
        status, answer = call(base, "POST", f"/api/games/{game}/hint", {"level": level}, seat0)
        assert status == 200, answer
        best = answer["suggestions"][0]
        move = {k: best[k] for k in ("action", "placement") if best.get(k) is not None}
        assert json.dumps(move, sort_keys=True) in legal, (best, legal)
        done.append(time.monotonic())
        return done[-1]

    before = [cpu_ticks(w.pid) for w in workers]
    started = time.monotonic()
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(hint, range(50)))
    first_half_s = time.monotonic() - started
    spent = [cpu_ticks(w.pid) - b for w, b in zip(workers, before, strict=True)]
    print(f"first 50 hints: {first_half_s:.1f} s, worker CPU ticks {spent}")
    for worker, ticks in zip(workers, spent, strict=True):
        assert ticks >= 0.15 * sum(spent), f"{worker.name} served too little: {spent} ticks"

    # Second half: stop one worker (SIGTERM) while requests are in flight; none may fail.
    survivors = workers[1:]
    before = [cpu_ticks(w.pid) for w in survivors]
    stopped_at: list[float] = []

    def stop_first_worker() -> None:
        # Mid-way: once ten of the second 50 are answered (not after a guessed time).
        wait_until(lambda: len(done) >= 60, "ten hints of the second half", timeout=600)
        # From the stop's start: a graceful stop can take seconds on a loaded machine, and the
        # hints the survivors answer meanwhile are answered after the stop began.
        stopped_at.append(time.monotonic())
        workers[0].stop()

    stopper = threading.Thread(target=stop_first_worker)
    stopper.start()
    with ThreadPoolExecutor(4) as pool:
        answered = list(pool.map(hint, range(50)))
    stopper.join()
    assert stopped_at and not workers[0].alive
    after_stop = sum(t > stopped_at[0] for t in answered)
    spent = [cpu_ticks(w.pid) - b for w, b in zip(survivors, before, strict=True)]
    print(f"second 50 hints: {after_stop} answered after the stop, survivor CPU ticks {spent}")
    assert after_stop >= 10, "the worker was not stopped mid-way"
    assert all(ticks > 0 for ticks in spent), spent

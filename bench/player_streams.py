"""Threads a gateway process holds for open streams (issue 31 item 1): N players' own streams
(`GET /api/players/me/events`) and N game streams (`GET /api/games/{id}/events`) against one
gateway as `python -m services.gateway` runs it (one uvicorn process).

    .venv/bin/python bench/player_streams.py --streams 50
    .venv/bin/python bench/player_streams.py --streams 50 --root /tmp/old-checkout

Why: the player stream was a threaded Flask route, holding a pool thread and a pump thread per
open stream; served by the hub it holds none. Starts Redis, the engine and the gateway (from
`--root`, a checkout of the project: this one by default, so that an older commit is measured
with the same script), makes N bot players, each invited to a game (so each stream has an event
to read), opens the N + N streams on raw sockets and reads each until its first event, then
reports the gateway's threads (/proc) and RSS before and with the streams open, the threads
held per stream, and how many streams opened. A measurement, not a test: prints one JSON
object.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from services.common.healthcheck import check_grpc, check_http  # noqa: E402
from services.common.redis_server import RedisServer, free_port  # noqa: E402

READ_S = 60.0  # how long a stream may take to show its first event (a loaded machine)


def proc_status(pid: int) -> dict[str, int]:
    """The process's thread count and resident memory (KB), from /proc."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("Threads", "VmRSS"):
            out[name] = int(value.split()[0])
    return {"threads": out["Threads"], "rss_kb": out["VmRSS"]}


def call(url: str, method: str, path: str, body: Any = None, address: str = "") -> Any:
    """One API call, from `address` (said to the gateway as its trusted proxy would: the engine
    counts the players made per address and minute)."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if address:
        headers["X-Forwarded-For"] = address
    request = urllib.request.Request(url + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.loads(reply.read())


def open_stream(port: int, path: str, headers: dict[str, str]) -> socket.socket:
    """A stream on a raw socket, read until its first event (`data:`) has come."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=READ_S)
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: bench\r\n{head}\r\n".encode())
    seen = b""
    deadline = time.monotonic() + READ_S
    while b"\ndata: " not in seen:
        chunk = sock.recv(65536)
        if not chunk or time.monotonic() > deadline:
            raise SystemExit(f"{path}: no event in time: {seen[:300]!r}")
        seen += chunk
    if not seen.startswith(b"HTTP/1.1 200"):
        raise SystemExit(f"{path}: {seen[:300]!r}")
    return sock


def start_stack(stack: ExitStack, root: Path) -> tuple[str, int, int]:
    """Redis, the engine and the gateway of `root`: the gateway's URL, port and pid."""
    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-player-streams-")))
    redis = stack.enter_context(RedisServer(tmp / "redis", appendonly=False))
    engine_port, gateway_port = free_port(), free_port()
    env = {
        **os.environ, "PYTHONPATH": str(root), "PYTHONUNBUFFERED": "1", "REDIS_URL": redis.url,
        "ENGINE_PORT": str(engine_port), "ENGINE_TARGET": f"127.0.0.1:{engine_port}",
        "AI_TARGET": f"127.0.0.1:{free_port()}", "GATEWAY_HOST": "127.0.0.1",
        "GATEWAY_PORT": str(gateway_port), "RATE_LIMIT_ENABLED": "0",
        "GATEWAY_STREAMS_PER_CLIENT": "0", "GATEWAY_STREAM_OPENS": "0",
        "BOT_CALLS_PER_MINUTE": "100000", "GATEWAY_PROXIES": "1",
    }  # fmt: skip

    def spawn(module: str, ready: Any) -> int:
        log = (tmp / f"{module}.log").open("wb")
        proc = subprocess.Popen([sys.executable, "-m", module], env=env, cwd=root, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip

        def stop() -> None:
            with suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
            log.close()

        stack.callback(stop)
        deadline = time.monotonic() + 90
        while ready() is not None:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{module} did not start:\n{(tmp / f'{module}.log').read_text()}")
            time.sleep(0.1)
        return proc.pid

    spawn("services.engine", lambda: check_grpc(f"127.0.0.1:{engine_port}", timeout=1.0))
    url = f"http://127.0.0.1:{gateway_port}"
    pid = spawn("services.gateway", lambda: check_http(url + "/", timeout=2.0))
    return url, gateway_port, pid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=50, help="player streams, and game ones")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to start")
    args = parser.parse_args()
    n = args.streams
    with ExitStack() as stack:
        url, port, pid = start_stack(stack, args.root.resolve())
        bots, games = [], []
        for i in range(n):
            name = f"b-{uuid.uuid4().hex[:10]}"
            bot = call(url, "POST", "/api/players", {"name": name, "bot": True},
                       address=f"10.1.{i // 250}.{i % 250 + 1}")  # fmt: skip
            seats = [{"kind": "human", "name": "Ada"}, {"kind": "bot", "name": bot["name"]}]
            made = call(url, "POST", "/api/games", {"game": "metro", "rules": {"players": 2},
                                                    "seats": seats})  # fmt: skip
            bots.append(bot["device_key"])
            games.append(made["game_id"])
        before = proc_status(pid)
        socks = []
        started = time.perf_counter()
        for key in bots:
            socks.append(open_stream(port, "/api/players/me/events", {"X-Player-Key": key}))
        with_players = proc_status(pid)
        for game in games:
            socks.append(open_stream(port, f"/api/games/{game}/events", {}))
        opened_s = time.perf_counter() - started
        with_all = proc_status(pid)
        for sock in socks:
            sock.close()
    print(json.dumps({
        "bench": "player_streams",
        "root": str(args.root.resolve()),
        "streams": {"player": n, "game": n, "opened": len(socks), "open_s": round(opened_s, 2)},
        "gateway_threads": {
            "before": before["threads"], "with_player_streams": with_players["threads"],
            "with_all_streams": with_all["threads"],
            "per_player_stream": round((with_players["threads"] - before["threads"]) / n, 2),
            "per_game_stream": round((with_all["threads"] - with_players["threads"]) / n, 2),
        },
        "gateway_rss_kb": {"before": before["rss_kb"], "with_all_streams": with_all["rss_kb"]},
    }, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()

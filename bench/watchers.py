"""Live boards at scale: many open event streams (one per open page) against one gateway.

    .venv/bin/python bench/watchers.py [--watchers 500] [--threads 256] [--max-streams S]

Starts Redis, the engine and a gunicorn gateway (deploy/gunicorn.conf.py, `--workers` x
`--threads`), opens `--watchers` Server-Sent Event streams spread over `--games` running games
(as that many browser tabs would), then plays moves in those games over HTTP at `--rate` moves/s
while every stream stays open. Measures how many streams the gateway holds and how many it
answers `503 busy` (those pages fall back to polling every 8 s), the latency of the moves and of
other pages' view reads meanwhile, and how long an event takes from the move's request to each
held stream.
Prints one JSON object; a measurement, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gateway import Client, cpu_seconds, percentile, start_stack  # noqa: E402

from services.common.config import DEFAULT_GATEWAY_THREADS, default_max_streams  # noqa: E402


def _ms(values: list[float], q: float) -> float | None:
    return round(percentile(values, q) * 1000, 1) if values else None


def _rss_mb(root: int) -> float:
    """Resident memory of a process and its children (the gunicorn arbiter and workers)."""
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            continue
        total += next(
            int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS")
        )
        todo.extend(int(c) for c in children)
    return round(total / 1024, 1)


class Watchers:
    """`count` raw SSE connections; each records when it saw which game's version."""

    def __init__(self, host: str, port: int, game_ids: list[str], count: int) -> None:
        self.host, self.port, self.game_ids, self.count = host, port, game_ids, count
        self.held = 0
        self.refused: dict[int, int] = {}
        self.seen: dict[tuple[str, int], list[float]] = {}  # (game, version) -> arrival times
        self.ready = threading.Event()
        self.stop = threading.Event()

    async def _one(self, game_id: str, opened: list[int]) -> None:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        writer.write(
            f"GET /api/games/{game_id}/events HTTP/1.1\r\nHost: {self.host}\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        status = int((await reader.readline()).split()[1])
        opened.append(status)
        if status != 200:
            self.refused[status] = self.refused.get(status, 0) + 1
            writer.close()
            return
        self.held += 1
        try:
            while not self.stop.is_set():
                line = await reader.readline()
                if not line:
                    return
                if line.startswith(b"data: "):
                    event = orjson.loads(line[6:])
                    key = (event.get("game_id", game_id), int(event.get("version", 0)))
                    self.seen.setdefault(key, []).append(time.monotonic())
        finally:
            writer.close()

    async def _run(self) -> None:
        opened: list[int] = []
        tasks = [
            asyncio.ensure_future(self._one(self.game_ids[i % len(self.game_ids)], opened))
            for i in range(self.count)
        ]
        while len(opened) < self.count and not all(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        self.ready.set()
        while not self.stop.is_set():
            await asyncio.sleep(0.1)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def run(self) -> None:
        asyncio.run(self._run())


def _new_game(client: Client) -> dict[str, Any]:
    made = client.call("POST", "/api/games", {
        "game": "metro", "rules": {"players": 2},
        "seats": [{"kind": "human", "name": "a"}, {"kind": "open"}],
    })  # fmt: skip
    joined = client.call("POST", f"/api/games/{made['game_id']}/join", {"name": "b"})
    return {"id": made["game_id"], "tokens": [made["token"], joined["token"]], "version": 0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watchers", type=int, default=500, help="event streams to open")
    parser.add_argument("--games", type=int, default=10, help="games they watch, with moves")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument(
        "--threads", type=int, default=DEFAULT_GATEWAY_THREADS, help="threads per worker"
    )
    parser.add_argument(
        "--max-streams", type=int, default=0, help="GATEWAY_MAX_STREAMS, 0: default"
    )
    parser.add_argument("--moves", type=int, default=200, help="moves played while watched")
    parser.add_argument("--rate", type=float, default=20.0, help="moves/s offered")
    args = parser.parse_args()
    if args.max_streams:
        os.environ["GATEWAY_MAX_STREAMS"] = str(args.max_streams)

    with ExitStack() as stack:
        url, pids = start_stack(stack, args.workers, args.threads, engines=1)
        # Held streams would keep gunicorn in its graceful stop for 20 s: end it at once.
        stack.callback(lambda: os.killpg(pids["gateway"], signal.SIGKILL))
        host, port = "127.0.0.1", int(url.rsplit(":", 1)[1])
        client = Client(url)
        games = [_new_game(client) for _ in range(args.games)]
        watchers = Watchers(host, port, [g["id"] for g in games], args.watchers)
        thread = threading.Thread(target=watchers.run, daemon=True)
        thread.start()
        watchers.ready.wait(120)
        time.sleep(1.0)  # every held stream has its first bytes

        reads: list[float] = []
        probing = threading.Event()

        def probe() -> None:
            """Another page's plain read (a game's view) while the streams are held."""
            reader = Client(url)
            while not probing.is_set():
                started = time.monotonic()
                reader.call("GET", f"/api/games/{games[0]['id']}")
                reads.append(time.monotonic() - started)
                time.sleep(0.1)

        prober = threading.Thread(target=probe, daemon=True)
        prober.start()
        cpu0 = {name: cpu_seconds(pid) for name, pid in pids.items()}
        moves: list[float] = []
        sent: dict[tuple[str, int], float] = {}
        errors: list[str] = []
        started = time.monotonic()
        for k in range(args.moves):
            due = started + k / args.rate
            time.sleep(max(0.0, due - time.monotonic()))
            game = games[k % len(games)]
            view = client.call("GET", f"/api/games/{game['id']}")
            if view["status"] != "playing":
                continue
            (seat,) = view["to_move"]
            token = game["tokens"][seat]
            legal = client.call("GET", f"/api/games/{game['id']}/legal", token=token)["moves"]
            move = next((m for m in legal if m["action"] == "place"), legal[0])
            body = {**move, "expected_version": view["version"], "move_id": f"w{k}"}
            t0 = time.monotonic()
            try:
                answer = client.call("POST", f"/api/games/{game['id']}/moves", body, token=token)
            except RuntimeError as err:
                errors.append(str(err)[:200])
                continue
            moves.append(time.monotonic() - t0)
            sent[(game["id"], int(answer["version"]))] = t0
        time.sleep(2.0)  # the last events reach every stream
        elapsed = time.monotonic() - started
        cpu = {
            name: round((cpu_seconds(pid) - cpu0[name]) / elapsed, 3) for name, pid in pids.items()
        }
        probing.set()
        rss = _rss_mb(pids["gateway"])
        watchers.stop.set()
        thread.join(10)

    per_game = watchers.held / max(1, len(games))
    delivery = [t - sent[key] for key, times in watchers.seen.items() if key in sent for t in times]
    expected = sum(per_game for key in sent)
    print(json.dumps({
        "benchmark": "watchers",
        "gateway": {"workers": args.workers, "threads": args.threads,
                    "max_streams_per_worker": args.max_streams or default_max_streams(args.threads),
                    "rss_mb": rss},
        "streams": {"offered": args.watchers, "held": watchers.held,
                    "refused": {str(k): v for k, v in watchers.refused.items()}},
        "moves": {"played": len(moves), "offered_per_s": args.rate, "errors": errors[:3],
                  "p50_ms": _ms(moves, 0.5), "p99_ms": _ms(moves, 0.99)},
        "view_reads": {"samples": len(reads), "p50_ms": _ms(reads, 0.5),
                       "p99_ms": _ms(reads, 0.99)},
        "events": {"delivered": len(delivery), "expected_about": round(expected),
                   "move_to_stream_p50_ms": _ms(delivery, 0.5),
                   "move_to_stream_p99_ms": _ms(delivery, 0.99)},
        "cpu_cores_busy": cpu,
        "cpus": os.cpu_count(),
    }, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()

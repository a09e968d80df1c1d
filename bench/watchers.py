"""Live pages at scale (issue 21): many open event streams against one gateway as `./dev up`
starts it (gunicorn with deploy/gunicorn.conf.py: `--workers` uvicorn workers, each fanning out
one engine subscription per game), while moves are played.

    .venv/bin/python bench/watchers.py --watchers 10000 --games 100 --moves 150 --rate 10

Starts Redis, the engine and the gateway, makes `--games` two-seat games and opens `--watchers`
streams over them, all `?delta=1`: per game the two seats' (with their tokens) and spectators'.
The streams are read by a separate process on its own asyncio loop (raw sockets), so the client is
not the limit. Then plays `--moves` moves at `--rate` moves/s (one at a time, round the games) and
`--fast-moves` at `--fast-rate` moves/s offered (a pool of threads), and reports:

- streams held and refused; gateway RSS (arbiter and workers) before and with the streams open,
  and the difference per open stream;
- every held stream got every event: events expected (moves x streams of that game) and missing;
- event delivery, from the move's request to each stream's arrival (the `--rate` phase), p50/p99;
- move latency p50/p99 in both phases (the POST only);
- Redis connections of the engine (CLIENT LIST: all, and blocked in XREAD) with 10 streams open
  and with all of them.

The file-descriptor limit is raised to the hard limit here (both the client and the gateway it
starts inherit it); one gateway process needs about one descriptor per open stream. A
measurement, not a test: prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gateway import Board, Client, cpu_seconds, percentile  # noqa: E402

from services.cli.up import gateway_argv  # noqa: E402
from services.common.config import DEFAULT_GATEWAY_THREADS  # noqa: E402

OPEN_AT_ONCE = 200  # streams being opened at one time by the client
# An event message (never `event: view`): its id line, then its JSON, whose first fields are
# the event id, the game id and the version (services/engine/core/messages.py game_event).
EVENT_VERSION = re.compile(rb'(?:^|\n)id: [^\n]*\ndata: \{"event_id":"[^"]*","game_id":"[^"]*",'
                           rb'"version":([0-9]+)')  # fmt: skip


def _ms(values: list[float], q: float) -> float | None:
    return round(percentile(values, q) * 1000, 1) if values else None


def _rss_kb(root: int) -> int:
    """Resident memory of a process and its children (the gunicorn arbiter and workers), KB."""
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
    return total


def _children(pid: int) -> set[int]:
    try:
        return {int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}
    except OSError:
        return set()


def raise_fd_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# ---- the client: a process of its own -----------------------------------------------------


class Streams:
    """The open streams, on this process's loop: what each game's streams received, when."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.held: dict[str, int] = {}  # game -> streams open now
        self.refused: dict[str, int] = {}
        self.ended: dict[str, int] = {}  # why held streams ended before the bench stopped them
        self.arrivals: dict[tuple[str, int], list[float]] = {}  # (game, version) -> times
        self.tasks: list[asyncio.Task[None]] = []

    async def one(self, game: str, token: str | None, opened: asyncio.Event) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 20)
        except OSError as err:
            key = type(err).__name__
            self.refused[key] = self.refused.get(key, 0) + 1
            opened.set()
            return
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        writer.write(f"GET /api/games/{game}/events?delta=1 HTTP/1.1\r\nHost: bench\r\n"
                     f"Accept: text/event-stream\r\n{auth}\r\n".encode())  # fmt: skip
        try:
            status = int((await reader.readline()).split()[1])
            if status != 200:
                self.refused[str(status)] = self.refused.get(str(status), 0) + 1
                return
            self.held[game] = self.held.get(game, 0) + 1
            opened.set()
            # The body is chunked, and the gateway writes whole SSE messages in each chunk: read
            # a chunk at a time and find each event's version without decoding its JSON (the
            # client shares the machine's two cores with the servers it measures).
            while (await reader.readline()).strip():
                pass  # the rest of the head
            try:
                while True:
                    size_line = await reader.readline()
                    size = int(size_line.strip() or b"0", 16) if size_line else 0
                    if size == 0:
                        why = "closed by the server"
                        self.ended[why] = self.ended.get(why, 0) + 1
                        return
                    chunk = await reader.readexactly(size + 2)
                    now = time.monotonic()
                    for found in EVENT_VERSION.finditer(chunk):
                        key = (game, int(found.group(1)))
                        self.arrivals.setdefault(key, []).append(now)
            finally:
                self.held[game] -= 1
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a measurement: count it, go on
            key = type(err).__name__
            self.ended[key] = self.ended.get(key, 0) + 1
            return
        finally:
            opened.set()
            writer.close()

    async def open(self, targets: list[tuple[str, str | None]]) -> None:
        """Open these streams, OPEN_AT_ONCE at a time, each counted once it is answered."""
        pending: list[asyncio.Event] = []
        for game, token in targets:
            opened = asyncio.Event()
            self.tasks.append(asyncio.ensure_future(self.one(game, token, opened)))
            pending.append(opened)
            if len(pending) >= OPEN_AT_ONCE:
                await asyncio.gather(*(p.wait() for p in pending))
                pending = []
        await asyncio.gather(*(p.wait() for p in pending))


def client_process(port: int, conn: Any) -> None:
    """Serve the bench's orders over `conn`: ("open", targets) -> held count; ("stop",) ->
    the arrivals and the streams held per game."""
    raise_fd_limit()

    async def main() -> None:
        streams = Streams(port)
        loop = asyncio.get_running_loop()
        while True:
            order = await loop.run_in_executor(None, conn.recv)
            if order[0] == "open":
                await streams.open(order[1])
                await asyncio.sleep(0.5)
                conn.send((sum(streams.held.values()), dict(streams.refused)))
            elif order[0] == "held":
                conn.send(dict(streams.held))
            else:
                conn.send((streams.arrivals, dict(streams.held), dict(streams.ended)))
                for task in streams.tasks:
                    task.cancel()
                return

    import uvloop  # the client's loop: it reads 10,000 sockets on a core it shares

    uvloop.run(main())


# ---- the stack and the moves ---------------------------------------------------------------


def start_stack(stack: ExitStack, workers: int, threads: int) -> tuple[str, int, str, str]:
    """Redis, the engine and the gateway (as `./dev up` starts it): URL, gateway pid, Redis URL
    and the gateway's log file."""
    from services.common.healthcheck import check_grpc, check_http
    from services.common.redis_server import RedisServer, free_port

    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-watchers-")))
    redis = stack.enter_context(RedisServer(tmp / "redis", appendonly=False))
    engine_port, gateway_port = free_port(), free_port()
    env = {
        **os.environ, "PYTHONUNBUFFERED": "1", "REDIS_URL": redis.url,
        "ENGINE_PORT": str(engine_port), "ENGINE_TARGET": f"127.0.0.1:{engine_port}",
        "AI_TARGET": f"127.0.0.1:{free_port()}", "GATEWAY_HOST": "127.0.0.1",
        "GATEWAY_PORT": str(gateway_port), "WEB_CONCURRENCY": str(workers),
        "GATEWAY_THREADS": str(threads), "GATEWAY_LOG_LEVEL": "warning",
        # Every simulated page comes from 127.0.0.1: no per-client limit is meant for that.
        "RATE_LIMIT_ENABLED": "0", "GATEWAY_STREAMS_PER_CLIENT": "0",
    }  # fmt: skip
    (tmp / "logs").mkdir()
    pids: dict[str, int] = {}

    def spawn(name: str, argv: list[str], ready: Any) -> None:
        log = (tmp / "logs" / f"{name}.log").open("wb")
        proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)  # fmt: skip

        def stop() -> None:
            # Held streams would keep gunicorn in its graceful stop: end the group at once.
            with_suppressed(lambda: os.killpg(proc.pid, signal.SIGKILL))
            proc.wait(10)
            log.close()

        stack.callback(stop)
        pids[name] = proc.pid
        deadline = time.monotonic() + 90
        while ready() is not None:
            if proc.poll() is not None or time.monotonic() > deadline:
                text = (tmp / "logs" / f"{name}.log").read_text()
                raise SystemExit(f"{name} did not start:\n{text}")
            time.sleep(0.1)

    spawn("engine", [sys.executable, "-m", "services.engine"],
          lambda: check_grpc(f"127.0.0.1:{engine_port}", timeout=1.0))  # fmt: skip
    url = f"http://127.0.0.1:{gateway_port}"
    spawn(
        "gateway", gateway_argv(sys.executable), lambda: check_http(url + "/", timeout=2.0)
    )  # fmt: skip (no AI: /healthz says 503)
    return url, pids["gateway"], redis.url, str(tmp / "logs" / "gateway.log")


def with_suppressed(action: Any) -> None:
    with suppress(OSError):
        action()


def redis_connections(url: str) -> dict[str, int]:
    import redis

    client = redis.Redis.from_url(url)
    try:
        clients = client.client_list()
    finally:
        client.close()
    blocked = sum(1 for c in clients if "b" in c.get("flags", "") and c.get("cmd") == "xread")
    return {"all": len(clients) - 1, "blocked_xread": blocked}  # less this client's own


class Games:
    """Two-seat games and their moves: each game is moved by one thread at a time. The mover
    knows the rules (bench/gateway.py's `Board`): it lists a seat's placements from the latest
    view's board and that seat's own last view's hand, so a move is one request (the POST,
    whose answer is the mover's new view), and the server's work is the move and its fan-out."""

    def __init__(self, url: str, count: int) -> None:
        self.url = url
        client = Client(url)
        self.games: list[dict[str, Any]] = []
        for _ in range(count):
            made = client.call("POST", "/api/games", {
                "game": "metro", "rules": {"players": 2},
                "seats": [{"kind": "human", "name": "a"}, {"kind": "open"}],
            })  # fmt: skip
            joined = client.call("POST", f"/api/games/{made['game_id']}/join", {"name": "b"})
            tokens = [made["token"], joined["token"]]
            views = [client.call("GET", f"/api/games/{made['game_id']}", token=t) for t in tokens]
            self.games.append({"id": made["game_id"], "tokens": tokens, "views": views,
                               "latest": views[1], "board": Board(views[0]["rules"]),
                               "lock": threading.Lock()})  # fmt: skip
        self.local = threading.local()

    def move(self, k: int) -> tuple[str, int, float, float] | None:
        """Move in game k % count: (game, version after, request start, seconds); None when
        the game is over or busy."""
        game = self.games[k % len(self.games)]
        if not game["lock"].acquire(blocking=False):
            return None
        try:
            client = getattr(self.local, "client", None) or Client(self.url)
            self.local.client = client
            view = game["latest"]
            if view["status"] != "playing":
                return None
            seat = view["turn"]
            legal = game["board"].moves(view, game["views"][seat]["hand"], seat)
            move = legal[k % len(legal)]
            body = {**move, "expected_version": view["version"], "move_id": f"w{k}"}
            t0 = time.monotonic()
            answer = client.call("POST", f"/api/games/{game['id']}/moves", body,
                                 token=game["tokens"][seat])  # fmt: skip
            elapsed = time.monotonic() - t0
            game["views"][seat] = game["latest"] = answer
            return game["id"], int(answer["version"]), t0, elapsed
        finally:
            game["lock"].release()


def play(games: Games, count: int, rate: float, threads: int) -> tuple[list[Any], list[str]]:
    """`count` moves offered at `rate` per second: their results and any errors."""
    done: list[Any] = []
    errors: list[str] = []

    def one(k: int) -> None:
        try:
            result = games.move(k)
        except RuntimeError as err:
            errors.append(str(err)[:200])
            return
        if result is not None:
            done.append(result)

    started = time.monotonic()
    with ThreadPoolExecutor(threads) as pool:
        for k in range(count):
            time.sleep(max(0.0, started + k / rate - time.monotonic()))
            pool.submit(one, k)
    return done, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watchers", type=int, default=10_000, help="event streams to open")
    parser.add_argument("--games", type=int, default=100, help="games they watch, with moves")
    parser.add_argument("--workers", type=int, default=2, help="gateway worker processes")
    parser.add_argument("--threads", type=int, default=DEFAULT_GATEWAY_THREADS,
                        help="Flask API threads per worker")  # fmt: skip
    parser.add_argument("--moves", type=int, default=150, help="moves at --rate")
    parser.add_argument("--rate", type=float, default=10.0, help="moves/s while delivery is timed")
    parser.add_argument("--fast-moves", type=int, default=None, help="default: 10 x --moves")
    parser.add_argument("--fast-rate", type=float, default=200.0, help="moves/s offered")
    args = parser.parse_args()
    fast_moves = args.fast_moves if args.fast_moves is not None else 10 * args.moves
    fds = raise_fd_limit()

    with ExitStack() as stack:
        url, gateway_pid, redis_url, gateway_log = start_stack(stack, args.workers, args.threads)
        games = Games(url, args.games)
        targets: list[tuple[str, str | None]] = []
        for i in range(args.watchers):
            game = games.games[i % len(games.games)]
            nth = i // len(games.games)
            targets.append((game["id"], game["tokens"][nth] if nth < 2 else None))
        ours, theirs = mp.get_context("spawn").Pipe()
        client = mp.get_context("spawn").Process(target=client_process, args=(
            int(url.rsplit(":", 1)[1]), theirs), daemon=True)  # fmt: skip
        client.start()
        stack.callback(client.kill)
        time.sleep(1.0)
        rss_before = _rss_kb(gateway_pid)
        workers_start = _children(gateway_pid)
        # Engine-side Redis connections with 10 streams (10 games), one stream on every game,
        # and all of them (over the same games): they follow the games watched, not the watchers.
        first = min(10, len(targets))
        ours.send(("open", targets[:first]))
        held_10, _ = ours.recv()
        time.sleep(1.0)
        redis_10 = redis_connections(redis_url)
        per_game = max(first, min(len(games.games), len(targets)))
        ours.send(("open", targets[first:per_game]))
        held_games, _ = ours.recv()
        time.sleep(1.0)
        redis_games = redis_connections(redis_url)
        opening = time.monotonic()
        ours.send(("open", targets[per_game:]))
        held, refused = ours.recv()
        open_s = time.monotonic() - opening
        time.sleep(2.0)
        rss_open = _rss_kb(gateway_pid)
        redis_all = redis_connections(redis_url)
        load = os.getloadavg()

        cpu0 = cpu_seconds(gateway_pid)
        started = time.monotonic()
        timed, errors = play(games, args.moves, args.rate, 4)
        slow_s = time.monotonic() - started
        fast, fast_errors = play(games, fast_moves, args.fast_rate, 32)
        fast_s = time.monotonic() - started - slow_s
        time.sleep(3.0)  # the last events reach every stream
        gateway_cpu = round((cpu_seconds(gateway_pid) - cpu0) / (time.monotonic() - started), 2)
        ours.send(("stop",))
        arrivals, held_end, ended = ours.recv()
        workers_end = _children(gateway_pid)
        log = Path(gateway_log).read_text(errors="replace").splitlines()
        problems = [line[:200] for line in log if "TIMEOUT" in line or "Error" in line][:5]

    delivery: list[float] = []
    expected = missing = 0
    for phase in (timed, fast):
        for game, version, t0, _ in phase:
            want = held_end.get(game, 0)
            got = arrivals.get((game, version), [])
            expected += want
            missing += max(0, want - len(got))
            if phase is timed:
                delivery.extend(t - t0 for t in got)
    per_stream = (rss_open - rss_before) / held if held else None
    print(json.dumps({
        "benchmark": "watchers",
        "machine": {"cpus": os.cpu_count(), "load_average_at_open": [round(x, 1) for x in load],
                    "fd_limit": fds},
        "gateway": {"workers": args.workers, "threads": args.threads,
                    "rss_mb_before": round(rss_before / 1024, 1),
                    "rss_mb_streams_open": round(rss_open / 1024, 1),
                    "rss_kb_per_stream": round(per_stream, 1) if per_stream else None,
                    "cpu_cores_busy_while_moving": gateway_cpu},
        "streams": {"offered": args.watchers, "held": held, "refused": refused,
                    "seconds_to_open": round(open_s, 1), "held_at_end": sum(held_end.values()),
                    "ended_early": ended,
                    "workers_restarted": len(workers_start - workers_end),
                    "gateway_log_problems": problems},
        "redis_connections": {
            "streams_10": held_10, "at_10": redis_10,
            "streams_one_per_game": held_games, "at_one_per_game": redis_games,
            "streams_all": held, "at_all": redis_all,
        },
        "moves": {"played": len(timed), "offered_per_s": args.rate, "seconds": round(slow_s, 1),
                  "errors": errors[:3], "p50_ms": _ms([m[3] for m in timed], 0.5),
                  "p99_ms": _ms([m[3] for m in timed], 0.99)},
        "fast_moves": {"played": len(fast), "offered": fast_moves, "offered_per_s": args.fast_rate,
                       "achieved_per_s": round(len(fast) / max(fast_s, 1e-9), 1),
                       "errors": fast_errors[:3], "p50_ms": _ms([m[3] for m in fast], 0.5),
                       "p99_ms": _ms([m[3] for m in fast], 0.99)},
        "view_reads": {"note": "none: events carry the view (?delta=1)"},
        "events": {"expected": expected, "missing": missing,
                   "delivered_timed": len(delivery),
                   "move_to_stream_p50_ms": _ms(delivery, 0.5),
                   "move_to_stream_p99_ms": _ms(delivery, 0.99)},
    }, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()

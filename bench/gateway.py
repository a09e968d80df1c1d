"""Gateway throughput: moves per second and move latency through HTTP, many games at once.

    .venv/bin/python bench/gateway.py                    # starts Redis, engine, gunicorn gateway
    .venv/bin/python bench/gateway.py --url http://127.0.0.1:8000   # an already running gateway

Each client thread plays its own two-seat human game to the end (then starts another) and POSTs
moves with `expected_version` and a `move_id`. By default a client is a bot that knows the rules:
it picks a legal placement from the view it got back with the rules core, so each move is one
HTTP request. `--ask-legal` asks GET /legal before every move instead, as the web page does (two
requests per move). `--delta` asks each move's answer as a delta against the view that seat
holds (`?since=<version>`, docs/api-deltas.md) and applies it. Only the POST /moves round trips
are timed. Prints one JSON object; it is a measurement, not a test (targets: >= 1,000 moves/s
flat out and p99 <= 100 ms at 600 moves/s offered, 50 games, on 2 cores with the client).
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from threading import Thread
from typing import Any
from urllib.parse import urlsplit

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from services.common.config import DEFAULT_GATEWAY_THREADS  # noqa: E402
from services.gateway.delta import apply as apply_patch  # noqa: E402


class Client:
    """One keep-alive HTTP connection speaking the gateway's JSON (orjson: the client shares
    the cores with the servers, so its own JSON work is kept small too)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=30)

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = orjson.dumps(body)
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                reply = self.conn.getresponse()
                payload = reply.read()
                break
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()  # the server closed an idle keep-alive: reconnect once
                if attempt == 2:
                    raise
        if reply.status >= 400:
            raise RuntimeError(f"{method} {path}: {reply.status} {payload[:200]!r}")
        return orjson.loads(payload)


class Board:
    """The client's own copy of one game's board, laid with the rules core's `put` as the
    views show new placements (not rebuilt for every move)."""

    def __init__(self, rules: dict[str, Any]) -> None:
        from games.metro import MetroRules, MetroState

        self.state = MetroState.empty(MetroRules.parse(rules), [])
        self.laid = 0

    def moves(self, view: dict[str, Any], hand: list[str], seat: int) -> list[dict[str, Any]]:
        """The seat's legal placements of its hand on the view's board."""
        from games.metro import INDEX, Placement

        state = self.state
        for text in view["board"][self.laid :]:
            p = Placement.parse(text)
            state.put(p.tile_index, p.square)
        self.laid = len(view["board"])
        state.hands[seat] = tuple(INDEX[c] for c in hand)
        state.seat = seat
        return [m.to_json() for m in state.legal_moves(seat) if not m.is_draw]


@dataclass(frozen=True)
class Load:
    """How clients play: ask GET /legal first or not, and seconds between one game's moves
    (0: flat out; else each game is paced so that all games together offer `--rate`)."""

    ask_legal: bool
    interval: float
    delta: bool = False


def play(url: str, until: float, rng: random.Random, out: list[Any], load: Load) -> None:
    """Play games until the deadline; append (move latencies, legal latencies, errors, games)."""
    client = Client(url)
    moves: list[float] = []
    legals: list[float] = []
    errors: list[str] = []
    games = 0
    while time.monotonic() < until:
        try:
            made = client.call(
                "POST",
                "/api/games",
                {
                    "game": "metro",
                    "rules": {"players": 2},
                    "seats": [{"kind": "human", "name": "bench-a"}, {"kind": "open"}],
                },
            )
            game = made["game_id"]
            tokens = {made["seat"]: made["token"]}
            joined = client.call("POST", f"/api/games/{game}/join", {"name": "bench-b"})
            tokens[joined["seat"]] = joined["token"]
            since = "?since=0" if load.delta else ""
            views = {
                s: client.call("GET", f"/api/games/{game}{since}", token=t)
                for s, t in tokens.items()
            }
            view = views[0]
            board = Board(view["rules"])
            games += 1
            due = time.monotonic() + rng.random() * load.interval
            while view["status"] == "playing" and time.monotonic() < until:
                if load.interval:
                    time.sleep(max(0.0, due - time.monotonic()))
                    due = max(due + load.interval, time.monotonic() - load.interval)
                seat = view["turn"]
                token = tokens[seat]
                if load.ask_legal:
                    t0 = time.perf_counter()
                    legal = client.call("GET", f"/api/games/{game}/legal", token=token)["moves"]
                    legals.append(time.perf_counter() - t0)
                else:
                    # the latest view has the board; the seat's own last view has its hand
                    legal = board.moves(view, views[seat]["hand"], seat)
                places = [m for m in legal if m["action"] == "place"] or legal
                move = {
                    **rng.choice(places),
                    "expected_version": view["version"],
                    "move_id": uuid.uuid4().hex,
                }
                path = f"/api/games/{game}/moves"
                if load.delta:
                    path += f"?since={views[seat]['version']}"
                t0 = time.perf_counter()
                view = client.call("POST", path, move, token=token)
                moves.append(time.perf_counter() - t0)
                if "patch" in view:  # a delta against this seat's copy
                    view = apply_patch(views[seat], view["patch"])
                views[seat] = view
        except Exception as exc:  # a benchmark reports failures, it does not stop
            errors.append(str(exc)[:300])
            client = Client(url)
    out.append((moves, legals, errors, games))


def run_process(url: str, threads: int, until: float, seed: int, queue: Any, load: Load) -> None:
    """One client process: `threads` games at once (processes dodge the client's own GIL)."""
    out: list[Any] = []
    workers = [
        Thread(target=play, args=(url, until, random.Random(seed * 1000 + i), out, load))
        for i in range(threads)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    queue.put(out)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu_seconds(root: int) -> float:
    """CPU time (user + system) of a process and all its descendants, from /proc (Linux)."""
    stats: dict[int, tuple[int, float]] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += stats.get(pid, (0, 0.0))[1]
        todo.extend(child for child, (parent, _) in stats.items() if parent == pid)
    return total


ASGI_APP = "services.gateway.live.asgi:create_asgi()"


def start_stack(
    stack: ExitStack, workers: int, threads: int, engines: int,
    root: Path = ROOT, app: str = ASGI_APP,
) -> tuple[str, dict[str, int]]:  # fmt: skip
    """Redis, the engine (`engines` processes on one port) and the gateway under gunicorn
    (deploy/gunicorn.conf.py), on free ports, all run from the checkout `root` (another commit's
    worktree for an A/B, bench/gateway_ab.py) with gunicorn given `app`."""
    from services.common.healthcheck import check_grpc, check_http
    from services.common.redis_server import RedisServer, free_port

    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-gateway-")))
    redis = stack.enter_context(RedisServer(tmp / "redis"))
    engine_port, gateway_port = free_port(), free_port()
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "REDIS_URL": redis.url,
        "ENGINE_PORT": str(engine_port),
        "ENGINE_TARGET": f"127.0.0.1:{engine_port}",
        "AI_TARGET": f"127.0.0.1:{free_port()}",  # no AI: human games need none
        "GATEWAY_HOST": "127.0.0.1",
        "GATEWAY_PORT": str(gateway_port),
        "WEB_CONCURRENCY": str(workers),
        "GATEWAY_THREADS": str(threads),
        "GATEWAY_LOG_LEVEL": "warning",
        # Every simulated player comes from 127.0.0.1: no per-client rate is meant for that.
        "RATE_LIMIT_ENABLED": "0",
    }
    if root != ROOT:  # that checkout's generated gRPC code (gen/), not this one's
        env["PYTHONPATH"] = str(root / "gen")
    logs = tmp / "logs"
    logs.mkdir()

    pids: dict[str, int] = {}

    def spawn(name: str, argv: list[str], ready: Any) -> None:
        log = (logs / f"{name}.log").open("wb")
        proc = subprocess.Popen(
            argv, env=env, cwd=root, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        stack.callback(_stop, proc, log)
        pids[name] = proc.pid
        deadline = time.monotonic() + 60
        while ready() is not None:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{name} did not start:\n" + (logs / f"{name}.log").read_text())
            time.sleep(0.1)

    spawn(
        "engine",
        [sys.executable, "-m", "services.engine", "--processes", str(engines)],
        lambda: check_grpc(f"127.0.0.1:{engine_port}", timeout=1.0),
    )
    url = f"http://127.0.0.1:{gateway_port}"
    spawn(
        "gateway",
        [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            str(root / "deploy/gunicorn.conf.py"),
            "--access-logfile",
            "/dev/null",
            # A WSGI app (the Flask app alone) runs under gunicorn's threaded worker, as the
            # gateway did before it became one ASGI app: the A/B of the two servers.
            *([] if app == ASGI_APP else ["--worker-class", "gthread"]),
            app,
        ],
        lambda: None if _port_open(gateway_port) else "not yet",
    )
    check_http(url + "/healthz")  # warm the channels of at least one worker
    pids["redis"] = redis.proc.pid if redis.proc else 0
    return url, pids


def _stop(proc: subprocess.Popen[bytes], log: Any) -> None:
    """Stop a server, killing its process group if it has not ended 10 s after SIGTERM (an
    engine stuck in its shutdown must not cost the report that was measured)."""
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.wait(10)
    log.close()


def _port_open(port: int) -> bool:
    import socket

    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def drive(
    urls: list[str],
    games: int,
    client_processes: int,
    seconds: float,
    load: Load,
    pids: dict[str, int],
) -> tuple[list[Any], float, dict[str, float]]:
    """`games` driven for `seconds` by up to `client_processes` client processes, spread over
    `urls`: their results, the time taken and the CPU seconds of each of `pids` and of the
    clients ("client")."""
    procs = max(1, min(client_processes, games))
    queue: Any = mp.Queue()
    cpu_before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    clients_before = os.times()
    start = time.monotonic()
    until = start + seconds
    children = []
    for p in range(procs):
        share = games // procs + (1 if p < games % procs else 0)
        url = urls[p % len(urls)]
        child = mp.Process(target=run_process, args=(url, share, until, p + 1, queue, load))
        child.start()
        children.append(child)
    results = [item for _ in children for item in queue.get()]
    for child in children:
        child.join()
    elapsed = time.monotonic() - start
    cpu = {name: cpu_seconds(pid) - cpu_before[name] for name, pid in pids.items()}
    clients_after = os.times()  # the client processes, joined above
    cpu["client"] = (clients_after.children_user - clients_before.children_user) + (
        clients_after.children_system - clients_before.children_system
    )
    return results, elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running gateway; default: start Redis, engine, gateway")
    parser.add_argument("--games", type=int, default=50, help="concurrent games (default 50)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured time (default 20)")
    parser.add_argument("--warmup", type=float, default=3.0, help="unmeasured start (default 3)")
    parser.add_argument("--client-processes", type=int, default=max(1, min(8, os.cpu_count() or 1)))
    parser.add_argument(
        "--workers",
        type=int,
        default=max(2, (os.cpu_count() or 2) // 2),
        help="gunicorn workers when the bench starts the gateway",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=DEFAULT_GATEWAY_THREADS,
        help="threads per gunicorn worker (default: as deployed)",
    )
    parser.add_argument(
        "--engine-processes",
        type=int,
        default=max(1, (os.cpu_count() or 1) // 4),
        help="engine processes when the bench starts the stack",
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=ROOT,
        help="the checkout whose servers the bench starts (default this one; an A/B runs another"
        " commit's worktree: bench/gateway_ab.py)",
    )
    parser.add_argument(
        "--app",
        default=ASGI_APP,
        help="what gunicorn is given (default the ASGI gateway; 'services.gateway.app:create_app()'"
        " serves the Flask app alone under gunicorn's threaded worker, as before the ASGI app)",
    )
    parser.add_argument(
        "--ask-legal",
        action="store_true",
        help="GET /legal before every move, as the web page does",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="moves/s offered by all games together (0: flat out)",
    )
    parser.add_argument(
        "--delta",
        action="store_true",
        help="ask for move answers as deltas (?since=, docs/api-deltas.md) and apply them",
    )
    args = parser.parse_args()
    load = Load(args.ask_legal, args.games / args.rate if args.rate > 0 else 0.0, args.delta)

    with ExitStack() as stack:
        url, pids = (
            (args.url, {})
            if args.url
            else start_stack(
                stack,
                args.workers,
                args.threads,
                args.engine_processes,
                args.root.resolve(),
                args.app,
            )
        )
        if args.warmup > 0:
            warm_q: Any = mp.Queue()
            run_process(url, min(args.games, 8), time.monotonic() + args.warmup, 0, warm_q, load)
            warm_q.get()
        results, elapsed, cpu = drive(
            [url], args.games, args.client_processes, args.seconds, load, pids
        )

    moves = [m for r in results for m in r[0]]
    legals = [m for r in results for m in r[1]]
    errors = [e for r in results for e in r[2]]
    report = {
        "benchmark": "gateway",
        "url": args.url or f"started by the bench (gunicorn, {args.app})",
        "root": None if args.url else str(args.root.resolve()),
        "concurrent_games": args.games,
        "seconds": round(elapsed, 2),
        "moves": len(moves),
        "moves_per_s": round(len(moves) / elapsed, 1),
        "move_ms": {
            "p50": round(percentile(moves, 0.50) * 1000, 2),
            "p90": round(percentile(moves, 0.90) * 1000, 2),
            "p99": round(percentile(moves, 0.99) * 1000, 2),
            "max": round(max(moves, default=float("nan")) * 1000, 2),
        },
        "requests_per_move": 2 if args.ask_legal else 1,
        "answers": "deltas (?since=)" if args.delta else "full views",
        "offered_moves_per_s": args.rate or "flat out",
        "legal_ms_p99": round(percentile(legals, 0.99) * 1000, 2) if legals else None,
        "games_started": sum(r[3] for r in results),
        "errors": len(errors),
        "first_errors": errors[:3],
        "gunicorn": None if args.url else {"workers": args.workers, "threads": args.threads},
        "engine_processes": None if args.url else args.engine_processes,
        # Where the time goes: CPU milliseconds each part spent per move (and its GET /legal),
        # over the measured interval: the servers when the bench started them, and the client.
        "cpu_ms_per_move": {
            name: round(seconds * 1000 / max(1, len(moves)), 3) for name, seconds in cpu.items()
        },
        "load_avg_1m_after": round(os.getloadavg()[0], 2),
        "client_processes": max(1, min(args.client_processes, args.games)),
        "cpus": os.cpu_count(),
        "targets": {"moves_per_s": 1000, "p99_ms_at_600_offered": 100},
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

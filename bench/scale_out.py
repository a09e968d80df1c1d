"""Scale out on one machine: 3 engine and 3 gateway processes over one Redis Cluster, against
1 engine and 1 gateway process over one Redis server, under the same HTTP load.

    .venv/bin/python bench/scale_out.py                  # 10 s each, 50 games, flat out
    .venv/bin/python bench/scale_out.py --rate 300 --seconds 20

Loopback only and bounded: each setup is started, warmed up for --warmup seconds, measured for
--seconds, and stopped. The cluster is tests/fixtures/redis_cluster.py's (3 primaries with a
replica each, from the same server binary as the single server). Each engine process has a
port of its own and the gateways reach all three as one round-robin gRPC target (an `ipv4:`
list, as a headless Service's name resolves on Kubernetes); each gateway is one gunicorn
process. Two more setups take the steps apart: 3 + 3 processes over one Redis server, and
1 + 1 over the cluster (`--setups` picks). The load is bench/gateway.py's: two-seat human
games, each move one POST, the client processes spread over the gateways. Prints one JSON
object: moves/s, latency percentiles, errors and CPU per move for each setup. A measurement,
not a test; on a machine with fewer cores than processes it shows the cost of the extra
processes and of the cluster client rather than a gain.
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.gateway import Load, drive, percentile, run_process  # noqa: E402
from services.common.healthcheck import check_grpc, check_http  # noqa: E402
from services.common.redis_server import RedisServer, free_port  # noqa: E402


class Stack:
    """Processes of one setup, with their logs, stopped when the ExitStack closes."""

    def __init__(self, stack: ExitStack, tmp: Path) -> None:
        self.stack = stack
        self.logs = tmp / "logs"
        self.logs.mkdir(parents=True)
        self.pids: dict[str, int] = {}

    def spawn(
        self, name: str, argv: list[str], env: dict[str, str], ready: Callable[[], Any]
    ) -> None:
        log = (self.logs / f"{name}.log").open("wb")
        proc = subprocess.Popen(
            argv, env={**os.environ, "PYTHONUNBUFFERED": "1", **env}, cwd=ROOT, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

        def stop() -> None:
            proc.terminate()
            proc.wait(15)
            log.close()

        self.stack.callback(stop)
        self.pids[name] = proc.pid
        deadline = time.monotonic() + 90
        while ready() is not None:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(
                    f"{name} did not start:\n" + (self.logs / f"{name}.log").read_text()
                )
            time.sleep(0.1)


def start(
    stack: ExitStack, count: int, cluster: bool, min_replicas: int
) -> tuple[list[str], dict[str, int]]:
    """`count` engines and `count` gateways over a Redis Cluster or one server; returns the
    gateway URLs and the pids to meter."""
    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-scale-out-")))
    procs = Stack(stack, tmp)
    redis_pids: list[int] = []
    if cluster:
        from tests.fixtures.redis_cluster import RedisClusterProcesses

        nodes = RedisClusterProcesses(tmp / "cluster").start()
        stack.callback(nodes.stop)
        redis_url = nodes.url
        redis_pids = [n.server.proc.pid for n in nodes.nodes if n.server.proc]
    else:
        server = stack.enter_context(RedisServer(tmp / "redis"))
        redis_url = server.url
        redis_pids = [server.proc.pid] if server.proc else []
    engine_ports = [free_port() for _ in range(count)]
    base = {
        "REDIS_URL": redis_url,
        "REDIS_MIN_REPLICAS": str(min_replicas if cluster else 0),
        "AI_TARGET": f"127.0.0.1:{free_port()}",  # human games need no AI
        "GATEWAY_LOG_LEVEL": "warning",
        "RATE_LIMIT_ENABLED": "0",  # every simulated player is 127.0.0.1
    }
    for i, port in enumerate(engine_ports):
        procs.spawn(
            f"engine-{i}", [sys.executable, "-m", "services.engine"],
            {**base, "ENGINE_HOST": "127.0.0.1", "ENGINE_PORT": str(port)},
            functools.partial(check_grpc, f"127.0.0.1:{port}", timeout=1.0),
        )  # fmt: skip
    target = "ipv4:" + ",".join(f"127.0.0.1:{p}" for p in engine_ports)
    urls = []
    for i in range(count):
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        procs.spawn(
            f"gateway-{i}",
            [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "deploy/gunicorn.conf.py"),
             "--access-logfile", "/dev/null", "services.gateway.live.asgi:create_asgi()"],
            {**base, "ENGINE_TARGET": target, "GATEWAY_HOST": "127.0.0.1",
             "GATEWAY_PORT": str(port), "WEB_CONCURRENCY": "1", "GATEWAY_THREADS": "16"},
            functools.partial(check_http, url + "/", timeout=1.0),
        )  # fmt: skip
        urls.append(url)
    pids = dict(procs.pids)
    for i, pid in enumerate(redis_pids):
        pids[f"redis-{i}"] = pid
    return urls, pids


def measure(urls: list[str], args: argparse.Namespace, pids: dict[str, int]) -> dict[str, Any]:
    """bench/gateway.py's load on the gateways, client process p on gateway p mod len(urls)."""
    load = Load(False, args.games / args.rate if args.rate > 0 else 0.0)
    if args.warmup > 0:
        warm: Any = mp.Queue()
        until = time.monotonic() + args.warmup
        warmers = [mp.Process(target=run_process, args=(u, 4, until, 0, warm, load)) for u in urls]
        for w in warmers:
            w.start()
        for _ in warmers:
            warm.get()
        for w in warmers:
            w.join()
    results, elapsed, cpu = drive(urls, args.games, args.client_processes, args.seconds, load,
                                  pids)  # fmt: skip
    client_cpu = cpu.pop("client")
    moves = [m for r in results for m in r[0]]
    errors = [e for r in results for e in r[2]]
    per_move = max(1, len(moves))

    def part(prefix: str) -> float:
        return round(sum(s for n, s in cpu.items() if n.startswith(prefix)) * 1000 / per_move, 3)

    return {
        "moves": len(moves),
        "seconds": round(elapsed, 2),
        "moves_per_s": round(len(moves) / elapsed, 1),
        "move_ms": {
            q: round(percentile(moves, v) * 1000, 2) for q, v in (("p50", 0.5), ("p99", 0.99))
        },
        "errors": len(errors),
        "first_errors": errors[:3],
        "cpu_ms_per_move": {
            "engines": part("engine"),
            "gateways": part("gateway"),
            "redis": part("redis"),
            "client": round(client_cpu * 1000 / per_move, 3),
        },
        "load_avg_1m_after": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="concurrent games (default 50)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured, per setup")
    parser.add_argument("--warmup", type=float, default=3.0, help="unmeasured start, per setup")
    parser.add_argument("--rate", type=float, default=0.0, help="moves/s offered (0: flat out)")
    parser.add_argument("--client-processes", type=int, default=3)
    parser.add_argument(
        "--min-replicas", type=int, default=0,
        help="REDIS_MIN_REPLICAS of the cluster's engines (1: a move waits for its replica)",
    )  # fmt: skip
    parser.add_argument(
        "--setups", default="single,scaled,processes_only,cluster_only",
        help="which setups to run, in order (default: all four)",
    )  # fmt: skip
    args = parser.parse_args()
    report: dict[str, Any] = {
        "benchmark": "scale_out",
        "concurrent_games": args.games,
        "offered_moves_per_s": args.rate or "flat out",
        "client_processes": args.client_processes,
        "cpus": os.cpu_count(),
    }
    cluster = (
        f"Redis Cluster of 3 primaries (+1 replica each, REDIS_MIN_REPLICAS={args.min_replicas})"
    )
    setups = {  # name: (processes of each kind, over the cluster?, what)
        "single": (1, False, "1 engine + 1 gateway process, one Redis server"),
        "scaled": (3, True, f"3 engine + 3 gateway processes, {cluster}"),
        # The two steps apart: more processes alone, and the cluster alone.
        "processes_only": (3, False, "3 engine + 3 gateway processes, one Redis server"),
        "cluster_only": (1, True, f"1 engine + 1 gateway process, {cluster}"),
    }
    chosen = args.setups.split(",")
    unknown = sorted(set(chosen) - set(setups))
    if unknown:
        parser.error(f"--setups: unknown {', '.join(unknown)}; choose from {', '.join(setups)}")
    for name in chosen:
        count, over_cluster, what = setups[name]
        with ExitStack() as stack:
            urls, pids = start(stack, count, over_cluster, args.min_replicas)
            report[name] = {"setup": what, **measure(urls, args, pids)}
    if "single" in report:
        base = report["single"]
        report["vs_single"] = {
            name: {
                "moves_per_s": round(r["moves_per_s"] / max(base["moves_per_s"], 0.1), 2),
                "p99": round(r["move_ms"]["p99"] / max(base["move_ms"]["p99"], 0.01), 2),
            }
            for name, r in report.items()
            if name in setups and name != "single"
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

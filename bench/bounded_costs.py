"""Bounded costs (issue 30 items 6-7): what a hostile position query and a recovery flood cost
others, with today's bounds and without them (`--before`: the old code's behaviour). Prints one
JSON object; a measurement, not a test.

    .venv/bin/python bench/bounded_costs.py rules [--flood 8] [--before]
    .venv/bin/python bench/bounded_costs.py recover [--flood 6] [--codes 10] [--before]
    .venv/bin/python bench/bounded_costs.py quotas [--flood 40] [--before]

- `rules`: one ~38 KB Underground `routes` query of one-rail pieces, its CPU alone; then
  `--flood` addresses send it at once (each its own, as 40 probes did) to an in-process gateway
  while one reader asks `GET /api/meta` without pause: the reads' latency and the flood's answers.
  `--before` lifts the work budget and the query gate (the old code ran every query at once).
- `recover`: Redis, an engine and an in-process gateway; `--flood` threads of one address send
  well-formed wrong codes without pause while another address sends `--codes` codes one after
  another: how many of that user's reach the engine (403 bad code) and how many are refused
  (429). `--before` checks codes as the old code did: one global slot, 429 at once when taken.
- `quotas`: `--flood` addresses each send 30 game creates, 10 player creates and 50 analysis
  requests as fast as they can (bodies and games the handler refuses at once: the quotas count
  a request before the engine is asked, so this costs no engine CPU): how many get past the
  gateway's limits (reach the handler) and how many are refused 429. `--before`: the old limits
  (creates 30/minute per address; players and analyses not limited at the gateway).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flask import Flask

import games.underground.queries as underground_queries
from games.queries import answer
from services.common.config import GatewayLimits
from services.common.redis_server import RedisServer
from services.gateway import players_api
from services.gateway.app import create_app
from tests.fixtures.engine import start_engine
from tests.fixtures.gateway import gateway_config
from tests.gateway.test_costs import costly_routes

# The real defaults, counted in memory.
LIMITS = GatewayLimits(
    enabled=True, storage_url="", create="30/minute", open_games="10/hour", join="60/minute",
    moves="600/minute", hints="20/minute", hints_per_game=2, hints_per_client=2, proxies=0,
)  # fmt: skip


def _ms(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    ordered = sorted(values)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1)

    return {"n": len(ordered), "p50": at(0.5), "p99": at(0.99), "max": at(1.0)}


def _client(app: Flask, address: str) -> Any:
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


class _NoTurns:
    """The old code's recovery path had no turns per address."""

    @contextmanager
    def turn(self, address: str) -> Iterator[None]:
        yield


def bench_rules(flood: int, before: bool) -> dict[str, Any]:
    if before:
        underground_queries.ROUTES_BUDGET = None  # type: ignore[assignment]
    queries = [costly_routes(seed) for seed in range(flood)]
    started = time.process_time()
    alone = answer(queries[0])
    cpu_alone = time.process_time() - started
    app = create_app(gateway_config("127.0.0.1:9", "127.0.0.1:9", LIMITS=LIMITS))
    if before:
        app.extensions["metro_limits"].rules.at_once = 10_000
    reads: list[float] = []
    statuses: Counter[int] = Counter()
    done = threading.Event()

    def reader() -> None:
        client = _client(app, "10.1.0.1")
        while not done.is_set():
            t0 = time.perf_counter()
            client.get("/api/meta")
            reads.append(time.perf_counter() - t0)

    def prober(i: int) -> None:
        reply = _client(app, f"10.2.0.{i}").post("/api/rules", json=queries[i])
        statuses[reply.status_code] += 1

    read_thread = threading.Thread(target=reader)
    read_thread.start()
    time.sleep(0.5)
    quiet = list(reads)
    probes = [threading.Thread(target=prober, args=(i,)) for i in range(flood)]
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for probe in probes:
        probe.start()
    for probe in probes:
        probe.join()
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    flooded = reads[len(quiet) :]
    done.set()
    read_thread.join()
    return {
        "bench": "bounded_costs.rules",
        "mode": "before" if before else "after",
        "query_kb": round(len(json.dumps(queries[0])) / 1024, 1),
        "query_cpu_s": round(cpu_alone, 3),
        "query_answer": "error" if "error" in alone else "best",
        "flood": flood,
        "flood_wall_s": round(wall, 2),
        "flood_cpu_s": round(cpu, 2),
        "flood_statuses": dict(statuses),
        "meta_ms_quiet": _ms(quiet),
        "meta_ms_in_flood": _ms(flooded),
    }


def bench_recover(flood: int, codes: int, before: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp, RedisServer(Path(tmp) / "redis") as redis:
        engine = start_engine(Path(tmp) / "engine", redis.url)
        try:
            app = create_app(gateway_config(engine.address, "127.0.0.1:9", LIMITS=LIMITS))
            if before:
                app.extensions["metro_limits"].recovery_turns = _NoTurns()
                players_api.RECOVER_WAIT_S = 0.0  # type: ignore[misc]
            body = {"recovery_code": "ZZZZZ-ZZZZZ"}
            stop = threading.Event()
            flood_statuses: Counter[int] = Counter()

            def flooding() -> None:
                client = _client(app, "10.3.0.1")
                while not stop.is_set():
                    flood_statuses[client.post("/api/players/recover", json=body).status_code] += 1

            threads = [threading.Thread(target=flooding) for _ in range(flood)]
            for thread in threads:
                thread.start()
            while sum(flood_statuses.values()) < flood:
                time.sleep(0.01)
            user = _client(app, "10.4.0.1")
            user_statuses: Counter[int] = Counter()
            waits: list[float] = []
            for _ in range(codes):
                t0 = time.perf_counter()
                user_statuses[user.post("/api/players/recover", json=body).status_code] += 1
                waits.append(time.perf_counter() - t0)
            stop.set()
            for thread in threads:
                thread.join()
            app.extensions["metro_gateway"].backends.close()
        finally:
            engine.close_channels()
            engine.process.stop()
    return {
        "bench": "bounded_costs.recover",
        "mode": "before" if before else "after",
        "flood_threads": flood,
        "flood_statuses": dict(flood_statuses),
        "user_codes": codes,
        "user_statuses": dict(user_statuses),
        "user_reached_engine": user_statuses[403],
        "user_ms": _ms(waits),
    }


def _send_all(app: Flask, flood: int, path: str, body: Any, each: int) -> Counter[str]:
    """`flood` addresses at once, each sending `each` requests: past the limits, or 429."""
    counts: Counter[str] = Counter()
    lock = threading.Lock()

    def send(i: int) -> None:
        client = _client(app, f"10.5.{i // 250}.{i % 250}")
        for _ in range(each):
            status = client.post(path, json=body).status_code
            with lock:
                counts["refused_429" if status == 429 else "past_limits"] += 1

    threads = [threading.Thread(target=send, args=(i,)) for i in range(flood)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return counts


def bench_quotas(flood: int, before: bool) -> dict[str, Any]:
    from dataclasses import replace

    limits = LIMITS
    if before:
        unlimited = "1000000/minute"
        limits = replace(
            LIMITS, create_quota=unlimited, create_all=unlimited, players=unlimited,
            players_all=unlimited, analyses=unlimited, analyses_all=unlimited,
        )  # fmt: skip
    app = create_app(gateway_config("127.0.0.1:9", "127.0.0.1:9", LIMITS=limits))
    asks = (
        ("games", "/api/games", {"seats": "not a list"}, 30),
        ("players", "/api/players", {"name": ""}, 10),
        ("analyses", "/api/games/nope/analysis", None, 50),
    )
    out: dict[str, Any] = {}
    for name, path, body, each in asks:
        started = time.perf_counter()
        counts = _send_all(app, flood, path, body, each)
        out[name] = {**counts, "seconds": round(time.perf_counter() - started, 2)}
    return {"bench": "bounded_costs.quotas", "mode": "before" if before else "after",
            "addresses": flood, **out}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("rules", "recover", "quotas"))
    parser.add_argument("--flood", type=int, default=0, help="hostile senders at once")
    parser.add_argument("--codes", type=int, default=10, help="the user's recovery codes")
    parser.add_argument("--before", action="store_true", help="without today's bounds")
    args = parser.parse_args()
    if args.what == "rules":
        result = bench_rules(args.flood or 8, args.before)
    elif args.what == "recover":
        result = bench_recover(args.flood or 6, args.codes, args.before)
    else:
        result = bench_quotas(args.flood or 40, args.before)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

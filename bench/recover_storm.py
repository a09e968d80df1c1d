"""Recovery codes under a storm: what many addresses trying codes cost everyone else.

    .venv/bin/python bench/recover_storm.py [--addresses 100] [--tries 10] [--seconds 20]
                                            [--at-once N]

Each check of a recovery code is a slow hash in the engine (PBKDF2,
services/engine/players/players.py),
limited per address (10 a minute); the gateway checks at most RECOVER_AT_ONCE codes at once
over every gateway (services/gateway/limits.py). Starts Redis, the engine and a gunicorn gateway
(bench/gateway.py's stack, behind one trusted proxy so that each simulated address counts as
itself), measures the latency of legal-move reads (GET /legal of one game, as a page does
every move) first alone, then while `--addresses` addresses each send `--tries` well-formed
wrong codes a minute, spread evenly. `--at-once 0` lifts the gateway's cap (to 1000), to see
what it saves. Prints one JSON object; a measurement, not a test.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gateway import Client, percentile, start_stack  # noqa: E402

CODE_LETTERS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def _post(url: str, path: str, body: dict[str, Any], address: str) -> int:
    """One request on a connection of its own; its HTTP status."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=60)
    try:
        headers = {"Content-Type": "application/json", "X-Forwarded-For": address}
        conn.request("POST", path, body=json.dumps(body), headers=headers)
        reply = conn.getresponse()
        reply.read()
        return reply.status
    except (OSError, http.client.HTTPException):
        return 0
    finally:
        conn.close()


def _new_game(client: Client) -> dict[str, Any]:
    made = client.call("POST", "/api/games", {
        "game": "metro", "rules": {"players": 2},
        "seats": [{"kind": "human", "name": "a"}, {"kind": "open"}],
    })  # fmt: skip
    client.call("POST", f"/api/games/{made['game_id']}/join", {"name": "b"})
    return {"id": made["game_id"], "tokens": [made["token"]]}


def _reads(url: str, game: dict[str, Any], until: float, out: list[float]) -> None:
    """Legal-move reads of one game, one at a time, 20 a second, until `until`."""
    client = Client(url)
    path = f"/api/games/{game['id']}/legal"
    while time.monotonic() < until:
        started = time.monotonic()
        client.call("GET", path, token=game["tokens"][0])
        out.append(time.monotonic() - started)
        time.sleep(max(0.0, 0.05 - (time.monotonic() - started)))


def _ms(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"samples": 0}
    return {
        "samples": len(values),
        "p50": round(percentile(values, 0.5) * 1000, 1),
        "p99": round(percentile(values, 0.99) * 1000, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--addresses", type=int, default=100, help="addresses trying codes")
    parser.add_argument("--tries", type=float, default=10.0, help="codes a minute per address")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured, each phase")
    parser.add_argument(
        "--at-once", type=int, default=-1, help="RECOVER_AT_ONCE (default: the gateway's; 0: 1000)"
    )
    args = parser.parse_args()
    os.environ["GATEWAY_PROXIES"] = "1"  # X-Forwarded-For names each simulated address
    if args.at_once >= 0:
        os.environ["RECOVER_AT_ONCE"] = str(args.at_once or 1000)
    rate = args.addresses * args.tries / 60.0
    rng = random.Random(5)
    with ExitStack() as stack:
        url, _pids = start_stack(stack, workers=1, threads=64, engines=1)
        game = _new_game(Client(url))
        alone: list[float] = []
        _reads(url, game, time.monotonic() + args.seconds, alone)

        stormed: list[float] = []
        statuses: Counter[int] = Counter()
        until = time.monotonic() + args.seconds
        reader = threading.Thread(target=_reads, args=(url, game, until, stormed))
        reader.start()
        with ThreadPoolExecutor(max_workers=48) as pool:
            started, k, futures = time.monotonic(), 0, []
            while time.monotonic() < until:
                time.sleep(max(0.0, started + k / rate - time.monotonic()))
                code = "".join(rng.choice(CODE_LETTERS) for _ in range(10))
                address = f"10.9.{k % args.addresses // 250}.{k % args.addresses % 250 + 1}"
                body = {"recovery_code": f"{code[:5]}-{code[5:]}"}
                futures.append(pool.submit(_post, url, "/api/players/recover", body, address))
                k += 1
            for future in futures:
                statuses[future.result()] += 1
        reader.join()
    print(json.dumps({
        "bench": "recover_storm",
        "recover_at_once": os.environ.get("RECOVER_AT_ONCE", "default"),
        "addresses": args.addresses,
        "offered_per_s": round(rate, 1),
        "recover_statuses": {str(s): n for s, n in sorted(statuses.items())},
        "legal_ms_alone": _ms(alone),
        "legal_ms_in_storm": _ms(stormed),
        "cpus": os.cpu_count(),
    }, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()

"""Gateway throughput A/B: bench/gateway.py against checkouts of different commits, interleaved.

    git worktree add --detach /tmp/ab-old <sha>      # e.g. the threaded gateway (before c96ba54)
    .venv/bin/python bench/gateway_ab.py old=/tmp/ab-old new=. --rounds 3 --seconds 12
    git worktree remove --force /tmp/ab-old
    .venv/bin/python bench/gateway_ab.py threaded=.:threaded asgi=. --rounds 3   # one commit

Why interleaved: the machine is shared and its load drifts over minutes; one side after the
other would measure the drift. Each round runs every checkout once, in the given order, each on a
fresh stack (Redis, engine, gunicorn gateway) started from that checkout with its own generated
gRPC code (`gen/`, made here if missing) and driven by this checkout's client. A checkout without
services/gateway/live/asgi.py is served as the Flask app (gunicorn's threaded worker, its own
deploy/gunicorn.conf.py); so is `PATH:threaded`, the same code under the old server. Prints
each run (moves/s, p50, p99, CPU ms per move of gateway and engine, load average), then one JSON
object with every round per checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FLASK_APP = "services.gateway.app:create_app()"
ASGI_APP = "services.gateway.live.asgi:create_asgi()"


def app_of(root: Path, threaded: bool = False) -> str:
    if threaded or not (root / "services/gateway/live/asgi.py").exists():
        return FLASK_APP
    return ASGI_APP


def ensure_gen(root: Path) -> None:
    """That checkout's gRPC code generated from its own protos (gen/ is never committed)."""
    if root != ROOT:
        subprocess.run([sys.executable, "-m", "services.common.codegen"], cwd=root, check=True)


def run_once(root: Path, app: str, seconds: float, extra: list[str]) -> dict[str, Any]:
    argv = [sys.executable, str(ROOT / "bench/gateway.py"), "--seconds", str(seconds)]
    argv += ["--root", str(root), "--app", app, *extra]
    load_before = os.getloadavg()[0]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench failed for {root}:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
    report: dict[str, Any] = json.loads(done.stdout)
    report["load_avg_1m_before"] = round(load_before, 2)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "sides",
        nargs="+",
        help="NAME=PATH of a checkout, two or more; NAME=PATH:threaded serves that checkout's"
        " Flask app alone under gunicorn's threaded worker (the same code, the old server)",
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=12.0)
    args, extra = parser.parse_known_args()  # the rest goes to bench/gateway.py
    sides: list[tuple[str, Path, str]] = []
    for side in args.sides:
        name, path = side.split("=", 1)
        threaded = path.endswith(":threaded")
        root = Path(path.removesuffix(":threaded")).resolve()
        sides.append((name, root, app_of(root, threaded)))
    for _, root, _ in sides:
        ensure_gen(root)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _, _ in sides}
    for n in range(args.rounds):
        for name, root, app in sides:
            r = run_once(root, app, args.seconds, extra)
            runs[name].append(r)
            print(
                f"round {n + 1} {name:>6}: {r['moves_per_s']:7.1f} moves/s  p50 "
                f"{r['move_ms']['p50']:6.1f} ms  p99 {r['move_ms']['p99']:6.1f} ms  CPU ms/move "
                f"gateway {r['cpu_ms_per_move'].get('gateway', float('nan')):.2f} engine "
                f"{r['cpu_ms_per_move'].get('engine', float('nan')):.2f}  load "
                f"{r['load_avg_1m_before']} -> {r['load_avg_1m_after']}  errors {r['errors']}",
                file=sys.stderr,  # progress; stdout is the one JSON object
                flush=True,
            )
            for error in r["first_errors"]:
                print(f"    {name} error: {error}", file=sys.stderr, flush=True)
    summary = {
        name: {
            "root": str(root),
            "app": app,
            "moves_per_s": [r["moves_per_s"] for r in runs[name]],
            "median_moves_per_s": statistics.median(r["moves_per_s"] for r in runs[name]),
            "p50_ms": [r["move_ms"]["p50"] for r in runs[name]],
            "p99_ms": [r["move_ms"]["p99"] for r in runs[name]],
            "gateway_cpu_ms_per_move": [r["cpu_ms_per_move"].get("gateway") for r in runs[name]],
            "engine_cpu_ms_per_move": [r["cpu_ms_per_move"].get("engine") for r in runs[name]],
            "errors": sum(r["errors"] for r in runs[name]),
        }
        for name, root, app in sides
    }
    loads = [r[k] for rs in runs.values() for r in rs for k in ("load_avg_1m_before",
                                                                 "load_avg_1m_after")]  # fmt: skip
    print(json.dumps({"sides": summary, "load_avg_1m": [min(loads), max(loads)],
                      "cpus": os.cpu_count(), "seconds": args.seconds}, indent=2))  # fmt: skip


if __name__ == "__main__":
    main()

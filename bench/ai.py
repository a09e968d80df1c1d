"""AI benchmark for any game (`--game`): strength in seeded tournaments, search speed, and
Suggest latency through the real service. Prints one JSON object (and writes it to --out after
every part, so a long run that is stopped keeps what it measured). Not a test: nothing here
asserts anything.

    nice -n 10 .venv/bin/python bench/ai.py                       # the default game, everything
    nice -n 10 .venv/bin/python bench/ai.py --game metrox --parts speed,greedy,hard --games 60
    .venv/bin/python bench/ai.py --parts hard --games 200 --time-limit-s 3600 --out hard.json

Parts: `speed` (ISMCTS iterations/s on positions from seeded games), `greedy` (medium vs random),
`hard` (hard vs medium), `suggest` (Suggest at hard through Redis, engine and one AI process,
p50/p95). Tournaments are --players seats (default 2; the game's only count if it has one): two
entrants, each deal played once per seat rotation, in --jobs worker processes; with more seats
than two the entrants alternate around the table. Targets: greedy wins >= 90% against random,
hard >= 70% against greedy at <= 1 s a move, Suggest p95 <= 1.5 s at hard.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import games  # noqa: E402
from bench.support import stop  # noqa: E402
from games.base import Game, GameState  # noqa: E402
from services.ai.players import InfoSet, level_for  # noqa: E402
from services.ai.tournament import run, summarise, tasks  # noqa: E402

PARTS = ("speed", "greedy", "hard", "suggest")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---- search speed ----------------------------------------------------------------------------


def _random_turn(state: GameState, rng: random.Random) -> None:
    for seat in state.to_move():
        state.apply(seat, state.random_move(seat, rng.random))


def speed(game: Game, rules: dict[str, Any], seconds: float) -> dict[str, Any]:
    """ISMCTS iterations per second at five stages of seeded random games (one core)."""
    hard = level_for("hard").make()
    greedy = level_for("medium").make()
    rows = []
    for k, stage in enumerate((0.05, 0.25, 0.45, 0.65, 0.85)):
        seed = k + 1
        probe = game.new_state(rules, seed)
        turns = 0
        rng = random.Random(seed)
        while not probe.is_over:
            _random_turn(probe, rng)
            turns += 1
        state = game.new_state(rules, seed)
        rng = random.Random(seed)
        for _ in range(int(stage * turns)):
            _random_turn(state, rng)
        seat = state.to_move()[0]
        info = InfoSet.from_state(state, seat)
        result = hard.search(info, seed, budget_s=seconds)
        t0 = time.perf_counter()
        greedy.search(info, seed)
        rows.append(
            {
                "turn": state.turn_number,
                "of_turns": turns,
                "legal_moves": len(set(state.legal_moves(seat))),
                "iterations": result.iterations,
                "iterations_per_s": round(result.iterations / result.elapsed_s),
                "greedy_ms": round((time.perf_counter() - t0) * 1000, 1),
            }
        )
    rates = [r["iterations_per_s"] for r in rows]
    return {"seconds_per_position": seconds, "mean_iterations_per_s": round(statistics.mean(rates)),
            "positions": rows}  # fmt: skip


# ---- tournaments ------------------------------------------------------------------------------


def tournament(
    game: Game,
    rules: dict[str, Any],
    a: str,
    b: str,
    games_: int,
    jobs: int,
    seed: int,
    time_limit_s: float | None,
) -> dict[str, Any]:
    players = int(rules["players"])
    specs = [a, b] * (players // 2) + [a] * (players % 2)
    todo = tasks(specs, rules, games_, seed, game=game.kind)
    started = time.monotonic()
    a_ids = [i for i, s in enumerate(specs) if s == a]

    def a_wins(results: list[dict[str, Any]]) -> float:
        """Games `a` won: a shared win (by any copy of `a`) counts 1/k."""
        return sum(
            sum(1 for k in r["winners"] if r["entrants"][k] in a_ids) / len(r["winners"])
            for r in results
        )

    def progress(done: int, total: int, results: list[dict[str, Any]]) -> None:
        if done % 10 == 0 or done == total:
            log(f"{game.kind} {a} vs {b}: {done}/{total} games, {a} wins "
                f"{a_wins(results) / done:.1%}, {time.monotonic() - started:.0f}s")  # fmt: skip

    results = run(todo, jobs, progress, time_limit_s)
    # Only whole deals (every rotation) count, so that luck stays balanced.
    by_deal: dict[int, int] = {}
    for r in results:
        by_deal[r["deal"]] = by_deal.get(r["deal"], 0) + 1
    whole = [r for r in results if by_deal[r["deal"]] == len(specs)]
    rows = summarise(specs, whole)
    n = len(whole)
    return {
        "pairing": f"{a} vs {b}",
        "game": game.kind,
        "rules": rules,
        "games_planned": len(todo),
        "games_played": len(results),
        "games_counted": n,
        "stopped_by_time_limit": len(results) < len(todo),
        "elapsed_s": round(time.monotonic() - started),
        "jobs": jobs,
        "seed": seed,
        "win_rate": round(a_wins(whole) / n, 4) if n else 0.0,  # `a`'s, all its seats together
        "entrants": rows,
    }


# ---- Suggest through the service ------------------------------------------------------------


def _wait_healthy(target: str, proc: subprocess.Popen[bytes], log_path: Path) -> None:
    from services.common.healthcheck import check_grpc

    deadline = time.monotonic() + 60
    while check_grpc(target, timeout=1.0) is not None:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"{target} did not start; {log_path}:\n{log_path.read_text()[-2000:]}")
        time.sleep(0.1)


def suggest(game: Game, rules: dict[str, Any], samples: int, level: str) -> dict[str, Any]:
    """Suggest latency at `level`, called by a client one at a time, over whole games in which
    every seat plays a suggested move (one of the best two)."""
    import grpc
    from metro.v1 import ai_pb2, ai_pb2_grpc, engine_pb2, engine_pb2_grpc

    from services.common.grpc_util import bearer, insecure_channel
    from services.common.redis_server import RedisServer, free_port

    work = Path(tempfile.mkdtemp(prefix="bench-ai-"))
    token = os.urandom(16).hex()
    procs: list[subprocess.Popen[bytes]] = []
    n = int(rules["players"])
    with RedisServer(work / "redis") as redis:
        try:
            engine_port, ai_port = free_port(), free_port()
            env = {**os.environ, "REDIS_URL": redis.url, "AI_SERVICE_TOKEN": token,
                   "ENGINE_HOST": "127.0.0.1", "ENGINE_PORT": str(engine_port),
                   "ENGINE_TARGET": f"127.0.0.1:{engine_port}", "AI_HOST": "127.0.0.1",
                   "AI_PORT": str(ai_port), "AI_BOT_WORKERS": "0"}  # fmt: skip
            for name, port in (("engine", engine_port), ("ai", ai_port)):
                log_path = work / f"{name}.log"
                with log_path.open("wb") as out:
                    procs.append(subprocess.Popen(
                        [sys.executable, "-m", f"services.{name}"], env=env, cwd=ROOT,
                        stdout=out, stderr=subprocess.STDOUT,
                    ))  # fmt: skip
                _wait_healthy(f"127.0.0.1:{port}", procs[-1], log_path)
            engine = engine_pb2_grpc.EngineStub(insecure_channel(f"127.0.0.1:{engine_port}"))
            ai = ai_pb2_grpc.AiStub(insecure_channel(f"127.0.0.1:{ai_port}"))
            latencies: list[float] = []
            server_ms: list[int] = []
            iterations: list[int] = []
            rng = random.Random(1)
            while len(latencies) < samples:
                seats = [engine_pb2.SeatSpec(kind="human", name="A")]
                seats += [engine_pb2.SeatSpec(kind="open") for _ in range(n - 1)]
                created = engine.CreateGame(engine_pb2.CreateGameRequest(
                    game=game.kind, rules_json=json.dumps(rules), seats=seats))  # fmt: skip
                game_id = created.game_id
                tokens = {created.seat: created.token}
                for k in range(n - 1):
                    joined = engine.JoinGame(
                        engine_pb2.JoinGameRequest(game_id=game_id, name=f"P{k}")
                    )
                    tokens[joined.seat] = joined.token
                view = engine.GetView(engine_pb2.GetViewRequest(game_id=game_id))
                while view.status == "playing" and len(latencies) < samples:
                    md = bearer(tokens[view.to_move[0]])
                    t0 = time.perf_counter()
                    reply = ai.Suggest(ai_pb2.SuggestRequest(game_id=game_id, level=level),
                                       metadata=md, timeout=30)  # fmt: skip
                    latencies.append(time.perf_counter() - t0)
                    server_ms.append(reply.elapsed_ms)
                    iterations.append(reply.iterations)
                    pick = reply.suggestions[rng.randrange(min(2, len(reply.suggestions)))]
                    engine.ApplyMove(
                        engine_pb2.ApplyMoveRequest(game_id=game_id, move_json=pick.move_json),
                        metadata=md,
                    )
                    view = engine.GetView(engine_pb2.GetViewRequest(game_id=game_id))
                log(f"suggest: {len(latencies)}/{samples} calls")
        except grpc.RpcError as err:
            raise SystemExit(f"suggest bench failed: {err}") from None
        finally:
            stop(procs)
    ordered = sorted(latencies)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000)

    return {
        "level": level,
        "calls": len(latencies),
        "p50_ms": pct(0.50),
        "p95_ms": pct(0.95),
        "max_ms": round(ordered[-1] * 1000),
        "server_elapsed_p95_ms": sorted(server_ms)[
            min(len(server_ms) - 1, int(0.95 * len(server_ms)))
        ],
        "mean_iterations": round(statistics.mean(iterations)),
    }


# ---- main -------------------------------------------------------------------------------------


def targets(report: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "greedy_vs_random" in report:
        rate = report["greedy_vs_random"]["win_rate"]
        out["greedy_beats_random_90pct"] = {"win_rate": rate, "met": rate >= 0.9}
    if "hard_vs_greedy" in report:
        part = report["hard_vs_greedy"]
        rate = part["win_rate"]
        hard = [r for r in part["entrants"] if r["entrant"].split("#")[0] == "hard"]
        moves = sum(r["moves"] for r in hard)
        ms = round(sum(r["ms_per_move"] * r["moves"] for r in hard) / moves, 1) if moves else 0.0
        ok = rate >= 0.70 and ms <= 1000
        out["hard_beats_greedy_70pct_at_1s"] = {"win_rate": rate, "ms_per_move": ms, "met": ok}
    if "suggest" in report:
        p95 = report["suggest"]["p95_ms"]
        out["suggest_p95_at_hard_1500ms"] = {"p95_ms": p95, "met": p95 <= 1500}
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="", help="the game kind (default: the registry's default)")
    p.add_argument("--players", type=int, default=0,
                   help="seats in tournaments and Suggest games (default 2, or the game's only "
                        "count)")  # fmt: skip
    p.add_argument("--rules", default="{}", help="more game options, as a JSON object")
    p.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated: {','.join(PARTS)}")
    p.add_argument("--games", type=int, default=200, help="games per pairing (default 200)")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    p.add_argument("--seed", type=int, default=2024)
    p.add_argument("--time-limit-s", type=float, default=None,
                   help="stop each tournament after this long (seconds)")  # fmt: skip
    p.add_argument("--suggest-calls", type=int, default=60)
    p.add_argument("--speed-seconds", type=float, default=2.0)
    p.add_argument("--hard-level", default="hard",
                   help="the level that plays `hard` and answers Suggest (e.g. mcts-20 for a "
                        "quick smoke run; default hard)")  # fmt: skip
    p.add_argument("--out", help="also write the JSON here (after every part)")
    args = p.parse_args()
    parts = [x for x in args.parts.split(",") if x]
    unknown = set(parts) - set(PARTS)
    if unknown:
        p.error(f"unknown parts: {sorted(unknown)}")
    game = games.get(args.game) if args.game else games.default()
    low, high = game.players
    players = args.players or (2 if low <= 2 <= high else low)
    rules = game.normalise_rules({**json.loads(args.rules), "players": players})
    report: dict[str, Any] = {
        "game": game.kind,
        "rules": rules,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "load_avg_at_start": os.getloadavg()},
        "command": " ".join(sys.argv),
    }  # fmt: skip

    def save() -> None:
        report["targets"] = targets(report)
        if args.out:
            Path(args.out).write_text(json.dumps(report, indent=1) + "\n")

    if "speed" in parts:
        report["speed"] = speed(game, rules, args.speed_seconds)
        save()
    if "greedy" in parts:
        report["greedy_vs_random"] = tournament(
            game, rules, "medium", "random", args.games, args.jobs, args.seed, args.time_limit_s
        )
        save()
    if "hard" in parts:
        report["hard_vs_greedy"] = tournament(
            game,
            rules,
            args.hard_level,
            "medium",
            args.games,
            args.jobs,
            args.seed,
            args.time_limit_s,
        )
        save()
    if "suggest" in parts:
        report["suggest"] = suggest(game, rules, args.suggest_calls, args.hard_level)
        save()
    report["machine"]["load_avg_at_end"] = os.getloadavg()
    save()
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

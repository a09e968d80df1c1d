"""Post-game analyses against live hints: Suggest latency at `hard` through Redis, the engine and
one AI process, first with no analysis running, then while that same process analyses finished
games in the background (its analysis worker: a nice-19 process of its own). Also what an
analysis costs: decisions a second and the bytes of each result kept in Redis.

    nice -n 10 .venv/bin/python bench/analysis.py --game metro --hints 40 --games 4

Prints one JSON object. A measurement, not a test: on a shared machine the figures move with
everything else that runs (say so when quoting them).
"""

from __future__ import annotations

import argparse
import json
import os
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

import grpc  # noqa: E402
from metro.v1 import ai_pb2, ai_pb2_grpc, engine_pb2, engine_pb2_grpc  # noqa: E402

import games  # noqa: E402
from bench.support import stop, wait_serving  # noqa: E402
from services.common.grpc_util import bearer, insecure_channel  # noqa: E402
from services.common.redis_server import RedisServer, free_port  # noqa: E402


def log(message: str) -> None:
    print(f"[analysis bench] {message}", file=sys.stderr, flush=True)


def new_game(engine: Any, kind: str, players: int) -> tuple[str, dict[int, str]]:
    seats = [engine_pb2.SeatSpec(kind="human", name="A")]
    seats += [engine_pb2.SeatSpec(kind="open") for _ in range(players - 1)]
    made = engine.CreateGame(engine_pb2.CreateGameRequest(
        game=kind, rules_json=json.dumps({"players": players}), seats=seats))  # fmt: skip
    tokens = {made.seat: made.token}
    for k in range(players - 1):
        joined = engine.JoinGame(engine_pb2.JoinGameRequest(game_id=made.game_id, name=f"P{k}"))
        tokens[joined.seat] = joined.token
    return made.game_id, tokens


def play_out(engine: Any, game_id: str, tokens: dict[int, str], rng: random.Random) -> None:
    """Random legal moves for every seat to move until the game ends."""
    while True:
        view = engine.GetView(engine_pb2.GetViewRequest(game_id=game_id))
        if view.status != "playing":
            return
        for seat in view.to_move:
            md = bearer(tokens[seat])
            legal = engine.ListLegalMoves(engine_pb2.ListLegalMovesRequest(game_id=game_id),
                                          metadata=md)  # fmt: skip
            if legal.moves:
                move = rng.choice(list(legal.moves))
                request = engine_pb2.ApplyMoveRequest(game_id=game_id, move_json=move)
                engine.ApplyMove(request, metadata=md)


def hints(
    engine: Any, ai: Any, kind: str, players: int, calls: int, level: str
) -> tuple[list[float], list[int]]:
    """`calls` Suggest latencies (s) at `level`, one at a time, over games where every seat
    plays one of the best two suggestions; and the search iterations of each."""
    rng = random.Random(1)
    out: list[float] = []
    iterations: list[int] = []
    while len(out) < calls:
        game_id, tokens = new_game(engine, kind, players)
        view = engine.GetView(engine_pb2.GetViewRequest(game_id=game_id))
        while view.status == "playing" and len(out) < calls:
            md = bearer(tokens[view.to_move[0]])
            t0 = time.perf_counter()
            reply = ai.Suggest(ai_pb2.SuggestRequest(game_id=game_id, level=level), metadata=md,
                               timeout=30)  # fmt: skip
            out.append(time.perf_counter() - t0)
            iterations.append(reply.iterations)
            pick = reply.suggestions[rng.randrange(min(2, len(reply.suggestions)))]
            engine.ApplyMove(engine_pb2.ApplyMoveRequest(game_id=game_id,
                             move_json=pick.move_json), metadata=md)  # fmt: skip
            view = engine.GetView(engine_pb2.GetViewRequest(game_id=game_id))
    return out, iterations


def summary(measured: tuple[list[float], list[int]]) -> dict[str, Any]:
    """Latency percentiles, and the mean search iterations (fewer means weaker hints)."""
    latencies, iterations = measured
    ordered = sorted(latencies)

    def pct(p: float) -> int:
        return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000)

    return {"calls": len(ordered), "p50_ms": pct(0.5), "p95_ms": pct(0.95),
            "mean_ms": round(statistics.mean(ordered) * 1000), "max_ms": pct(1.0),
            "mean_iterations": round(statistics.mean(iterations))}  # fmt: skip


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="metro", choices=games.kinds())
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--hints", type=int, default=40, help="Suggest calls in each phase")
    p.add_argument("--level", default="hard")
    p.add_argument("--games", type=int, default=4, help="finished games to analyse")
    p.add_argument("--iterations", type=int, default=800, help="ANALYSIS_ITERATIONS")
    p.add_argument("--wait-s", type=float, default=900, help="longest wait for the analyses")
    args = p.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-analysis-"))
    token = os.urandom(16).hex()
    procs: list[subprocess.Popen[bytes]] = []
    report: dict[str, Any] = {"bench": "analysis", "game": args.game, "players": args.players,
                              "level": args.level, "iterations": args.iterations,
                              "cpus": os.cpu_count()}  # fmt: skip
    with RedisServer(work / "redis") as redis:
        try:
            engine_port, ai_port = free_port(), free_port()
            env = {**os.environ, "REDIS_URL": redis.url, "AI_SERVICE_TOKEN": token,
                   "ENGINE_HOST": "127.0.0.1", "ENGINE_PORT": str(engine_port),
                   "ENGINE_TARGET": f"127.0.0.1:{engine_port}", "AI_HOST": "127.0.0.1",
                   "AI_PORT": str(ai_port), "AI_BOT_WORKERS": "0", "AI_ANALYSIS_WORKERS": "1",
                   "ANALYSIS_ITERATIONS": str(args.iterations)}  # fmt: skip
            for name, port in (("engine", engine_port), ("ai", ai_port)):
                log_path = work / f"{name}.log"
                with log_path.open("wb") as out:
                    procs.append(subprocess.Popen(
                        [sys.executable, "-m", f"services.{name}"], env=env, cwd=ROOT,
                        stdout=out, stderr=subprocess.STDOUT))  # fmt: skip
                wait_serving(f"127.0.0.1:{port}", proc=procs[-1], log=log_path)
            engine = engine_pb2_grpc.EngineStub(insecure_channel(f"127.0.0.1:{engine_port}"))
            ai = ai_pb2_grpc.AiStub(insecure_channel(f"127.0.0.1:{ai_port}"))
            rng = random.Random(7)
            finished = []
            for _ in range(args.games):
                game_id, tokens = new_game(engine, args.game, args.players)
                play_out(engine, game_id, tokens, rng)
                finished.append(game_id)
            log(f"{len(finished)} finished games; hints without analyses")
            report["hints_alone"] = summary(
                hints(engine, ai, args.game, args.players, args.hints, args.level)
            )
            started = time.monotonic()
            for game_id in finished:
                engine.RequestAnalysis(engine_pb2.AnalysisRequest(game_id=game_id))
            while time.monotonic() - started < 60:  # the first one under way
                state = engine.GetAnalysis(engine_pb2.AnalysisRequest(game_id=finished[0]))
                if state.status in ("running", "done"):
                    break
                time.sleep(0.1)
            log("hints while analyses run")
            report["hints_during_analysis"] = summary(
                hints(engine, ai, args.game, args.players, args.hints, args.level)
            )
            states = [engine.GetAnalysis(engine_pb2.AnalysisRequest(game_id=g)) for g in finished]
            report["analysis_running_at_end_of_hints"] = any(
                s.status in ("queued", "running") for s in states
            )
            while time.monotonic() - started < args.wait_s:
                states = [
                    engine.GetAnalysis(engine_pb2.AnalysisRequest(game_id=g)) for g in finished
                ]
                if all(s.status in ("done", "failed") for s in states):
                    break
                time.sleep(0.5)
            elapsed = time.monotonic() - started
            done = [s for s in states if s.status == "done"]
            decisions = sum(s.total for s in done)
            sizes = [len(s.result_json.encode()) for s in done]
            report["analyses"] = {
                "games": len(finished),
                "done": len(done),
                "decisions": decisions,
                "elapsed_s": round(elapsed, 1),
                "decisions_per_s": round(decisions / elapsed, 2) if elapsed else 0.0,
                "result_bytes": sizes,
                "mean_bytes_per_game": round(statistics.mean(sizes)) if sizes else 0,
                "bytes_per_decision": round(sum(sizes) / decisions) if decisions else 0,
            }
        except grpc.RpcError as err:
            raise SystemExit(f"analysis bench failed: {err}") from None
        finally:
            stop(procs)
    alone, during = report["hints_alone"]["p95_ms"], report["hints_during_analysis"]["p95_ms"]
    report["p95_rise_pct"] = round(100 * (during - alone) / alone, 1) if alone else 0.0
    before = report["hints_alone"]["mean_iterations"]
    after = report["hints_during_analysis"]["mean_iterations"]
    report["iterations_change_pct"] = round(100 * (after - before) / before, 1) if before else 0.0
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Engine benchmark for simultaneous turns: a Metro X game of 50 seats where every seat chooses
at once, turn after turn. Prints one JSON object. Not a test: nothing here asserts a time.

    .venv/bin/python bench/engine_simultaneous.py [--seats 50] [--turns 30]

Per turn: 49 seats submit their choices together (each pinned to the version the turn began at,
each with a move id), then the 50th, the last, submits alone. Measured: submissions per second
while the 49 race, and the time from sending the last choice to receiving the turn's resolved
event on a WatchGame stream (p50, p99), which is what every player waits for. It starts its own
Redis and one engine process; the client shares the machine's cores with both.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import grpc  # noqa: E402
from metro.v1 import engine_pb2, engine_pb2_grpc  # noqa: E402
from support import SocketRedisServer, stop, wait_serving  # noqa: E402

from services.common.grpc_util import CLIENT_OPTIONS, bearer  # noqa: E402
from services.common.redis_server import free_port  # noqa: E402


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _run(target: str, seats: int, turns: int) -> dict[str, object]:
    channel = grpc.aio.insecure_channel(target, options=CLIENT_OPTIONS)
    stub = engine_pb2_grpc.EngineStub(channel)
    specs = [engine_pb2.SeatSpec(kind="human", name="P0")] + [
        engine_pb2.SeatSpec(kind="open") for _ in range(seats - 1)
    ]
    created = await stub.CreateGame(
        engine_pb2.CreateGameRequest(
            game="metrox", rules_json=json.dumps({"players": seats}), seats=specs
        )
    )
    game_id, tokens = created.game_id, [created.token]
    for i in range(1, seats):
        joined = await stub.JoinGame(engine_pb2.JoinGameRequest(game_id=game_id, name=f"P{i}"))
        tokens.append(joined.token)
    view = await stub.GetView(engine_pb2.GetViewRequest(game_id=game_id))
    resolved: asyncio.Queue[float] = asyncio.Queue()

    async def watch() -> None:
        call = stub.WatchGame(
            engine_pb2.WatchGameRequest(game_id=game_id, after_event_id=view.last_event_id)
        )
        async for event in call:
            if json.loads(event.json).get("action") == "resolve":
                resolved.put_nowait(time.perf_counter())

    watcher = asyncio.create_task(watch())

    async def choose(seat: int, version: int, turn: int) -> None:
        legal = await stub.ListLegalMoves(
            engine_pb2.ListLegalMovesRequest(game_id=game_id), metadata=bearer(tokens[seat])
        )
        move = legal.moves[(seat + turn) % len(legal.moves)]
        await stub.ApplyMove(
            engine_pb2.ApplyMoveRequest(
                game_id=game_id, expected_version=version, move_id=f"t{turn}s{seat}",
                move_json=move,
            ),
            metadata=bearer(tokens[seat]),
        )  # fmt: skip

    waits: list[float] = []
    rates: list[float] = []
    played = 0
    for turn in range(turns):
        view = await stub.GetView(engine_pb2.GetViewRequest(game_id=game_id))
        if view.status == "over":
            break
        started = time.perf_counter()
        await asyncio.gather(*(choose(s, view.version, turn) for s in range(seats - 1)))
        rates.append((seats - 1) / (time.perf_counter() - started))
        sent = time.perf_counter()
        await choose(seats - 1, view.version, turn)
        arrived = await asyncio.wait_for(resolved.get(), timeout=30)
        waits.append((arrived - sent) * 1000)
        played += 1
    watcher.cancel()
    await channel.close()
    return {
        "seats": seats,
        "turns": played,
        "last_choice_to_resolved_event_ms": {
            "p50": round(statistics.median(waits), 2),
            "p99": round(_pct(waits, 0.99), 2),
            "max": round(max(waits), 2),
        },
        "submissions_per_s_while_racing": round(statistics.median(rates), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=50)
    parser.add_argument("--turns", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        redis_server = SocketRedisServer(Path(tmp) / "redis", appendonly=False)
        redis_server.start()
        port = free_port()
        env = {
            **os.environ,
            "REDIS_URL": f"unix://{redis_server.socket_path}?db=0",
            "ENGINE_PORT": str(port),
            "AI_SERVICE_TOKEN": uuid.uuid4().hex,
        }
        with open(Path(tmp) / "engine.log", "wb") as log:
            engine = subprocess.Popen(
                [sys.executable, "-m", "services.engine"], cwd=ROOT, env=env, stdout=log,
                stderr=log,
            )  # fmt: skip
            try:
                target = f"127.0.0.1:{port}"
                wait_serving(target, proc=engine, log=Path(tmp) / "engine.log")
                result = asyncio.run(_run(target, args.seats, args.turns))
            finally:
                stop([engine])
                redis_server.stop()
    print(json.dumps({"bench": "engine_simultaneous", **result}, indent=1))


if __name__ == "__main__":
    main()

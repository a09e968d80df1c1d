"""Engine benchmark: apply-move throughput and latency over loopback gRPC, with 1, 10 and 100
games played at once. Prints one JSON object. Not a test: nothing here asserts a time.

    .venv/bin/python bench/engine.py [--seconds 10] [--concurrency 1,10,100] [--aof]

It starts its own Redis (services/common/redis_server.py) and the engine as a subprocess
(`python -m services.engine`), then plays 2-player games with an asyncio gRPC client (on uvloop,
parsing with orjson, like the services). Each game has one move in flight at a time: the client
picks a legal move from its own copy of the board (with --ask-legal it asks ListLegalMoves, not
timed), then the timed ApplyMove with expected_version and a move_id, as a careful client would
send it. A finished game is replaced by a new one (creation and joins are not timed). The client
shares the machine's cores with the engine and Redis, so the numbers are a lower bound for the
engine alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
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
import orjson  # noqa: E402
import uvloop  # noqa: E402
from metro.v1 import engine_pb2, engine_pb2_grpc  # noqa: E402
from support import SocketRedisServer, wait_serving  # noqa: E402

from games.metro import INDEX, MetroRules, MetroState, Placement, move_text  # noqa: E402
from services.common.grpc_util import CLIENT_OPTIONS, bearer  # noqa: E402
from services.common.redis_server import free_port  # noqa: E402


class Mirror:
    """The client's own copy of one game's board, so that it can pick legal moves without
    asking the engine: placements are laid with the rules core's public `put`, and each
    seat's hand is what the engine last showed that seat."""

    def __init__(self, game_id: str, tokens: list[str], hands: list[list[str]]) -> None:
        self.game_id, self.tokens, self.hands = game_id, tokens, hands
        self.board = MetroState.empty(MetroRules(players=2), [], 0)
        self.seat, self.version, self.drawn = 0, 2, ""
        self.deck_count = 58

    def pick(self, rng: random.Random) -> dict[str, str]:
        if not self.drawn and self.deck_count and rng.random() < 0.15:
            return {"action": "draw"}
        tile = self.drawn or rng.choice(self.hands[self.seat])
        options = [(t, m) for t, m in self.board.placements_for(INDEX[tile], self.seat) if m]
        oriented, mask = rng.choice(options)
        squares = [sq for sq in range(64) if mask >> sq & 1]
        return {"action": "place", "placement": move_text(oriented * 64 + rng.choice(squares))}

    def update(self, move: dict[str, str], view: engine_pb2.GameView) -> None:
        if move["action"] == "place":
            p = Placement.parse(move["placement"])
            physical = INDEX[self.drawn] if self.drawn else None
            self.board.put(p.tile_index, p.square, physical)
        data = orjson.loads(view.json)  # the mover's view: its own hand and drawn tile
        self.hands[self.seat] = list(data["hand"])
        self.drawn = data["drawn"] or ""
        self.deck_count = data["deck_count"]
        self.version = view.version
        if view.to_move:
            (self.seat,) = view.to_move


async def _new_game(stub: engine_pb2_grpc.EngineStub) -> Mirror:
    created = await stub.CreateGame(
        engine_pb2.CreateGameRequest(
            game="metro",
            rules_json=json.dumps({"players": 2}),
            seats=[engine_pb2.SeatSpec(kind="human", name="a"), engine_pb2.SeatSpec(kind="open")],
        )
    )
    joined = await stub.JoinGame(engine_pb2.JoinGameRequest(game_id=created.game_id, name="b"))
    tokens = [created.token, joined.token]
    hands = []
    for token in tokens:
        view = await stub.GetView(
            engine_pb2.GetViewRequest(game_id=created.game_id), metadata=bearer(token)
        )
        hands.append(list(orjson.loads(view.json)["hand"]))
    return Mirror(created.game_id, tokens, hands)


async def _player(
    stub: engine_pb2_grpc.EngineStub,
    stop_at: float,
    latencies: list[float],
    rng: random.Random,
    errors: list[str],
    ask_legal: bool,
    interval: float,
) -> None:
    """Play games one move at a time until stop_at; record each ApplyMove's latency.

    interval > 0 (open loop): the k-th move is due at start + k * interval, and its latency is
    counted from when it was due, so a late engine is charged for the wait too."""
    loop = asyncio.get_running_loop()
    game = await _new_game(stub)
    due = loop.time() + rng.random() * interval
    while loop.time() < stop_at:
        if interval:
            delay = due - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
        token = bearer(game.tokens[game.seat])
        if ask_legal:
            legal = await stub.ListLegalMoves(
                engine_pb2.ListLegalMovesRequest(game_id=game.game_id), metadata=token
            )
            move = json.loads(rng.choice(list(legal.moves)))
        else:
            move = game.pick(rng)
        request = engine_pb2.ApplyMoveRequest(
            game_id=game.game_id,
            expected_version=game.version,
            move_id=uuid.uuid4().hex,
            move_json=json.dumps(move, separators=(",", ":")),
        )
        started = time.perf_counter()
        if interval:  # charge the time since the move was due
            started -= max(0.0, loop.time() - due)
        try:
            view = await stub.ApplyMove(request, metadata=token)
        except grpc.aio.AioRpcError as err:
            errors.append(f"{err.code().name}: {err.details()}")
            return
        latencies.append(time.perf_counter() - started)
        due += interval
        if view.status == "over":
            game = await _new_game(stub)
            due = loop.time()  # a new game starts now; its set-up is not charged
        else:
            game.update(move, view)


def _cpu_seconds(pids: list[int]) -> float:
    """User plus system CPU time of processes so far (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _process_tree(pid: int) -> list[int]:
    """pid and its descendants."""
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            todo.extend(int(c) for c in task.read_text().split())
    return out


async def _level(
    target: str,
    games: int,
    seconds: float,
    channels: int,
    ask_legal: bool,
    server_pids: dict[str, list[int]],
    rate: float,
) -> dict[str, object]:
    # Several channels: each is one connection, and connections are what the kernel spreads
    # over the engine's processes.
    opened = [
        grpc.aio.insecure_channel(target, options=[*CLIENT_OPTIONS, ("grpc.channel_id", i)])
        for i in range(channels)
    ]
    stubs = [engine_pb2_grpc.EngineStub(c) for c in opened]
    latencies: list[float] = []
    errors: list[str] = []
    loop = asyncio.get_running_loop()
    interval = games / rate if rate else 0.0
    # Warm-up: the same load, unmeasured.
    warm = loop.time() + min(2.0, seconds / 3)
    await asyncio.gather(
        *(_player(stubs[i % channels], warm, [], random.Random(i), errors, ask_legal, interval)
          for i in range(games))
    )  # fmt: skip
    cpu0 = os.times()
    servers0 = {name: _cpu_seconds(pids) for name, pids in server_pids.items()}
    started = time.perf_counter()
    stop_at = loop.time() + seconds
    await asyncio.gather(
        *(_player(stubs[i % channels], stop_at, latencies, random.Random(1000 + i), errors,
                  ask_legal, interval)
          for i in range(games))
    )  # fmt: skip
    elapsed = time.perf_counter() - started
    cpu1 = os.times()
    servers1 = {name: _cpu_seconds(pids) for name, pids in server_pids.items()}
    for c in opened:
        await c.close()
    ordered = sorted(latencies)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000, 2)

    return {
        "concurrent_games": games,
        "offered_moves_per_s": rate or "as fast as answered",
        "moves": len(latencies),
        "seconds": round(elapsed, 2),
        "moves_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": pct(0.50) if ordered else None,
        "p99_ms": pct(0.99) if ordered else None,
        "mean_ms": round(statistics.fmean(ordered) * 1000, 2) if ordered else None,
        # CPU time per move, summed over each side's processes: what the throughput would be
        # on an otherwise idle machine follows from these, whatever else ran meanwhile.
        "cpu_ms_per_move": {
            "client": _per_move((cpu1.user - cpu0.user) + (cpu1.system - cpu0.system), latencies),
            **{n: _per_move(servers1[n] - servers0[n], latencies) for n in server_pids},
        },
        "errors": errors[:5],
    }


def _per_move(cpu_s: float, latencies: list[float]) -> float | None:
    return round(cpu_s * 1000 / len(latencies), 3) if latencies else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measured time per level")
    parser.add_argument("--concurrency", default="1,10,100", help="games at once, per level")
    parser.add_argument("--aof", action="store_true", help="Redis with AOF (appendfsync everysec)")
    parser.add_argument(
        "--processes", type=int, default=2, help="engine processes (python -m services.engine)"
    )
    parser.add_argument("--channels", type=int, default=4, help="client gRPC channels")
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="open loop: offer this many moves/s in all, spread over the games (0: flat out)",
    )
    parser.add_argument(
        "--redis-tcp",
        action="store_true",
        help="the engine reaches Redis over TCP loopback instead of its Unix socket",
    )
    parser.add_argument(
        "--ask-legal",
        action="store_true",
        help="ListLegalMoves before every move instead of the client's own board copy",
    )
    args = parser.parse_args()
    levels = [int(x) for x in args.concurrency.split(",")]

    with tempfile.TemporaryDirectory() as tmp:
        redis_server = SocketRedisServer(Path(tmp) / "redis", appendonly=args.aof)
        redis_server.start()
        port = free_port()
        redis_url = (
            redis_server.url if args.redis_tcp else f"unix://{redis_server.socket_path}?db=0"
        )
        env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "ENGINE_PORT": str(port),
            "AI_SERVICE_TOKEN": uuid.uuid4().hex,
        }
        log = open(Path(tmp) / "engine.log", "wb")  # noqa: SIM115 (closed below)
        engine = subprocess.Popen(
            [sys.executable, "-m", "services.engine", "--processes", str(args.processes)],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
        )
        try:
            target = f"127.0.0.1:{port}"
            wait_serving(target, proc=engine, log=Path(tmp) / "engine.log")
            time.sleep(0.5)  # every engine process is up, not just the first to answer
            pids = {
                "engine": _process_tree(engine.pid),
                "redis": [redis_server.proc.pid] if redis_server.proc else [],
            }
            # The client runs on uvloop and parses with orjson, as the services do: its CPU is
            # on the same cores as the engine's, so a slow client would cap the figure.
            results = [
                uvloop.run(
                    _level(target, n, args.seconds, args.channels, args.ask_legal, pids, args.rate)
                )
                for n in levels
            ]
        finally:
            engine.terminate()
            try:
                engine.wait(30)  # a loaded machine may take a while to drain: not measured here
            except subprocess.TimeoutExpired:
                print("bench: the engine took over 30 s to stop; killed", file=sys.stderr)
                engine.kill()
                engine.wait()
            log.close()
            redis_server.stop()
    print(
        json.dumps(
            {
                "bench": "engine.apply_move",
                "command": "python bench/engine.py " + " ".join(sys.argv[1:]),
                "machine": {
                    "cpus": os.cpu_count(),
                    "python": platform.python_version(),
                    "load_avg_1m_after": round(os.getloadavg()[0], 2),
                },
                "redis": {
                    "binary": redis_server.binary,
                    "aof": args.aof,
                    "engine_connects_by": "tcp" if args.redis_tcp else "unix socket",
                },
                "engine_processes": args.processes,
                "client_channels": args.channels,
                "per_move": (
                    "ListLegalMoves (untimed) + ApplyMove (timed)"
                    if args.ask_legal
                    else "ApplyMove (timed); the client picks legal moves from its own board copy"
                ),
                "levels": results,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()

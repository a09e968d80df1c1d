"""AI seats play on their own through the real engine and Redis: they finish a game of humans
and AIs promptly and exactly once, and a worker killed in the middle of a move costs seconds,
not the game."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from metro.v1 import engine_pb2

from services.ai.bot import BotWorker, bot_move_id
from services.ai.engine_api import EngineApi
from services.ai.search import Searcher
from services.common.grpc_util import REPLAYED_METADATA, bearer
from services.common.levels import job_lease_ms
from tests.fixtures.engine import EngineClient, RunningEngine, doc
from tests.fixtures.processes import ServiceProcess
from tests.fixtures.waits import wait_until

EXPERT_LEASE_S = job_lease_ms("expert") / 1000  # a killed expert worker's job waits this long
SLOW_METROX_LEVEL = "mcts-10000"  # exactly 10,000 iterations: ~1 s a Metro X move
SLOW_METROX_LEASE_S = job_lease_ms(SLOW_METROX_LEVEL) / 1000


@pytest.fixture
def own_engine(redis_server_factory, engine_factory) -> RunningEngine:  # type: ignore[no-untyped-def]
    """An engine on a Redis of its own: no other test's AI worker can take these jobs."""
    return engine_factory(redis_server_factory(appendonly=False).url)


def wait_for(check: Callable[[], bool], timeout: float, what: str) -> float:
    """Poll until `check()` holds; the seconds it took."""
    start = time.monotonic()
    wait_until(check, what, timeout=timeout, every=0.01)
    return time.monotonic() - start


def moved_past(c: EngineClient, game: str, version: int) -> Callable[[], bool]:
    return lambda: c.view(game).version > version


def human_move(c: EngineClient, game: str, token: str, rng: random.Random) -> engine_pb2.GameView:
    moves = [json.loads(m) for m in c.legal(game, token).moves]
    pick = rng.choice(moves)
    return c.move(game, token, pick)


def to_move(view: engine_pb2.GameView) -> int:
    """The seat to move (Metro: one at a time)."""
    (seat,) = view.to_move
    return seat


def test_ai_seats_finish_a_game_of_humans_and_ais(own_engine: RunningEngine, ai_factory) -> None:  # type: ignore[no-untyped-def]
    worker = ai_factory(own_engine, "ai-1")
    c = own_engine.client()
    seats = [
        engine_pb2.SeatSpec(kind="human", name="Ada"),
        engine_pb2.SeatSpec(kind="ai", name="bot-default"),  # the engine's default level
        engine_pb2.SeatSpec(kind="open"),
        engine_pb2.SeatSpec(kind="ai", name="bot-easy", level="easy"),
    ]
    created = c.create({"players": 4, "hand_size": 2}, seats)
    game = created.game_id
    tokens = {created.seat: created.token}
    joined = c.join(game, "Bob")
    tokens[joined.seat] = joined.token
    assert sorted(tokens) == [0, 2]
    rng = random.Random(4)
    ai_waits: list[float] = []
    view = c.view(game)
    while view.status != "over":
        if to_move(view) in tokens:
            view = human_move(c, game, tokens[to_move(view)], rng)
            continue
        version = view.version  # an AI seat's turn: nobody here moves for it
        ai_waits.append(wait_for(moved_past(c, game, version), 10.0, "an AI move"))
        view = c.view(game)
    final = doc(view)
    assert final["moves"] == 60 and final["deck_count"] == 0
    ai_waits.sort()
    assert len(ai_waits) >= 30
    # Promptly at the default level (a quiet machine: well under 1 s); generous, since CI may
    # share its cores: this catches a worker that waits for a poll or a clock, not a slow one.
    assert ai_waits[int(0.9 * len(ai_waits))] < 5.0, ai_waits
    record = json.loads(c.record(game).record_json)
    assert record["scores"] == [s["score"] for s in final["seats"]]
    # Exactly once: the worker made one engine move per AI move of the record (a draw-and-place
    # is two), each at a version of its own.
    ai_moves = [m for m in record["moves"] if m["seat"] in (1, 3)]
    expected = sum(2 if m["action"] == "draw_place" else 1 for m in ai_moves)
    made = re.findall(rf"game {game} v(\d+) seat \d+ \(", worker.log_path.read_text())
    assert len(made) == len(set(made)) == expected


def test_a_killed_worker_does_not_stall_the_game(own_engine: RunningEngine, ai_factory) -> None:  # type: ignore[no-untyped-def]
    first: ServiceProcess = ai_factory(own_engine, "ai-1")
    c = own_engine.client()
    seats = [
        engine_pb2.SeatSpec(kind="human", name="Ada"),
        engine_pb2.SeatSpec(kind="ai", name="slow-bot", level="expert"),  # 3 s a move
    ]
    created = c.create({"players": 2}, seats)
    game, token = created.game_id, created.token
    rng = random.Random(9)
    view = human_move(c, game, token, rng)
    while to_move(view) == 0:  # a draw: the same seat places next
        view = human_move(c, game, token, rng)
    version = view.version
    wait_for(lambda: f"claimed: game {game} v{version} " in first.log_path.read_text(), 10.0,
             "ai-1 to take the AI turn")  # fmt: skip
    first.kill()  # mid-search: the job stays claimed by a dead worker
    assert c.view(game).version == version
    killed_at = time.monotonic()
    second: ServiceProcess = ai_factory(own_engine, "ai-2")
    # The job is retaken once its lease (expert: 3 s + 2 x 3 s) has run out, then searched.
    wait_for(moved_past(c, game, version), EXPERT_LEASE_S + 15.0, "another worker to move")
    assert time.monotonic() - killed_at < EXPERT_LEASE_S + 8.0
    log = second.log_path.read_text()
    assert re.search(rf"claimed: game {game} v{version} seat 1 level 'expert' attempt [2-9]", log)
    # And the game goes on with the surviving worker.
    view = c.view(game)
    while to_move(view) == 1:
        wait_for(moved_past(c, game, view.version), 10.0, "the AI's placement")
        view = c.view(game)
    view = human_move(c, game, token, rng)
    while to_move(view) == 0:
        view = human_move(c, game, token, rng)
    wait_for(moved_past(c, game, view.version), 10.0, "the next AI move")


def test_a_frozen_worker_that_resumes_does_not_log_a_move_it_never_made(
    own_engine: RunningEngine, caplog: pytest.LogCaptureFixture
) -> None:
    c = own_engine.client()
    seats = [
        engine_pb2.SeatSpec(kind="human", name="Ada"),
        engine_pb2.SeatSpec(kind="ai", name="bot", level="easy"),
    ]
    created = c.create({"players": 2}, seats)
    game = created.game_id
    assert to_move(human_move(c, game, created.token, random.Random(3))) == 1
    ai_md = bearer(c.ai_token)
    # Worker A claims the AI seat's job (no AI worker runs here to take it first).
    claim = engine_pb2.ClaimBotTurnRequest(worker_id="worker-a", wait_ms=5000)
    turn = c.stub.ClaimBotTurn(claim, metadata=ai_md, timeout=10).turn
    assert turn.job_id and turn.seat == 1
    move_id = bot_move_id(game, turn.version, turn.seat)

    def worker_b_moves() -> int:
        """While A is frozen in its search, B retakes the job and makes the move (the last
        legal one, so not what A chose); B's retry is answered as before."""
        last = json.loads(c.legal(game, c.ai_token, seat=1).moves[-1])
        request = c.move_request(game, last, expected_version=turn.version, move_id=move_id, seat=1)
        for attempt in range(2):
            view, call = c.stub.ApplyMove.with_call(request, metadata=ai_md, timeout=10)
            replayed = REPLAYED_METADATA[0] in tuple(call.trailing_metadata() or ())
            assert replayed == (attempt == 1)
        return int(view.version)

    class FreezingSearcher(Searcher):
        async def search(self, *args: Any, **kw: Any) -> Any:
            result = await super().search(*args, **kw)
            self.b_version = await asyncio.to_thread(worker_b_moves)
            return result

    searcher = FreezingSearcher(1)

    async def resume() -> None:
        api = EngineApi(own_engine.address, 10.0)
        try:
            await BotWorker(api, searcher, c.ai_token, 0).play(turn)
        finally:
            await api.close()

    with caplog.at_level(logging.INFO, logger="metro.ai.bot"):
        asyncio.run(resume())
    assert c.view(game).version == searcher.b_version == turn.version + 1  # one move, B's
    said = caplog.text
    assert f"job {turn.job_id} dropped: its move was already made" in said, said
    assert f"game {game} v{turn.version} seat 1" not in said, said  # the "made" line


def test_a_killed_worker_does_not_stall_a_simultaneous_turn(  # type: ignore[no-untyped-def]
    own_engine: RunningEngine, ai_factory
) -> None:
    """Metro X: the AI seat's job of a simultaneous turn, held by a worker killed mid-search, is
    retaken by another worker; the turn resolves with both choices, exactly once."""
    first: ServiceProcess = ai_factory(own_engine, "ai-1")
    c = own_engine.client()
    seats = [
        engine_pb2.SeatSpec(kind="human", name="Ada"),
        # ~1 s a move (Metro X offers no `expert`), far longer than the kill takes after the claim
        engine_pb2.SeatSpec(kind="ai", name="slow-bot", level=SLOW_METROX_LEVEL),
    ]
    created = c.create({"players": 2}, seats, game="metrox")
    game, token = created.game_id, created.token
    start = c.view(game)
    wait_for(lambda: f"claimed: game {game} v{start.version} seat 1" in first.log_path.read_text(),
             10.0, "ai-1 to take the AI seat's choice")  # fmt: skip
    first.kill()
    second: ServiceProcess = ai_factory(own_engine, "ai-2")
    legal = c.legal(game, token)
    c.move(game, token, json.loads(legal.moves[0]), expected_version=start.version)
    wait_for(lambda: doc(c.view(game))["turn_index"] == 1, SLOW_METROX_LEASE_S + 15.0,
             "the turn to resolve")  # fmt: skip
    log = second.log_path.read_text()
    assert re.search(rf"claimed: game {game} v{start.version} seat 1 level '{SLOW_METROX_LEVEL}' "
                     r"attempt [2-9]", log)  # fmt: skip
    events = [doc(e) for e in c.events_until(game, c.view(game).version)]
    assert [e["action"] for e in events].count("resolve") == 1

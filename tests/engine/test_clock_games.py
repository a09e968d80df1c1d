"""Table clocks enforced by the engine: time runs out with no client connected, the AI plays the
seat (or the seat loses), the player takes it back, and an engine restart keeps the deadline."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from typing import Any

import grpc
import pytest
from metro.v1 import engine_pb2

import games
from services.common.config import Settings
from services.common.grpc_util import bearer, error_details
from services.engine.bots.bots import BotQueue
from services.engine.core.store import GameStore, connect
from services.engine.core.timeouts import KEEPER_BATCH, ClockKeeper
from services.engine.service import EngineService
from tests.fixtures.engine import EngineClient, RunningEngine, doc, metro_seats
from tests.fixtures.waits import wait_until

FAST = {"mode": "realtime", "move_s": 5, "bank_s": 0, "ai_level": "random"}


@pytest.fixture
def clock_engine(redis_server_factory, engine_factory) -> RunningEngine:
    """An engine on a Redis of its own (its clock keeper sees only this test's games), whose start
    may take its time over the deadlines it missed (a loaded machine settles them slowly)."""
    return engine_factory(redis_server_factory(appendonly=True).url, {"CLOCK_CATCH_UP_S": "120"})


def _create(
    c: EngineClient, clock: dict[str, Any], players: int = 2, game: str = "metro"
) -> tuple[str, list[str]]:
    request = engine_pb2.CreateGameRequest(
        game=game,
        rules_json=json.dumps({"players": players}),
        seats=metro_seats("human", *["open"] * (players - 1)),
        clock_json=json.dumps(clock),
    )
    created = c.stub.CreateGame(request, timeout=10)
    tokens = [created.token] + [c.join(created.game_id, f"P{i}").token for i in range(1, players)]
    return created.game_id, tokens


def _events(c: EngineClient, game_id: str) -> list[dict[str, Any]]:
    out = []
    try:
        for event in c.stub.WatchGame(engine_pb2.WatchGameRequest(game_id=game_id), timeout=0.5):
            out.append({"event_id": event.event_id, **json.loads(event.json)})
    except grpc.RpcError as err:
        assert err.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    return out


def test_bad_clock_settings_are_refused_naming_the_field(clock_engine: RunningEngine) -> None:
    c = clock_engine.client()
    for clock, field in (({"mode": "blitz"}, "clock.mode"), ({"mode": "realtime", "move_s": 1},
                         "clock.move_s")):  # fmt: skip
        with pytest.raises(grpc.RpcError) as err:
            _create(c, clock)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert error_details(err.value)["field"] == field


def test_time_out_hands_the_seat_to_the_ai_and_the_player_takes_it_back(
    clock_engine: RunningEngine, ai_factory
) -> None:
    ai_factory(clock_engine)
    c = clock_engine.client()
    game_id, tokens = _create(c, FAST)
    view = doc(c.view(game_id))
    assert view["clock"]["mode"] == "realtime" and view["clock"]["move_s"] == 5
    deadline = view["seats"][0]["clock"]["deadline_ms"]
    assert view["to_move"] == [0] and deadline > time.time() * 1000
    assert view["seats"][1]["clock"]["deadline_ms"] is None

    # Nobody is connected; seat 0's time runs out and the AI moves for it.
    wait_until(
        lambda: (v := doc(c.view(game_id)))["seats"][0].get("away") and v["to_move"] != [0],
        "seat 0 timed out and the AI's move for it",
        timeout=20,
        every=0.2,
    )
    events = _events(c, game_id)
    timeout = next(e for e in events if e["action"] == "timeout")
    assert timeout["seats"] == [0] and timeout["then"] == "ai"
    # Enforced at the deadline (the keeper looks twice a second), not at someone's next call.
    assert deadline <= int(timeout["event_id"].split("-")[0]) < deadline + 3000

    # The player comes back: the seat is theirs again (and the AI credential cannot do that).
    back = doc(c.stub.SetAway(engine_pb2.SetAwayRequest(game_id=game_id, away=False),
                              metadata=bearer(tokens[0]), timeout=10))  # fmt: skip
    assert not back["seats"][0].get("away")
    assert _events(c, game_id)[-1]["action"] in ("returned", "timeout", "place", "draw")
    with pytest.raises(grpc.RpcError) as denied:
        c.stub.SetAway(engine_pb2.SetAwayRequest(game_id=game_id, away=True),
                       metadata=bearer(c.ai_token), timeout=10)  # fmt: skip
    assert denied.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_leaving_hands_the_seat_to_the_ai_at_once(clock_engine: RunningEngine) -> None:
    """Without a clock too: a player who leaves gets the AI in their place."""
    c = clock_engine.client()
    game_id, tokens = c.create_full({"players": 2})
    left = doc(c.stub.SetAway(engine_pb2.SetAwayRequest(game_id=game_id, away=True),
                              metadata=bearer(tokens[0]), timeout=10))  # fmt: skip
    assert left["seats"][0]["away"] is True
    # A bot job is due for seat 0 (it is seat 0's turn): the AI credential may now act for it.
    legal = c.legal(game_id, c.ai_token, seat=0)
    assert legal.moves
    # The player moves anyway: that takes the seat back in the same commit.
    move = json.loads(legal.moves[0])
    answer = c.move(game_id, tokens[0], move["action"], move.get("placement", ""))
    assert not doc(answer)["seats"][0].get("away")
    assert _events(c, game_id)[-1]["returned"] == [0]


def test_restart_mid_clock_keeps_the_deadline(clock_engine: RunningEngine) -> None:
    c = clock_engine.client()
    game_id, _ = _create(c, {**FAST, "on_timeout": "ai"})
    deadline = doc(c.view(game_id))["seats"][0]["clock"]["deadline_ms"]
    clock_engine.process.restart(hard=True)  # SIGKILL, then a fresh engine process
    c = clock_engine.client()
    wait_until(
        lambda: doc(c.view(game_id))["seats"][0].get("away"),
        "seat 0 timed out to the AI",
        timeout=20,
        every=0.2,
    )
    timeout = next(e for e in _events(c, game_id) if e["action"] == "timeout")
    assert deadline <= int(timeout["event_id"].split("-")[0]) < deadline + 3000


def _keeper_tick(engine: RunningEngine, at_ms: int) -> int:
    """One pass of a clock keeper at a chosen time: an in-process engine service on the same
    Redis (a test clock; the engine process's own keeper runs on the wall clock)."""

    async def tick() -> int:
        settings = replace(
            Settings.from_env(), redis_url=engine.redis_url, ai_service_token=engine.ai_token
        )
        client = connect(engine.redis_url)
        try:
            service = EngineService(settings, GameStore(client), BotQueue(client, client), client)
            return await ClockKeeper(service).tick(at_ms)
        finally:
            await client.aclose()

    return asyncio.run(tick())


def test_correspondence_deadline_on_a_test_clock(clock_engine: RunningEngine) -> None:
    """A day per move: nothing happens a second before the deadline, the seat goes to the AI
    a second after it; the move's own time decides, not when anyone looks."""
    c = clock_engine.client()
    game_id, tokens = _create(c, {"mode": "correspondence", "move_s": 86400})
    view = doc(c.view(game_id))
    assert view["clock"] == {"mode": "correspondence", "move_s": 86400, "bank_s": 0,
                             "on_timeout": "ai", "ai_level": view["clock"]["ai_level"]}  # fmt: skip
    deadline = view["seats"][0]["clock"]["deadline_ms"]
    assert abs(deadline - (time.time() * 1000 + 86_400_000)) < 60_000
    assert view["seats"][1]["clock"]["deadline_ms"] is None  # not seat 1's turn

    assert _keeper_tick(clock_engine, deadline - 1000) == 0
    assert not doc(c.view(game_id))["seats"][0].get("away")

    # Seat 0 moves in time: the deadline passes to seat 1, a day from that move.
    legal = json.loads(c.legal(game_id, tokens[0]).moves[0])
    moved = doc(c.move(game_id, tokens[0], legal["action"], legal.get("placement", "")))
    second = moved["seats"][1]["clock"]["deadline_ms"]
    assert second >= deadline - 1000 and moved["seats"][0]["clock"]["deadline_ms"] is None
    assert _keeper_tick(clock_engine, second - 1) == 0  # the index moved on with the game

    assert _keeper_tick(clock_engine, second + 1000) == 1
    after = doc(c.view(game_id))
    assert after["seats"][1]["away"] is True and not after["seats"][0].get("away")
    timeout = [e for e in _events(c, game_id) if e["action"] == "timeout"]
    assert [(e["seats"], e["then"]) for e in timeout] == [([1], "ai")]
    # Settled once: a second pass finds nothing more to do.
    assert _keeper_tick(clock_engine, second + 2000) == 0


def test_a_simultaneous_turn_has_one_clock_for_everyone_who_must_choose(
    clock_engine: RunningEngine,
) -> None:
    """Metro X: every seat gets the turn's deadline; at it, only the seats that have not chosen
    go to the AI; a seat that chose in time keeps its seat."""
    c = clock_engine.client()
    game_id, tokens = _create(c, {**FAST, "move_s": 60}, game="metrox")
    view = doc(c.view(game_id))
    deadlines = {s["clock"]["deadline_ms"] for s in view["seats"]}
    assert len(deadlines) == 1 and None not in deadlines
    (deadline,) = deadlines
    chosen = json.loads(c.legal(game_id, tokens[0]).moves[0])
    c.move(game_id, tokens[0], chosen)
    assert _keeper_tick(clock_engine, deadline + 1000) == 1
    after = doc(c.view(game_id))
    assert after["seats"][1]["away"] is True and not after["seats"][0].get("away")
    assert [e["seats"] for e in _events(c, game_id) if e["action"] == "timeout"] == [[1]]


@pytest.mark.parametrize("game", sorted(g.kind for g in games.all_games()))
def test_a_time_out_that_loses_freezes_the_seat_and_the_others_play_on(
    clock_engine: RunningEngine, game: str
) -> None:
    """`on_timeout: "lose"` at a three-seat table: the seat whose time runs out is out for good
    (never to move again, its score frozen), and the two others play on."""
    c = clock_engine.client()
    clock = {"mode": "correspondence", "move_s": 3600, "on_timeout": "lose"}
    game_id, tokens = _create(c, clock, players=3, game=game)
    view = doc(c.view(game_id))
    late = view["to_move"][-1]
    deadline = view["seats"][late]["clock"]["deadline_ms"]
    score = view["seats"][late].get("score")
    # Every other seat to move now moves in time; the late one does not.
    for seat in view["to_move"][:-1]:
        legal = json.loads(c.legal(game_id, tokens[seat]).moves[0])
        c.move(game_id, tokens[seat], legal)
    assert _keeper_tick(clock_engine, deadline + 1000) == 1
    after = doc(c.view(game_id))
    assert after["seats"][late]["lost"] is True
    assert late not in after["to_move"] and after["status"] == "playing"
    (event,) = [e for e in _events(c, game_id) if e["action"] == "timeout"]
    assert event["seats"] == [late] and event["then"] == "lose"
    # The others play on to the end; the lost seat never moves and its score stays.
    for _ in range(400):
        if after["status"] == "over":
            break
        assert late not in after["to_move"]
        seat = after["to_move"][0]
        legal = json.loads(c.legal(game_id, tokens[seat]).moves[0])
        after = doc(c.move(game_id, tokens[seat], legal))
        after = doc(c.view(game_id))
    assert after["status"] == "over"
    assert after["seats"][late].get("score") == score


def test_a_seat_leaving_mid_turn_makes_the_choices_made_final(
    clock_engine: RunningEngine,
) -> None:
    """Metro X at a table where leaving loses: seat 0 has chosen, seat 1 leaves (a public
    change that keeps seat 0's choice), so seat 0's choice is final; seat 2's choice then
    resolves the turn for the two seats still in."""
    c = clock_engine.client()
    clock = {"mode": "correspondence", "move_s": 3600, "on_timeout": "lose"}
    game_id, tokens = _create(c, clock, players=3, game="metrox")
    moves = [json.loads(m) for m in c.legal(game_id, tokens[0]).moves]
    c.move(game_id, tokens[0], moves[0])
    left = doc(c.stub.SetAway(engine_pb2.SetAwayRequest(game_id=game_id, away=True),
                              metadata=bearer(tokens[1]), timeout=10))  # fmt: skip
    assert left["seats"][1]["lost"] is True and left["to_move"] == [2]
    with pytest.raises(grpc.RpcError) as refused:
        c.move(game_id, tokens[0], moves[-1])
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_details(refused.value)["reason"] == "choice_final"
    start_turn = left["turn_index"]
    c.move(game_id, tokens[2], json.loads(c.legal(game_id, tokens[2]).moves[0]))
    after = doc(c.view(game_id))
    assert after["turn_index"] == start_turn + 1 and sorted(after["to_move"]) == [0, 2]


def test_deadlines_that_passed_while_the_engine_was_down_are_settled_before_it_is_ready(
    clock_engine: RunningEngine,
) -> None:
    """The keeper's first pass after a start settles every overdue deadline, more than one
    keeper batch of them, before the engine answers SERVING: none waits for a later tick."""
    c = clock_engine.client()
    count = KEEPER_BATCH + 6
    made = [_create(c, FAST)[0] for _ in range(count)]
    last = max(doc(c.view(g))["seats"][0]["clock"]["deadline_ms"] for g in made)
    clock_engine.process.kill()
    wait_until(  # down when the deadlines fall: the wall clock past the last of them
        lambda: time.time() * 1000 > last + 500, "the games' deadlines to pass", timeout=120
    )
    # The old channel's connection (shared by any new channel with the same options) is in its
    # reconnect back-off after the kill and would fail a first call at once: close it.
    clock_engine.close_channels()
    clock_engine.process.start()  # returns once the engine answers SERVING
    c = clock_engine.client()
    late = [g for g in made if not doc(c.view(g))["seats"][0].get("away")]
    assert late == [], f"{len(late)} of {count} overdue seats not yet handed over when ready"

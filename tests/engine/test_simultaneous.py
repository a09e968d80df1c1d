"""Simultaneous turns through the engine (Metro X): hidden choices, changes of mind, seats that
all choose at the same instant, retries, and a resolution that happens exactly once per turn."""

from __future__ import annotations

import json
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
import redis

import games
from services.engine.core.commit_lua import SUBMIT_LUA
from services.engine.core.shards import shard_of
from services.engine.core.store import (
    BOT_GROUP,
    answers_key,
    bot_stream,
    events_key,
    game_key,
    pending_key,
)
from tests.engine.helpers import code, moves_of, record_of
from tests.fixtures.engine import EngineClient, RunningEngine, doc

METROX = games.get("metrox")


def _events(client: EngineClient, game_id: str, version: int) -> list[dict[str, Any]]:
    return [doc(e) for e in client.events_until(game_id, version)]


def _choice(client: EngineClient, game_id: str, token: str, rng: random.Random) -> dict[str, Any]:
    moves = moves_of(client.legal(game_id, token))
    assert moves
    return rng.choice(moves)


def test_a_choice_stays_hidden_until_the_turn_resolves(engine: RunningEngine) -> None:
    client = engine.client()
    game_id, tokens = client.create_full({"players": 2}, game="metrox")
    start = client.view(game_id)
    assert list(start.to_move) == [0, 1]
    first = _choice(client, game_id, tokens[0], random.Random(1))
    mine = client.move(game_id, tokens[0], first, expected_version=start.version, move_id="a-1")
    assert doc(mine)["choice"] == first and list(mine.to_move) == [1]
    for viewer in (client.view(game_id, tokens[1]), client.view(game_id)):
        seen = doc(viewer)
        assert seen["seats"][0]["chosen"] is True and seen["seats"][1]["chosen"] is False
        assert seen.get("choice") in (None, {}), "another seat's choice leaked"
    (chosen,) = _events(client, game_id, mine.version)[-1:]
    assert chosen == {
        "event_id": chosen["event_id"], "game_id": game_id, "version": mine.version,
        "seat": 0, "action": "choose", "status": "playing", "by": "player",
        "to_move": [1],  # who is still to choose: public, as each seat's `chosen`
    }  # fmt: skip
    # A change of mind, pinned to the turn's first version: others' choices never make it stale.
    legal = moves_of(client.legal(game_id, tokens[0]))
    other = next(m for m in legal if m != first)
    changed = client.move(game_id, tokens[0], other, expected_version=start.version)
    assert doc(changed)["choice"] == other
    # A retry of the first choice (same move id) changes nothing.
    again = client.move(game_id, tokens[0], first, expected_version=start.version, move_id="a-1")
    assert again.version == changed.version and doc(again)["choice"] == other
    last = _choice(client, game_id, tokens[1], random.Random(2))
    resolved = client.move(game_id, tokens[1], last, expected_version=start.version)
    assert resolved.version == changed.version + 1
    assert doc(resolved)["turn_index"] == 1 and list(resolved.to_move) == [0, 1]
    event = _events(client, game_id, resolved.version)[-1]
    assert event["action"] == "resolve" and event["choices"] == [other, last]
    assert event["next_card"] == doc(resolved)["card"]


def test_a_stale_version_from_an_earlier_turn_is_refused(engine: RunningEngine) -> None:
    client = engine.client()
    game_id, tokens = client.create_full({"players": 2}, game="metrox")
    start = client.view(game_id)
    rng = random.Random(3)
    for seat in (0, 1):
        client.move(game_id, tokens[seat], _choice(client, game_id, tokens[seat], rng))
    with pytest.raises(grpc.RpcError) as err:
        client.move(game_id, tokens[0], _choice(client, game_id, tokens[0], rng),
                    expected_version=start.version)  # fmt: skip
    assert code(err.value) == grpc.StatusCode.ABORTED


def _play_racing(engine: RunningEngine, players: int, turns: int | None, seed: int) -> None:
    """Every seat chooses at the same instant on each turn, each on its own channel, pinned to
    the version the turn began at; all must be accepted, and each turn resolve exactly once."""
    control = engine.client()
    game_id, tokens = control.create_full({"players": players}, game="metrox")
    clients = [engine.client() for _ in range(min(players, 16))]
    rngs = [random.Random(seed * 1000 + i) for i in range(players)]
    view = control.view(game_id)
    played = 0
    with ThreadPoolExecutor(players) as pool:
        while view.status != "over" and (turns is None or played < turns):
            turn_index = doc(view)["turn_index"]
            choices = [_choice(control, game_id, tokens[s], rngs[s]) for s in range(players)]
            barrier = threading.Barrier(players)

            def submit(
                seat: int,
                version: int = view.version,
                barrier: threading.Barrier = barrier,
                choices: list[Any] = choices,
                turn_index: int = turn_index,
            ) -> Any:
                barrier.wait()
                try:
                    return clients[seat % len(clients)].move(
                        game_id, tokens[seat], choices[seat], expected_version=version,
                        move_id=f"t{turn_index}-s{seat}",
                    )  # fmt: skip
                except grpc.RpcError as err:
                    return err

            answers = list(pool.map(submit, range(players)))
            failed = [a for a in answers if isinstance(a, grpc.RpcError)]
            assert not failed, [f"{code(e)}: {e.details()}" for e in failed]
            view = control.view(game_id)
            assert doc(view)["turn_index"] == turn_index + 1 or view.status == "over"
            events = _events(control, game_id, view.version)
            resolves = [e for e in events if e["action"] == "resolve"]
            assert len(resolves) == turn_index + 1, "a turn resolved twice, or never"
            assert resolves[-1]["choices"] == choices
            chosen = [e for e in events if e["action"] == "choose" and e["version"] > 0]
            public = {"event_id", "game_id", "version", "seat", "action", "status", "by",
                      "to_move"}  # fmt: skip
            assert all(set(e) <= public for e in chosen)
            played += 1
    if view.status == "over":
        record = record_of(control, game_id)
        assert record["game"] == "metrox"
        replayed = METROX.replay(record)
        assert list(replayed.scores) == [s["score"] for s in doc(view)["seats"]]


def test_two_seats_play_a_whole_game(engine: RunningEngine) -> None:
    _play_racing(engine, 2, None, seed=1)


def test_seven_seats_race_every_turn(engine: RunningEngine) -> None:
    _play_racing(engine, 7, 6, seed=2)


def test_fifty_seats_choose_at_the_same_instant(engine: RunningEngine) -> None:
    _play_racing(engine, 50, 3, seed=3)


def test_hidden_choices_never_reach_another_seat(engine: RunningEngine) -> None:
    """Scan every view, event and legal list other seats and spectators get mid-turn."""
    client = engine.client()
    game_id, tokens = client.create_full({"players": 3}, game="metrox")
    rng = random.Random(5)
    for _ in range(4):
        view = client.view(game_id)
        if view.status == "over":
            break
        for seat in (0, 1):
            move = _choice(client, game_id, tokens[seat], rng)
            client.move(game_id, tokens[seat], move)
            for viewer in (None, 2, *(s for s in (0, 1) if s != seat)):
                token = None if viewer is None else tokens[viewer]
                seen = doc(client.view(game_id, token))
                assert seen.get("choice") in (None, {}) or (viewer in (0, 1) and viewer != seat)
                assert "deck" not in seen and "pending" not in json.dumps(seen)
        events = _events(client, game_id, client.view(game_id).version)
        for e in events:
            if e["action"] == "choose":
                assert "line" not in json.dumps(e) and "station" not in json.dumps(e)
        client.move(game_id, tokens[2], _choice(client, game_id, tokens[2], rng))


def _submit_raw(
    engine: RunningEngine, game_id: str, seat: int, choice: Any, stale: int = 0
) -> list[Any]:
    """Run the submit script by hand, as an engine would for `seat`'s choice (2 choosers), as
    of the turn's last public change (`stale`: that many versions before it)."""
    with redis.Redis.from_url(engine.redis_url, decode_responses=True) as r:
        turn, turn_version = r.hmget(game_key(game_id), "turn", "turn_version")
        turn_version = int(turn_version) - stale
        shard = shard_of(game_id)
        assert shard is not None
        keys = [game_key(game_id), events_key(game_id), answers_key(game_id),
                pending_key(game_id), bot_stream(shard)]  # fmt: skip
        args = [f"req:raw-{seat}", turn, seat, json.dumps(choice),
                f'"seat":{seat},"action":"choose","status":"playing"}}', 2, 3600, BOT_GROUP,
                turn_version]  # fmt: skip
        return list(r.eval(SUBMIT_LUA, len(keys), *keys, *args))


def test_the_last_choice_is_committed_whole_and_a_view_never_writes(
    engine: RunningEngine,
) -> None:
    """The choice that completes a turn is never stored as a hidden choice: the submit script
    refuses it without writing, and the engine commits the resolved turn in one change. A
    complete set of stored choices (left only by an engine from before) is not resolved by a
    reader: views change nothing, and the left-out seat's next choice resolves the turn."""
    client = engine.client()
    game_id, tokens = client.create_full({"players": 2}, game="metrox")
    rng = random.Random(9)
    first = _choice(client, game_id, tokens[0], rng)
    last = _choice(client, game_id, tokens[1], rng)
    client.move(game_id, tokens[0], first)
    before = client.view(game_id)
    turn = doc(before)["turn_index"]
    assert _submit_raw(engine, game_id, 1, last)[0] == "last"
    assert _submit_raw(engine, game_id, 1, last, stale=1)[0] == "turn"
    assert client.view(game_id).version == before.version  # nothing was written

    # Through the engine (a stale cached table included): one change, the resolution.
    other = engine.client()
    resolved = other.move(game_id, tokens[1], last)
    assert resolved.version == before.version + 1 and doc(resolved)["turn_index"] == turn + 1
    (event,) = _events(client, game_id, resolved.version)[-1:]
    assert event["action"] == "resolve" and event["choices"] == [first, last]

    # A complete set planted as an older engine could leave it: reading writes nothing.
    first = _choice(client, game_id, tokens[0], rng)
    last = _choice(client, game_id, tokens[1], rng)
    client.move(game_id, tokens[0], first)
    with redis.Redis.from_url(engine.redis_url, decode_responses=True) as r:
        r.hset(pending_key(game_id), "1", json.dumps(last))
        length = r.xlen(events_key(game_id))
        for _ in range(3):
            seen = engine.client().view(game_id)
            assert doc(seen)["turn_index"] == turn + 1 and list(seen.to_move) == [1]
        assert r.xlen(events_key(game_id)) == length
    again = client.move(game_id, tokens[1], last)
    assert again.version == seen.version + 1 and doc(again)["turn_index"] == turn + 2
    resolves = [e for e in _events(client, game_id, again.version) if e["action"] == "resolve"]
    assert len(resolves) == 2 and resolves[-1]["choices"] == [first, last]

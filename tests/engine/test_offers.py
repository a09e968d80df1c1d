"""Agreeing to stop (issue 35, item 1) on a real Redis and the real engine process: at a table of
people only a seat offers to abort (no result) or to end now (scored as it stands), every seat in
play must accept, a decline or a move ends the offer, an answer to an old offer is refused, a
table with an AI cannot agree to stop, and a stopped game is over, unrated and still replays."""

from __future__ import annotations

import json
import random
from typing import Any

import grpc
import pytest
from metro.v1 import engine_pb2

import games
from services.common.grpc_util import bearer
from tests.engine.helpers import record_of
from tests.fixtures.engine import EngineClient, RunningEngine, metro_seats

TIMEOUT = 10.0


@pytest.fixture
def quiet_engine(redis_server_factory, engine_factory) -> RunningEngine:  # type: ignore[no-untyped-def]
    """An engine on a Redis of its own: no AI worker plays its seats (this test does)."""
    return engine_factory(redis_server_factory(appendonly=False).url)


def offer(c: EngineClient, game: str, token: str, **fields: Any) -> dict[str, Any]:
    request = engine_pb2.OfferRequest(game_id=game, **fields)
    view = c.stub.Offer(request, metadata=bearer(token), timeout=TIMEOUT)
    return json.loads(view.json)  # type: ignore[no-any-return]


def refused(c: EngineClient, game: str, token: str, **fields: Any) -> str:
    with pytest.raises(grpc.RpcError) as err:
        offer(c, game, token, **fields)
    assert err.value.code() in (
        grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT
    )  # fmt: skip
    return dict(err.value.trailing_metadata() or ()).get("metro-error-reason", "")


def move_once(c: EngineClient, game: str, tokens: list[str], rng: random.Random) -> Any:
    view = c.view(game)
    seat = view.to_move[0]
    moves = [json.loads(m) for m in c.legal(game, tokens[seat], seat=seat).moves]
    return c.move(game, tokens[seat], rng.choice(moves), seat=seat)


def test_abort_needs_every_seat_and_lapses_on_a_move(quiet_engine: RunningEngine) -> None:
    c = quiet_engine.client()
    game, tokens = c.create_full({"players": 3})
    rng = random.Random(1)
    for _ in range(4):
        move_once(c, game, tokens, rng)
    refused(c, game, tokens[0], kind="draw")  # neither abort nor end
    made = offer(c, game, tokens[0], kind="abort")
    assert made["offer"] == {"n": 1, "kind": "abort", "by": 0, "accepted": [0]}
    assert refused(c, game, tokens[1], kind="end") == "offer_open"
    # A move ends the offer: an answer to it is then refused.
    move_once(c, game, tokens, rng)
    assert "offer" not in json.loads(c.view(game).json)
    assert refused(c, game, tokens[1], n=1, answer="accept") == "offer_closed"
    # A decline ends the next one.
    assert offer(c, game, tokens[1], kind="abort")["offer"]["n"] == 2
    offer(c, game, tokens[2], n=2, answer="decline")
    assert refused(c, game, tokens[0], n=2, answer="accept") == "offer_closed"
    # All three accept the third: the game is over with no result.
    offer(c, game, tokens[2], kind="abort")
    seat = c.view(game).to_move[0]
    legal = json.loads(c.legal(game, tokens[seat], seat=seat).moves[0])
    part = offer(c, game, tokens[0], n=3, answer="accept")
    assert part["status"] == "playing" and part["offer"]["accepted"] == [0, 2]
    again = offer(c, game, tokens[0], n=3, answer="accept")
    assert again["version"] == part["version"]  # answered already: nothing changes
    done = offer(c, game, tokens[1], n=3, answer="accept")
    assert done["status"] == "over" and done["ended"] == "abort" and done["winners"] == []
    actions = [json.loads(e.json).get("action") for e in c.events_until(game, done["version"])]
    assert actions.count("offer") == 3 and actions[-1] == "offer_agreed"
    with pytest.raises(grpc.RpcError) as err:  # over: no more moves
        c.move(game, tokens[seat], legal, seat=seat)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    record = record_of(c, game)
    assert record["ended"] == {"kind": "abort", "winners": []}  # the record says how it ended
    replayed = games.get("metro").replay(record)
    assert not replayed.is_over  # the record ends where the play stopped, and replays


def test_end_now_scores_as_it_stands(quiet_engine: RunningEngine) -> None:
    c = quiet_engine.client()
    game, tokens = c.create_full({"players": 2})
    rng = random.Random(4)
    for _ in range(30):
        move_once(c, game, tokens, rng)
    offer(c, game, tokens[1], kind="end")
    done = offer(c, game, tokens[0], n=1, answer="accept")
    assert done["status"] == "over" and done["ended"] == "end"
    scores = list(games.get("metro").replay(record_of(c, game)).scores)
    assert done["winners"] == [s for s in (0, 1) if scores[s] == max(scores)]


def test_a_table_with_an_ai_cannot_agree_to_stop(quiet_engine: RunningEngine) -> None:
    c = quiet_engine.client()
    created = c.create({"players": 2}, metro_seats("human", "ai"))
    assert refused(c, created.game_id, created.token, kind="abort") == "people_only"

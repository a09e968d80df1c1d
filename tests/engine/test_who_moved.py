"""Who made each move (issue 19, item 6) and what that means for ratings (item 5), on a real
Redis and the real engine process: every move event says `by` ("player" or "ai"), also a hidden
choice's; a rated game in which the AI made more than half of a person's moves leaves that
player's rating as it was, while the other player is rated."""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

import pytest
from metro.v1 import engine_pb2

from services.common.grpc_util import bearer
from services.engine.players.ratings import mostly_ai
from tests.fixtures.engine import EngineClient, RunningEngine
from tests.fixtures.waits import wait_until

TIMEOUT = 10.0


@pytest.fixture
def quiet_engine(redis_server_factory, engine_factory) -> RunningEngine:  # type: ignore[no-untyped-def]
    """An engine on a Redis of its own: no AI worker plays its seats (this test does)."""
    return engine_factory(redis_server_factory(appendonly=False).url)


def leave(c: EngineClient, game: str, token: str) -> None:
    request = engine_pb2.SetAwayRequest(game_id=game, away=True)
    c.stub.SetAway(request, metadata=bearer(token), timeout=TIMEOUT)


def play_out(c: EngineClient, game: str, tokens: dict[int, str], ai_seats: set[int]) -> None:
    """Play Metro to the end at random: `ai_seats` moved by the AI service, the rest by their
    players' tokens."""
    rng = random.Random(6)
    view = c.view(game)
    while view.status != "over":
        (seat,) = view.to_move
        token = c.ai_token if seat in ai_seats else tokens[seat]
        moves = [json.loads(m) for m in c.legal(game, token, seat=seat).moves]
        view = c.move(game, token, rng.choice(moves), seat=seat)


def events_of(c: EngineClient, game: str) -> list[dict[str, Any]]:
    return [json.loads(e.json) for e in c.events_until(game, c.view(game).version)]


def test_every_move_event_says_who_made_it(quiet_engine: RunningEngine) -> None:
    c = quiet_engine.client()
    game, tokens = c.create_full({"players": 2})
    leave(c, game, tokens[1])
    play_out(c, game, dict(enumerate(tokens)), {1})
    moves = [e for e in events_of(c, game) if e.get("action") in ("draw", "place")]
    assert len(moves) >= 60
    assert {e["by"] for e in moves if e["seat"] == 0} == {"player"}
    assert {e["by"] for e in moves if e["seat"] == 1} == {"ai"}
    assert mostly_ai(moves, 2) == {1}

    # Metro X: a hidden choice's public event says who chose (never what).
    mx, mx_tokens = c.create_full({"players": 2, "map": "lakeside"}, game="metrox")
    leave(c, mx, mx_tokens[1])
    legal = json.loads(c.legal(mx, mx_tokens[0]).moves[0])
    c.move(mx, mx_tokens[0], legal)
    ai_legal = json.loads(c.legal(mx, c.ai_token, seat=1).moves[0])
    c.move(mx, c.ai_token, ai_legal, seat=1)
    told = events_of(c, mx)
    choose = [e for e in told if e.get("action") == "choose"]
    assert [(e["seat"], e["by"]) for e in choose][:1] == [(0, "player")]
    assert all("line" not in e and "station" not in e for e in choose)
    assert any(e.get("action") == "resolve" for e in told)


def md(key: str | None = None, token: str | None = None) -> tuple[tuple[str, str], ...]:
    out = [("x-client-id", uuid.uuid4().hex)]
    if key:
        out.append(("x-player-key", key))
    if token:
        out.append(("authorization", f"Bearer {token}"))
    return tuple(out)


def board(c: EngineClient) -> dict[str, engine_pb2.RatingEntry]:
    reply = c.stub.GetLeaderboard(engine_pb2.GetLeaderboardRequest(game="metro"), timeout=TIMEOUT)
    return {p.player_id: p for p in reply.players}


def test_a_player_whose_moves_the_ai_mostly_made_is_not_rated(quiet_engine: RunningEngine) -> None:
    c = quiet_engine.client()
    ada, bo = (
        c.stub.CreatePlayer(engine_pb2.CreatePlayerRequest(name=n), metadata=md(), timeout=TIMEOUT)
        for n in ("Ada", "Bo")
    )
    game, tokens = c.create_full({"players": 2})
    for player, token in ((ada, tokens[0]), (bo, tokens[1])):
        sat = c.stub.SitPlayer(
            engine_pb2.SitPlayerRequest(game_id=game, rated=True),
            metadata=md(player.device_key, token), timeout=TIMEOUT,
        )  # fmt: skip
        assert sat.rated
    # Bo plays his first few moves himself, then leaves: the AI makes most of his moves.
    rng = random.Random(2)
    view = c.view(game)
    bo_moves = 0
    while bo_moves < 3:
        (seat,) = view.to_move
        moves = [json.loads(m) for m in c.legal(game, tokens[seat]).moves]
        view = c.move(game, tokens[seat], rng.choice(moves))
        bo_moves += seat == 1
    leave(c, game, tokens[1])
    play_out(c, game, {0: tokens[0]}, {1})

    def ada_rated() -> Any:
        rated = board(c)
        return ada.player_id in rated and rated

    rated = wait_until(ada_rated, "the game to be rated", timeout=20, every=0.2)
    assert rated[ada.player_id].games == 1  # Ada played her seat: rated
    assert bo.player_id not in rated  # Bo's rating is as it was (none: no rated game yet)
    assert "ai:" not in "".join(rated)  # no AI seat sat at this table

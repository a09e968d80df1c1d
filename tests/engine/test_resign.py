"""Resigning (issue 35, item 1) on a real Redis and the real engine process: a resigning seat
retires as the rules retire a leaver (score frozen, never a winner, never to move again); in a
2-player game the other wins at once, in a 4-player game the others play on; the record still
replays; a rated resignation rates as a loss; resigning twice changes nothing, and a table that
has not started has nothing to resign."""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

import grpc
import pytest
from metro.v1 import engine_pb2

import games
from services.common.grpc_util import bearer
from tests.engine.helpers import record_of
from tests.fixtures.engine import EngineClient, RunningEngine, metro_seats
from tests.fixtures.waits import wait_until

TIMEOUT = 10.0


@pytest.fixture
def quiet_engine(redis_server_factory, engine_factory) -> RunningEngine:  # type: ignore[no-untyped-def]
    """An engine on a Redis of its own: no AI worker plays its seats (this test does)."""
    return engine_factory(redis_server_factory(appendonly=False).url)


def resign(c: EngineClient, game: str, token: str) -> dict[str, Any]:
    request = engine_pb2.SetAwayRequest(game_id=game, resign=True)
    view = c.stub.SetAway(request, metadata=bearer(token), timeout=TIMEOUT)
    return json.loads(view.json)  # type: ignore[no-any-return]


def events_of(c: EngineClient, game: str) -> list[dict[str, Any]]:
    return [json.loads(e.json) for e in c.events_until(game, c.view(game).version)]


def play(c: EngineClient, game: str, tokens: list[str], steps: int, rng: random.Random) -> Any:
    """Up to `steps` random moves by whoever is to move (the game's own tokens)."""
    view = c.view(game)
    for _ in range(steps):
        if view.status != "playing":
            break
        seat = view.to_move[0]
        moves = [json.loads(m) for m in c.legal(game, tokens[seat], seat=seat).moves]
        view = c.move(game, tokens[seat], rng.choice(moves), seat=seat)
    return view


def holds_a_drawn_tile(c: EngineClient, game: str, token: str) -> bool:
    """Whether seat 0 is to move with a tile it drew (with tiles left to draw, its only
    moves place that tile)."""
    view = c.view(game)
    if view.status != "playing" or list(view.to_move) != [0]:
        return False
    if json.loads(view.json)["deck_count"] == 0:
        return False  # nothing to draw: placing from the hand is not holding a drawn tile
    moves = [json.loads(m) for m in c.legal(game, token, seat=0).moves]
    return all(m.get("action") != "draw" for m in moves)


def replayed_scores(c: EngineClient, game: str) -> list[int]:
    return list(games.get("metro").replay(record_of(c, game)).scores)


def md(key: str | None = None, token: str | None = None) -> tuple[tuple[str, str], ...]:
    out = [("x-client-id", uuid.uuid4().hex)]
    if key:
        out.append(("x-player-key", key))
    if token:
        out.append(("authorization", f"Bearer {token}"))
    return tuple(out)


@pytest.mark.parametrize("ada_holds_a_drawn_tile", [False, True])
def test_two_player_resign_ends_the_game_and_rates_a_loss(
    quiet_engine: RunningEngine, ada_holds_a_drawn_tile: bool
) -> None:
    c = quiet_engine.client()
    ada, bo = (
        c.stub.CreatePlayer(engine_pb2.CreatePlayerRequest(name=n), metadata=md(), timeout=TIMEOUT)
        for n in ("Ada", "Bo")
    )
    game, tokens = c.create_full({"players": 2})
    for player, token in ((ada, tokens[0]), (bo, tokens[1])):
        c.stub.SitPlayer(
            engine_pb2.SitPlayerRequest(game_id=game, rated=True),
            metadata=md(player.device_key, token), timeout=TIMEOUT,
        )  # fmt: skip
    rng = random.Random(3)
    play(c, game, tokens, 6, rng)
    for _ in range(20):  # to the position this case asks for
        if holds_a_drawn_tile(c, game, tokens[0]) == ada_holds_a_drawn_tile:
            break
        if ada_holds_a_drawn_tile and list(c.view(game).to_move) == [0]:
            c.move(game, tokens[0], "draw", seat=0)
        else:
            play(c, game, tokens, 1, rng)
    assert holds_a_drawn_tile(c, game, tokens[0]) == ada_holds_a_drawn_tile
    # Bo resigns, on his own turn or not.
    view = resign(c, game, tokens[1])
    if ada_holds_a_drawn_tile:
        # As games/metro/state.py retires a seat: the game ends once the
        # last seat in play places the tile it drew.
        assert view["status"] == "playing" and view["to_move"] == [0], view
        legal = [json.loads(m) for m in c.legal(game, tokens[0], seat=0).moves]
        view = json.loads(c.move(game, tokens[0], legal[0], seat=0).json)
    assert view["status"] == "over"
    assert view["winners"] == [0]
    assert view["seats"][1].get("lost") is True
    told = [e for e in events_of(c, game) if e.get("action") == "resigned"]
    ended_at_once = "playing" if ada_holds_a_drawn_tile else "over"
    assert [(e["seat"], e["status"]) for e in told] == [(1, ended_at_once)]
    assert told[0]["retired"][0]["seat"] == 1
    # Again: nothing changes (a retried request).
    again = resign(c, game, tokens[1])
    assert again["version"] == view["version"]
    # The record replays to the same end, the retirement in it.
    record = record_of(c, game)
    replayed = games.get("metro").replay(record)
    frozen = told[0]["retired"][0]["scores"]
    assert replayed.is_over and replayed.scores[1] == frozen[1]  # Bo's score froze
    if not ada_holds_a_drawn_tile:
        assert replayed.scores == frozen
    assert 1 in replayed.retired

    def both_rated() -> Any:
        board = c.stub.GetLeaderboard(
            engine_pb2.GetLeaderboardRequest(game="metro"), timeout=TIMEOUT
        )
        rated = {p.player_id: p for p in board.players}
        return ada.player_id in rated and bo.player_id in rated and rated

    rated = wait_until(both_rated, "the game to be rated", timeout=20, every=0.2)
    assert rated[ada.player_id].rating > rated[bo.player_id].rating  # Bo's is a loss


def test_four_player_resign_the_others_play_on(quiet_engine: RunningEngine) -> None:
    c = quiet_engine.client()
    game, tokens = c.create_full({"players": 4})
    rng = random.Random(5)
    play(c, game, tokens, 5, rng)
    view = resign(c, game, tokens[2])
    assert view["status"] == "playing"
    assert view["seats"][2].get("lost") is True
    (told,) = [e for e in events_of(c, game) if e.get("action") == "resigned"]
    frozen = told["retired"][0]["scores"][2]
    final = play(c, game, tokens, 400, rng)
    assert final.status == "over"
    end = json.loads(final.json)
    assert 2 not in end["winners"]
    assert replayed_scores(c, game)[2] == frozen
    moved = {
        e["seat"]
        for e in events_of(c, game)
        if e.get("action") in ("draw", "place") and e["version"] > view["version"]
    }
    assert moved == {0, 1, 3}  # seat 2 never moved again
    replayed = games.get("metro").replay(record_of(c, game))
    assert replayed.is_over and 2 in replayed.retired


def test_nothing_to_resign_before_the_start(quiet_engine: RunningEngine) -> None:
    c = quiet_engine.client()
    created = c.create({"players": 2}, metro_seats("human", "open"))
    with pytest.raises(grpc.RpcError) as err:
        resign(c, created.game_id, created.token)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION

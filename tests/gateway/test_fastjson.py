"""The gateway's compiled JSON conversion gives exactly grpc_util.message_to_json's dict for every
kind of reply the engine and the AI send, from real games in several variants."""

from __future__ import annotations

import math
from typing import Any

import pytest
from google.protobuf.message import Message
from metro.v1 import ai_pb2, ai_pb2_grpc, engine_pb2, metro_pb2

from services.common.grpc_util import bearer, insecure_channel, message_to_json
from services.gateway.fastjson import message_json
from tests.fixtures.engine import metro_seats


def same(message: Message) -> None:
    fast, reference = message_json(message), message_to_json(message)
    assert fast == reference, type(message).__name__


def play_out(client: Any, game: str, tokens: list[str], collect: list[Message]) -> None:
    view = client.view(game, tokens[0])
    while view.status == "playing":
        token = tokens[view.turn]
        legal = client.legal(game, token)
        collect.append(legal)
        draw = next((m for m in legal.moves if m.metro.action == "draw"), None)
        if draw is not None and view.metro.moves % 7 == 3:
            collect.append(client.move(game, token, "draw"))
            legal = client.legal(game, token)
        place = next(m for m in legal.moves if m.metro.action == "place")
        view = client.move(game, token, "place", place.metro.placement)
        collect.append(view)
        collect.append(client.view(game))
        collect.extend(client.view(game, t) for t in tokens)


@pytest.mark.parametrize("rules", [
    {"players": 2},
    {"players": 3, "rotation": True, "hand_size": 2},
    {"players": 4, "online": True, "hand_size": 3},
])  # fmt: skip
def test_every_reply_converts_the_same(engine_client: Any, rules: dict[str, Any]) -> None:
    collected: list[Message] = []
    game, tokens = engine_client.create_full(rules)
    collected.append(engine_client.view(game, tokens[0]))
    play_out(engine_client, game, tokens, collected)
    collected.extend(engine_client.events(game))
    collected.append(engine_client.record(game))
    for status in ("open", "playing", "over"):
        collected.append(engine_client.stub.ListGames(engine_pb2.ListGamesRequest(status=status)))
    waiting = engine_client.create(rules, metro_seats("human", *["open"] * (rules["players"] - 1)))
    collected.append(waiting)
    collected.append(engine_client.view(waiting.game_id))
    collected.append(engine_client.join(waiting.game_id, "late"))
    robots = engine_client.create(rules, metro_seats(*["ai"] * rules["players"]))
    assert not robots.HasField("seat")
    collected.append(robots)
    for message in collected:
        same(message)


def test_suggestions_and_odd_numbers_convert_the_same(engine_client: Any, ai: Any) -> None:
    game, tokens = engine_client.create_full({"players": 2})
    with insecure_channel(ai.target) as channel:
        reply = ai_pb2_grpc.AiStub(channel).Suggest(
            ai_pb2.SuggestRequest(game_id=game, level="easy"),
            metadata=bearer(tokens[0]),
            timeout=20,
        )
    assert reply.suggestions
    same(reply)
    odd = ai_pb2.SuggestResponse(suggestions=[
        ai_pb2.Suggestion(value=v, metro=metro_pb2.MetroMove(action="draw"))
        for v in (math.nan, math.inf, -math.inf, 0.1 + 0.2, -0.0)
    ])  # fmt: skip
    same(odd)
    same(ai_pb2.Suggestion())  # no detail set: nothing lifted

"""Chat over HTTP (issue 35 item 2; services/gateway/chat_api.py) through the real gateway, engine
and Redis: the players' and the spectators' rooms kept apart, a line kept as plain text, the
280-character limit (400 naming it), the per-address rate (429 with Retry-After), reports, and a
party table's phones limited to preset ids."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from services.gateway.app import create_app
from tests.fixtures.gateway import GatewayApi, gateway_config, relaxed_limits

PAYLOAD = "<img src=x onerror=alert(1)>"


def test_players_and_spectators_have_rooms_of_their_own(api: GatewayApi) -> None:
    game, tokens = api.new_game(2)
    path = f"/api/games/{game}/chat"
    status, body = api.post(path, {"text": PAYLOAD}, token=tokens[0])
    assert status == 200, body
    assert body["room"] == "players" and body["lines"][-1]["text"] == PAYLOAD
    status, body = api.post(path, {"text": "from the stands"})
    assert status == 200 and body["room"] == "spectators", body
    assert [line["text"] for line in body["lines"]] == ["from the stands"]
    status, seen = api.get(path, token=tokens[1])
    assert status == 200 and [line["text"] for line in seen["lines"]] == [PAYLOAD]
    assert seen["lines"][0]["seat"] == 0
    status, seen = api.get(path)
    assert status == 200 and [line["text"] for line in seen["lines"]] == ["from the stands"]
    # A report keeps the line; one of the other room is not found.
    line_id = seen["lines"][0]["id"]
    status, body = api.post(f"{path}/{line_id}/report", token=tokens[0])
    assert status == 404 and body["error"]["code"] == "line_not_found", body
    status, body = api.post(f"{path}/{line_id}/report")
    assert status == 200, body


def test_bad_lines_are_refused_clearly(api: GatewayApi) -> None:
    game, tokens = api.new_game(2)
    path = f"/api/games/{game}/chat"
    status, body = api.post(path, {"text": "x" * 281}, token=tokens[0])
    assert status == 400 and body["error"]["field"] == "text", body
    assert "280" in body["error"]["message"]
    status, body = api.post(path, {"text": 5}, token=tokens[0])
    assert status == 400 and body["error"]["field"] == "text", body
    status, body = api.post(path, {"text": "hi", "color": "red"}, token=tokens[0])
    assert status == 400, body
    status, body = api.post(path, {}, token=tokens[0])
    assert status == 400, body
    status, body = api.post("/api/games/nope/chat", {"text": "hi"})
    assert status in (400, 404) and body["error"]["code"], body


def test_a_party_phone_sends_presets_only(api: GatewayApi) -> None:
    status, made = api.post("/api/games", {"game": "metrox", "party": True, "name": "Host"})
    assert status == 201, made
    path = f"/api/games/{made['game_id']}/chat"
    status, body = api.post(path, {"text": "buy my stuff"}, token=made["token"])
    assert status == 409 and body["error"]["code"] == "preset_only", body
    status, body = api.post(path, {"preset": "one_more"}, token=made["token"])
    assert status == 200 and body["lines"][-1]["preset"] == "one_more", body


@pytest.fixture
def chatty_app(engine: Any, ai: Any) -> Iterator[Flask]:
    app = create_app(
        gateway_config(engine.address, ai.target, LIMITS=relaxed_limits(chat="3/minute"))
    )
    yield app
    app.extensions["metro_gateway"].backends.close()


def test_chat_is_rate_limited_per_address(api: GatewayApi, chatty_app: Flask) -> None:
    limited = GatewayApi(chatty_app.test_client())
    games = [api.new_game(2) for _ in range(2)]
    sent = [limited.post(f"/api/games/{g}/chat", {"text": "hi"}, token=t[0]) for g, t in games]
    sent.append(limited.post(f"/api/games/{games[0][0]}/chat", {"text": "hi"}))
    assert [status for status, _ in sent] == [200, 200, 200]
    status, body = limited.post(
        f"/api/games/{games[1][0]}/chat", {"text": "hi"}, token=games[1][1][1]
    )
    assert status == 429 and body["error"]["code"] == "rate_limited", body
    # Reading is no write: the room still reads.
    status, seen = limited.get(f"/api/games/{games[0][0]}/chat", token=games[0][1][1])
    assert status == 200 and len(seen["lines"]) == 1


def test_one_writer_is_rate_limited_by_the_engine(api: GatewayApi) -> None:
    game, tokens = api.new_game(2)
    answers = [
        api.post(f"/api/games/{game}/chat", {"text": f"{i}"}, token=tokens[0]) for i in range(6)
    ]
    status, body = answers[-1]
    assert [s for s, _ in answers[:5]] == [200] * 5
    assert status == 429 and body["error"]["code"] == "rate_limited", body

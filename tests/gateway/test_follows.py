"""Follows over HTTP (issue 35 item 3): PUT/DELETE /api/players/me/follows/{id} and GET
/api/players/me/follows with who is playing now, through the gateway to the real engine on a real
Redis. A followed player's private game (a daily attempt) is never shown."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from flask import Flask

from tests.fixtures.gateway import GatewayApi
from tests.fixtures.gateway import api_error as error

_ADDRESSES = itertools.count(1)


@pytest.fixture
def api(gateway_app: Flask) -> GatewayApi:
    """The session's gateway from an address of this module's own (players are created per
    address at a limited rate)."""
    client = gateway_app.test_client()
    n = next(_ADDRESSES)
    client.environ_base["REMOTE_ADDR"] = f"10.91.{n // 250}.{n % 250 + 1}"
    return GatewayApi(client)


def player(api: GatewayApi, name: str) -> tuple[str, dict[str, str]]:
    status, made = api.post("/api/players", {"name": name})
    assert status == 201, made
    return made["player_id"], {"X-Player-Key": made["device_key"]}


def follows(api: GatewayApi, headers: dict[str, str]) -> list[dict[str, Any]]:
    status, body = api.get("/api/players/me/follows", headers=headers)
    assert status == 200, body
    return list(body["follows"])


def test_follow_shows_playing_now_and_never_a_daily_attempt(api: GatewayApi) -> None:
    _ada_id, ada = player(api, "Ada")
    bea_id, bea = player(api, "Bea")
    assert follows(api, ada) == []

    status, body = api.call("PUT", f"/api/players/me/follows/{bea_id}", headers=ada)
    assert status == 200, body
    assert body["follows"] == [{"player_id": bea_id, "name": "Bea", "playing": []}]
    # Again: no change.
    status, again = api.call("PUT", f"/api/players/me/follows/{bea_id}", headers=ada)
    assert (status, again) == (200, body)

    # Bea's daily attempt (private) is not "playing now" for her followers.
    status, daily = api.post("/api/daily/metrox/games", headers=bea)
    assert status == 201, daily
    assert follows(api, ada)[0]["playing"] == []

    # Bea plays a public game against the AI: it is.
    status, made = api.post(
        "/api/games",
        {
            "game": "metro",
            "rules": {"players": 2},
            "seats": [{"kind": "human", "name": "Bea"}, {"kind": "ai", "level": "random"}],
        },
    )
    assert status == 201, made
    status, sat = api.post(
        f"/api/games/{made['game_id']}/player", {}, token=made["token"], headers=bea
    )
    assert status == 200, sat
    playing = follows(api, ada)[0]["playing"]
    assert [g["game_id"] for g in playing] == [made["game_id"]]
    assert playing[0]["status"] == "playing" and playing[0]["game"] == "metro"
    assert daily["game_id"] not in str(playing)

    status, body = api.call("DELETE", f"/api/players/me/follows/{bea_id}", headers=ada)
    assert (status, body) == (200, {"follows": []})


def test_follow_refuses_oneself_an_unknown_player_and_no_key(api: GatewayApi) -> None:
    ada_id, ada = player(api, "Ada")
    status, body = api.call("PUT", f"/api/players/me/follows/{ada_id}", headers=ada)
    assert status == 400 and error(body)["field"] == "player_id", body
    status, body = api.call("PUT", "/api/players/me/follows/nobody123456", headers=ada)
    assert status == 404 and error(body)["code"] == "player_not_found", body
    status, body = api.call("PUT", "/api/players/me/follows/bad%20id!", headers=ada)
    assert status == 400, body
    status, body = api.get("/api/players/me/follows")
    assert status == 403 and error(body)["code"] == "bad_player_key", body

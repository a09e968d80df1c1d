"""Resigning over HTTP (issue 35, item 1; bots too): `POST /api/games/{id}/resign` needs the
seat's token, ends a 2-player game with the other seat the winner, shows `resigned` in the
event stream, answers a repeat with the same view and refuses a table not started yet with
API.md's error shape (real gateway, engine and Redis)."""

from __future__ import annotations

from tests.fixtures.gateway import GatewayApi


def test_resign_over_http(api: GatewayApi) -> None:
    game, tokens = api.new_game(2)
    path = f"/api/games/{game}"
    status, body = api.post(f"{path}/resign")
    assert status == 403, body  # whose seat? a token is needed
    assert body["error"]["code"]
    status, body = api.post(f"{path}/resign", {"why": "x"}, token=tokens[0])
    assert status == 400, body  # no fields
    status, view = api.post(f"{path}/resign", token=tokens[1])
    assert status == 200, view
    assert view["status"] == "over" and view["winners"] == [0]
    assert view["seats"][1]["lost"] is True
    status, again = api.post(f"{path}/resign", token=tokens[1])
    assert status == 200 and again["version"] == view["version"]
    status, other = api.get(path, token=tokens[0])
    assert status == 200 and other["status"] == "over" and other["winners"] == [0]


def test_nothing_to_resign_before_the_start(api: GatewayApi) -> None:
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "open"}]
    status, made = api.post("/api/games", {"game": "metro", "seats": seats})
    assert status == 201, made
    status, body = api.post(f"/api/games/{made['game_id']}/resign", token=made["token"])
    assert status == 409, body
    assert body["error"]["code"] == "game_not_started"


def test_agree_to_abort_over_http(api: GatewayApi) -> None:
    game, tokens = api.new_game(2)
    path = f"/api/games/{game}"
    status, body = api.post(f"{path}/offers", {"kind": "draw"}, token=tokens[0])
    assert status == 400 and body["error"]["field"] == "kind", body
    status, made = api.post(f"{path}/offers", {"kind": "abort"}, token=tokens[0])
    assert status == 200, made
    assert made["offer"] == {"n": 1, "kind": "abort", "by": 0, "accepted": [0]}
    status, body = api.post(f"{path}/offers", {"kind": "end"}, token=tokens[1])
    assert status == 409 and body["error"]["code"] == "offer_open", body
    status, body = api.post(f"{path}/offers/2/accept", token=tokens[1])
    assert status == 409 and body["error"]["code"] == "offer_closed", body
    status, body = api.post(f"{path}/offers/1/maybe", token=tokens[1])
    assert status == 404, body
    status, done = api.post(f"{path}/offers/1/accept", token=tokens[1])
    assert status == 200, done
    assert done["status"] == "over" and done["ended"] == "abort" and done["winners"] == []

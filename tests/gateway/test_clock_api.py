"""Clocks and leaving over HTTP: a table's clock chosen at create, refused settings named, a
player who leaves gets the AI in their seat and takes it back (real engine, AI and Redis)."""

from __future__ import annotations

from typing import Any

from tests.fixtures.gateway import GatewayApi


def _create(api: GatewayApi, clock: Any) -> tuple[int, Any]:
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "open"}]
    body = {"game": "metro", "rules": {"players": 2}, "seats": seats, "clock": clock}
    return api.post("/api/games", body)


def test_a_clock_chosen_at_create_shows_in_the_view(api: GatewayApi) -> None:
    clock = {"mode": "realtime", "move_s": 30, "bank_s": 180, "on_timeout": "lose"}
    status, made = _create(api, clock)
    assert status == 201, made
    status, joined = api.post(f"/api/games/{made['game_id']}/join", {"name": "Bo"})
    assert status == 200, joined
    status, view = api.get(f"/api/games/{made['game_id']}", token=made["token"])
    assert status == 200 and view["status"] == "playing"
    assert {k: view["clock"][k] for k in clock} == clock
    mine, other = view["seats"]
    assert mine["clock"]["bank_ms"] == 180_000 and mine["clock"]["deadline_ms"] > 0
    assert other["clock"] == {"bank_ms": 180_000, "deadline_ms": None}


def test_bad_clock_settings_are_refused_naming_the_field(api: GatewayApi) -> None:
    for clock, field in (
        ("fast", "clock"),
        ({"mode": "blitz"}, "clock.mode"),
        ({"mode": "realtime", "move_s": 2}, "clock.move_s"),
        ({"mode": "realtime", "move_s": "30"}, "clock.move_s"),
        ({"mode": "realtime", "bank_s": 99999}, "clock.bank_s"),
        ({"mode": "realtime", "on_timeout": "draw"}, "clock.on_timeout"),
        ({"mode": "realtime", "ai_level": "godlike"}, "clock.ai_level"),
        ({"mode": "realtime", "tempo": 1}, "clock.tempo"),
    ):
        status, body = _create(api, clock)
        assert status == 400, (clock, body)
        assert body["error"]["code"] in ("bad_request", "invalid_argument"), body
        assert body["error"].get("field") == field, (clock, body)
        assert field.split(".")[-1] in body["error"]["message"]


def test_leaving_and_coming_back(api: GatewayApi) -> None:
    game, tokens = api.new_game(2)
    path = f"/api/games/{game}"
    status, body = api.post(f"{path}/leave")
    assert status == 403, body  # whose seat? a token is needed (API.md: 403)
    status, left = api.post(f"{path}/leave", token=tokens[0])
    assert status == 200, left
    assert left["seats"][0]["away"] is True
    # The AI plays the seat meanwhile (it is seat 0's turn): the game moves on without Ada.
    moved = api.view_when(game, tokens[1], lambda v: v["version"] > left["version"], 60)
    assert moved["seats"][0]["away"] is True
    status, back = api.post(f"{path}/return", token=tokens[0])
    assert status == 200, back
    assert not back["seats"][0].get("away")
    status, again = api.post(f"{path}/return", token=tokens[0])
    assert status == 200 and again["version"] == back["version"]  # nothing to hand back

"""Party tables over HTTP (services/gateway/party_api.py, services/engine/play/party.py),
through the
gateway to the real engine: a join code, joining by it up to the last seat, the host's start,
clear errors for an unknown, started or full party, the join rate limit, the QR code, and a
host's public view that never holds a seat's choice before the turn resolves."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from services.gateway.app import create_app
from tests.fixtures.gateway import GatewayApi, gateway_config, relaxed_limits
from tests.fixtures.gateway import api_error as error

CODE = re.compile(r"[ACEFHJKMNPRTWXY3479]{6}")


def party(api: GatewayApi, **body: Any) -> dict[str, Any]:
    status, made = api.post("/api/games", {"game": "metrox", "party": True, **body})
    assert status == 201, made
    assert CODE.fullmatch(made["join_code"]), made
    return made


def join(api: GatewayApi, code: str, name: str) -> tuple[int, Any]:
    return api.post(f"/api/join/{code}", {"name": name})


def public(api: GatewayApi, game: str) -> dict[str, Any]:
    status, seen = api.get(f"/api/games/{game}")
    assert status == 200, seen
    return dict(seen)


def test_join_by_code_up_to_fifty_then_full(api: GatewayApi) -> None:
    made = party(api, host_only=True)
    assert made["seat"] is None and made["token"] == ""
    code = made["join_code"]
    seats = []
    for i in range(50):
        # What a person types: any case, with a space or a dash.
        typed = code.lower() if i % 3 == 0 else f"{code[:3]}-{code[3:]}"
        status, joined = join(api, typed, f"P{i}")
        assert status == 200, joined
        assert set(joined) == {"game_id", "seat", "token"}
        assert joined["game_id"] == made["game_id"]
        seats.append(joined["seat"])
    assert seats == list(range(50))
    status, body = join(api, code, "late")
    assert status == 409 and error(body)["code"] == "party_full", body
    seen = public(api, made["game_id"])
    assert seen["status"] == "playing" and len(seen["seats"]) == 50  # full: it started itself


def test_host_starts_with_the_seats_taken_then_the_code_is_closed(api: GatewayApi) -> None:
    made = party(api, name="Host", clock={"mode": "realtime", "move_s": 20})
    game, code = made["game_id"], made["join_code"]
    assert made["seat"] == 0 and made["host_token"] == made["token"]
    tokens = [made["token"]]
    for name in ("Ada", "Ada"):  # names may repeat
        status, joined = join(api, code, name)
        assert status == 200, joined
        tokens.append(joined["token"])
    status, info = api.get(f"/api/games/{game}/party")
    assert status == 200 and info == {
        "game_id": game, "join_code": code, "status": "open", "seats_taken": 3,
        "max_seats": 50, "host_only": False,
    }, info  # fmt: skip
    assert public(api, game)["status"] == "waiting"

    status, body = api.post(f"/api/games/{game}/start")
    assert status == 403, body
    status, body = api.post(f"/api/games/{game}/start", token=tokens[1])  # a player, not the host
    assert status == 403 and error(body)["code"] == "permission_denied", body
    status, info = api.post(f"/api/games/{game}/start", token=made["host_token"])
    assert status == 200 and info["status"] == "started" and info["seats_taken"] == 3, info

    seen = public(api, game)
    assert seen["status"] == "playing"
    assert seen["rules"]["players"] == 3 and [s["name"] for s in seen["seats"]] == [
        "Host", "Ada", "Ada"
    ]  # fmt: skip
    assert sorted(seen["to_move"]) == [0, 1, 2]
    # The per-turn timer the host chose: every seat has the turn's deadline.
    deadlines = {s["clock"]["deadline_ms"] for s in seen["seats"]}
    assert len(deadlines) == 1 and None not in deadlines, seen["seats"]

    status, body = join(api, code, "late")
    assert status == 409 and error(body)["code"] == "party_started", body
    status, body = api.post(f"/api/games/{game}/join", {"name": "late"})
    assert status == 409 and error(body)["code"] == "join_by_code", body  # nor by its id
    status, again = api.post(f"/api/games/{game}/start", token=made["host_token"])
    assert status == 200 and again["status"] == "started"  # starting twice changes nothing


def test_unknown_malformed_and_empty_parties(api: GatewayApi) -> None:
    status, body = join(api, "WWWWWW", "Ada")
    assert status == 404 and error(body)["code"] == "party_not_found", body
    for bad in ("ABC", "00000O", "A" * 30):
        status, body = join(api, bad, "Ada")
        assert status == 400, (bad, body)
        error(body)
    made = party(api, host_only=True, rules={"players": 4})
    status, body = api.post(f"/api/games/{made['game_id']}/start", token=made["host_token"])
    assert status == 409 and error(body)["code"] == "party_empty", body
    status, body = api.post("/api/games", {"game": "metro", "party": True})
    assert status == 400 and error(body)["field"] == "party", body  # its seats take turns
    status, body = api.post("/api/games", {"game": "metrox", "party": True, "seats": []})
    assert status == 400 and error(body)["field"] == "seats", body
    status, body = api.post("/api/games", {"game": "metrox", "party": True,
                                           "rules": {"players": 51}})  # fmt: skip
    assert status == 400 and error(body)["field"] == "rules.players", body
    status, body = api.get("/api/games/nosuchgame/party")
    assert status == 404, body


def test_the_host_view_never_holds_a_choice(api: GatewayApi) -> None:
    made = party(api, host_only=True, rules={"players": 3})
    game, code = made["game_id"], made["join_code"]
    tokens = [join(api, code, f"P{i}")[1]["token"] for i in range(2)]
    api.post(f"/api/games/{game}/start", token=made["host_token"])
    status, legal = api.get(f"/api/games/{game}/legal", token=tokens[0])
    assert status == 200 and legal["moves"], legal
    move = {k: v for k, v in legal["moves"][0].items() if k != "preview"}  # the move itself
    before = public(api, game)
    status, mine = api.post(f"/api/games/{game}/moves", {**move, "move_id": "m0"}, token=tokens[0])
    assert status == 200 and mine["choice"] == move, mine
    seen = public(api, game)
    assert seen["seat"] is None and seen["choice"] is None
    assert [s["chosen"] for s in seen["seats"]] == [True, False]
    # The host's token reads the public view, as a spectator: nothing more (no seat's fields).
    status, hosts = api.get(f"/api/games/{game}", token=made["host_token"])
    assert status == 200 and hosts["seat"] is None and hosts["choice"] is None, hosts
    assert without_chosen(hosts) == without_chosen(seen)
    assert hosts["seats"] == seen["seats"]
    # It is no seat's token: a seat's legal moves stay refused, as does a token of no one.
    status, body = api.get(f"/api/games/{game}/legal", token=made["host_token"])
    assert status == 403, body
    status, body = api.get(f"/api/games/{game}", token="not-the-host-token")
    assert status == 403, body
    # Besides "chosen", the public view after the choice is the one before it: it says nothing
    # of what was chosen.
    assert without_chosen(seen) == without_chosen(before)


def without_chosen(view: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in view.items() if k not in ("version", "last_event_id", "to_move")}
    out["seats"] = [{k: v for k, v in s.items() if k != "chosen"} for s in view["seats"]]
    return out


def test_join_qr_code_is_an_svg_of_the_join_page(api: GatewayApi) -> None:
    made = party(api, host_only=True, rules={"players": 2})
    reply = api.client.get(f"/api/join/{made['join_code']}/qr.svg")
    assert reply.status_code == 200 and reply.mimetype == "image/svg+xml"
    svg = reply.get_data(as_text=True)
    assert svg.startswith("<svg") and "viewBox" in svg and "<path" in svg
    assert api.client.get("/api/join/abc/qr.svg").status_code == 400


@pytest.fixture
def tight_app(engine: Any, ai: Any) -> Iterator[Flask]:
    app = create_app(gateway_config(engine.address, ai.target,
                                    LIMITS=relaxed_limits(join="3/minute")))  # fmt: skip
    yield app
    app.extensions["metro_gateway"].backends.close()


def test_join_by_code_is_rate_limited_per_address(api: GatewayApi, tight_app: Flask) -> None:
    code = party(api, host_only=True)["join_code"]
    limited = GatewayApi(tight_app.test_client())
    for i in range(3):
        assert join(limited, code, f"P{i}")[0] == 200
    reply = limited.client.post(f"/api/join/{code}", json={"name": "P3"})
    assert reply.status_code == 429, reply.get_json()
    assert int(reply.headers["Retry-After"]) > 0
    assert error(reply.get_json())["code"] == "rate_limited"
    other = tight_app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.9"  # another address has its own count
    assert other.post(f"/api/join/{code}", json={"name": "P4"}).status_code == 200


def test_the_games_that_offer_party_tables(api: GatewayApi) -> None:
    status, body = api.get("/api/party/games")
    assert status == 200, body
    kinds = {g["game"]: g["max_seats"] for g in body["games"]}
    assert kinds == {"metrox": 50}  # Metro and the Underground take turns one seat at a time


def test_a_join_repeated_with_its_key_answers_the_same_seat(api: GatewayApi) -> None:
    made = party(api, host_only=True, rules={"players": 2})
    code = made["join_code"]
    key = {"Idempotency-Key": "party-join-key-0001"}
    status, first = api.post(f"/api/join/{code}", {"name": "Ada"}, headers=key)
    assert status == 200, first
    status, other = join(api, code, "Bea")  # the last seat: the table starts by itself
    assert status == 200 and other["seat"] == 1
    status, again = api.post(f"/api/join/{code}", {"name": "Ada"}, headers=key)
    assert status == 200 and again == first, again  # the same seat and token, no new seat
    status, body = join(api, code, "Cy")
    assert status == 409 and error(body)["code"] == "party_full", body


def test_a_party_table_is_joined_by_its_code_only(api: GatewayApi) -> None:
    made = party(api, host_only=True, rules={"players": 3})
    game, code = made["game_id"], made["join_code"]
    seats = [{"kind": "human", "name": "Cy"}, {"kind": "open"}]
    status, plain = api.post(
        "/api/games", {"game": "metrox", "rules": {"players": 2}, "seats": seats}
    )
    assert status == 201, plain
    status, listed = api.get("/api/games?status=open&limit=200")
    assert status == 200, listed
    ids = {g["game_id"] for g in listed["games"]}
    assert plain["game_id"] in ids and game not in ids, listed  # not among the open tables
    status, listed = api.get("/api/games?status=open&game=metrox")
    assert status == 200 and game not in {g["game_id"] for g in listed["games"]}
    # Its game id is no way in: a clear refusal, and no seat taken.
    status, body = api.post(f"/api/games/{game}/join", {"name": "Eve"})
    assert status == 409 and error(body)["code"] == "join_by_code", body
    assert "code" in error(body)["message"]
    status, info = api.get(f"/api/games/{game}/party")
    assert status == 200 and info["seats_taken"] == 0, info
    status, joined = join(api, code, "Ada")  # the code still seats people
    assert status == 200 and joined["seat"] == 0, joined
    status, other = api.post(f"/api/games/{plain['game_id']}/join", {"name": "Bea"})
    assert status == 200 and other["seat"] == 1, other  # an ordinary table as before

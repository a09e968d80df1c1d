"""Players, "my games", ratings and rematch over HTTP (docs/api-players.md), through the gateway
to the real engine and AI processes on a real Redis (tests/fixtures)."""

from __future__ import annotations

import itertools
import uuid
from typing import Any

import pytest
from flask import Flask

from tests.fixtures.gateway import GatewayApi
from tests.fixtures.gateway import api_error as error
from tests.fixtures.waits import wait_until

_ADDRESSES = itertools.count(1)


@pytest.fixture
def api(gateway_app: Flask) -> GatewayApi:
    """The session's gateway as a client of its own address: the engine counts recovery and
    player-creation attempts per client, and other tests of the session use 127.0.0.1."""
    client = gateway_app.test_client()
    n = next(_ADDRESSES)
    client.environ_base["REMOTE_ADDR"] = f"10.77.{n // 250}.{n % 250 + 1}"
    return GatewayApi(client)


def new_player(api: GatewayApi, name: str) -> dict[str, Any]:
    status, made = api.post("/api/players", {"name": name})
    assert status == 201, made
    assert set(made) == {"player_id", "name", "device_key", "recovery_code"}
    return made


def key(player: dict[str, Any]) -> dict[str, str]:
    return {"X-Player-Key": player["device_key"]}


def game_of(api: GatewayApi, seats: list[dict[str, Any]], players: int = 2) -> dict[str, Any]:
    status, made = api.post(
        "/api/games", {"game": "metro", "rules": {"players": players}, "seats": seats}
    )
    assert status == 201, made
    return made


def two_humans(api: GatewayApi) -> tuple[str, list[str]]:
    made = game_of(api, [{"kind": "human", "name": "Ada"}, {"kind": "open"}])
    status, joined = api.post(f"/api/games/{made['game_id']}/join", {"name": "Bob"})
    assert status == 200, joined
    return made["game_id"], [made["token"], joined["token"]]


def sit(
    api: GatewayApi, game: str, token: str, player: dict[str, Any], rated: bool = False
) -> tuple[int, Any]:
    return api.post(f"/api/games/{game}/player", {"rated": rated}, token=token, headers=key(player))


def view(api: GatewayApi, game: str, token: str | None = None) -> dict[str, Any]:
    status, body = api.get(f"/api/games/{game}", token=token)
    assert status == 200, body
    return dict(body)


def play_to_end(api: GatewayApi, game: str, tokens: dict[int, str]) -> dict[str, Any]:
    """The seats of `tokens` play their first legal placement (else any legal move) whenever
    they are to move; the other seats are the AI's. The last view."""

    def over() -> Any:
        """The last view once the game is over; else None, after our move if it is our turn."""
        current = view(api, game)
        if current["status"] == "over":
            return current
        mine = [s for s in current["to_move"] if s in tokens]
        if not mine:
            return None
        token = tokens[mine[0]]
        status, legal = api.get(f"/api/games/{game}/legal", token=token)
        assert status == 200, legal
        moves = legal["moves"]
        move = next((m for m in moves if m.get("action") == "place"), moves[0])
        status, after = api.post(
            f"/api/games/{game}/moves", {**move, "expected_version": legal["version"]}, token=token
        )
        assert status in (200, 409), after  # 409: the AI moved in between
        return None

    return dict(wait_until(over, "the game to end", timeout=240, every=0.05))


def board(api: GatewayApi, game: str = "metro") -> dict[str, dict[str, Any]]:
    status, body = api.get(f"/api/leaderboard/{game}?limit=200")
    assert status == 200, body
    assert body["game"] == game
    ranks = [p["rank"] for p in body["players"]]
    assert ranks == list(range(1, len(ranks) + 1))
    values = [p["rating"] for p in body["players"]]
    assert values == sorted(values, reverse=True)
    return {p["player_id"]: p for p in body["players"]}


# ---- players and "my games" --------------------------------------------------------------------


def test_my_games_across_two_devices_with_a_recovery_code(api: GatewayApi) -> None:
    ada, bob = new_player(api, "Ada"), new_player(api, "Bob")
    assert ada["player_id"] != bob["player_id"] and ada["device_key"] != bob["device_key"]
    status, me = api.get("/api/players/me", headers=key(ada))
    assert status == 200 and me == {"player_id": ada["player_id"], "name": "Ada", "bot": False}

    running, tokens = two_humans(api)
    assert sit(api, running, tokens[0], ada)[0] == 200
    status, sat = sit(api, running, tokens[1], bob)
    assert status == 200 and sat == {
        "game_id": running, "seat": 1, "player_id": bob["player_id"], "rated": False,
    }  # fmt: skip
    finished, tokens2 = two_humans(api)
    assert sit(api, finished, tokens2[1], ada)[0] == 200
    play_to_end(api, finished, dict(enumerate(tokens2)))

    # Another device: the recovery code as a person might type it.
    typed = ada["recovery_code"].lower().replace("-", " ")
    status, second = api.post("/api/players/recover", {"recovery_code": typed})
    assert status == 200, second
    assert second["player_id"] == ada["player_id"] and second["name"] == "Ada"
    assert "recovery_code" not in second
    assert second["device_key"] != ada["device_key"]

    lists = []
    for device in (ada, second):
        status, mine = api.get("/api/players/me/games", headers=key(device))
        assert status == 200, mine
        lists.append(mine)
    assert lists[0] == lists[1]
    games = {g["game_id"]: g for g in lists[0]["games"]}
    assert list(games) == [finished, running]  # newest first
    assert lists[0]["next_offset"] is None
    assert games[running]["status"] == "playing" and games[running]["seat"] == 0
    assert games[running]["to_move"] == [0] and games[running]["your_turn"] is True
    assert games[finished]["status"] == "over" and games[finished]["seat"] == 1
    assert games[finished]["to_move"] == [] and games[finished]["your_turn"] is False
    assert [s["name"] for s in games[running]["seats"]] == ["Ada", "Bob"]
    status, bobs = api.get("/api/players/me/games", headers=key(bob))
    assert [g["game_id"] for g in bobs["games"]] == [running]
    assert bobs["games"][0]["your_turn"] is False

    # Paging.
    status, page = api.get("/api/players/me/games?limit=1", headers=key(second))
    assert status == 200 and [g["game_id"] for g in page["games"]] == [finished]
    assert page["next_offset"] == 1
    status, page = api.get("/api/players/me/games?limit=1&offset=1", headers=key(second))
    assert [g["game_id"] for g in page["games"]] == [running] and page["next_offset"] is None

    status, table = api.get(f"/api/games/{running}/table")
    assert status == 200 and table["rated"] is False
    assert [s["player_id"] for s in table["seats"]] == [ada["player_id"], bob["player_id"]]


def test_player_errors(api: GatewayApi) -> None:
    ada = new_player(api, "Ada")
    status, body = api.get("/api/players/me")
    assert status == 403 and error(body)["code"] == "bad_player_key"
    for wrong in ("nonsense", ada["player_id"] + ".AAAAAAAAAAAAAAAAAAAAAAAA", "a b"):
        status, body = api.get("/api/players/me/games", headers={"X-Player-Key": wrong})
        assert status == 403 and error(body)["code"] == "bad_player_key", wrong
        assert wrong not in body["error"]["message"]
    status, body = api.post("/api/players/recover", {"recovery_code": "ZZZZZ-ZZZZZ"})
    assert status == 403 and error(body)["code"] == "bad_recovery_code"
    status, body = api.post("/api/players/recover", {"recovery_code": "12"})
    assert status == 400 and error(body)["code"] == "invalid_argument"
    for bad in ({}, {"name": ""}, {"name": 3}, {"name": "x" * 41}, {"name": "A", "extra": 1}):
        status, body = api.post("/api/players", bad)
        assert status == 400, (bad, body)
        error(body)
    status, body = api.get("/api/players/me/games?limit=500", headers=key(ada))
    assert status == 400 and error(body)["field"] == "limit"
    status, body = api.get("/api/leaderboard/chess")
    assert status == 400 and error(body)["code"] == "wrong_game"
    game, tokens = two_humans(api)
    status, body = api.post(f"/api/games/{game}/player", {}, headers=key(ada))
    assert status == 403 and error(body)["code"] == "permission_denied"
    status, body = api.post(f"/api/games/{game}/player", {}, token=tokens[0])
    assert status == 403 and error(body)["code"] == "bad_player_key"
    status, body = sit(api, game, "not-a-token-of-this-game", ada)
    assert status == 403
    # A seat holds one player for good.
    assert sit(api, game, tokens[0], ada)[0] == 200
    status, body = sit(api, game, tokens[0], new_player(api, "Eve"))
    assert status == 409 and error(body)["code"] == "seat_has_player"


# ---- ratings -----------------------------------------------------------------------------------


def test_ratings_change_after_a_rated_game_and_not_after_an_unrated_one(api: GatewayApi) -> None:
    ada, bob = new_player(api, "Ada"), new_player(api, "Bob")
    ids = (ada["player_id"], bob["player_id"])

    unrated, tokens = two_humans(api)
    assert sit(api, unrated, tokens[0], ada)[0] == 200
    assert sit(api, unrated, tokens[1], bob)[0] == 200
    play_to_end(api, unrated, dict(enumerate(tokens)))
    before = board(api)
    assert not any(p in before for p in ids)  # an unrated game rates nobody

    rated, tokens = two_humans(api)
    status, sat = sit(api, rated, tokens[0], ada, rated=True)
    assert status == 200 and sat["rated"] is True
    assert sit(api, rated, tokens[1], bob)[0] == 200
    end = play_to_end(api, rated, dict(enumerate(tokens)))
    after = board(api)
    for seat, player in enumerate(ids):
        entry = after[player]
        assert entry["games"] == 1 and entry["ai"] is False
        assert entry["name"] == ("Ada", "Bob")[seat]
        assert abs(entry["rating"] - (entry["mu"] - 3 * entry["sigma"])) < 0.01
        assert entry["sigma"] < 25 / 3  # less uncertain than a new player
    if len(end["winners"]) == 1:
        winner = ids[end["winners"][0]]
        loser = ids[1 - end["winners"][0]]
        assert after[winner]["rating"] > after[loser]["rating"]
        assert after[winner]["mu"] > 25 > after[loser]["mu"]

    again, tokens = two_humans(api)
    assert sit(api, again, tokens[0], ada)[0] == 200
    assert sit(api, again, tokens[1], bob)[0] == 200
    play_to_end(api, again, dict(enumerate(tokens)))
    assert {p: board(api)[p] for p in ids} == {p: after[p] for p in ids}

    # Too late: a player has moved.
    late, tokens = two_humans(api)
    play_one = {0: tokens[0]}
    status, legal = api.get(f"/api/games/{late}/legal", token=tokens[0])
    move = next(m for m in legal["moves"] if m["action"] == "place")
    assert api.post(f"/api/games/{late}/moves", move, token=play_one[0])[0] == 200
    status, body = sit(api, late, tokens[0], ada, rated=True)
    assert status == 409 and error(body)["code"] == "too_late_to_rate"


def test_ai_levels_are_rated_players(api: GatewayApi) -> None:
    ada = new_player(api, "Ada")
    before = board(api).get("ai:random", {"games": 0})
    made = game_of(api, [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "random"}])
    assert sit(api, made["game_id"], made["token"], ada, rated=True)[0] == 200
    play_to_end(api, made["game_id"], {0: made["token"]})
    after = board(api)
    assert after["ai:random"]["ai"] is True and after["ai:random"]["games"] == before["games"] + 1
    assert after[ada["player_id"]]["games"] == 1


# ---- rematch -----------------------------------------------------------------------------------


def test_rematch_flow(api: GatewayApi) -> None:
    ada, bob = new_player(api, "Ada"), new_player(api, "Bob")
    made = game_of(
        api,
        [{"kind": "human", "name": "Ada"}, {"kind": "open"}, {"kind": "ai", "level": "random"}],
        players=3,
    )
    old = made["game_id"]
    status, joined = api.post(f"/api/games/{old}/join", {"name": "Bob"})
    tokens = {0: made["token"], 1: joined["token"]}
    assert sit(api, old, tokens[0], ada, rated=True)[0] == 200
    assert sit(api, old, tokens[1], bob)[0] == 200

    status, body = api.post(f"/api/games/{old}/rematch", {"answer": "accept"}, token=tokens[0])
    assert status == 409 and error(body)["code"] == "game_not_over"
    play_to_end(api, old, tokens)
    status, body = api.get(f"/api/games/{old}/rematch")
    assert status == 200 and body == {"rematch": None, "game_id": None, "seat": None}

    # Ada offers: she accepts, the AI seat accepts; the game waits for Bob.
    status, offer = api.post(f"/api/games/{old}/rematch", {"answer": "accept"}, token=tokens[0])
    assert status == 200, offer
    new = offer["game_id"]
    assert offer["rematch"] == {"game_id": new, "accepted": [0, 2], "declined": [],
                                "started": False}  # fmt: skip
    assert offer["seat"] == 2  # seats rotated: Bob first, then the AI, then Ada
    ada_token = offer["token"]
    status, body = api.get(f"/api/games/{new}")
    assert status == 404  # not made until everyone accepted
    status, seen = api.get(f"/api/games/{old}/rematch")
    assert status == 200 and seen["rematch"]["started"] is False and "token" not in seen

    status, accepted = api.post(f"/api/games/{old}/rematch", {"answer": "accept"},
                                token=tokens[1])  # fmt: skip
    assert status == 200, accepted
    assert accepted["rematch"]["started"] is True and accepted["rematch"]["accepted"] == [0, 1, 2]
    assert accepted["game_id"] == new and accepted["seat"] == 0
    bob_token = accepted["token"]

    first = view(api, new, bob_token)
    assert first["seat"] == 0 and first["status"] == "playing"
    assert [s["name"] for s in first["seats"]] == ["Bob", "AI 3", "Ada"]
    assert [s["kind"] for s in first["seats"]] == ["human", "ai", "human"]
    assert first["seats"][1]["level"] == "random"
    assert first["rules"] == view(api, old)["rules"]
    assert view(api, new, ada_token)["seat"] == 2
    status, table = api.get(f"/api/games/{new}/table")
    assert table["rated"] is True
    assert [s["player_id"] for s in table["seats"]] == [bob["player_id"], "ai:random",
                                                       ada["player_id"]]  # fmt: skip
    status, mine = api.get("/api/players/me/games", headers=key(ada))
    assert mine["games"][0]["game_id"] == new

    # After the start: accepting again hands out no token; declining is too late.
    status, again = api.post(f"/api/games/{old}/rematch", {"answer": "accept"}, token=tokens[0])
    assert status == 200 and again["seat"] == 2 and "token" not in again
    status, body = api.post(f"/api/games/{old}/rematch", {"answer": "decline"}, token=tokens[1])
    assert status == 409 and error(body)["code"] == "rematch_started"


def test_a_declined_rematch_is_off_for_everyone(api: GatewayApi) -> None:
    old, tokens = two_humans(api)
    play_to_end(api, old, dict(enumerate(tokens)))
    status, body = api.post(f"/api/games/{old}/rematch", {"answer": "decline"}, token=tokens[1])
    assert status == 404 and error(body)["code"] == "no_rematch_offer"
    status, offer = api.post(f"/api/games/{old}/rematch", {"answer": "accept"}, token=tokens[0])
    assert status == 200 and offer["rematch"]["accepted"] == [0]
    status, declined = api.post(f"/api/games/{old}/rematch", {"answer": "decline"},
                                token=tokens[1])  # fmt: skip
    assert status == 200 and declined["rematch"]["declined"] == [1]
    assert "token" not in declined and declined["seat"] is None
    status, body = api.post(f"/api/games/{old}/rematch", {"answer": "accept"}, token=tokens[0])
    assert status == 409 and error(body)["code"] == "rematch_declined"
    status, seen = api.get(f"/api/games/{old}/rematch")
    assert seen["rematch"]["started"] is False
    assert api.get(f"/api/games/{offer['game_id']}")[0] == 404
    for bad in ({}, {"answer": "maybe"}, {"answer": "accept", "seat": 1}):
        status, body = api.post(f"/api/games/{old}/rematch", bad, token=tokens[0])
        assert status == 400, bad
    status, body = api.post(f"/api/games/{old}/rematch", {"answer": "accept"})
    assert status == 403
    status, body = api.post(f"/api/games/{uuid.uuid4().hex}/rematch", {"answer": "accept"},
                            token=tokens[0])  # fmt: skip
    assert status in (403, 404)


def test_a_second_device_claims_its_players_seat_and_plays(api: GatewayApi) -> None:
    """From "My games" on another device: a seat token of its own for the player's seat; both
    devices' tokens play the seat; nobody else can claim it."""
    ada, bob = new_player(api, "Ada"), new_player(api, "Bob")
    game, tokens = two_humans(api)
    assert sit(api, game, tokens[0], ada)[0] == 200
    status, second = api.post("/api/players/recover", {"recovery_code": ada["recovery_code"]})
    assert status == 200, second

    status, claimed = api.post(f"/api/games/{game}/claim", headers=key(second))
    assert status == 200, claimed
    assert claimed["game_id"] == game and claimed["seat"] == 0
    assert claimed["token"] not in tokens
    status, seen = api.get(f"/api/games/{game}", token=claimed["token"])
    assert status == 200 and seen["seat"] == 0 and "hand" in seen  # the seat's own view
    move = next(m for m in legal_moves(api, game, claimed["token"]) if m["action"] == "place")
    status, moved = api.post(f"/api/games/{game}/moves", move, token=claimed["token"])
    assert status == 200, moved
    assert view(api, game, tokens[0])["version"] == moved["version"]  # the first token still works

    # Bob has no seat there, and a device key is needed.
    status, body = api.post(f"/api/games/{game}/claim", headers=key(bob))
    assert status == 403 and error(body)["code"] == "permission_denied"
    status, body = api.post(f"/api/games/{game}/claim")
    assert status == 403 and error(body)["code"] == "bad_player_key"
    status, body = api.post(f"/api/games/{game}/claim", headers=key(ada), body={"x": 1})
    assert status == 400 and error(body)["code"] == "bad_request"


def legal_moves(api: GatewayApi, game: str, token: str) -> list[dict[str, Any]]:
    status, body = api.get(f"/api/games/{game}/legal", token=token)
    assert status == 200, body
    return list(body["moves"])

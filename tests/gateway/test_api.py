"""Every endpoint of API.md and every error code, through the gateway to the real engine and AI
processes (tests/fixtures: Redis, engine, AI workers; the gateway in-process)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from tests.fixtures.gateway import GatewayApi, dead_target
from tests.fixtures.gateway import api_error as error

CODE_LETTERS = set("abcd")


def view(api: GatewayApi, game: str, token: str | None = None) -> dict[str, Any]:
    status, body = api.get(f"/api/games/{game}", token=token)
    assert status == 200, body
    return body


def legal(api: GatewayApi, game: str, token: str) -> list[dict[str, Any]]:
    status, body = api.get(f"/api/games/{game}/legal", token=token)
    assert status == 200, body
    return body["moves"]


def place_move(api: GatewayApi, game: str, token: str) -> dict[str, Any]:
    """A legal placement for the seat of `token` (it must be that seat's turn)."""
    return next(m for m in legal(api, game, token) if m["action"] == "place")


def play_to_end(api: GatewayApi, game: str, tokens: list[str]) -> dict[str, Any]:
    """Both seats place their first legal move until the game is over; the last view."""
    current = view(api, game, tokens[0])
    for _ in range(200):
        if current["status"] == "over":
            return current
        token = tokens[current["turn"]]
        move = {**place_move(api, game, token), "expected_version": current["version"]}
        status, current = api.post(f"/api/games/{game}/moves", move, token=token)
        assert status == 200, current
    raise AssertionError("the game did not end within 200 moves")


# ---- POST /api/games ---------------------------------------------------------------------------


def test_create_gives_the_creator_the_first_human_seat(api: GatewayApi) -> None:
    status, made = api.post("/api/games", {
        "game": "metro", "rules": {"players": 3},
        "seats": [{"kind": "ai", "level": "easy"}, {"kind": "human", "name": "Ada"},
                  {"kind": "open"}],
    })  # fmt: skip
    assert status == 201, made
    assert made["seat"] == 1
    assert isinstance(made["token"], str) and len(made["token"]) >= 16
    seen = view(api, made["game_id"], made["token"])
    assert seen["seat"] == 1
    assert seen["status"] == "waiting"
    assert [s["kind"] for s in seen["seats"]] == ["ai", "human", "open"]
    assert seen["seats"][1]["name"] == "Ada"


def test_create_rejects_malformed_requests(api: GatewayApi) -> None:
    status, body = api.call("POST", "/api/games", headers={"Content-Type": "application/json"})
    assert status == 400 and error(body)["code"] == "bad_request"
    reply = api.client.post("/api/games", data="{not json", content_type="application/json")
    assert reply.status_code == 400
    assert "JSON" in error(reply.get_json())["message"]
    for body_in in (
        [],
        "metro",
        {"game": "metro"},
        {"game": "metro", "seats": "two"},
        {"game": "metro", "seats": [{"kind": "human"}], "rules": [1]},
    ):
        status, body = api.post("/api/games", body_in)
        assert status == 400, (body_in, body)
        error(body)


def test_create_names_unknown_games_fields_and_bad_rules(api: GatewayApi) -> None:
    two = [{"kind": "human", "name": "Ada"}, {"kind": "open"}]
    status, body = api.post("/api/games", {"game": "chess", "seats": two})
    assert status == 400 and error(body)["code"] == "wrong_game"
    assert "chess" in body["error"]["message"]
    status, body = api.post("/api/games", {"game": "metro", "seats": two, "rules": {"colour": 1}})
    assert status == 400 and "colour" in error(body)["message"]
    status, body = api.post("/api/games", {"game": "metro", "seats": two, "rules": {"players": 9}})
    assert status == 400, body
    assert error(body)["code"] in ("invalid_rules", "invalid_argument")
    status, body = api.post(
        "/api/games", {"game": "metro", "seats": [{"kind": "robot"}] * 2, "rules": {"players": 2}}
    )
    assert status == 400, body
    error(body)


# ---- GET /api/games ----------------------------------------------------------------------------


def test_list_open_games_shows_a_game_with_an_open_seat_until_it_fills(api: GatewayApi) -> None:
    status, made = api.post("/api/games", {
        "game": "metro", "rules": {"players": 2},
        "seats": [{"kind": "human", "name": "Lister"}, {"kind": "open"}],
    })  # fmt: skip
    assert status == 201
    status, listed = api.get("/api/games?status=open")
    assert status == 200
    mine = [g for g in listed["games"] if g["game_id"] == made["game_id"]]
    assert len(mine) == 1
    entry = mine[0]
    assert {"game_id", "game", "rules", "seats", "status", "created_at"} <= set(entry)
    assert entry["game"] == "metro" and entry["status"] == "waiting"
    assert entry["rules"]["players"] == 2
    assert "token" not in json.dumps(listed)
    api.post(f"/api/games/{made['game_id']}/join", {"name": "Bob"})
    _, listed = api.get("/api/games?status=open")
    assert made["game_id"] not in [g["game_id"] for g in listed["games"]]
    _, playing = api.get("/api/games?status=playing")
    assert made["game_id"] in [g["game_id"] for g in playing["games"]]


def test_list_rejects_an_unknown_status_or_limit(api: GatewayApi) -> None:
    status, body = api.get("/api/games?status=finished")
    assert status == 400 and "status" in error(body)["message"]
    status, body = api.get("/api/games?limit=lots")
    assert status == 400 and "limit" in error(body)["message"]


# ---- POST /api/games/{id}/join -----------------------------------------------------------------


def test_join_takes_the_first_open_seat_and_409_when_none_is_left(api: GatewayApi) -> None:
    status, made = api.post("/api/games", {
        "game": "metro", "rules": {"players": 3},
        "seats": [{"kind": "open"}, {"kind": "human", "name": "Ada"}, {"kind": "open"}],
    })  # fmt: skip
    assert status == 201 and made["seat"] == 1
    game = made["game_id"]
    status, first = api.post(f"/api/games/{game}/join", {"name": "Bob"})
    assert status == 200 and first["seat"] == 0 and first["token"]
    status, second = api.post(f"/api/games/{game}/join", {"name": "Cy"})
    assert status == 200 and second["seat"] == 2
    assert len({made["token"], first["token"], second["token"]}) == 3
    status, body = api.post(f"/api/games/{game}/join", {"name": "Late"})
    assert status == 409 and error(body)["code"] == "no_open_seat"
    names = [s["name"] for s in view(api, game)["seats"]]
    assert names == ["Bob", "Ada", "Cy"]


def test_join_errors(api: GatewayApi) -> None:
    status, body = api.post("/api/games/no-such-game/join", {"name": "Bob"})
    assert status == 404 and error(body)["code"] == "game_not_found"
    game, _ = api.new_game()
    status, body = api.post(f"/api/games/{game}/join", {"name": 7})
    assert status == 400 and "name" in error(body)["message"]
    status, body = api.post(f"/api/games/{game}/join", {"name": "Bob", "seat": 1})
    assert status == 400
    status, body = api.post(f"/api/games/{game}/join", {"nick": "Bob"})
    assert status == 400 and "nick" in error(body)["message"]


# ---- GET /api/games/{id} -----------------------------------------------------------------------


def test_view_fields_and_hidden_hands(api: GatewayApi) -> None:
    game, tokens = api.new_game(players=2, hand_size=3)
    mine = view(api, game, tokens[0])
    for key in (
        "game_id",
        "game",
        "version",
        "status",
        "rules",
        "seats",
        "turn",
        "deck_count",
        "board",
        "hand",
        "routes",
        "last_event_id",
        "drawn",
        "winners",
        "unseen",
    ):
        assert key in mine, key
    assert mine["status"] == "playing" and mine["turn"] == 0 and mine["seat"] == 0
    assert len(mine["hand"]) == 3 and all(set(t) <= CODE_LETTERS for t in mine["hand"])
    for seat in mine["seats"]:
        for key in ("name", "kind", "score", "out", "hand_count", "color", "stations"):
            assert key in seat, key
    assert [s["hand_count"] for s in mine["seats"]] == [3, 3]
    other = view(api, game, tokens[1])
    spectator = view(api, game)
    assert spectator["hand"] == [] and spectator.get("seat") is None
    assert len(other["hand"]) == 3
    # Each seat's unseen multiset counts the other's hand as unseen: the hands differ as seen.
    assert mine["unseen"] != other["unseen"]
    assert sum(mine["unseen"].values()) == 60 - 3


def test_view_errors(api: GatewayApi) -> None:
    game, _ = api.new_game()
    status, body = api.get("/api/games/no-such-game")
    assert status == 404 and error(body)["code"] == "game_not_found"
    status, body = api.get(f"/api/games/{game}", token="not-a-token")
    assert status == 403 and error(body)["code"] == "permission_denied"
    status, body = api.get(f"/api/games/{game}", headers={"Authorization": "Basic abc"})
    assert status == 403 and error(body)["code"] == "permission_denied"
    status, body = api.get(f"/api/games/{game}", headers={"Authorization": "Bearer tök€n"})
    assert status == 403
    _, other_tokens = api.new_game()
    status, body = api.get(f"/api/games/{game}", token=other_tokens[0])
    assert status == 403, "a token of another game must not open this one"


# ---- GET /api/games/{id}/legal -----------------------------------------------------------------


def test_legal_moves_for_the_seat_on_its_turn(api: GatewayApi) -> None:
    game, tokens = api.new_game()
    moves = legal(api, game, tokens[0])
    hand = view(api, game, tokens[0])["hand"]
    places = [m["placement"] for m in moves if m["action"] == "place"]
    assert places and all(p[:4] == hand[0] for p in places)
    assert {"action": "draw"} in [{"action": m["action"]} for m in moves]
    assert legal(api, game, tokens[1]) == []  # not seat 1's turn
    status, body = api.get(f"/api/games/{game}/legal", token="nope")
    assert status == 403
    error(body)
    status, body = api.get("/api/games/no-such-game/legal", token=tokens[0])
    assert status == 404


# ---- POST /api/games/{id}/moves ----------------------------------------------------------------


def test_a_move_answers_the_new_view_and_a_repeated_move_id_changes_nothing(
    api: GatewayApi,
) -> None:
    game, tokens = api.new_game()
    before = view(api, game, tokens[0])
    move = {
        **place_move(api, game, tokens[0]),
        "expected_version": before["version"],
        "move_id": uuid.uuid4().hex,
    }
    status, after = api.post(f"/api/games/{game}/moves", move, token=tokens[0])
    assert status == 200, after
    assert after["version"] == before["version"] + 1
    assert after["board"] == [move["placement"]]
    assert after["turn"] == 1 and after["seat"] == 0
    status, again = api.post(f"/api/games/{game}/moves", move, token=tokens[0])
    assert status == 200
    assert again["version"] == after["version"] and again["board"] == after["board"]
    assert view(api, game)["version"] == after["version"]


def test_stale_version_and_out_of_turn_are_409(api: GatewayApi) -> None:
    game, tokens = api.new_game()
    current = view(api, game, tokens[0])
    move = place_move(api, game, tokens[0])
    status, body = api.post(
        f"/api/games/{game}/moves",
        {**move, "expected_version": current["version"] - 1},
        token=tokens[0],
    )
    assert status == 409 and error(body)["code"] == "version_conflict"
    status, body = api.post(f"/api/games/{game}/moves", {"action": "draw"}, token=tokens[1])
    assert status == 409 and error(body)["code"] == "not_your_turn"
    assert view(api, game)["version"] == current["version"]


def test_a_rule_breaking_move_is_422_and_names_the_rule(api: GatewayApi) -> None:
    game, tokens = api.new_game()
    tile = view(api, game, tokens[0])["hand"][0]
    status, body = api.post(
        f"/api/games/{game}/moves", {"action": "place", "placement": f"{tile}22"}, token=tokens[0]
    )
    assert status == 422, body
    err = error(body)
    assert err["code"] == "illegal_move"
    assert err["message"].count("RULES.md §6") == 1, err["message"]
    assert err["rule"].startswith("RULES.md §6")
    status, body = api.post(
        f"/api/games/{game}/moves", {"action": "place", "placement": f"{tile}33"}, token=tokens[0]
    )
    assert status == 422 and "RULES.md" in error(body)["message"]


def test_malformed_moves_are_400(api: GatewayApi) -> None:
    game, tokens = api.new_game()
    url = f"/api/games/{game}/moves"
    cases = [
        {"action": "place", "placement": "zz"},
        {"action": "fly"},
        {"placement": "aaaa00"},
        {"action": "draw", "expected_version": "seven"},
        {"action": "draw", "teleport": True},
        {"action": "draw", "seat": 1},
    ]
    for move in cases:
        status, body = api.post(url, move, token=tokens[0])
        assert status == 400, (move, body)
        error(body)
    status, body = api.post(url, [1, 2], token=tokens[0])
    assert status == 400


def test_moves_need_the_seats_token(api: GatewayApi) -> None:
    game, _ = api.new_game()
    status, body = api.post(f"/api/games/{game}/moves", {"action": "draw"})
    assert status == 403 and error(body)["code"] == "permission_denied"
    status, body = api.post(f"/api/games/{game}/moves", {"action": "draw"}, token="forged")
    assert status == 403
    status, body = api.post("/api/games/no-such-game/moves", {"action": "draw"}, token="forged")
    assert status in (403, 404)
    error(body)


def test_draw_shows_the_tile_to_the_drawer_alone_who_must_place_it(api: GatewayApi) -> None:
    game, tokens = api.new_game()
    status, drew = api.post(f"/api/games/{game}/moves", {"action": "draw"}, token=tokens[0])
    assert status == 200, drew
    drawn = drew["drawn"]
    assert isinstance(drawn, str) and set(drawn) <= CODE_LETTERS and len(drawn) == 4
    assert drew["turn"] == 0, "the turn passes only after the drawn tile is placed"
    assert view(api, game, tokens[1])["drawn"] is None
    assert view(api, game)["drawn"] is None
    moves = legal(api, game, tokens[0])
    assert moves and all(m["action"] == "place" and m["placement"][:4] == drawn for m in moves)
    hand = drew["hand"][0]
    if hand != drawn:
        status, body = api.post(
            f"/api/games/{game}/moves",
            {"action": "place", "placement": f"{hand}00"},
            token=tokens[0],
        )
        assert status in (400, 422), body
    status, placed = api.post(f"/api/games/{game}/moves", moves[0], token=tokens[0])
    assert status == 200 and placed["turn"] == 1 and placed["drawn"] is None


# ---- POST /api/games/{id}/hint -----------------------------------------------------------------


def test_hint_ranks_legal_moves_from_the_seats_view(api: GatewayApi) -> None:
    game, tokens = api.new_game()
    status, hint = api.post(f"/api/games/{game}/hint", {"level": "easy"}, token=tokens[0])
    assert status == 200, hint
    assert hint["level"] == "easy"
    assert isinstance(hint["elapsed_ms"], int)
    suggestions = hint["suggestions"]
    assert suggestions
    allowed = legal(api, game, tokens[0])
    for s in suggestions:
        assert {"action", "placement", "value"} <= set(s)
        assert {"action": s["action"], "placement": s["placement"]} in [
            {"action": m["action"], "placement": m.get("placement", "")} for m in allowed
        ]
    status, default = api.post(f"/api/games/{game}/hint", token=tokens[0])
    assert status == 200 and default["suggestions"]


def test_hint_errors(api: GatewayApi) -> None:
    game, tokens = api.new_game()
    status, body = api.post(f"/api/games/{game}/hint", {})
    assert status == 403 and error(body)["code"] == "permission_denied"
    status, body = api.post(f"/api/games/{game}/hint", {"level": "godlike!"}, token=tokens[0])
    assert status == 400, body
    status, body = api.post(f"/api/games/{game}/hint", {"colour": "red"}, token=tokens[0])
    assert status == 400
    status, body = api.post(f"/api/games/{game}/hint", {}, token=tokens[1])
    assert status == 409 and error(body)["code"] == "not_your_turn"
    status, body = api.post("/api/games/no-such-game/hint", {}, token=tokens[0])
    assert status in (403, 404)


# ---- GET /api/games/{id}/record ----------------------------------------------------------------


def test_record_is_403_while_running_and_replays_the_game_when_over(api: GatewayApi) -> None:
    game, tokens = api.new_game()
    first_views = [view(api, game, t) for t in tokens]
    status, body = api.get(f"/api/games/{game}/record", token=tokens[0])
    assert status == 403 and error(body)["code"] == "game_running"
    last = play_to_end(api, game, tokens)
    assert last["status"] == "over" and last["turn"] is None
    assert set(last["winners"]) <= {0, 1} and last["winners"]
    assert len(last["board"]) == 60
    status, record = api.get(f"/api/games/{game}/record")
    assert status == 200, record
    assert record["format"] == "metro-record/1"
    assert [m["placement"] for m in record["moves"]] == last["board"]
    assert record["scores"] == [s["score"] for s in last["seats"]]
    assert sorted(record["deck"]) == sorted(p[:4] for p in last["board"])
    # Each seat was shown the tile dealt to it (deck[i] to seat i), and only that one.
    assert [v["hand"] for v in first_views] == [[record["deck"][0]], [record["deck"][1]]]
    status, body = api.get("/api/games/no-such-game/record")
    assert status == 404
    status, body = api.post(f"/api/games/{game}/moves", {"action": "draw"}, token=tokens[0])
    assert status == 409, body


# ---- errors of the HTTP layer and of the backends ----------------------------------------------


def test_an_oversized_body_is_refused_before_it_is_read(api: GatewayApi) -> None:
    status, body = api.post("/api/games", {"game": "metro", "padding": "x" * 100_000})
    assert status == 413 and error(body)["code"] == "request_entity_too_large"
    # The limits' check of the body (an open seat?) took the 413 for its store failing: every
    # create after it answered 503 limits_unavailable. A create goes on as before.
    api.new_game()


def test_unknown_paths_and_methods_answer_json(api: GatewayApi) -> None:
    status, body = api.get("/api/nothing-here")
    assert status == 404 and error(body)["code"] == "not_found"
    status, body = api.call("DELETE", "/api/games")
    assert status == 405 and error(body)["code"] == "method_not_allowed"


def test_a_dead_engine_is_503(gateway_factory: Any, ai: Any) -> None:
    down = gateway_factory(dead_target(), ai.target)
    status, body = down.get("/api/games/anything")
    assert status == 503 and error(body)["code"] == "unavailable"
    assert "engine" in body["error"]["message"]
    status, body = down.post("/api/games", {"game": "metro", "seats": [{"kind": "human"}] * 2})
    assert status == 503


def test_a_dead_ai_makes_hints_503_and_games_go_on(gateway_factory: Any, engine: Any) -> None:
    no_ai = gateway_factory(engine.address, dead_target())
    game, tokens = no_ai.new_game()
    status, body = no_ai.post(f"/api/games/{game}/hint", {}, token=tokens[0])
    assert status == 503 and "ai" in error(body)["message"]
    move = place_move(no_ai, game, tokens[0])
    status, body = no_ai.post(f"/api/games/{game}/moves", move, token=tokens[0])
    assert status == 200, body


# ---- /healthz ----------------------------------------------------------------------------------


def test_healthz(api: GatewayApi, gateway_factory: Any, engine: Any, ai: Any) -> None:
    status, body = api.get("/healthz")
    assert (status, body) == (200, {"ok": True, "engine": "ok", "ai": "ok"})
    status, body = gateway_factory(engine.address, dead_target()).get("/healthz")
    assert status == 503 and body["ok"] is False
    assert body["engine"] == "ok" and body["ai"] != "ok"
    assert "ai" in error({"error": body["error"]})["message"]
    status, body = gateway_factory(dead_target(), ai.target).get("/healthz")
    assert status == 503 and body["engine"] != "ok" and body["ai"] == "ok"


# ---- the page ----------------------------------------------------------------------------------


def test_the_page_and_its_modules_are_served_with_a_strict_policy(api: GatewayApi) -> None:
    reply = api.client.get("/")
    assert reply.status_code == 200 and b'<script type="module" src="/app.js">' in reply.data
    assert "script-src 'self'" in reply.headers["Content-Security-Policy"]
    assert reply.headers["Referrer-Policy"] == "no-referrer"
    shell = ("app.js", "game.js", "meta.js", "style.css")
    metro = ("page.js", "board.js", "tiles.js", "replay.js", "page.css")
    for path in [f"/{n}" for n in shell] + [f"/games/metro/{n}" for n in metro]:
        asset = api.client.get(path)
        assert asset.status_code == 200, path
        asset.close()
    reply.close()

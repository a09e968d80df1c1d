"""On the Underground through the HTTP API: a human against two AI seats ("easy" and "medium")
plays to the end with whole turns (RULES-UNDERGROUND.md §3), the AI seats moving on their own;
the record replays to the scores shown, and a hint for the human is a list of legal steps."""

from __future__ import annotations

import random
from typing import Any

import games
from tests.engine.test_underground_games import assert_pile_hidden, whole_turn
from tests.fixtures.gateway import GatewayApi


def test_underground_with_two_ai_seats_plays_to_the_end(api: GatewayApi) -> None:
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "easy"},
             {"kind": "ai", "level": "medium"}]  # fmt: skip
    status, made = api.post(
        "/api/games", {"game": "underground", "rules": {"players": 3}, "seats": seats}
    )
    assert status == 201, made
    game, token = made["game_id"], made["token"]
    assert made["seat"] == 0
    rng = random.Random(7)
    turns = 0
    hinted = False
    views: list[dict[str, Any]] = []
    view = api.view_when(game, token, lambda v: v["status"] != "waiting")
    while view["status"] != "over":
        assert view["to_move"] == [0] and view["turn"]["step"] == "build"
        views.append(view)
        status, legal = api.get(f"/api/games/{game}/legal", token=token)
        assert status == 200 and legal["seat"] == 0 and legal["version"] == view["version"]
        if not hinted:
            status, hint = api.post(f"/api/games/{game}/hint", {"level": "easy"}, token=token)
            assert status == 200, hint
            assert hint["seat"] == 0 and hint["suggestions"]
            listed = [{k: v for k, v in m.items() if k != "preview"} for m in legal["moves"]]
            assert all("preview" in m for m in legal["moves"])  # each with what it would do
            for s in hint["suggestions"]:
                assert s["move"] in listed
                assert {k: v for k, v in s.items() if k not in ("move", "value", "visits")} == (
                    s["move"]
                )
            hinted = True
        move = whole_turn(view, legal["moves"], rng)
        body = {**move, "expected_version": view["version"], "move_id": f"turn-{turns}"}
        status, answer = api.post(f"/api/games/{game}/moves", body, token=token)
        assert status == 200, answer
        assert answer["turns"] == view["turns"] + 1
        turns += 1
        # The AI seats play their turns on their own, step by step, until it is seat 0's again.
        view = api.view_when(game, token,
            lambda v, n=answer["turns"]: v["status"] == "over"
            or (v["to_move"] == [0] and v["turns"] >= n + 2),
        )  # fmt: skip
    assert hinted and turns >= 8
    assert view["winners"] and view["to_move"] == []

    status, record = api.get(f"/api/games/{game}/record")
    assert status == 200 and record["game"] == "underground"
    assert record["rules"] == {"players": 3, "map": "london"}
    assert [s["kind"] for s in record["seats"]] == ["human", "ai", "ai"]
    assert [s["level"] for s in record["seats"][1:]] == ["easy", "medium"]
    assert len(record["moves"]) == 3 * turns
    assert [m["seat"] for m in record["moves"]] == [0, 1, 2] * turns
    mine = [m for m in record["moves"] if m["seat"] == 0]
    assert any(m["rails"] for m in mine)
    replayed = games.get("underground").replay(record)
    assert replayed.is_over
    shown = [s["score"] for s in view["seats"]]
    assert replayed.scores == shown == record["scores"]
    assert view["winners"] == [i for i, s in enumerate(shown) if s == max(shown)]
    for seen in [*views, view]:
        assert_pile_hidden(seen, record["destinations"])

"""The HTTP API carries every game of the registry: the catalogue, and Metro X (simultaneous
turns) played through the same paths as Metro, with AI seats and hints."""

from __future__ import annotations

import random

import games
from tests.fixtures.gateway import GatewayApi


def test_meta_lists_every_game_with_its_options_levels_and_colours(api: GatewayApi) -> None:
    status, body = api.get("/api/meta")
    assert status == 200
    listed = [g["game"] for g in body["games"]]
    assert listed == games.kinds() and {"metro", "metrox"} <= set(listed)
    for entry in body["games"]:
        game = games.get(entry["game"])
        assert entry["name"] == game.name and entry["players"] == list(game.players)
        assert [o["name"] for o in entry["options"]] == [o.name for o in game.options]
        offered = ["random", "easy", "medium", "hard"] + (
            [] if entry["game"] == "metrox" else ["expert"]
        )
        assert [lv["name"] for lv in entry["levels"]] == offered
        assert all(lv["description"] for lv in entry["levels"])
        assert len(entry["colours"]) >= game.players[1]


def test_a_level_a_game_leaves_out_is_refused_naming_the_field(api: GatewayApi) -> None:
    """Metro X offers no `expert` (3 s of search measured no stronger than `hard` there): a seat,
    a clock's away level and a hint asking for it are refused, each naming its field; Metro
    still takes it."""
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "expert"}]
    status, err = api.post(
        "/api/games", {"game": "metrox", "rules": {"players": 2}, "seats": seats}
    )
    assert status == 400 and err["error"]["field"] == "seats[1].level", err
    assert "expert" in err["error"]["message"] and "hard" in err["error"]["message"], err
    clock = {"mode": "realtime", "ai_level": "expert"}
    status, err = api.post(
        "/api/games", {"game": "metrox", "rules": {"players": 2}, "clock": clock,
                       "seats": [{"kind": "human"}, {"kind": "ai", "level": "hard"}]},
    )  # fmt: skip
    assert status == 400 and err["error"]["field"] == "clock.ai_level", err
    status, made = api.post(
        "/api/games", {"game": "metrox", "rules": {"players": 2},
                       "seats": [{"kind": "human"}, {"kind": "ai", "level": "hard"}]},
    )  # fmt: skip
    assert status == 201, made
    status, err = api.post(
        f"/api/games/{made['game_id']}/hint", {"level": "expert"}, token=made["token"]
    )
    assert status == 400 and err["error"]["field"] == "level", err
    assert "Metro X" in err["error"]["message"], err
    status, err = api.post(  # a long level is quoted short, never echoed whole
        f"/api/games/{made['game_id']}/hint", {"level": "x" * 5000}, token=made["token"]
    )
    assert status == 400 and err["error"]["field"] == "level", err
    assert "a string of 5000 characters" in err["error"]["message"], err
    status, made = api.post(
        "/api/games", {"game": "metro", "rules": {"players": 2},
                       "seats": [{"kind": "human"}, {"kind": "ai", "level": "expert"}]},
    )  # fmt: skip
    assert status == 201, made


def test_a_game_page_module_is_served_from_its_package(api: GatewayApi) -> None:
    for kind in games.kinds():
        with api.client.get(f"/games/{kind}/page.js") as reply:
            assert reply.status_code == 200, kind
            assert "javascript" in reply.mimetype
    assert api.client.get("/games/nosuchgame/page.js").status_code == 404
    assert api.client.get("/games/metro/../__init__.py").status_code == 404


def test_metrox_with_three_ai_seats_plays_to_the_end(api: GatewayApi) -> None:
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "easy"},
             {"kind": "ai", "level": "medium"}, {"kind": "ai", "level": "random"}]  # fmt: skip
    status, made = api.post(
        "/api/games", {"game": "metrox", "rules": {"players": 4}, "seats": seats}
    )
    assert status == 201, made
    game, token = made["game_id"], made["token"]
    rng = random.Random(4)
    turns = 0
    view = api.view_when(game, token, lambda v: v["status"] != "waiting")
    while view["status"] != "over":
        assert 0 in view["to_move"]
        status, legal = api.get(f"/api/games/{game}/legal", token=token)
        move = rng.choice(legal["moves"])
        body = {**move, "expected_version": view["version"], "move_id": f"turn-{turns}"}
        status, answer = api.post(f"/api/games/{game}/moves", body, token=token)
        assert status == 200, answer
        turns += 1
        # The AI seats choose on their own; the turn resolves with the last choice.
        view = api.view_when(game, token,
            lambda v, n=turns: v["status"] == "over" or v["turn_index"] >= n,
        )  # fmt: skip
    assert turns == view["turn_index"] > 10
    status, record = api.get(f"/api/games/{game}/record")
    assert status == 200 and record["game"] == "metrox"
    assert all(len(turn) == 4 for turn in record["turns"])
    replayed = games.get("metrox").replay(record)
    assert replayed.scores == [s["score"] for s in view["seats"]] == record["scores"]
    assert view["winners"] and len(view["final"]) == 4


def test_metrox_hints_are_legal_choices_and_bad_moves_name_the_field(api: GatewayApi) -> None:
    status, made = api.post(
        "/api/games",
        {"game": "metrox", "rules": {"players": 2},
         "seats": [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "random"}]},
    )  # fmt: skip
    game, token = made["game_id"], made["token"]
    status, legal = api.get(f"/api/games/{game}/legal", token=token)
    status, hint = api.post(f"/api/games/{game}/hint", {"level": "medium"}, token=token)
    assert status == 200, hint
    assert hint["suggestions"] and hint["level"] == "medium"
    listed = [{k: v for k, v in m.items() if k != "preview"} for m in legal["moves"]]
    for s in hint["suggestions"]:
        assert s["move"] in listed
        assert {k: v for k, v in s.items() if k not in ("move", "value", "visits")} == s["move"]
    for bad, field in (({"line": 7}, "line"), ({"line": "A", "extra": 1}, "extra"),
                       ({"action": "draw"}, "action")):  # fmt: skip
        status, body = api.post(f"/api/games/{game}/moves", bad, token=token)
        assert status == 400, (bad, body)
        assert body["error"]["field"] == field, body

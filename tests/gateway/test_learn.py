"""First-game tutorials (GET /api/learn/<kind>) and the games' rules pages' words (issue 19.1).

Every game's script is the rules core's own: each step's move is legal where it stands (the
script replays through the checked door, and here every move is checked again against the step's
state), the views are the learner's projection only, and every sentence key the coach shows
exists in all four languages with every placeholder filled. The gateway runs in-process with its
backends down: tutorials need neither engine nor AI.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

import games
from tests.fixtures.offline_gateway import LANGUAGES

PLACEHOLDER = re.compile(r"\{(\w+)\}")
KINDS = [g.kind for g in games.all_games()]


def tutorial(client: FlaskClient, kind: str) -> dict[str, Any]:
    reply = client.get(f"/api/learn/{kind}")
    assert reply.status_code == 200, reply.get_data(as_text=True)[:300]
    assert reply.mimetype == "application/json"
    assert "max-age" in reply.headers["Cache-Control"]
    return dict(reply.get_json())


@pytest.mark.parametrize("kind", KINDS)
def test_every_game_has_a_tutorial_played_to_its_end(client: FlaskClient, kind: str) -> None:
    body = tutorial(client, kind)
    assert body["game"] == kind and body["seat"] == 0
    steps = body["steps"]
    assert 5 <= len(steps) <= 12, len(steps)
    *moves, last = steps
    assert last["legal"] == [] and all(len(s["legal"]) == 1 for s in moves)
    for i, step in enumerate(steps):
        view = step["view"]
        # The common fields a live view carries, so the game's page module draws it unchanged.
        assert view["game"] == kind and view["seat"] == 0 and view["version"] == i + 1
        assert view["status"] == "playing" and view["winners"] == []
        assert [s["seat"] for s in view["seats"]] == list(range(len(view["seats"])))
        assert view["seats"][0]["kind"] == "human" and view["seats"][1]["kind"] == "ai"
        assert step["say"], i
    # The learner moves in every step but the last; the learner scores.
    assert all(0 in s["view"]["to_move"] for s in moves)
    first, final = steps[0]["view"]["seats"][0]["score"], last["view"]["seats"][0]["score"]
    assert final > first, (first, final)


@pytest.mark.parametrize("kind", KINDS)
def test_the_served_views_are_the_game_s_own_projection(client: FlaskClient, kind: str) -> None:
    """Each served view is the tutorial module's `view(learner)` with only the common fields
    added (and the seats' engine facts), the move its script's."""
    from importlib import import_module

    module = import_module(f"games.{kind}.tutorial")
    served = tutorial(client, kind)["steps"]
    common = {"game_id", "game", "version", "status", "seats", "to_move", "last_event_id",
              "turn_version", "seat", "winners"}  # fmt: skip
    for step, raw in zip(served, module.steps(), strict=True):
        own = {k: v for k, v in raw["view"].items() if k not in common}
        assert {k: step["view"][k] for k in own} == own
        for seat, mine in zip(step["view"]["seats"], raw["view"]["seats"], strict=True):
            assert {k: seat[k] for k in mine if k != "seat"} == {
                k: v for k, v in mine.items() if k != "seat"
            }
        assert step["legal"] == ([raw["move"]] if raw["move"] is not None else [])


def test_a_script_s_moves_are_the_rules_core_s_legal_moves() -> None:
    """Played again here from each game's own set-up, every scripted move of the learner is in
    `legal_moves` of the state before it, and the views are that state's."""
    from games.metro import tutorial as metro_tutorial
    from games.metro.record import replay as metro_replay

    state = metro_replay({"format": "metro-record/1", "rules": metro_tutorial.RULES,
                          "deck": metro_tutorial.deck(), "moves": []})  # fmt: skip
    steps = metro_tutorial.steps()
    k = 0
    for placement in metro_tutorial.MOVES:
        seat = state.to_move()[0]
        move = {"action": "place", "placement": placement}
        if seat == 0:
            assert steps[k]["view"] == state.view(0)
            assert move in [m.to_json() for m in state.legal_moves(0)]
            # as the engine lists it: the move, with the rules core's preview of it
            listed = dict(steps[k]["move"])
            preview = listed.pop("preview")
            assert listed == move
            metro = games.get("metro")
            assert [preview] == metro.previews(state, 0, [metro.parse_move(move)])
            k += 1
        state.play(seat, move)
    assert steps[k]["move"] is None and steps[k]["view"] == state.view(0)


def test_views_hold_only_what_the_learner_may_see(client: FlaskClient) -> None:
    """The opponent's tile in hand (Metro) and the deck order never leave in a tutorial."""
    for step in tutorial(client, "metro")["steps"]:
        text = json.dumps(step["view"])
        assert "deck" not in step["view"] or not isinstance(step["view"]["deck"], list)
        assert all("hand" not in s for s in step["view"]["seats"]), text[:200]
    for step in tutorial(client, "metrox")["steps"]:
        other = step["view"]["seats"][1]
        assert "choice" not in other  # a choice in the open turn is hidden until it resolves


def test_metro_s_words_name_the_station_and_the_points(client: FlaskClient) -> None:
    """The explanations come from the rules core: the route a placement completes and its
    points are the rules' own (RULES.md §4), not typed in."""
    steps = tutorial(client, "metro")["steps"]
    said = [s for step in steps for s in step["say"]]
    edge = [s["params"] for s in said if s["key"] == "metro.learn.tut.complete_edge"]
    centre = [s["params"] for s in said if s["key"] == "metro.learn.tut.complete_centre"]
    assert edge and centre
    for p in centre:
        assert p["points"] == 2 * p["tiles"]
    final = steps[-1]["view"]
    routes = {r["station"]: r for r in final["routes"]}
    for p in edge + centre:
        assert routes[p["station"]]["owner"] == 0 and routes[p["station"]]["points"] == p["points"]
    mine = [s["params"]["mine"] for s in said if s["key"] == "metro.learn.tut.end"]
    assert mine == [final["seats"][0]["score"]]


@pytest.mark.parametrize("kind", KINDS)
def test_every_sentence_exists_in_every_language(
    client: FlaskClient, catalogues: dict[str, dict[str, Any]], kind: str
) -> None:
    for step in tutorial(client, kind)["steps"]:
        for said in step["say"]:
            for lang in LANGUAGES:
                entry = catalogues[lang].get(said["key"])
                assert entry is not None, (lang, said["key"])
                texts = entry.values() if isinstance(entry, dict) else [entry]
                for text in texts:
                    missing = set(PLACEHOLDER.findall(text)) - set(said["params"])
                    assert not missing, (lang, said["key"], missing)


def test_a_game_s_learn_part_keys_start_with_its_kind() -> None:
    """The rules pages' words are the game's own part (i18n/<lang>/learn.json), which the
    catalogue merges like its main file."""
    for game in games.all_games():
        assert game.web_dir is not None
        for lang in LANGUAGES:
            for path in sorted((Path(game.web_dir) / "i18n" / lang).glob("*.json")):
                keys = json.loads(path.read_text(encoding="utf-8"))
                bad = [k for k in keys if not k.startswith(f"{game.kind}.")]
                assert not bad, (path, bad)


def test_an_unknown_game_is_a_404_json_error(client: FlaskClient) -> None:
    for kind in ("nosuchgame", "METRO", "a" * 80):
        reply = client.get(f"/api/learn/{kind}")
        assert reply.status_code == 404, kind
        assert reply.get_json()["error"]["code"] == "game_not_found"
    assert client.get("/api/learn/..%2fmetro").status_code == 404

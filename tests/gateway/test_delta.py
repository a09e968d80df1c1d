"""Delta answers (docs/api-deltas.md): `?since=<version>` on the view and on a move answers the
JSON Patch from the view the client holds, or the full view when the gateway cannot vouch for
that version; `?delta=1` on the event stream adds the public view's patch to each event. Every
patched view is checked against the full view, move by move, in games of every kind."""

from __future__ import annotations

import json
import random
from typing import Any

import orjson
import pytest

import games
from services.gateway.delta import apply
from tests.fixtures.gateway import GatewayApi
from tests.gateway.test_events import stream


def exact(doc: Any) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)


def call(api: GatewayApi, method: str, path: str, token: str | None, body: Any = None) -> Any:
    """(status, "delta"/"full"/None from the Metro-View header, JSON body)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    reply = api.client.open(path, method=method, json=body, headers=headers)
    return reply.status_code, reply.headers.get("Metro-View"), reply.get_json()


def new_game(api: GatewayApi, kind: str) -> tuple[str, list[str]]:
    status, made = api.post(
        "/api/games",
        {"game": kind, "rules": {"players": 2}, "seats": [{"kind": "human"}, {"kind": "open"}]},
    )
    assert status == 201, made
    status, joined = api.post(f"/api/games/{made['game_id']}/join", {"name": "B"})
    assert status == 200, joined
    return made["game_id"], [made["token"], joined["token"]]


def updated(held: dict[str, Any] | None, how: str | None, body: dict[str, Any]) -> Any:
    """The client's copy after an answer: the patch applied, or the full view taken."""
    if how == "delta":
        assert held is not None and body["since"] == held["version"], (body, held)
        assert set(body) == {"game_id", "since", "version", "patch"}
        return apply(held, body["patch"])
    assert how == "full" and "patch" not in body
    return body


@pytest.mark.parametrize("kind", games.kinds())
def test_move_answers_and_views_as_deltas_rebuild_the_full_view(api: GatewayApi, kind: str) -> None:
    game, tokens = new_game(api, kind)
    rng = random.Random(7)
    held: dict[int | None, Any] = {}
    for seat, token in [(0, tokens[0]), (1, tokens[1]), (None, None)]:
        status, how, body = call(api, "GET", f"/api/games/{game}?since=0", token)
        assert status == 200 and how == "full", body  # nothing held yet: the view
        held[seat] = body
    deltas = 0
    for _ in range(24):
        _, truth = api.get(f"/api/games/{game}")
        if truth["status"] != "playing":
            break
        seat = rng.choice(truth["to_move"])
        token = tokens[seat]
        _, legal = api.get(f"/api/games/{game}/legal", token=token)
        move = {**rng.choice(legal["moves"]), "expected_version": truth["version"]}
        since = held[seat]["version"]
        status, how, body = call(api, "POST", f"/api/games/{game}/moves?since={since}", token, move)
        assert status == 200, body
        deltas += how == "delta"
        held[seat] = updated(held[seat], how, body)
        _, full = api.get(f"/api/games/{game}", token=token)
        assert exact(held[seat]) == exact(full)
        # The other seat and a spectator catch up by asking for what changed since theirs.
        for other, other_token in [(1 - seat, tokens[1 - seat]), (None, None)]:
            path = f"/api/games/{game}?since={held[other]['version']}"
            status, how, body = call(api, "GET", path, other_token)
            assert status == 200 and how == "delta", body
            held[other] = updated(held[other], how, body)
            _, full = api.get(f"/api/games/{game}", token=other_token)
            assert exact(held[other]) == exact(full)
            if "hand" in full:  # a seat's own tiles never reach another seat's copy
                assert held[other]["hand"] == full["hand"]
    assert deltas >= 10
    # A version the gateway cannot vouch for (one the client never had): the full view.
    stale = held[0]["version"] - 1
    status, how, body = call(api, "GET", f"/api/games/{game}?since={stale}", tokens[0])
    assert status == 200 and how == "full" and exact(body) == exact(held[0])
    # Without `since` nothing changes: the view, no header.
    status, how, body = call(api, "GET", f"/api/games/{game}", tokens[0])
    assert how is None and "patch" not in body


@pytest.mark.parametrize("since", ["-1", "x", "1.5", "9" * 30, ""])
def test_a_bad_since_is_a_400_naming_it(api: GatewayApi, since: str) -> None:
    game, tokens = api.new_game()
    for method, path, body in (
        ("GET", f"/api/games/{game}?since={since}", None),
        ("POST", f"/api/games/{game}/moves?since={since}", {"action": "draw"}),
    ):
        status, _, reply = call(api, method, path, tokens[0], body)
        assert status == 400, reply
        assert reply["error"]["code"] == "bad_request", reply
        assert "since" in reply["error"]["message"]


def test_events_with_delta_keep_a_spectators_view_current(
    api: GatewayApi, gateway_server: str
) -> None:
    game, tokens = api.new_game()
    _, public = api.get(f"/api/games/{game}")
    rng = random.Random(3)
    with stream(gateway_server, game, query="?delta=1") as (status, _, events):
        assert status == 200
        _, opening = events.next_event()  # `event: view`: the whole public view (issue 21)
        assert exact(opening["view"]) == exact(public) and opening["version"] == public["version"]
        seen = 0
        while seen < 2:  # the creation and the join: already in the view the stream began at
            _, event = events.next_event()
            seen += 1
            assert event["delta"]["patch"] == [] or event["delta"]["since"] != public["version"]
        for _ in range(8):
            _, truth = api.get(f"/api/games/{game}")
            seat = truth["turn"]
            _, legal = api.get(f"/api/games/{game}/legal", token=tokens[seat])
            move = rng.choice([m for m in legal["moves"] if m["action"] == "place"])
            status, _ = api.post(
                f"/api/games/{game}/moves",
                {**move, "expected_version": truth["version"]},
                token=tokens[seat],
            )
            assert status == 200
            _, event = events.next_event()
            delta = event["delta"]
            assert delta["since"] == public["version"] and delta["version"] >= event["version"]
            public = apply(public, delta["patch"])
            _, full = api.get(f"/api/games/{game}")
            assert exact(public) == exact(full)
            assert public["hand"] == [] and "hand" not in json.dumps(delta["patch"])
    with stream(gateway_server, game, query="?delta=yes") as (status, _, _events):
        assert status == 400

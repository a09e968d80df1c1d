"""Seat streams (issue 21, docs/api-deltas.md): with `?delta=1` a stream opens with the whole view
of its audience, and each event carries that audience's patch (and a seat's legal moves), so a
page keeps its view current without one GET. A seat's private fields reach only the streams that
proved that seat's token; a spectator's stream carries the public view only."""

from __future__ import annotations

import random
from contextlib import ExitStack
from typing import Any

import orjson

from services.gateway.delta import apply
from tests.fixtures.gateway import GatewayApi
from tests.live.sse import Stream, open_stream


def exact(doc: Any) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)


def play_one(api: GatewayApi, game: str, tokens: list[str], rng: random.Random) -> dict[str, Any]:
    _, view = api.get(f"/api/games/{game}", token=tokens[0])
    seat = view["turn"]
    _, legal = api.get(f"/api/games/{game}/legal", token=tokens[seat])
    move = rng.choice([m for m in legal["moves"] if m["action"] == "place"])
    status, after = api.post(
        f"/api/games/{game}/moves", {**move, "expected_version": view["version"]},
        token=tokens[seat],
    )  # fmt: skip
    assert status == 200, after
    return dict(after)


def test_two_seats_and_a_spectator_each_get_their_own_view(
    api: GatewayApi, gateway_server: str
) -> None:
    game, tokens = api.new_game()
    rng = random.Random(21)
    with ExitStack() as stack:
        audiences: list[tuple[str | None, Stream]] = []
        for token in (tokens[0], tokens[1], None):
            opened = open_stream(gateway_server, game, token=token, query="?delta=1")
            audiences.append((token, stack.enter_context(opened)))
        copies: list[dict[str, Any]] = []
        for token, stream in audiences:
            assert stream.status == 200, stream.body()
            opening = stream.next()
            assert opening.kind == "view"
            _, truth = api.get(f"/api/games/{game}", token=token)
            assert exact(opening.data["view"]) == exact(truth)
            if token is None:
                assert "legal" not in opening.data
            else:
                _, legal = api.get(f"/api/games/{game}/legal", token=token)
                assert opening.data["legal"] == legal
            copies.append(opening.data["view"])
        for stream in (s for _, s in audiences):  # the creation and the join
            for _ in range(2):
                stream.next_event()
        for _ in range(6):
            after = play_one(api, game, tokens, rng)
            for i, (token, stream) in enumerate(audiences):
                event = stream.next_event().data
                assert event["version"] == after["version"]
                delta = event["delta"]
                assert delta["since"] == copies[i]["version"], (delta, copies[i]["version"])
                copies[i] = apply(copies[i], delta["patch"])
                _, truth = api.get(f"/api/games/{game}", token=token)
                assert exact(copies[i]) == exact(truth)
                if token is None:
                    assert "legal" not in event
                    assert copies[i]["hand"] == []
                else:
                    _, legal = api.get(f"/api/games/{game}/legal", token=token)
                    assert event["legal"] == legal
                    assert event["legal"]["version"] == delta["version"]
        # Seat 0's stream never carried seat 1's hand, nor the other way round.
        assert copies[0]["hand"] != copies[1]["hand"] or copies[0]["hand"] == []
        assert copies[0]["seat"] == 0 and copies[1]["seat"] == 1


def test_a_wrong_token_is_403_before_the_stream_opens(api: GatewayApi, gateway_server: str) -> None:
    game, _ = api.new_game()
    _, other_tokens = api.new_game()
    for token in ("not-a-token-of-this-game-000000", other_tokens[0]):
        with open_stream(gateway_server, game, token=token, query="?delta=1") as stream:
            assert stream.status == 403
            assert stream.body()["error"]["code"] == "permission_denied"
    with open_stream(gateway_server, game, token="two words") as stream:
        assert stream.status == 403

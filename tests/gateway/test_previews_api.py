"""The page draws what a move would do from its legal move's `preview`, and a replay from GET
/positions, both worked out by the rules core (games/metro/preview.py, positions.py; issue 31.2):
through the real gateway and engine, each must agree with what the engine then does, move by
move, in real games, and a listed move with its preview may be sent back as it is."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.fixtures.gateway import GatewayApi


def _play_metro(api: GatewayApi, players: int, seed: int, **rules: Any) -> tuple[str, list[Any]]:
    """A game of random placements, each sent as /legal listed it (preview included): checks
    each chosen placement's preview against the views before and after it. The game id and
    every view (as seat 0 sees it), first to last."""
    rng = random.Random(seed)
    game, tokens = api.new_game(players=players, **rules)
    _, current = api.get(f"/api/games/{game}", token=tokens[0])
    views = [current]
    completed = 0
    while current["status"] == "playing":
        token = tokens[current["turn"]]
        _, legal = api.get(f"/api/games/{game}/legal", token=token)
        assert legal["version"] == current["version"]
        draws = [m for m in legal["moves"] if m["action"] == "draw"]
        assert all("preview" not in m for m in draws)  # the drawn tile is hidden until drawn
        move = rng.choice([m for m in legal["moves"] if m["action"] == "place"])
        status, _ = api.post(
            f"/api/games/{game}/moves",
            {**move, "expected_version": current["version"]},
            token=token,
        )
        assert status == 200
        _, after = api.get(f"/api/games/{game}", token=tokens[0])
        was_open = {r["station"] for r in current["routes"] if r["end"] == "open"}
        done = {r["station"]: r for r in after["routes"] if r["end"] != "open"}
        expect = [
            {
                "station": s,
                "owner": done[s]["owner"],
                "end": done[s]["end"],
                "points": done[s]["points"],
            }
            for s in sorted(was_open & set(done))
        ]
        assert move["preview"]["completed"] == expect, move
        gains = [
            b["score"] - a["score"] for a, b in zip(current["seats"], after["seats"], strict=True)
        ]
        assert move["preview"]["gains"] == gains, move
        completed += len(expect)
        current = after
        views.append(current)
    assert completed > 3
    return game, views


@pytest.mark.parametrize(("players", "seed", "rules"), [
    (2, 1, {}),
    (3, 2, {"rotation": True}),
    (5, 3, {"hand_size": 2}),
])  # fmt: skip
def test_metro_previews_and_replay_positions_are_the_engine_s(
    api: GatewayApi, players: int, seed: int, rules: dict[str, Any]
) -> None:
    game, views = _play_metro(api, players, seed, **rules)
    status, shown = api.get(f"/api/games/{game}/positions")
    assert status == 200
    assert len(shown["positions"]) == len(views) == len(shown["scores"])
    for i, (position, view) in enumerate(zip(shown["positions"], views, strict=True)):
        assert position["routes"] == view["routes"], i
        assert shown["scores"][i] == [s["score"] for s in view["seats"]], i


def test_positions_of_a_game_in_play_are_refused_like_its_record(api: GatewayApi) -> None:
    """A record (and so a replay) holds the deck order: not before the game is over."""
    game, _tokens = api.new_game(players=2)
    record_status, _ = api.get(f"/api/games/{game}/record")
    status, body = api.get(f"/api/games/{game}/positions")
    assert status == record_status and status >= 400
    assert set(body["error"]) >= {"code", "message"}


def test_metrox_previews_say_what_the_choice_does(api: GatewayApi) -> None:
    """Metro X: each choice's preview names the stations it fills and the seat's score after,
    as the seat's sheet shows them once the turn resolves (a line two seats complete in one
    turn is a first for both, so a preview made as if the seat chose alone is exact)."""
    rng = random.Random(4)
    seats = [{"kind": "human", "name": "Ada"}, {"kind": "open"}]
    status, made = api.post(
        "/api/games", {"game": "metrox", "rules": {"players": 2}, "seats": seats}
    )
    assert status == 201, made
    game = made["game_id"]
    status, joined = api.post(f"/api/games/{game}/join", {"name": "Bo"})
    assert status == 200, joined
    tokens = [made["token"], joined["token"]]
    _, view = api.get(f"/api/games/{game}", token=tokens[0])
    for _ in range(8):
        chosen = {}
        for seat in (0, 1):
            _, legal = api.get(f"/api/games/{game}/legal", token=tokens[seat])
            move = rng.choice(legal["moves"])
            chosen[seat] = move
            status, _ = api.post(f"/api/games/{game}/moves", move, token=tokens[seat])
            assert status == 200
        _, after = api.get(f"/api/games/{game}", token=tokens[0])
        for seat, move in chosen.items():
            before = set(view["sheets"][seat]["filled"])
            assert set(move["preview"]["fills"]) == set(after["sheets"][seat]["filled"]) - before
            assert move["preview"]["score"] == after["seats"][seat]["score"], move
        view = after

"""Complete games of every variant and 2-6 players through the gRPC API; the final scores are
those of the rules core's replay of the engine's record."""

from __future__ import annotations

import random

import pytest

from games.metro import GAME, MetroState
from tests.engine.helpers import play_out, record_of
from tests.fixtures.engine import EngineClient, doc

VARIANTS = [
    {"players": 2},
    {"players": 3},
    {"players": 4},
    {"players": 5},
    {"players": 6},
    {"players": 2, "rotation": True},
    {"players": 3, "hand_size": 2},
    {"players": 4, "hand_size": 3, "rotation": True},
    {"players": 2, "online": True},
    {"players": 4, "online": True, "hand_size": 2},
    {"players": 6, "online": True, "hand_size": 3},
]


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: "-".join(f"{k}{v}" for k, v in r.items()))
def test_complete_game_matches_replay(engine_client: EngineClient, rules: dict) -> None:
    game_id, tokens = engine_client.create_full(rules)
    final = play_out(engine_client, game_id, tokens, random.Random(str(rules)))

    record = record_of(engine_client, game_id)
    replayed = GAME.replay(record)
    assert isinstance(replayed, MetroState)
    data = doc(final)
    scores = [seat["score"] for seat in data["seats"]]
    assert replayed.is_over
    assert scores == replayed.scores == record["scores"]
    assert data["board"] == replayed.board_placements()
    assert data["winners"] == [i for i, s in enumerate(scores) if s == max(scores)]
    assert final.status == "over" and list(final.to_move) == []
    assert data["status"] == "over" and data["turn"] is None and data["to_move"] == []
    assert record["rules"] == GAME.normalise_rules(rules)
    assert [s["kind"] for s in record["seats"]] == ["human"] * rules["players"]
    assert record["seats"][1]["name"] == "P1"
    # Every seat's view of the finished game shows the same public result.
    for seat, token in enumerate(tokens):
        view = engine_client.view(game_id, token)
        assert view.seat == seat and doc(view)["seat"] == seat
        assert [s["score"] for s in doc(view)["seats"]] == scores

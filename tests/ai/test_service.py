"""The Ai service through its real process: Suggest answers only the engine's legal moves in
every variant, errors carry the right codes, and two games that look the same from the seat
get the same suggestions for the same seed."""

from __future__ import annotations

import json
import random
from typing import Any

import grpc
import pytest
from metro.v1 import ai_pb2, engine_pb2

from games.metro.tiles import rotations
from services.common.grpc_util import error_details
from tests.fixtures.ai import AiClient
from tests.fixtures.engine import EngineClient, doc

VARIANTS = [
    {"players": 2},
    {"players": 2, "rotation": True},
    {"players": 2, "hand_size": 2},
    {"players": 3, "hand_size": 3},
    {"players": 2, "online": True},
    {"players": 4, "online": True, "rotation": True, "hand_size": 2},
]


def key(move_json: str) -> tuple[str, str]:
    """(action, placement) of a Metro move's JSON, comparable across messages (a listed move's
    `preview` set aside)."""
    move = json.loads(move_json)
    assert set(move) <= {"action", "placement", "preview"}, move
    return (move["action"], move.get("placement", ""))


def suggested(s: ai_pb2.Suggestion) -> tuple[str, str]:
    return key(s.move_json)


def legal_keys(c: EngineClient, game: str, token: str) -> set[tuple[str, str]]:
    return {key(m) for m in c.legal(game, token).moves}


def play_random(c: EngineClient, game: str, token: str, rng: random.Random) -> None:
    moves = [json.loads(m) for m in c.legal(game, token).moves]
    draws = [m for m in moves if m["action"] == "draw"]
    pick = draws[0] if draws and rng.random() < 0.3 else rng.choice(moves)
    c.move(game, token, pick)


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: "-".join(f"{k}{v}" for k, v in r.items()))
def test_suggestions_are_legal_moves_in_every_variant(
    engine_client: EngineClient, ai_client: AiClient, rules: dict[str, Any]
) -> None:
    game, tokens = engine_client.create_full(rules)
    rng = random.Random(str(rules))
    drawn_positions = 0
    for step in range(10):
        (seat,) = engine_client.view(game).to_move
        token = tokens[seat]
        legal = legal_keys(engine_client, game, token)
        if step == 1 and ("draw", "") in legal:  # the seat must then place the tile it drew
            engine_client.move(game, token, "draw")
            legal = legal_keys(engine_client, game, token)
        drew = doc(engine_client.view(game, token))["drawn"] is not None
        for level in ("medium", "mcts-40"):
            reply = ai_client.suggest(game, token, level, seed=step, max_suggestions=500)
            got = [suggested(s) for s in reply.suggestions]
            assert got, (level, step)
            assert set(got) <= legal, (level, step, set(got) - legal)
            assert len(got) == len(set(got)) == len(legal)  # every legal move, ranked once
            assert reply.seat == seat and reply.level == level
        if drew:
            drawn = doc(engine_client.view(game, token))["drawn"]
            tiles = rotations(drawn) if rules.get("rotation") else (drawn,)
            assert all(a == "place" and p[:4] in tiles for a, p in got)
            drawn_positions += 1
        play_random(engine_client, game, token, rng)
    assert drawn_positions


def test_suggest_defaults_and_search_statistics(
    engine_client: EngineClient, ai_client: AiClient
) -> None:
    game, tokens = engine_client.create_full({"players": 2})
    reply = ai_client.suggest(game, tokens[0])  # the default level and count
    assert reply.level == "medium" and len(reply.suggestions) == 5
    reply = ai_client.suggest(game, tokens[0], "mcts-300", seed=1, max_suggestions=3)
    assert reply.iterations == 300 and len(reply.suggestions) == 3
    visits = [s.visits for s in reply.suggestions]
    assert visits == sorted(visits, reverse=True) and sum(visits) <= 300 and visits[0] > 0
    reply = ai_client.suggest(game, tokens[0], "hard", budget_ms=300)
    # The budget stops the search; a loaded machine may finish the iteration under way late, so
    # the bound only catches a search that ignores its budget (never a speed check).
    assert reply.iterations > 0 and reply.elapsed_ms <= 300 * 10


def _error(call: Any) -> tuple[grpc.StatusCode, dict[str, str]]:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return caught.value.code(), error_details(caught.value)


def test_errors_carry_their_codes(engine_client: EngineClient, ai_client: AiClient) -> None:
    game, tokens = engine_client.create_full({"players": 2})
    ai_token = engine_client.ai_token
    code, details = _error(lambda: ai_client.suggest(game, tokens[0], "grandmaster"))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and details["field"] == "level"
    for budget in (-1, 5, 10**6):
        code, details = _error(lambda b=budget: ai_client.suggest(game, tokens[0], budget_ms=b))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and details["field"] == "budget_ms"
    code, details = _error(lambda: ai_client.suggest(game, tokens[1]))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert details["reason"] == "not_your_turn"
    code, _ = _error(lambda: ai_client.suggest(game, None))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    # The engine's answers pass through with their codes.
    code, _ = _error(lambda: ai_client.suggest(game, "not-a-token"))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    code, details = _error(lambda: ai_client.suggest("nosuchgame", tokens[0]))
    assert code == grpc.StatusCode.NOT_FOUND and details["reason"] == "game_not_found"
    code, details = _error(lambda: ai_client.suggest(game, ai_token))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and details["field"] == "seat"
    code, _ = _error(lambda: ai_client.suggest(game, ai_token, seat=0))  # a human seat
    assert code == grpc.StatusCode.PERMISSION_DENIED


def _public_part(view: engine_pb2.GameView) -> dict[str, Any]:
    """The view as the seat sees it, less what differs between any two games (ids)."""
    data = doc(view)
    for name in ("game_id", "last_event_id"):
        data.pop(name, None)
    typed = {
        "game": view.game, "version": view.version, "status": view.status, "seat": view.seat,
        "to_move": list(view.to_move),
    }  # fmt: skip
    return {"typed": typed, **data}


def test_same_looking_games_get_the_same_suggestions(
    engine_client: EngineClient, ai_client: AiClient
) -> None:
    """Seat 0 at the start of two games dealt the same tile: the same view, different decks and
    opponents' hands. An AI that peeked would answer differently; this one may not."""
    first_of: dict[tuple[str, ...], tuple[str, str]] = {}
    pair = None
    for _ in range(80):
        game, tokens = engine_client.create_full({"players": 2})
        hand = tuple(doc(engine_client.view(game, tokens[0]))["hand"])
        if hand in first_of:
            pair = (first_of[hand], (game, tokens[0]))
            break
        first_of[hand] = (game, tokens[0])
    assert pair is not None, "no two games dealt seat 0 the same tile"
    (g1, t1), (g2, t2) = pair
    assert _public_part(engine_client.view(g1, t1)) == _public_part(engine_client.view(g2, t2))
    answers = []
    for game, token in pair:
        reply = ai_client.suggest(game, token, "mcts-400", seed=11, max_suggestions=100)
        answers.append(
            [(suggested(s), round(s.value, 9), s.visits) for s in reply.suggestions]
            + [("iterations", reply.iterations)]
        )
    assert answers[0] == answers[1]
    # The same seed makes it reproducible; another seed samples other worlds.
    again = ai_client.suggest(g1, t1, "mcts-400", seed=12, max_suggestions=100)
    other = [(suggested(s), round(s.value, 9), s.visits) for s in again.suggestions]
    assert other != answers[0][:-1]

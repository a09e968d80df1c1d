"""Playing games through the engine's API, as a client would."""

from __future__ import annotations

import json
import random
from typing import Any

import grpc
from metro.v1 import engine_pb2

from tests.fixtures.engine import EngineClient


def code(error: grpc.RpcError) -> grpc.StatusCode:
    return error.code()  # type: ignore[no-any-return]


def listed_of(legal: engine_pb2.ListLegalMovesResponse) -> list[dict[str, Any]]:
    """The legal moves as listed: each with its `preview` where the game gives one."""
    return [json.loads(m) for m in legal.moves]


def moves_of(legal: engine_pb2.ListLegalMovesResponse) -> list[dict[str, Any]]:
    """The legal moves themselves, as a game records them (the listing's previews set aside)."""
    return [{k: v for k, v in m.items() if k != "preview"} for m in listed_of(legal)]


def choose(moves: list[dict[str, Any]], rng: random.Random, draw_rate: float) -> tuple[str, str]:
    """A random legal Metro move; a draw (when offered) with probability draw_rate."""
    draws = [m for m in moves if m["action"] == "draw"]
    places = [m for m in moves if m["action"] == "place"]
    pick = draws[0] if draws and (not places or rng.random() < draw_rate) else rng.choice(places)
    return pick["action"], pick.get("placement", "")


def play_out(
    client: EngineClient,
    game_id: str,
    tokens: list[str],
    rng: random.Random,
    *,
    draw_rate: float = 0.25,
    on_answer: Any = None,
) -> engine_pb2.GameView:
    """Play random legal moves for every seat until the game is over; the last answer."""
    view = client.view(game_id)
    while view.status != "over":
        (seat,) = view.to_move
        legal = client.legal(game_id, tokens[seat])
        assert legal.seat == seat and legal.version == view.version
        assert legal.moves, f"seat {seat} has no legal move at version {view.version}"
        action, placement = choose(moves_of(legal), rng, draw_rate)
        answer = client.move(
            game_id, tokens[seat], action, placement, expected_version=legal.version
        )
        assert answer.version == view.version + 1
        assert answer.seat == seat
        if on_answer is not None:
            on_answer(seat, legal, answer)
        view = answer
    return view


def record_of(client: EngineClient, game_id: str) -> dict[str, Any]:
    reply = client.record(game_id)
    assert reply.format == "metro-record/1"
    return json.loads(reply.record_json)  # type: ignore[no-any-return]

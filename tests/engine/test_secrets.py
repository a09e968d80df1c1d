"""Hidden information: during whole games, everything each seat and a spectator receives (views,
legal moves, move answers, events, errors) is checked against the state rebuilt from the record
afterwards. A seat sees its own hand and drawn tile and nothing else hidden; nobody sees the
deck order; every other tile code in a message must be a public placement.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from metro.v1 import engine_pb2

from games.metro import CODES, INDEX, MetroRules, MetroState
from games.metro.tiles import ROTATIONS, TILE_SET
from tests.engine.helpers import choose, listed_of, record_of
from tests.fixtures.engine import EngineClient, doc

TILE = re.compile(r"[abcd]{4}")
SECRET_KEYS = {"deck", "deck0", "hands", "seed", "history", "redeck"}
# The engine's own fields of a view; every other field is the rules core's projection.
ENGINE_FIELDS = {
    "game_id", "version", "status", "seat", "last_event_id", "seats", "to_move", "winners",
    "turn_version",
}  # fmt: skip

Received = tuple[int, int | None, str, Message]  # version, viewer seat, what, message


def _strings(data: Any, path: str = "") -> list[tuple[str, str]]:
    """Every string value in a JSON structure with its path (keys are not values)."""
    if isinstance(data, str):
        return [(path, data)]
    if isinstance(data, dict):
        assert not SECRET_KEYS & set(data), f"secret key at {path}: {SECRET_KEYS & set(data)}"
        return [s for k, v in data.items() for s in _strings(v, f"{path}.{k}")]
    if isinstance(data, list):
        return [s for i, v in enumerate(data) for s in _strings(v, f"{path}[{i}]")]
    return []


def _rebuild(record: dict[str, Any], events: list[engine_pb2.GameEvent]) -> dict[int, MetroState]:
    """The state after every version, replaying the events' moves on the record's deck."""
    rules = MetroRules.parse(record["rules"])
    state = MetroState.deal(rules, [INDEX[c] for c in record["deck"]])
    redecks = iter([m.get("redeck") for m in record["moves"]])
    states = {}
    for event in events:
        data = doc(event)
        if data["action"] == "draw":
            state.play(data["seat"], {"action": "draw"})
        elif data["action"] == "place":
            before = state.reshuffles
            state.play(data["seat"], {"action": "place", "placement": data["placement"]})
            redeck = next(redecks)
            if state.reshuffles != before:  # the engine's shuffle, as recorded
                state.deck = [INDEX[c] for c in redeck]
        states[event.version] = state.copy()
    return states


def _check_view(view: engine_pb2.GameView, state: MetroState, viewer: int | None) -> None:
    data = doc(view)
    assert view.game == data["game"] == "metro"
    assert (view.seat if view.HasField("seat") else None) == data["seat"] == viewer
    assert list(view.to_move) == data["to_move"]
    if view.status == "playing":
        assert data["to_move"] == list(state.to_move()) == [data["turn"]]
    own = list(state.hands[viewer]) if viewer is not None else []
    drawn = state.drawn if viewer is not None and state.seat == viewer else -1
    assert sorted(data["hand"]) == sorted(CODES[t] for t in own)
    assert (data["drawn"] is not None) == (drawn >= 0)
    if drawn >= 0:
        assert data["drawn"] == CODES[drawn]
    assert data["board"] == state.board_placements()
    # The set tile behind each placement is public: everyone sees the tile that was laid.
    assert data["board_tiles"] == [CODES[e[2]] for e in state.history_entries()]
    placed = Counter(CODES[entry[2]] for entry in state.history_entries())
    unseen = Counter(TILE_SET) - placed - Counter(CODES[t] for t in own)
    if drawn >= 0:
        unseen -= Counter([CODES[drawn]])
    assert data["unseen"] == dict(unseen)
    assert [s["hand_count"] for s in data["seats"]] == [len(h) for h in state.hands]
    assert data["deck_count"] == state.deck_count
    # Everything the game adds is the rules core's projection of the rebuilt state: routes
    # included (the engine reuses encodings of unchanged routes between moves; this is where
    # a stale one would show), nothing more.
    expected = state.view(viewer)
    assert data["routes"] == expected["routes"]
    assert set(data) - ENGINE_FIELDS == set(expected) - ENGINE_FIELDS
    assert data["winners"] == expected.get("winners", [])
    for key in set(expected) - ENGINE_FIELDS:
        assert data[key] == expected[key], key
    for got, want in zip(data["seats"], expected["seats"], strict=True):
        assert set(got) == set(want) | {"name", "kind", "level"}
        assert {k: got[k] for k in want} == want
    allowed = set(data["board"]) | set(data["board_tiles"]) | set(data["hand"])
    allowed.add(data["drawn"])
    for path, text in _strings(data):
        if path == ".game_id":  # a random id, which may happen to spell a tile code
            continue
        for found in TILE.findall(text):
            assert any(a.startswith(found) for a in allowed if a), f"{found!r} at {path}"


def _check_event(event: engine_pb2.GameEvent, state: MetroState) -> None:
    data = doc(event)
    assert (data["event_id"], data["game_id"]) == (event.event_id, event.game_id)
    assert (data["version"], data["status"]) == (event.version, event.status)
    assert data["to_move"] == (list(state.to_move()) if event.status == "playing" else [])
    assert data["scores"] == state.scores
    for path, text in _strings(data):
        if path == ".game_id":
            continue
        if TILE.search(text):
            assert path == ".placement" and data["action"] == "place", f"{text!r} at {path}"


def _check_legal(reply: engine_pb2.ListLegalMovesResponse, state: MetroState, seat: int) -> None:
    held = [state.drawn] if state.drawn >= 0 else list(state.hands[seat])
    shapes = {CODES[r] for t in held for r in ROTATIONS[t]}
    moves = listed_of(reply)
    for move in moves:
        _strings(move)  # no secret key
        assert set(move) <= {"action", "placement", "preview"}
        if move["action"] == "place":
            assert move["placement"][:4] in shapes
            # its preview: the routes it completes and the points, public board facts only
            assert set(move["preview"]) == {"completed", "gains"}
        else:
            assert "preview" not in move  # what a draw brings is hidden
    expected = [m.to_json() for m in state.legal_moves(seat)]
    key = lambda m: json.dumps(m, sort_keys=True)  # noqa: E731
    plain = [{k: v for k, v in m.items() if k != "preview"} for m in moves]
    assert sorted(map(key, plain)) == sorted(map(key, expected))


@pytest.mark.parametrize(
    "rules",
    [{"players": 3, "hand_size": 2}, {"players": 3, "hand_size": 3, "online": True,
                                       "rotation": True}],
    ids=["classic-hand2", "online-hand3-rotation"],
)  # fmt: skip
def test_nothing_hidden_leaves_the_engine(engine_client: EngineClient, rules: dict) -> None:
    c = engine_client
    game_id, tokens = c.create_full(rules)
    players = rules["players"]
    viewers: list[int | None] = [*range(players), None]
    received: list[Received] = []
    rng = random.Random(7)
    watch = c.events(game_id, timeout=120)  # a spectator watching live from the start

    view = c.view(game_id)
    while view.status != "over":
        version, (seat,) = view.version, view.to_move
        for viewer in viewers:
            token = tokens[viewer] if viewer is not None else None
            received.append((version, viewer, "view", c.view(game_id, token)))
        legal = c.legal(game_id, tokens[seat])
        received.append((version, seat, "legal", legal))
        # Another seat trying to move hears only whose turn it is.
        other = (seat + 1) % players
        try:
            c.move(game_id, tokens[other], "place", "aacb00")
            raise AssertionError("a move out of turn was accepted")
        except grpc.RpcError as err:
            assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert not TILE.search(err.details() or "")
        action, placement = choose(listed_of(legal), rng, 0.4)
        view = c.move(game_id, tokens[seat], action, placement)
        received.append((view.version, seat, "answer", view))

    live = list(watch)
    record = record_of(c, game_id)
    states = _rebuild(record, live)
    assert any(doc(e)["action"] == "draw" for e in live), "the game should exercise draws"
    assert states[view.version].scores == [s["score"] for s in doc(view)["seats"]]

    for version, viewer, what, message in received:
        state = states[version]
        if what == "legal":
            assert isinstance(message, engine_pb2.ListLegalMovesResponse) and viewer is not None
            assert message.seat == viewer and message.version == version
            _check_legal(message, state, viewer)
        else:
            assert isinstance(message, engine_pb2.GameView)
            assert message.version == version
            _check_view(message, state, viewer)
    assert list(c.events(game_id)) == live  # a later watcher gets the same public events
    for event in live:
        _check_event(event, states[event.version])

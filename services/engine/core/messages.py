"""What leaves the engine about a game: views and events as the HTTP API's JSON (API.md).

Every view is built here from the rules core's per-seat projection (`state.view(seat)`) and the
engine's own facts (names, kinds, levels, version, status): never from the stored state. The
game's own fields pass through untouched; the engine adds only the fields common to every game.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import orjson
from google.protobuf.timestamp_pb2 import Timestamp
from metro.v1 import engine_pb2

from services.engine.core.meta import GameMeta


def _dumps(data: Any) -> str:
    """Compact UTF-8 JSON. orjson: a view is made on every move, and the standard library's
    encoder cost ten times as much (bench/engine.py); its text is the same compact JSON."""
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()


def seats(meta: GameMeta, view_seats: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Each seat as the game shows it, with the engine's name, kind and level on top."""
    out = []
    for index, info in enumerate(meta.seats):
        seat: dict[str, Any] = dict(view_seats[index]) if view_seats else {}
        seat.update(seat=index, name=info.name, kind=info.kind, level=info.level)
        if info.away:
            seat["away"] = True  # the AI plays it until its player comes back
        if info.lost:
            seat["lost"] = True  # retired by a time-out: score frozen, turns skipped
        if info.bot:
            seat["bot"] = True  # a bot account plays it, or is invited to (issue 24)
        if meta.clock is not None:
            seat["clock"] = {
                "bank_ms": meta.clock.banks_ms[index],
                "deadline_ms": dict(meta.clock.deadlines_ms).get(index),
            }
        out.append(seat)
    return out


def game_view(
    *,
    game_id: str,
    meta: GameMeta,
    version: int,
    status: str,
    last_event_id: str,
    view: Mapping[str, Any],
    seat: int | None,
    turn_version: int | None = None,
) -> engine_pb2.GameView:
    """The contract's view from `state.view(seat)`; `status` is the engine's ("waiting"...).
    `turn_version`: the version the current turn began at (only hidden choices since)."""
    to_move = list(view.get("to_move", ())) if status == "playing" else []
    doc = dict(view)
    doc.update(
        game_id=game_id,
        game=meta.kind,
        version=version,
        status=status,
        seats=seats(meta, view.get("seats")),
        to_move=to_move,
        last_event_id=last_event_id,
        turn_version=version if turn_version is None else turn_version,
        seat=seat,
        winners=list(view.get("winners") or ()),
    )
    if meta.offer is not None and status == "playing":
        doc["offer"] = meta.offer  # public: who offered to stop, and who accepted
    if meta.ended is not None:
        doc["ended"] = meta.ended["kind"]  # stopped by agreement: "abort" or "end"
        doc["winners"] = list(meta.ended["winners"])
    if meta.clock_rules is not None:
        doc["clock"] = meta.clock_rules.to_json()  # each seat's time is in its seat object
    if meta.scored_daily:
        doc["hints"] = False  # a scored daily attempt: the AI service refuses its hints
    if status != "playing" and "turn" in doc:
        doc["turn"] = None  # nobody's turn while waiting (or over)
    out = engine_pb2.GameView(
        game_id=game_id,
        game=meta.kind,
        version=version,
        status=status,
        to_move=to_move,
        last_event_id=last_event_id,
        json=_dumps(doc),
    )
    if seat is not None:
        out.seat = seat
    return out


def game_event(game_id: str, event_id: str, event: Mapping[str, Any]) -> engine_pb2.GameEvent:
    """The contract's event from a stored public event."""
    doc = {"event_id": event_id, "game_id": game_id, **event}
    return engine_pb2.GameEvent(
        event_id=event_id,
        game_id=game_id,
        version=int(event.get("version", 0)),
        status=str(event.get("status", "")),
        json=_dumps(doc),
    )


def event_json(event_id: str, raw: str) -> tuple[int, str, str]:
    """(version, status, event JSON) of a stored event, without re-encoding it."""
    data = orjson.loads(raw)
    return int(data.get("version", 0)), str(data.get("status", "")), raw


def summary(game_id: str, meta: GameMeta, status: str, created_ms: int) -> engine_pb2.GameSummary:
    """A game as the lobby, a player's games and follows list it."""
    created = Timestamp()
    created.FromMilliseconds(created_ms)
    return engine_pb2.GameSummary(
        game_id=game_id,
        game=meta.kind,
        rules_json=json.dumps(meta.rules, separators=(",", ":")),
        seats=[
            engine_pb2.Seat(seat=i, name=x.name, kind=x.kind, level=x.level, bot=x.bot)
            for i, x in enumerate(meta.seats)
        ],
        status=status,
        created_at=created,
    )

"""Rules-core dicts to and from the contract's messages (engine.proto).

Every view and event that leaves the engine is built here, and only from what the rules core's
per-seat projection (`state.view(seat)`) or its public event holds. The generic fields are set
directly; the game-specific rest goes into the `detail` member named after the game kind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message
from metro.v1 import engine_pb2

from services.common.grpc_util import invalid_argument
from services.engine import metro_messages
from services.engine.meta import GameMeta

_VIEW_GENERIC = frozenset(
    {"game", "status", "rules", "seats", "turn", "winners", "game_id", "version", "last_event_id"}
)
_SEAT_GENERIC = frozenset({"seat", "score", "out", "name", "kind", "level"})
_EVENT_GENERIC = frozenset({"seat", "action", "name", "turn", "scores", "status", "version"})


# What fills each game's messages, by part ("view", "seat", "event", "rules", "move").
Filler = Callable[..., None]  # (data, message[, memo])
_FILLERS: dict[str, dict[str, Filler]] = {
    "metro": {
        "view": metro_messages.view,
        "seat": metro_messages.seat,
        "event": metro_messages.event,
        "rules": metro_messages.rules,
        "move": metro_messages.move,
    },
}


def _detail(
    message: Message,
    kind: str,
    part: str,
    data: Mapping[str, Any],
    memo: dict[Any, Any] | None = None,
) -> None:
    """Fill the `detail` member called `kind`: with the game's own filler when it has one,
    else by a generic parse (keys the contract lacks are left out)."""
    member = getattr(message, kind)
    filler = _FILLERS.get(kind, {}).get(part)
    if filler is not None and part == "view":
        filler(data, member, {} if memo is None else memo)
    elif filler is not None:
        filler(data, member)
    else:
        json_format.ParseDict(
            {k: v for k, v in data.items() if v is not None}, member, ignore_unknown_fields=True
        )
    member.SetInParent()  # set even when empty: the member names the game kind


def detail_dict(message: Message, kind: str) -> dict[str, Any]:
    """The game-specific member of a request as the rules core's JSON dict.

    Raises INVALID_ARGUMENT when the member is unset or belongs to another game kind.
    """
    which = message.WhichOneof("detail")
    if which is None:
        raise invalid_argument("action", "the move is missing: give an action")
    if which != kind:
        raise invalid_argument(
            "game", f"this is a {kind} game; a {which} move does not apply to it"
        )
    return json_format.MessageToDict(getattr(message, which), preserving_proto_field_name=True)


def rules_message(kind: str, rules: Mapping[str, Any]) -> engine_pb2.GameRules:
    out = engine_pb2.GameRules()
    _detail(out, kind, "rules", rules)
    return out


def seats(meta: GameMeta, view_seats: list[dict[str, Any]] | None) -> list[engine_pb2.Seat]:
    """Seats with names and kinds from the engine, scores and the rest from the rules view."""
    out = []
    for index, info in enumerate(meta.seats):
        seat = engine_pb2.Seat(seat=index, name=info.name, kind=info.kind, level=info.level)
        if view_seats is not None:
            data = view_seats[index]
            seat.score = int(data.get("score", 0))
            seat.out = bool(data.get("out", False))
            rest = {k: v for k, v in data.items() if k not in _SEAT_GENERIC}
            _detail(seat, meta.kind, "seat", rest)
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
    memo: dict[Any, Any] | None = None,
) -> engine_pb2.GameView:
    """The contract's view from `state.view(seat)`; `status` is the engine's ("waiting"...).
    `memo`: a dict kept per game between calls, which lets a game's filler reuse work."""
    out = engine_pb2.GameView(
        game_id=game_id,
        game=meta.kind,
        version=version,
        status=status,
        rules=rules_message(meta.kind, view.get("rules", meta.rules)),
        seats=seats(meta, view.get("seats")),
        last_event_id=last_event_id,
        winners=view.get("winners") or [],
    )
    turn = view.get("turn")
    if status == "playing" and turn is not None:
        out.turn = turn
    if seat is not None:
        out.seat = seat
    rest = {k: v for k, v in view.items() if k not in _VIEW_GENERIC}
    _detail(out, meta.kind, "view", rest, memo)
    return out


def game_event(
    game_id: str, kind: str, event_id: str, event: Mapping[str, Any]
) -> engine_pb2.GameEvent:
    """The contract's event from a stored public event."""
    out = engine_pb2.GameEvent(
        event_id=event_id,
        game_id=game_id,
        version=int(event.get("version", 0)),
        action=str(event.get("action", "")),
        name=str(event.get("name", "")),
        scores=event.get("scores") or [],
        status=str(event.get("status", "")),
    )
    if event.get("seat") is not None:
        out.seat = int(event["seat"])
    if event.get("turn") is not None:
        out.turn = int(event["turn"])
    _detail(out, kind, "event", {k: v for k, v in event.items() if k not in _EVENT_GENERIC})
    return out


def move_message(kind: str, move: Mapping[str, Any]) -> engine_pb2.Move:
    out = engine_pb2.Move()
    _detail(out, kind, "move", move)
    return out

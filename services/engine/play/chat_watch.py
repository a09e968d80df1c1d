"""A table's chat lines on its event stream (issue 35 item 2; engine.proto WatchGameRequest.chat).

The gateway's live hub has one WatchGame per watched game; with `chat` that same subscription
also reads the chat rooms' streams (services/engine/play/chat.py), in the same blocking XREAD as the
game's events, so a new line reaches every open page of its room with no poll and no second
connection. Which rooms: the spectators' always, the players' only when `chat_token` proves a
seat of the game or its party host (the same rule as GetChat), so the stream's reader, not the
request, decides what may be read. Lines go as GameEvents with `chat_room` set; they are no game
events (the hub never resumes from their ids).
"""

from __future__ import annotations

import json
from typing import Any

from metro.v1 import engine_pb2

from services.common.auth import MAX_TOKEN_LENGTH
from services.common.grpc_util import ServiceError
from services.engine.core import validation
from services.engine.core.access import Caller, ClaimedSeats, seat_of
from services.engine.core.party_keys import is_host_token
from services.engine.core.store_keys import events_key
from services.engine.play.chat import ROOMS, room_key


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def players_room_proven(
    redis: Any, claims: ClaimedSeats, meta: Any, game_id: str, token: str
) -> bool:
    """Whether `token` may read the players' room: a seat's token of this game, or the host's."""
    if not token or len(token) > MAX_TOKEN_LENGTH:
        return False
    try:
        caller = Caller(token=token, is_ai_service=False)
        await seat_of(caller, claims, meta, game_id, None)  # refuses a token of no seat
        return True
    except ServiceError:
        return await is_host_token(redis, game_id, token)


async def chat_cursors(
    redis: Any, claims: ClaimedSeats, meta: Any, game_id: str,
    request: engine_pb2.WatchGameRequest,
) -> dict[str, str]:  # fmt: skip
    """The rooms this subscription reads, each with the line id it reads after: the request's
    `chat_after` for that room, else the room's newest line now (only new lines are sent)."""
    if not request.chat:
        return {}
    rooms = [ROOMS[1]]
    if await players_room_proven(redis, claims, meta, game_id, request.chat_token):
        rooms.insert(0, ROOMS[0])
    cursors: dict[str, str] = {}
    for room in rooms:
        after = validation.event_id(request.chat_after.get(room, ""), "chat_after")
        if not after:
            newest = await redis.xrevrange(room_key(game_id, room), count=1)
            after = _text(newest[0][0]) if newest else "0-0"
        cursors[room] = after
    return cursors


def chat_message(
    game_id: str, room: str, line_id: str, fields: dict[Any, Any]
) -> engine_pb2.GameEvent:
    """One stored chat line as WatchGame sends it (the line as GET .../chat answers it)."""
    raw = fields.get(b"line") or fields.get("line") or "{}"
    line = json.loads(raw)
    line["id"] = line_id
    return engine_pb2.GameEvent(
        event_id=line_id, game_id=game_id, chat_room=room, json=json.dumps(line)
    )


async def wait_with_chat(
    client: Any, game_id: str, last: str, cursors: dict[str, str], block_ms: int
) -> tuple[list[tuple[str, dict[str, Any]]], list[engine_pb2.GameEvent]]:
    """The game's events after `last` and the rooms' lines after their cursors (which move on),
    waiting up to block_ms for the first of either, in one XREAD (one hash slot: the game's)."""
    streams = {events_key(game_id): last or "0-0"}
    rooms_by_key = {room_key(game_id, room): room for room in cursors}
    streams.update({key: cursors[room] for key, room in rooms_by_key.items()})
    reply: Any = await client.xread(streams, block=block_ms, count=200)
    events: list[tuple[str, dict[str, Any]]] = []
    lines: list[engine_pb2.GameEvent] = []
    for key, entries in reply or ():
        room = rooms_by_key.get(_text(key))
        for entry_id, fields in entries:
            if room is None:
                events.append((_text(entry_id), json.loads(fields["event"])))
            else:
                cursors[room] = _text(entry_id)
                lines.append(chat_message(game_id, room, cursors[room], fields))
    return events, lines

"""Chat at every table (issue 35 item 2; engine.proto SendChat / GetChat / ReportChat).

A table has two rooms that never read each other (lichess keeps them apart): the players' room,
for a token that proves a seat, and the spectators' room, for everyone else. The room always
comes from the token, never from the request, so a spectator cannot ask for the players' lines.

Storage, beside the game's own keys and in its hash slot (the game id is the hash tag):
  game:{id}:chat:players, game:{id}:chat:spectators
      streams of lines (MAXLEN ~ ROOM_MAXLEN), each {"line": JSON}; the entry id is the line id
  game:{id}:chat:rate:<room>:<who>
      a counter of one writer's lines in the current RATE_WINDOW_S (a per-player rate; the
      gateway counts per address too)
  chat-reports
      a list (newest first, bounded) of reported lines, copied with the game id and room, so a
      moderator still has a line after the game and its chat expired
The rooms expire with the game: each write and read gives them the game's own time to live.
The players' room is archived with the game (services/archive/chat.py); a players' line said
after the end adds a `what=chat` archive outbox entry, so the archive gets it too.

A party table's phones send only preset ids (PRESETS; the page words them): free text on a
projector is a liability. The host token reads the players' room (the host screen's feed).
Lines are data: the page sets them with textContent, never as HTML.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any

import grpc
from metro.v1 import engine_pb2

from services.common.auth import token_hash
from services.common.grpc_util import ServiceError, invalid_argument
from services.engine.core import validation
from services.engine.core.access import Caller, ClaimedSeats, seat_if_any
from services.engine.core.archive_outbox import archive_outbox_key
from services.engine.core.edge import failed, not_found
from services.engine.core.party_keys import party_key
from services.engine.core.shards import shard_of
from services.engine.core.store_keys import game_key
from services.engine.core.tables import Tables

MAX_CHARS = 280
ROOM_MAXLEN = 200  # lines a room keeps
RECENT = 50  # lines GetChat answers
RATE_LINES = 5  # lines one writer may send per window
RATE_WINDOW_S = 10
REPORTS_KEY = "chat-reports"
REPORTS_MAX = 10_000
PRESETS = ("well_played", "good_luck", "one_more", "thanks", "oops", "wow")
ROOMS = ("players", "spectators")


def room_key(game_id: str, room: str) -> str:
    return f"game:{{{game_id}}}:chat:{room}"


def rate_key(game_id: str, room: str, who: str) -> str:
    return f"game:{{{game_id}}}:chat:rate:{room}:{who}"


def clean_text(text: str) -> str:
    """The line as kept: surrounding space trimmed, control characters (but none else) dropped."""
    kept = "".join(ch for ch in text if ch.isprintable() or ch == " ")
    return kept.strip()


class Chat:
    """The two rooms of every table."""

    def __init__(self, redis: Any, tables: Tables, claims: ClaimedSeats) -> None:
        self.redis = redis
        self.tables = tables
        self.claims = claims

    async def _room(
        self, request: engine_pb2.ChatRequest, caller: Caller
    ) -> tuple[str, int | None, Any]:
        """The game id, the caller's seat (None: a spectator) and the table."""
        game_id = validation.game_id(request.game_id)
        table = await self.tables.load(game_id)
        seat: int | None = None
        if caller.token is not None and not caller.is_ai_service:
            try:
                seat = await seat_if_any(caller, self.claims, table.meta, game_id, None)
            except ServiceError:
                seat = None  # a token for no seat of this game: a spectator
        return game_id, seat, table

    async def send(self, request: engine_pb2.ChatRequest, caller: Caller) -> engine_pb2.ChatLines:
        game_id, seat, table = await self._room(request, caller)
        room = ROOMS[0] if seat is not None else ROOMS[1]
        party = bool(await self.redis.exists(party_key(game_id)))
        line: dict[str, Any] = {}
        if request.preset:
            if request.text:
                raise invalid_argument("text", "send either text or a preset, not both")
            if request.preset not in PRESETS:
                raise invalid_argument("preset", f"preset is one of {', '.join(PRESETS)}")
            line["preset"] = request.preset
        else:
            if party:
                raise failed("preset_only", "a party table's chat takes only preset messages")
            text = clean_text(request.text)
            if not text:
                raise invalid_argument("text", "a chat line needs some text")
            if len(text) > MAX_CHARS:
                raise failed(
                    "chat_too_long",
                    f"a chat line is at most {MAX_CHARS} characters; got {len(text)}",
                )
            line["text"] = text
        who = str(seat) if seat is not None else (request.writer or caller.token or "anyone")
        who = hashlib.sha256(f"{game_id}\n{who}".encode()).hexdigest()[:12]  # salted: no address
        await self._count(game_id, room, who)
        if seat is not None:
            line["seat"] = seat
            line["name"] = table.meta.seats[seat].name
        else:
            line["by"] = who  # a spectator's mark: the reader mutes by it, learning nothing more
        line["at_ms"] = int(time.time() * 1000)
        ttl = int(await self.redis.ttl(game_key(game_id)))
        if ttl == -2:
            raise not_found(game_id)
        key = room_key(game_id, room)
        pipe = self.redis.pipeline(transaction=False)
        pipe.xadd(key, {"line": json.dumps(line)}, maxlen=ROOM_MAXLEN, approximate=True)
        if ttl > 0:
            pipe.expire(key, ttl)
        await pipe.execute()
        if room == ROOMS[0] and table.status == "over":
            await self._archive_later(game_id)
        return await self._lines(game_id, room)

    async def _archive_later(self, game_id: str) -> None:
        """A players' line said after the end: the archive has the game's chat as it was at the
        end, so an outbox entry has the archiver add the room's newer lines (archiver.py
        `what=chat`, merged by line id: a repeated entry changes nothing)."""
        shard = shard_of(game_id)
        if self.tables.settings.archive and shard is not None:
            await self.redis.xadd(archive_outbox_key(shard), {"game_id": game_id, "what": "chat"})

    async def _count(self, game_id: str, room: str, who: str) -> None:
        """Refuse a writer's line past RATE_LINES in RATE_WINDOW_S (RESOURCE_EXHAUSTED: 429)."""
        key = rate_key(game_id, room, who)
        pipe = self.redis.pipeline(transaction=False)
        pipe.incr(key)
        pipe.expire(key, RATE_WINDOW_S, nx=True)
        count, _ = await pipe.execute()
        if int(count) > RATE_LINES:
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"at most {RATE_LINES} chat lines in {RATE_WINDOW_S} seconds; wait a moment",
                reason="rate_limited",
            )

    async def get(self, request: engine_pb2.ChatRequest, caller: Caller) -> engine_pb2.ChatLines:
        game_id, seat, _ = await self._room(request, caller)
        players = seat is not None or await self._is_host(game_id, caller)
        room = ROOMS[0] if players else ROOMS[1]
        # The game's own commits renew its keys' time to live but not the rooms': a read keeps
        # a room living exactly as long as its game (the page reads while anyone is at the table).
        ttl = int(await self.redis.ttl(game_key(game_id)))
        if ttl > 0:
            await self.redis.expire(room_key(game_id, room), ttl)
        return await self._lines(game_id, room)

    async def _is_host(self, game_id: str, caller: Caller) -> bool:
        """Whether the caller holds a party table's host token: the host screen shows the
        phones' preset messages (it reads the players' room; it writes nothing)."""
        raw = await self.redis.get(party_key(game_id)) if caller.token else None
        if not raw or caller.token is None:
            return False
        host_hash = json.loads(raw).get("host_hash", "")
        return bool(host_hash) and hmac.compare_digest(token_hash(game_id, caller.token), host_hash)

    async def _lines(self, game_id: str, room: str) -> engine_pb2.ChatLines:
        entries = await self.redis.xrevrange(room_key(game_id, room), count=RECENT)
        lines = []
        for entry_id, fields in reversed(entries):
            raw = fields.get(b"line") or fields.get("line")
            line = json.loads(raw)
            line["id"] = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
            lines.append(line)
        return engine_pb2.ChatLines(room=room, json=json.dumps(lines))

    async def report(self, request: engine_pb2.ChatRequest, caller: Caller) -> engine_pb2.ChatLines:
        """Keep a copy of a line of the caller's own room for moderators."""
        game_id, seat, _ = await self._room(request, caller)
        room = ROOMS[0] if seat is not None else ROOMS[1]
        line_id = request.line_id
        if not line_id or len(line_id) > 40 or not all(c.isdigit() or c == "-" for c in line_id):
            raise invalid_argument(
                "line_id", "line_id is a chat line's id, such as '1700000000000-0'"
            )
        found = await self.redis.xrange(room_key(game_id, room), min=line_id, max=line_id)
        if not found:
            raise ServiceError(
                grpc.StatusCode.NOT_FOUND,
                f"no chat line {line_id} in your room",
                reason="line_not_found",
            )
        raw = found[0][1].get(b"line") or found[0][1].get("line")
        copy = {
            "game_id": game_id, "room": room, "line_id": line_id, "line": json.loads(raw),
            "reported_by_seat": seat, "reported_at_ms": int(time.time() * 1000),
        }  # fmt: skip
        await self.redis.lpush(REPORTS_KEY, json.dumps(copy))
        await self.redis.ltrim(REPORTS_KEY, 0, REPORTS_MAX - 1)
        return await self._lines(game_id, room)

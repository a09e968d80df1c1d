"""A finished game's chat as the archive keeps it (issue 35; migrations/0003_game_chats.sql).

Only the players' room is archived, with the game and then each line said after the end (the
engine's `what=chat` outbox entries): the spectators' room expires with the game's Redis keys.
A game's lines are one zlib'd JSON array, each line `[id, seat, at, kind, body]`: its Redis
stream id (the page already knows it: a line is never shown twice across the move from Redis to
the archive), the writer's seat, its `at_ms` as the difference from the id's own milliseconds
(a few: both are the time it was said), and `"t"` text or `"p"` a party preset with its body,
or `"d"` with no body once its player deleted their account (the text is gone, the line stays
as "deleted").
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

ROOM = "players"
MAX_LINES = 200  # as a room keeps (services/engine/play/chat.py ROOM_MAXLEN): the newest


def _id_key(line_id: str) -> tuple[int, int]:
    ms, _, seq = line_id.partition("-")
    return (int(ms or 0), int(seq or 0))


def from_room(line_id: str, line: Mapping[str, Any]) -> list[Any] | None:
    """A players' room line (as Redis keeps it) in the archive's form; None for a line of no
    seat (the players' room holds only seats' lines)."""
    seat = line.get("seat")
    if not isinstance(seat, int):
        return None
    at = int(line.get("at_ms") or 0) - _id_key(line_id)[0]  # a few ms: the id has the time
    if "preset" in line:
        return [line_id, seat, at, "p", str(line["preset"])]
    return [line_id, seat, at, "t", str(line.get("text", ""))]


def merge(old: Iterable[list[Any]], new: Iterable[list[Any]]) -> list[list[Any]]:
    """Both sets of lines by id, oldest first, the newest MAX_LINES (a line archived already
    stays as archived: a blanked one is never restored from Redis)."""
    by_id: dict[str, list[Any]] = {}
    for line in new:
        by_id[line[0]] = line
    for line in old:
        by_id[line[0]] = line
    return sorted(by_id.values(), key=lambda x: _id_key(x[0]))[-MAX_LINES:]


def blank(lines: Iterable[list[Any]], seats: set[int]) -> list[list[Any]]:
    """The lines with those seats' text removed (their player deleted the account)."""
    return [[x[0], x[1], x[2], "d", ""] if x[1] in seats else x for x in lines]


def pack_lines(lines: list[list[Any]]) -> bytes:
    """zlib'd JSON; the JSON itself when that is shorter (a line or two: it starts with "[",
    never a zlib stream's first byte)."""
    raw = orjson.dumps(lines)
    packed = zlib.compress(raw, 9)
    return raw if len(raw) <= len(packed) else packed


def unpack_lines(data: bytes | memoryview) -> list[list[Any]]:
    raw = bytes(data)
    return list(orjson.loads(raw if raw[:1] == b"[" else zlib.decompress(raw)))


def shown(line: list[Any], names: Mapping[int, str]) -> dict[str, Any]:
    """A line as GET /api/games/{id}/chat answers it (the live room's shape); a deleted one has
    no text, `deleted: true`."""
    line_id, seat, at, kind, body = line
    at_ms = _id_key(line_id)[0] + at
    out: dict[str, Any] = {"id": line_id, "seat": seat, "name": names.get(seat, ""), "at_ms": at_ms}
    if kind == "p":
        out["preset"] = body
    elif kind == "t":
        out["text"] = body
    else:
        out["deleted"] = True
    return out

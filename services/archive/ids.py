"""Game and player ids as the archive stores them: bytes, not text (migrations/0001: the same
rule as its SQL functions metro_id / metro_id_text).

A game id is 16 base64url characters (services/engine/core/shards.py) and a player id 12
(services/engine/players/players.py): their 12 and 9 bytes. Any other text is kept as a zero
byte and
its UTF-8 (two zero bytes when that would be 9 or 12 bytes long), so the forms never collide.
"""

from __future__ import annotations

import base64
import re
import struct

_DECODED = re.compile(r"[A-Za-z0-9_-]{12}|[A-Za-z0-9_-]{16}")
_DECODED_SIZES = (9, 12)


def pack_id(text: str) -> bytes:
    """The bytes the archive keeps for a game or player id."""
    if _DECODED.fullmatch(text):
        return base64.urlsafe_b64decode(text)
    raw = text.encode()
    prefix = b"\0\0" if len(raw) + 1 in _DECODED_SIZES else b"\0"
    return prefix + raw


def unpack_id(data: bytes | memoryview) -> str:
    """The text id back from its stored bytes."""
    raw = bytes(data)
    if len(raw) in _DECODED_SIZES:
        return base64.urlsafe_b64encode(raw).decode()
    return raw.lstrip(b"\0").decode()


def pack_players(numbers: list[int]) -> bytes:
    """games.players (migrations/0002): the distinct player numbers of a game's seats (0: a seat
    no player holds), ascending, 4 bytes each in network order (SQL's int4send)."""
    distinct = sorted(set(numbers))
    return struct.pack(f">{len(distinct)}i", *distinct)


def unpack_players(data: bytes | memoryview) -> list[int]:
    """The player numbers of a packed games.players."""
    raw = bytes(data)
    return list(struct.unpack(f">{len(raw) // 4}i", raw))

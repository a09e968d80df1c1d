"""Where a party table's keys live in Redis, and the two questions other engine modules ask of
them: is this game a party table (the lobby neither lists it nor lets anyone join it without the
code), and is this token its host's (the host reads the public view with it). Kept apart from
party.py, which builds on the lobby, so that the lobby and the views can ask without a circle."""

from __future__ import annotations

import hmac
import json
from collections.abc import Sequence
from typing import Any

from services.common.auth import token_hash


def party_key(game_id: str) -> str:
    return f"party:{{{game_id}}}"


def code_key(code: str) -> str:
    return f"party-code:{code}"


async def party_tables(redis: Any, game_ids: Sequence[str]) -> set[str]:
    """The party tables among these games (one pipeline: per node on a cluster)."""
    if not game_ids:
        return set()
    pipe = redis.pipeline(transaction=False)
    for game_id in game_ids:
        pipe.exists(party_key(game_id))
    found = await pipe.execute()
    return {game_id for game_id, n in zip(game_ids, found, strict=True) if n}


async def is_party_table(redis: Any, game_id: str) -> bool:
    return bool(await redis.exists(party_key(game_id)))


async def is_host_token(redis: Any, game_id: str, token: str | None) -> bool:
    """Whether this token is the party table's host token (a host-only host holds no seat)."""
    if not token:
        return False
    text = await redis.get(party_key(game_id))
    if text is None:
        return False
    host_hash = str(json.loads(text).get("host_hash", ""))
    return bool(host_hash) and hmac.compare_digest(token_hash(game_id, token), host_hash)

"""The archive outbox (issue 29): what the archivers (services/archive) owe PostgreSQL.

One stream per shard, `archive-out:{tag}`, in the slot of that shard's games (shards.py), so
that the write that causes an entry adds it in the same atomic step:
  * COMMIT_LUA, in the commit that ends a game: `what=game` (the whole game, its seats, players
    and ratings; its keys are then held until the archiver has it: Tables.ttl);
  * finish_analysis below, when an analysis is done: `what=analysis` (it may come long after
    the game was archived, and the analysis lives only in Redis until then);
  * chat.py, when a player says a line after the game's end: `what=chat` (the archiver merges
    the players' room into the game's archived chat, issue 35).
Archivers read the streams in the consumer group ARCHIVE_GROUP, acknowledge an entry after the
PostgreSQL commit and then delete it: the streams hold only what is not archived yet, so they
are never trimmed (trimming would lose games).

Ratings are applied after the commit that ends a game (ratings.py, in another slot), so they
get no entry of their own: the archiver holds a rated game's entry until its rating is done
(RatingBook.is_done; the engine rates right after the end, the sweep rates any it missed),
so each game is written once, whole, in one transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.engine.core.shards import SHARD_COUNT, TAGS, shard_of

ARCHIVE_GROUP = "archivers"


def archive_outbox_key(shard: int) -> str:
    return f"archive-out:{{{TAGS[shard]}}}"


ARCHIVE_STREAMS = tuple(archive_outbox_key(shard) for shard in range(SHARD_COUNT))

# KEYS: the analysis hash, then (only with an archive) the game's archive outbox.
# ARGV: the game id, then the analysis hash's field/value pairs.
_FINISH_LUA = """
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
if KEYS[2] then
  redis.call('XADD', KEYS[2], '*', 'game_id', ARGV[1], 'what', 'analysis')
end
return 1
"""


async def finish_analysis(
    redis: Any, analysis_key: str, game_id: str, fields: Mapping[str, Any], *, archive: bool
) -> None:
    """Write an analysis's final fields and, when it is done and an archive is configured, its
    outbox entry, in one atomic step (no kill between the two can lose it)."""
    keys = [analysis_key]
    shard = shard_of(game_id)
    if archive and fields.get("status") == "done" and shard is not None:
        keys.append(archive_outbox_key(shard))
    args: list[Any] = [game_id]
    for name, value in fields.items():
        args += [name, value]
    await redis.eval(_FINISH_LUA, len(keys), *keys, *args)

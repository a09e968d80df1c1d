"""The Redis keys of the game store (store.py's docstring says what each holds): a game's own
keys carry its id as hash tag, a shard's keys its tag (shards.py), so a commit stays in one slot.
"""

from __future__ import annotations

from services.engine.core.shards import TAGS

FEED_OUTBOX_MAXLEN = 100_000  # entries are deleted once written; this only bounds a backlog


def game_key(game_id: str) -> str:
    return f"game:{{{game_id}}}"


def events_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:events"


def answers_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:answers"


def pending_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:pending"


def index_key(status: str, shard: int) -> str:
    return f"games:{{{TAGS[shard]}}}:{status}"


def bot_stream(shard: int) -> str:
    return f"bot-turns:{{{TAGS[shard]}}}"


def feed_outbox_key(shard: int) -> str:
    """The shard's feed outbox: what commits owe the players' own streams (feed_outbox.py)."""
    return f"feed-out:{{{TAGS[shard]}}}"


def clocks_key(shard: int) -> str:
    """The shard's clock index: game ids scored by their next deadline (ms)."""
    return f"clocks:{{{TAGS[shard]}}}"

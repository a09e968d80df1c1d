"""The consumer group over per-shard outbox streams, as its readers share it.

The feed outbox's reader (feed_outbox.py) and the archiver (services/archive/archiver.py) each
read a set of outbox streams in one consumer group: both make the group on every stream (an
existing one is fine) and both make it again when a reply says it is gone (a flushed store).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from redis.exceptions import ResponseError


async def create_groups(redis: Any, streams: Iterable[str], group: str) -> None:
    """Make `group` on every stream (and the stream itself), reading from its start; a group
    that exists already is kept as it is."""
    for stream in streams:
        try:
            await redis.xgroup_create(stream, group, id="0", mkstream=True)
        except ResponseError as err:
            if "BUSYGROUP" not in str(err):
                raise


def group_lost(reply: Any) -> bool:
    """True when a reply (or the error a command raised) says the group is gone, so that the
    reader makes it again; any other error is raised."""
    if isinstance(reply, ResponseError) and "NOGROUP" in str(reply):
        return True
    if isinstance(reply, Exception):
        raise reply
    return False

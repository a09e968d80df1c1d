"""Follows (issue 35 item 3; engine.proto SetFollow / GetFollows): a player follows other players
so the lobby can show who of them plays now, with a one-click *Watch*.

Storage: one sorted set per follower, `player:{id}:follows`, member the followed player's id,
score the time it was followed (newest first in the list). It lives in the follower's hash slot
and goes with the player when they are erased (players.erase).

"Playing now" reads the followed players' own game lists (players.games_key): only their few
newest games, only those created within PLAYING_WINDOW_MS, and never a private game (a daily
attempt): a follower must learn nothing a spectator could not see.
"""

from __future__ import annotations

import re
import time
from typing import Any

import grpc
from metro.v1 import engine_pb2

from services.common.grpc_util import ServiceError, invalid_argument
from services.engine.core.edge import failed
from services.engine.core.messages import summary
from services.engine.core.tables import Tables
from services.engine.players.players import Players, games_key, presented_key

MAX_FOLLOWS = 500
# A followed player's newest games looked at for "playing now", and how old one may be.
NEWEST_GAMES = 3
PLAYING_WINDOW_MS = 2 * 24 * 3600 * 1000
PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def follows_key(player_id: str) -> str:
    return f"player:{{{player_id}}}:follows"


class Follows:
    """SetFollow and GetFollows, for the device key's player."""

    def __init__(self, redis: Any, players: Players, tables: Tables) -> None:
        self.redis = redis
        self.players = players
        self.tables = tables

    async def set_call(
        self, request: engine_pb2.FollowRequest, context: grpc.aio.ServicerContext
    ) -> engine_pb2.Follows:
        me = await self.players.who(presented_key(context.invocation_metadata()))
        other = request.player_id
        if not PLAYER_ID.fullmatch(other):
            raise invalid_argument(
                "player_id", "player_id is a player's id, such as 'k3Jx9_aQ2bZc'"
            )
        if other == me.player_id:
            raise invalid_argument("player_id", "a player cannot follow themselves")
        key = follows_key(me.player_id)
        if not request.follow:
            await self.redis.zrem(key, other)
            return await self.list_of(me.player_id)
        if not await self.players.name_of(other):
            raise ServiceError(
                grpc.StatusCode.NOT_FOUND, f"no player {other}", reason="player_not_found"
            )
        if await self.redis.zscore(key, other) is None:
            if int(await self.redis.zcard(key)) >= MAX_FOLLOWS:
                raise failed(
                    "too_many_follows",
                    f"a player follows at most {MAX_FOLLOWS} players: unfollow someone first",
                )
            await self.redis.zadd(key, {other: int(time.time() * 1000)})
        return await self.list_of(me.player_id)

    async def get_call(self, context: grpc.aio.ServicerContext) -> engine_pb2.Follows:
        me = await self.players.who(presented_key(context.invocation_metadata()))
        return await self.list_of(me.player_id)

    async def list_of(self, player_id: str) -> engine_pb2.Follows:
        """Whom `player_id` follows, newest first, each with their public games in play now.
        A followed player who has been erased leaves the list."""
        followed = list(await self.redis.zrevrange(follows_key(player_id), 0, MAX_FOLLOWS - 1))
        out = engine_pb2.Follows()
        gone: list[str] = []
        since = int(time.time() * 1000) - PLAYING_WINDOW_MS
        for other in followed:
            name = await self.players.name_of(other)
            if not name:
                gone.append(other)
                continue
            entry = engine_pb2.FollowedPlayer(player_id=other, name=name)
            entry.playing.extend(await self._playing(other, since))
            out.players.append(entry)
        if gone:
            await self.redis.zrem(follows_key(player_id), *gone)
        return out

    async def _playing(self, player_id: str, since_ms: int) -> list[engine_pb2.GameSummary]:
        """The player's public games in play now among their newest few."""
        ids = await self.redis.zrevrangebyscore(
            games_key(player_id), "+inf", since_ms, start=0, num=NEWEST_GAMES
        )
        found = []
        for game_id in ids:
            try:
                table = await self.tables.load(game_id)
            except ServiceError as err:
                if err.code == grpc.StatusCode.NOT_FOUND:
                    continue
                raise
            if table.meta.private or table.status != "playing":
                continue
            found.append(summary(game_id, table.meta, table.status, table.created_at_ms))
        return found

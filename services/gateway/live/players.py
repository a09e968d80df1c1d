"""Players' own streams in the hub (issue 31 item 1, `GET /api/players/me/events`, docs/bots.md):
per gateway process one engine `WatchPlayer` per player with an open stream, as hub.py keeps one
`WatchGame` per watched game.

Why: a bot's or a player's stream held a pool thread and a pump thread of a threaded Flask route
while it was open; here it is a coroutine and a buffer, on the same slots, caps and wire format as
the game streams.

One stream per player is the contract: a newer stream of the same player ends the one before
(a bot that reconnects after a half-dead connection is not refused by its own ghost). The newer
stream takes over the player's feed, and with it the engine subscription, when the feed still
holds every event after the stream's resume point (its ring of recent events covers it: the usual
reconnect with Last-Event-ID); else the feed is started again from that point. A fresh stream
(no resume point) starts at the oldest event the player's feed in the engine keeps.

A feed outlives its last stream LINGER_S (a bot that reconnects comes back to it) and subscribes
again after each WATCH_MAX_S deadline or a lost engine; a subscription that stays lost or is
refused ends its stream with `event: failure`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from typing import Any

import grpc
from metro.v1 import engine_pb2

from services.gateway.live.hub import (
    LINGER_S,
    BufferLimits,
    Hub,
    Key,
    Watcher,
    failure_message,
)
from services.gateway.live.resubscribe import resubscribe_after
from services.gateway.live.wire import RECONNECT, format_event, id_key

log = logging.getLogger(__name__)

RECENT = 64  # recent events a player's feed keeps, so that a reconnect can take it over
# A fresh stream starts with the engine's stored feed (its last 1000 events, trimmed roughly):
# a player stream's buffer holds that much before its client counts as not reading.
HISTORY_EVENTS = 2048
HISTORY_BYTES = 1024 * 1024
REPLACED = b": another stream of this player opened; this one ends\n\n"


class PlayerFeed:
    """One player's shared subscription, its recent events and its stream (one at a time)."""

    def __init__(self, feeds: PlayerFeeds, player_id: str, after: str, metadata: Any) -> None:
        self.feeds, self.player_id = feeds, player_id
        self.metadata = metadata  # the newest stream's device key and address
        self.last_id = after or "0-0"
        self.ring: deque[tuple[Key, bytes]] = deque(maxlen=RECENT)
        self.ring_floor: Key = id_key(after)  # the ring holds every event seen after this
        self.watchers: set[Watcher] = set()
        self.task: asyncio.Task[None] | None = None
        self.linger: asyncio.TimerHandle | None = None
        self.finished = False

    def covers(self, after: str) -> bool:
        """Whether a stream resuming after `after` gets every later event from this feed."""
        return not self.finished and id_key(after) >= self.ring_floor

    async def run(self) -> None:
        """Read the player's events, subscribing again after a deadline or a lost engine."""
        failures = 0
        while True:
            self.feeds.subscriptions += 1
            call = self.feeds.hub.engine().WatchPlayer(
                engine_pb2.WatchPlayerRequest(after_event_id=self.last_id),
                timeout=self.feeds.hub.watch_max_s, metadata=self.metadata,
            )  # fmt: skip
            try:
                async for event in call:
                    failures = 0
                    self.publish(event)
                # The engine ends a player's stream only at its deadline: as one, resubscribe.
            except grpc.aio.AioRpcError as err:
                went_on = await resubscribe_after(err, failures)
                if went_on is None:
                    self.close_all("failure", failure_message(err))
                    return
                failures = went_on
            finally:
                call.cancel()

    def publish(self, event: engine_pb2.PlayerEvent) -> None:
        key = id_key(event.event_id)
        data = format_event(event.event_id, event.json)
        if len(self.ring) == self.ring.maxlen:
            self.ring_floor = self.ring[0][0]
        self.ring.append((key, data))
        self.last_id = event.event_id
        now = time.monotonic()
        for watcher in list(self.watchers):
            watcher.offer(key, data, now)

    def add(self, watcher: Watcher, metadata: Any) -> None:
        """The newest stream of the player: it ends the ones before and gets what it missed
        from the ring."""
        if self.linger is not None:
            self.linger.cancel()
            self.linger = None
        for older in list(self.watchers):
            older.pending.clear()  # not sent: the newer stream resumes from its own point
            older.size = 0
            older.end("closed", REPLACED)
            self.watchers.discard(older)
        self.metadata = metadata
        self.watchers.add(watcher)
        now = time.monotonic()
        for key, data in list(self.ring):
            watcher.offer(key, data, now)

    def remove(self, watcher: Watcher) -> None:
        self.watchers.discard(watcher)
        if not self.watchers and not self.finished and self.linger is None:
            self.linger = asyncio.get_running_loop().call_later(LINGER_S, self.stop)

    def stop(self) -> None:
        """No stream came back (or a newer feed took over): cancel the subscription."""
        self.linger = None
        if self.watchers and not self.finished:
            return
        self.finished = True
        if self.task is not None:
            self.task.cancel()
        if self.feeds.feeds.get(self.player_id) is self:
            del self.feeds.feeds[self.player_id]

    def close_all(self, why: str, final: bytes = b"") -> None:
        self.finished = True
        for watcher in list(self.watchers):
            watcher.end(why, final)
        if self.feeds.feeds.get(self.player_id) is self:
            del self.feeds.feeds[self.player_id]


class PlayerFeeds:
    """This process's player feeds, on the hub's channel to the engine."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.feeds: dict[str, PlayerFeed] = {}
        self.limits = BufferLimits(
            max(hub.limits.max_bytes, HISTORY_BYTES), max(hub.limits.max_events, HISTORY_EVENTS)
        )
        self.subscriptions = 0  # WatchPlayer calls the feeds made (tests and the bench read it)

    async def player(self, metadata: Any) -> engine_pb2.Player:
        """Who the device key is (403 for a key of nobody, as every player route answers)."""
        reply: engine_pb2.Player = await self.hub.engine().GetPlayer(
            engine_pb2.GetPlayerRequest(), metadata=metadata, timeout=self.hub.deadline_s
        )
        return reply

    def join(self, player_id: str, after: str, metadata: Any) -> tuple[PlayerFeed, Watcher]:
        """A new stream of the player, resuming after `after` ("" for the oldest kept)."""
        watcher = Watcher(player_id, None, False, after, self.limits)
        feed = self.feeds.get(player_id)
        if feed is None or not feed.covers(after):
            if feed is not None:
                feed.close_all("closed", REPLACED)
                feed.stop()
            feed = self.feeds[player_id] = PlayerFeed(self, player_id, after, metadata)
            feed.task = asyncio.get_running_loop().create_task(self._run(feed))
        feed.add(watcher, metadata)
        return feed, watcher

    async def _run(self, feed: PlayerFeed) -> None:
        try:
            await feed.run()
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug must not leave a stream waiting forever
            log.exception("player feed of %s failed", feed.player_id)
            feed.close_all("failure", failure_message(None))

    def stats(self) -> dict[str, Any]:
        return {
            "players": len(self.feeds),
            "watchers": sum(len(f.watchers) for f in self.feeds.values()),
            "subscriptions": self.subscriptions,
        }

    async def close(self) -> None:
        for feed in list(self.feeds.values()):
            if feed.task is not None:
                feed.task.cancel()
                with contextlib.suppress(BaseException):
                    await feed.task
            feed.close_all("closed", RECONNECT)

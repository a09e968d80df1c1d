"""Connections to a Sentinel-managed primary that find the primary again on every reconnect.

redis-py's Sentinel connections ask the Sentinels where the primary is only when the pool hands
out a closed connection. A connection that breaks in the middle of a command (the primary was
killed) is reconnected by the command's retry instead, straight to the address it had: the old
primary's. When that server comes back as a replica still loading its copy, reads on it answer
from an empty data set ("no game" for a game that exists), until the connection is dropped.
These classes reconnect through the Sentinels in that path too.
"""

from __future__ import annotations

from typing import Any

from redis.asyncio.sentinel import SentinelManagedConnection as AsyncManaged
from redis.asyncio.sentinel import SentinelManagedSSLConnection as AsyncManagedSSL
from redis.sentinel import SentinelManagedConnection, SentinelManagedSSLConnection


class AsyncPrimaryConnection(AsyncManaged):
    async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        if not self.is_connected:
            await self.connect()  # through the Sentinels, not to the last address
        await super().send_packed_command(command, check_health)


class AsyncPrimarySSLConnection(AsyncPrimaryConnection, AsyncManagedSSL):
    pass


class PrimaryConnection(SentinelManagedConnection):
    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        if self._sock is None:
            self.connect()  # through the Sentinels, not to the last address
        super().send_packed_command(command, check_health)


class PrimarySSLConnection(PrimaryConnection, SentinelManagedSSLConnection):
    pass

"""How a subscription to the engine that broke goes on: the game feeds' (hub.py) and the
player feeds' (players.py) alike, so both ride out an engine restart the same way."""

from __future__ import annotations

import asyncio

import grpc

RESUBSCRIBE_S = (0.2, 0.5, 1.0, 2.0, 4.0)  # waits before a lost subscription is made again


async def resubscribe_after(err: grpc.aio.AioRpcError, failures: int) -> int | None:
    """At once after the call's deadline, after a wait while the engine is unreachable (one
    failure more, up to RESUBSCRIBE_S), else not at all (None: its watchers get the failure).
    Answers the failures in a row so far."""
    if err.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
        return failures
    if err.code() == grpc.StatusCode.UNAVAILABLE and failures < len(RESUBSCRIBE_S):
        await asyncio.sleep(RESUBSCRIBE_S[failures])
        return failures + 1
    return None

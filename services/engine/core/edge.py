"""The engine's RPC error edge: every unary call runs under its deadline here, and every
failure leaves as a status with a sentence (and trailing metadata for programs).

Also the errors the engine's parts raise by name, so that each is worded in one place.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import TypeVar

import grpc
from redis.exceptions import OutOfMemoryError as StoreFull

from games.errors import GameError
from services.common.config import Settings
from services.common.grpc_util import OUTCOME_UNKNOWN_REASON, ServiceError, from_game_error
from services.engine.core.access import Caller
from services.engine.core.storage_gate import StorageGate, start_call, write_sent
from services.engine.core.store import STORAGE_ERRORS, NotReplicated, OutcomeUnknown

log = logging.getLogger("metro.engine")

T = TypeVar("T")
MAX_ERROR_SENTENCE = 240  # longer ones quote the client's input: see bounded


def failed(reason: str, message: str, rule: str = "") -> ServiceError:
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, message, reason=reason, rule=rule)


def not_found(game_id: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.NOT_FOUND,
        f"no game {game_id}: it never existed or has expired",
        reason="game_not_found",
    )


def aborted(game_id: str, current: int | None, expected: int) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.ABORTED,
        f"game {game_id} is at version {current}, not {expected}: "
        "someone moved first; reload the view and try again",
        reason="version_conflict",
    )


def bounded(err: ServiceError) -> ServiceError:
    """A rules-core error whose sentence quotes the client's input at length (a move field that
    is a long list or object) gets a short one: nothing a client sends is echoed at length, and
    an error's details must fit in the call's metadata."""
    if len(err.message) <= MAX_ERROR_SENTENCE:
        return err
    what = err.field or "move"
    return ServiceError(
        err.code,
        f"invalid {what}: not a value this game accepts there ({len(err.message)} characters "
        "would be needed to show it)",
        reason=err.reason,
        field=err.field,
        rule=err.rule,
        refusal=err.refusal,
        params=err.params,
    )


def storage_unavailable(context: grpc.aio.ServicerContext, message: str = "") -> Awaitable[None]:
    return context.abort(
        grpc.StatusCode.UNAVAILABLE,
        message or "the game store (Redis) is not answering; try again shortly",
        # A negative pushback tells the client's channel not to retry (gRFC A6): the next
        # try would get the same answer, and the client's Retry-After says when to come back.
        (("metro-error-reason", "storage_unavailable"), ("grpc-retry-pushback-ms", "-1")),
    )


def outcome_unknown(context: grpc.aio.ServicerContext) -> Awaitable[None]:
    return context.abort(
        grpc.StatusCode.UNKNOWN,
        "the change was sent to the game store but it could not be confirmed; send "
        "the same request again (same move_id or idempotency key) to learn its outcome",
        ((("metro-error-reason", OUTCOME_UNKNOWN_REASON),)),
    )


class Edge:
    """Runs unary calls (deadline, error mapping) and says who is calling."""

    def __init__(self, settings: Settings, gate: StorageGate | None = None) -> None:
        self.settings = settings
        # Redis found unreachable: calls are answered at once (storage_gate.py).
        self.gate = gate or StorageGate()

    def caller(self, context: grpc.aio.ServicerContext) -> Caller:
        return Caller.from_metadata(context.invocation_metadata(), self.settings.ai_service_token)

    async def unary(self, context: grpc.aio.ServicerContext, work: Callable[[], Awaitable[T]]) -> T:
        """Run one unary call under its deadline (and the server's RPC_DEADLINE_S), mapping
        every failure to a status with a sentence."""
        remaining = context.time_remaining()
        budget = self.settings.rpc_deadline_s
        if remaining is not None:
            budget = min(budget, remaining)
        if self.gate.down:
            await storage_unavailable(context)
        start_call()
        try:
            async with asyncio.timeout(max(budget, 0.001)) as limit:
                # Redis lost while this call waits on it: end the wait now, not at the deadline.
                loop = asyncio.get_running_loop()
                unsubscribe = self.gate.on_down(lambda: limit.reschedule(loop.time()))
                try:
                    return await work()
                finally:
                    unsubscribe()
        except ServiceError as err:
            await context.abort(err.code, err.message, err.trailing_metadata())
        except GameError as err:
            mapped = bounded(from_game_error(err))
            await context.abort(mapped.code, mapped.message, mapped.trailing_metadata())
        except TimeoutError:
            if self.gate.down and not write_sent():
                await storage_unavailable(context)
            if self.gate.down:  # a change was sent and may have landed
                log.warning("outcome of a change unknown: the game store stopped answering")
                await outcome_unknown(context)
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"the call took longer than its deadline ({budget:.1f}s)",
                (("metro-error-reason", "deadline_exceeded"),),
            )
        except (NotReplicated, OutcomeUnknown) as err:
            # A write was sent and may have landed: its own status, never retried blindly by
            # a channel (grpc_util's retry policies retry UNAVAILABLE only). The same request
            # again (its move_id or idempotency key) is answered from the first write if it
            # landed, and makes it if it did not.
            log.warning("outcome of a change unknown: %s", err)
            await outcome_unknown(context)
        except StoreFull as err:
            # maxmemory with noeviction: no write is taken, reads go on (docs/gateway.md, limits).
            log.error("the game store is full (Redis maxmemory): %s", err)
            await context.abort(
                grpc.StatusCode.UNAVAILABLE,
                "the game store is full; no new game or move can be saved now, try again later",
                (("metro-error-reason", "storage_full"),),
            )
        except STORAGE_ERRORS as err:
            log.warning("storage unavailable: %s", err)
            await storage_unavailable(context)
        except Exception:
            # Never the exception's text: it could quote anything, hidden tiles included.
            incident = uuid.uuid4().hex[:12]
            log.exception("internal error %s", incident)
            await context.abort(
                grpc.StatusCode.INTERNAL,
                f"internal error {incident}; it has been logged",
                (("metro-error-reason", "internal"),),
            )
        raise AssertionError("unreachable: context.abort raises")

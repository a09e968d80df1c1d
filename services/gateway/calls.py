"""The edge between HTTP and gRPC: read the caller's token and JSON body, make one call to a
backend with the process's channel and deadline, and turn failures into `ApiError`s.

A seat token is read only from the Authorization header (never from a URL, which ends up in
logs and shared links) and passed on unchanged as gRPC metadata.

A call that is safe to repeat (a read, or a move that carries a `move_id`, which the engine
answers once) is tried once more when the engine is UNAVAILABLE, e.g. while it restarts: the
second try waits for the channel to connect again (up to RETRY_WAIT_S) before the 503.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
import orjson
from flask import current_app, request
from google.protobuf.message import Message

from services.common.grpc_util import bearer
from services.gateway.backends import Backends, Clients
from services.gateway.delta import ViewMemory
from services.gateway.errors import ApiError, bad_request, from_rpc_error

M = TypeVar("M", bound=Message)
R = TypeVar("R")

log = logging.getLogger(__name__)

# The most the second try of an idempotent call waits for the backend to be back (and at most
# the call's own deadline). The channel's own retries (grpc_util) cover about 1.5 s before it.
RETRY_WAIT_S = 5.0

# Visible ASCII only: anything else cannot travel as gRPC metadata and is no token of ours.
_TOKEN = re.compile(r"[\x21-\x7e]{1,512}")
EXTENSION = "metro_gateway"


@dataclass(frozen=True)
class Gateway:
    """What the app shares between requests: the backends and the call settings."""

    backends: Backends
    deadline_s: float
    heartbeat_s: float
    watch_max_s: float
    # The last view sent of each game and seat, for delta answers (delta.py).
    views: ViewMemory = field(default_factory=ViewMemory)


def gateway() -> Gateway:
    state: Gateway = current_app.extensions[EXTENSION]
    return state


def clients() -> Clients:
    return gateway().backends.get()


def bearer_token() -> str | None:
    """The caller's seat token, None for a spectator; 403 for a malformed Authorization."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not _TOKEN.fullmatch(token):
        raise ApiError(
            403, "permission_denied", "The Authorization header must be 'Bearer <token>'."
        )
    return token


def json_body(*, optional: bool = False) -> dict[str, Any]:
    """The request's JSON object; `optional` allows no body at all (then {})."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        if optional:
            return {}
        raise bad_request("The request needs a JSON object as its body.")
    try:
        data = orjson.loads(raw)  # (orjson: a move's body is read on every move)
    except orjson.JSONDecodeError:
        raise bad_request("The body is not valid JSON.") from None
    if not isinstance(data, dict):
        raise bad_request("The body must be a JSON object.")
    return data


def only_fields(body: dict[str, Any], allowed: set[str], where: str = "the request") -> None:
    """A 400 naming the first field of `body` that is not in `allowed`."""
    unknown = sorted(set(body) - allowed)
    if unknown:
        known = ", ".join(sorted(allowed)) or "none"
        message = f"Unknown field {unknown[0]!r} in {where}; known: {known}."
        raise bad_request(message, unknown[0], reason="unknown_field")


def rpc(
    method: Callable[..., R],
    request_message: Message,
    *,
    backend: str = "engine",
    token: str | None = None,
    timeout: float | None = None,
    idempotent: bool = False,
    metadata: Sequence[tuple[str, str]] = (),
) -> R:
    """One unary call with the caller's token, any other `metadata`, and the configured
    deadline. `idempotent`: the call may be made twice (see the module's doc), so an
    UNAVAILABLE backend, or a replica that cancelled the call while shutting down, gets one
    more try (the channel's round robin takes it to another replica when there is one)."""
    sent = (*metadata, *(bearer(token) if token else ())) or None
    deadline = timeout if timeout is not None else gateway().deadline_s
    try:
        return method(request_message, metadata=sent, timeout=deadline)
    except grpc.RpcError as err:
        if not (idempotent and _code(err) in RETRIED_CODES):
            raise from_rpc_error(err, backend) from None
        first = err
    log.info("%s %s; trying this call once more", backend, _code(first))
    try:
        # wait_for_ready: the try waits for the channel to (re)connect instead of failing fast.
        return method(
            request_message,
            metadata=sent,
            timeout=min(deadline, RETRY_WAIT_S),
            wait_for_ready=True,
        )
    except grpc.RpcError as err:
        if _code(err) in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            raise from_rpc_error(first, backend) from None  # still down: the first answer
        raise from_rpc_error(err, backend) from None


RETRIED_CODES = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)


def _code(err: grpc.RpcError) -> grpc.StatusCode | None:
    return err.code() if isinstance(err, grpc.Call) else None

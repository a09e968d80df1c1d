"""The edge between HTTP and gRPC: read the caller's token and JSON body, make one call to a
backend with the process's channel and deadline, and turn failures into `ApiError`s.

A seat token is read only from the Authorization header (never from a URL, which ends up in
logs and shared links) and passed on unchanged as gRPC metadata.

A call that is safe to repeat (a read, a move that carries a `move_id`, a create or join, which
always carry an idempotency key: the client's `Idempotency-Key` header, else one made here) is
tried once more when the engine is UNAVAILABLE, e.g. while it restarts: the second try waits
for the channel to connect again (up to RETRY_WAIT_S) before the 503. Such a call is also tried
again when the engine could not confirm its change (UNKNOWN "outcome_unknown"): the same key
answers what the first try made. Still unknown after that: a 503 `outcome_unknown` that asks
the client to send the same request again.

A backend still unreachable after that wait (or by /healthz's check) opens its circuit
(backends.Circuit): for CIRCUIT_OPEN_S every call to it is answered 503 `unavailable` at once,
with Retry-After, instead of each request waiting seconds for the same answer. Then one call
tries it again; its answer closes the circuit or opens it anew.
"""

from __future__ import annotations

import logging
import math
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
import orjson
from flask import current_app, request
from google.protobuf.message import Message
from werkzeug.exceptions import RequestEntityTooLarge

from services.common.grpc_util import OUTCOME_UNKNOWN_REASON, bearer, error_details
from services.gateway.backends import Backends, Circuit, Clients
from services.gateway.delta import ViewMemory
from services.gateway.errors import ApiError, bad_request, from_rpc_error

M = TypeVar("M", bound=Message)
R = TypeVar("R")

log = logging.getLogger(__name__)

# The most the second try of an idempotent call waits for the backend to be back (and at most
# the call's own deadline). The channel's own retries (grpc_util) cover about 1.5 s before it.
# Setting RPC_RETRY_WAIT_S; short, as every request waits it once the backend is down (until the
# circuit opens), long enough for a replica restarting next to another.
RETRY_WAIT_S = 2.0

IDEMPOTENCY_HEADER = "Idempotency-Key"
_IDEMPOTENCY_KEY = re.compile(r"[A-Za-z0-9_-]{16,128}")

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
    # The second try's wait (RETRY_WAIT_S when None).
    retry_wait_s: float | None = None
    # The last view sent of each game and seat, for delta answers (delta.py).
    views: ViewMemory = field(default_factory=ViewMemory)


def gateway() -> Gateway:
    state: Gateway = current_app.extensions[EXTENSION]
    return state


def clients() -> Clients:
    return gateway().backends.get()


def bearer_token() -> str | None:
    """The caller's seat token, None for a spectator; 403 for a malformed Authorization."""
    return bearer_token_of(request.headers.get("Authorization"))


def bearer_token_of(header: str | None) -> str | None:
    """The seat token of an Authorization header, outside a Flask request too (the live
    streams' server): None without one; 403 when it is not 'Bearer <token>'."""
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not _TOKEN.fullmatch(token):
        raise ApiError(
            403, "permission_denied", "The Authorization header must be 'Bearer <token>'."
        )
    return token


def idempotency_key() -> str:
    """The request's `Idempotency-Key` header (400 when malformed), else a fresh key: the
    engine then recognises this gateway's own retries of the call."""
    given = request.headers.get(IDEMPOTENCY_HEADER)
    if given is None:
        return secrets.token_urlsafe(18)
    if not _IDEMPOTENCY_KEY.fullmatch(given):
        raise bad_request(
            f"The {IDEMPOTENCY_HEADER} header must be 16-128 characters of A-Z, a-z, 0-9, "
            "'_' and '-' (a random string: repeat it only to repeat the same request).",
            field=IDEMPOTENCY_HEADER,
        )
    return given


def json_body(*, optional: bool = False) -> dict[str, Any]:
    """The request's JSON object; `optional` allows no body at all (then {})."""
    raw = request.get_data(cache=True)
    limit = request.max_content_length
    if request.content_length is None and limit is not None and len(raw) >= limit:
        # A body without a Content-Length (`Transfer-Encoding: chunked`) is read up to the
        # limit and no further: one that fills it is refused as one that says it is larger.
        raise RequestEntityTooLarge()
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
    state = gateway()
    deadline = timeout if timeout is not None else state.deadline_s
    circuit = state.backends.get().circuits.get(backend)
    trial = False
    if circuit is not None:
        wait_s = circuit.retry_after()
        if wait_s is not None:
            raise circuit_refusal(backend, wait_s)
        trial = circuit.is_open  # half-open: this call finds out whether it is back
    try:
        reply = method(request_message, metadata=sent, timeout=deadline)
    except grpc.RpcError as err:
        if circuit is not None and not unreachable(err):
            circuit.up()
        elif circuit is not None and trial:
            circuit.down()  # still not there: no second try, the circuit is open again
            raise circuit_refusal(backend, circuit.open_s) from None
        if not (idempotent and (_code(err) in RETRIED_CODES or _unknown(err))) or _store_down(err):
            raise _api_error(err, backend) from None
        first = err
    else:
        if circuit is not None:
            circuit.up()
        return reply
    log.info("%s %s; trying this call once more", backend, _code(first))
    wait = state.retry_wait_s if state.retry_wait_s is not None else RETRY_WAIT_S
    try:
        # wait_for_ready: the try waits for the channel to (re)connect instead of failing fast.
        reply = method(
            request_message, metadata=sent, timeout=min(deadline, wait), wait_for_ready=True
        )
    except grpc.RpcError as err:
        if _code(err) in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            if circuit is not None and unreachable(first):
                circuit.down()  # not back within the wait: answer the next calls at once
            raise _api_error(first, backend, circuit) from None  # still down: the first answer
        raise _api_error(err, backend) from None
    if circuit is not None:
        circuit.up()
    return reply


def unreachable(err: grpc.RpcError) -> bool:
    """The call did not reach the backend: UNAVAILABLE from the transport (the engine's own
    UNAVAILABLE, e.g. storage_full, carries a reason and proves it is there)."""
    return _code(err) == grpc.StatusCode.UNAVAILABLE and not error_details(err).get("reason")


def circuit_refusal(backend: str, wait_s: float) -> ApiError:
    """The 503 of a call not made because `backend` was found unreachable a moment ago."""
    seconds = max(1, math.ceil(wait_s))
    answer = ApiError(
        503, "unavailable", f"The {backend} service is not answering; try again in {seconds} s."
    )
    answer.headers["Retry-After"] = str(seconds)
    return answer


RETRIED_CODES = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)


def _store_down(err: grpc.RpcError) -> bool:
    """The engine answered that Redis is not answering: a second try now gets the same."""
    return error_details(err).get("reason") == "storage_unavailable"


def _unknown(err: grpc.RpcError) -> bool:
    """The engine sent a change to its store and could not confirm it (grpc_util)."""
    return (
        _code(err) == grpc.StatusCode.UNKNOWN
        and error_details(err).get("reason") == OUTCOME_UNKNOWN_REASON
    )


def _api_error(err: grpc.RpcError, backend: str, circuit: Circuit | None = None) -> ApiError:
    """The answer to a failed call; with the backend's `circuit` when it was just opened, whose
    open time the answer's Retry-After gives."""
    if circuit is not None and circuit.is_open:
        return circuit_refusal(backend, circuit.open_s)
    if _unknown(err):
        answer = ApiError(
            503,
            OUTCOME_UNKNOWN_REASON,
            "The change could not be confirmed: it may or may not have been made. Send the same "
            f"request again (same move_id or {IDEMPOTENCY_HEADER}) to learn which.",
        )
        answer.headers["Retry-After"] = "1"
        return answer
    return from_rpc_error(err, backend)


def _code(err: grpc.RpcError) -> grpc.StatusCode | None:
    return err.code() if isinstance(err, grpc.Call) else None

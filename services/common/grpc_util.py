"""What every gRPC server and client of the platform shares: channel options, the error
convention, bearer metadata, and the JSON mapping of the contracts.

Errors travel as a status code, a sentence, and trailing metadata naming the reason (and the
field or rule), so a gateway can choose between, say, 409 and 422 without parsing sentences.

Game-specific parts of the contracts travel as JSON text (engine.proto), so nothing here knows
any game.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import grpc

from games.errors import (
    GameError,
    IllegalMoveError,
    InvalidMoveError,
    NotYourTurnError,
    RecordError,
    RulesError,
)

# ---- channel and server options -------------------------------------------------------------

MAX_MESSAGE_BYTES = 4 * 1024 * 1024

SERVER_OPTIONS: list[tuple[str, Any]] = [
    # Connections are recycled so that clients re-resolve DNS and reach new replicas; long
    # streams (WatchGame) get the grace period, then resume from their last event id.
    ("grpc.max_connection_age_ms", 5 * 60 * 1000),
    ("grpc.max_connection_age_grace_ms", 60 * 1000),
    ("grpc.keepalive_time_ms", 30 * 1000),
    ("grpc.keepalive_timeout_ms", 10 * 1000),
    ("grpc.http2.min_ping_interval_without_data_ms", 10 * 1000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
]


def with_connection_age(
    options: list[tuple[str, Any]], age_s: int, grace_s: int
) -> list[tuple[str, Any]]:
    """`options` with another connection age: how soon clients move to newly scaled replicas."""
    ages = {
        "grpc.max_connection_age_ms": age_s * 1000,
        "grpc.max_connection_age_grace_ms": grace_s * 1000,
    }
    return [(k, ages.get(k, v)) for k, v in options]


# The AI service holds no streams and no state: its connections are recycled every 15 s, so a
# worker added with `--scale ai=N` takes its share of hints within seconds (DESIGN.md).
STATELESS_SERVER_OPTIONS = with_connection_age(SERVER_OPTIONS, age_s=15, grace_s=30)

_RETRY_UNAVAILABLE = {
    "maxAttempts": 5,
    "initialBackoff": "0.1s",
    "maxBackoff": "1s",
    "backoffMultiplier": 2,
    "retryableStatusCodes": ["UNAVAILABLE"],
}

# Engine calls that make something new each time they run, with no key to recognise a repeat:
# a retry would make a second one (a player, a device key, a seat token), so no channel
# retries them. Every other call is a read, idempotent by nature (SetAway, SitPlayer, a
# rematch's accept or decline, AckBotTurn) or by a key the caller sends: ApplyMove's move_id,
# CreateGame's and JoinGame's idempotency_key (the gateway always sends one; a caller that
# sends none takes the risk of a second game or seat). The engine answers UNAVAILABLE only when
# nothing was written; a write whose outcome it cannot know is UNKNOWN with the reason
# OUTCOME_UNKNOWN_REASON, which no policy retries (send the same request, same key, again).
NOT_RETRIED = ("CreatePlayer", "RecoverPlayer", "ClaimSeat")
OUTCOME_UNKNOWN_REASON = "outcome_unknown"

_SERVICE_CONFIG = json.dumps(
    {
        "loadBalancingConfig": [{"round_robin": {}}],
        # A call that could not reach a server (a replica restarting, a connection reset) is
        # tried again for about 1.5 s, per method (above).
        "methodConfig": [
            {"name": [{}], "retryPolicy": _RETRY_UNAVAILABLE},
            {"name": [{"service": "metro.v1.Engine", "method": m} for m in NOT_RETRIED]},
        ],
    }
)

CLIENT_OPTIONS: list[tuple[str, Any]] = [
    # `dns:///host:port` targets spread calls over every address; new ones are seen in seconds.
    ("grpc.service_config", _SERVICE_CONFIG),
    ("grpc.dns_min_time_between_resolutions_ms", 5 * 1000),
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 2000),
    ("grpc.enable_retries", 1),
    ("grpc.keepalive_time_ms", 30 * 1000),
    ("grpc.keepalive_timeout_ms", 10 * 1000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
]


def insecure_channel(target: str) -> grpc.Channel:
    """A blocking-client channel with the shared options (create it lazily, once per process)."""
    return grpc.insecure_channel(target, options=CLIENT_OPTIONS)


def aio_insecure_channel(target: str) -> grpc.aio.Channel:
    """An asyncio-client channel with the shared options; create it inside the running loop."""
    return grpc.aio.insecure_channel(target, options=CLIENT_OPTIONS)


# ApplyMove's answer to a move_id that was applied before (by an earlier try of the same request,
# or by anyone who sent the same id) carries this trailing metadata: the move was not made by
# this call, and the view is the game as it is now. An AI worker must not take it for its own.
REPLAYED_METADATA: tuple[tuple[str, str], ...] = (("metro-answer", "replayed"),)


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    """Call metadata carrying a seat token or the AI service credential."""
    return (("authorization", f"Bearer {token}"),)


def bearer_token(metadata: Sequence[tuple[str, str | bytes]] | None) -> str | None:
    """The token of an `authorization: Bearer <token>` entry; None when there is none.

    Raises ServiceError(PERMISSION_DENIED) for an authorization entry that is not a bearer token,
    so a malformed credential is never mistaken for no credential at all.
    """
    for key, value in metadata or ():
        if key.lower() != "authorization":
            continue
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        scheme, _, token = text.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "the authorization metadata must be 'Bearer <token>'",
                reason="permission_denied",
            )
        return token
    return None


# ---- errors -------------------------------------------------------------------------------

REASON_KEY = "metro-error-reason"
FIELD_KEY = "metro-error-field"
RULE_KEY = "metro-error-rule"
REFUSAL_KEY = "metro-error-refusal"  # a rule refusal's stable code (games/errors.py)
PARAMS_KEY = "metro-error-params"  # its parameters, as JSON (ASCII-escaped)


class ServiceError(Exception):
    """An answer other than OK: a status code, a sentence for people, and machine-readable
    details (reason, and the field or rule it concerns; for a rule refusal its code and
    parameters, which the page words in the player's language) sent as trailing metadata."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        *,
        reason: str,
        field: str = "",
        rule: str = "",
        refusal: str = "",
        params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.field = field
        self.rule = rule
        self.refusal = refusal
        self.params = dict(params or {})

    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        pairs = [(REASON_KEY, self.reason)]
        if self.field:
            pairs.append((FIELD_KEY, self.field))
        if self.rule:
            pairs.append((RULE_KEY, self.rule))
        if self.refusal:
            pairs.append((REFUSAL_KEY, self.refusal))
            pairs.append((PARAMS_KEY, json.dumps(self.params, separators=(",", ":"))))
        # Metadata values must be printable ASCII; "§" is not, nor is a control character of a
        # field name a client made up (which gRPC would refuse as "Invalid metadata").
        return tuple((k, _printable_ascii(v)) for k, v in pairs)


def _printable_ascii(text: str) -> str:
    return "".join(ch if " " <= ch <= "~" else "?" for ch in text)


def invalid_argument(field: str, message: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.INVALID_ARGUMENT, message, reason="invalid_argument", field=field
    )


def _with_rule(message: str, rule: str) -> str:
    """The sentence ends by naming the rule broken, unless it already does."""
    return f"{message} ({rule})" if rule and rule not in message else message


def from_game_error(err: GameError) -> ServiceError:
    """The status a rules-core error maps to (DESIGN.md "Errors"), in one place."""
    if isinstance(err, NotYourTurnError):
        return ServiceError(
            grpc.StatusCode.FAILED_PRECONDITION,
            _with_rule(str(err), err.rule),
            reason="not_your_turn",
            rule=err.rule,
            refusal=err.refusal,
            params=err.params,
        )
    if isinstance(err, IllegalMoveError):
        return ServiceError(
            grpc.StatusCode.FAILED_PRECONDITION,
            _with_rule(str(err), err.rule),
            reason="illegal_move",
            rule=err.rule,
            refusal=err.refusal,
            params=err.params,
        )
    if isinstance(err, RulesError):
        return ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            str(err),
            reason="invalid_rules",
            field=err.field or "rules",
        )
    if isinstance(err, InvalidMoveError):
        field = getattr(err, "field", "") or "move"
        return ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"invalid {field}: {err}",
            reason="invalid_argument",
            field=field,
        )
    if isinstance(err, RecordError):
        return ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT, str(err), reason="invalid_argument", field="record"
        )
    return ServiceError(grpc.StatusCode.INVALID_ARGUMENT, str(err), reason="invalid_argument")


def error_details(error: grpc.RpcError) -> dict[str, str]:
    """Client side: {"reason", "field", "rule", "refusal", "params" (JSON)} from a failed
    call's trailing metadata."""
    trailing = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    keys = {
        REASON_KEY: "reason",
        FIELD_KEY: "field",
        RULE_KEY: "rule",
        REFUSAL_KEY: "refusal",
        PARAMS_KEY: "params",
    }
    out: dict[str, str] = {}
    for key, value in trailing or ():
        if key in keys:
            out[keys[key]] = value.decode() if isinstance(value, bytes) else value
    return out

"""Checks on untrusted request fields, each failing with INVALID_ARGUMENT naming the field.

Nothing a client sends is echoed back at length: a 100 kB string is reported by its size.
"""

from __future__ import annotations

import json
import re
from typing import Any

import grpc

import games
from services.common.grpc_util import ServiceError, invalid_argument
from services.common.levels import level_error
from services.common.wording import shown

GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
MOVE_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
WORKER_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
IDEMPOTENCY_KEY = re.compile(r"[A-Za-z0-9_-]{16,128}")
EVENT_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")
U64_MAX = 2**64 - 1  # a Redis stream id is two unsigned 64-bit integers
MAX_NAME = 40
MAX_MOVE_STRING = 64
MAX_WAIT_MS = 30_000
MAX_JSON = 64 * 1024


def game_kind(value: str, field: str = "game") -> str:
    """A game kind the registry knows; INVALID_ARGUMENT "wrong_game" listing the known ones."""
    if value not in games.kinds():
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"unknown game {shown(value)}; known games: {', '.join(games.kinds())}",
            reason="wrong_game",
            field=field,
        )
    return value


def game_id(value: str, field: str = "game_id") -> str:
    if not value:
        raise invalid_argument(field, f"{field} is required")
    if not GAME_ID.fullmatch(value):
        raise invalid_argument(
            field, f"{field} must be 1-64 letters, digits, '-' or '_'; got {shown(value)}"
        )
    return value


def move_id(value: str) -> str:
    """ "" (no id: the move is not retry-safe) or a client-chosen id."""
    if value and not MOVE_ID.fullmatch(value):
        raise invalid_argument(
            "move_id", f"move_id must be 1-64 letters, digits or '._:-'; got {shown(value)}"
        )
    return value


def idempotency_key(value: str) -> str:
    """A create's or join's idempotency key: "" (none) or 16-128 URL-safe characters."""
    if value and not IDEMPOTENCY_KEY.fullmatch(value):
        raise invalid_argument(
            "idempotency_key",
            "idempotency_key must be 16-128 characters of A-Z, a-z, 0-9, '_' and '-'",
        )
    return value


def name(value: str, field: str = "name") -> str:
    value = value.strip()
    if len(value) > MAX_NAME:
        raise invalid_argument(field, f"{field} must be at most {MAX_NAME} characters")
    if any(not ch.isprintable() for ch in value):
        raise invalid_argument(field, f"{field} must not contain control characters")
    return value


def level(value: str, field: str = "level", kind: str | None = None) -> str:
    """An AI level every AI worker knows and game `kind` offers (services/common/levels.py)."""
    error = level_error(value, field, kind)
    if error:
        raise invalid_argument(field, error)
    return value


def event_id(value: str, field: str = "after_event_id") -> str:
    """ "" or a Redis stream id: two whole numbers of at most 64 bits, as Redis takes them."""
    if value and not (
        EVENT_ID.fullmatch(value) and all(int(part) <= U64_MAX for part in value.split("-"))
    ):
        raise invalid_argument(
            field,
            f"{field} must be an event id such as '1718000000000-0' (two whole numbers below "
            f"2^64); got {shown(value)}",
        )
    return value


def worker_id(value: str) -> str:
    if not WORKER_ID.fullmatch(value):
        raise invalid_argument(
            "worker_id", f"worker_id must be 1-64 letters, digits or '._:-'; got {shown(value)}"
        )
    return value


def wait_ms(value: int) -> int:
    if not 0 <= value <= MAX_WAIT_MS:
        raise invalid_argument("wait_ms", f"wait_ms must be 0-{MAX_WAIT_MS}; got {value}")
    return value


def json_object(text: str, field: str) -> dict[str, Any]:
    """A JSON object sent as text ("" is an empty object); INVALID_ARGUMENT naming `field`."""
    if not text:
        return {}
    if len(text) > MAX_JSON:
        raise invalid_argument(field, f"{field} is too long ({len(text)} characters)")
    try:
        data = json.loads(text)
    except ValueError:
        raise invalid_argument(field, f"{field} is not valid JSON") from None
    if not isinstance(data, dict):
        raise invalid_argument(field, f"{field} must be a JSON object")
    return data


def move_fields(move: dict[str, Any]) -> None:
    """Bound the size of every string in a move before the rules core reads it (its error
    sentences may quote a field: never at length)."""
    for key, value in move.items():
        if len(key) > MAX_MOVE_STRING:
            raise invalid_argument(
                "move", f"a move's field names are at most {MAX_MOVE_STRING} characters"
            )
        if isinstance(value, str) and len(value) > MAX_MOVE_STRING:
            raise invalid_argument(
                key, f"{key} must be at most {MAX_MOVE_STRING} characters; got {len(value)}"
            )


def seat_number(value: int, seats: int, field: str = "seat") -> int:
    if not 0 <= value < seats:
        raise invalid_argument(field, f"{field} must be 0-{seats - 1}; got {value}")
    return value

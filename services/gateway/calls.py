"""The edge between HTTP and gRPC: read the caller's token and JSON body, make one call to a
backend with the process's channel and deadline, and turn failures into `ApiError`s.

A seat token is read only from the Authorization header (never from a URL, which ends up in
logs and shared links) and passed on unchanged as gRPC metadata.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from flask import current_app, request
from google.protobuf.message import Message

from services.common.grpc_util import bearer
from services.gateway.backends import Backends, Clients
from services.gateway.errors import ApiError, bad_request, from_rpc_error

M = TypeVar("M", bound=Message)
R = TypeVar("R")

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
        data = request.get_json(force=True, silent=False)
    except Exception:
        raise bad_request("The body is not valid JSON.") from None
    if not isinstance(data, dict):
        raise bad_request("The body must be a JSON object.")
    return data


def rpc(
    method: Callable[..., R],
    request_message: Message,
    *,
    backend: str = "engine",
    token: str | None = None,
    timeout: float | None = None,
) -> R:
    """One unary call with the caller's token and the configured deadline."""
    try:
        return method(
            request_message,
            metadata=bearer(token) if token else None,
            timeout=timeout if timeout is not None else gateway().deadline_s,
        )
    except grpc.RpcError as err:
        raise from_rpc_error(err, backend) from None

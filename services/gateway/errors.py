"""Every error the gateway answers, as `{"error": {"code", "message"}}`, decided in one place.

A 400 that names its `field` also carries `reason` and `params` (field_errors.py), which the page
words in its own language; a rule refusal carries `refusal` and `params` (games/errors.py).

gRPC failures map by status code and, for FAILED_PRECONDITION, by the engine's reason (trailing
metadata `metro-error-reason`): a move out of turn is a conflict (409), a move the rules forbid
is unprocessable (422), the record of a running game is forbidden (403).

Requests refused before Flask sees them (a request line or headers too large for the server) get
the same shape: `JsonErrorRequestHandler` for the development server here; under gunicorn,
deploy/gunicorn.conf.py writes gunicorn's own refusals as JSON.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import grpc
from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException
from werkzeug.serving import WSGIRequestHandler

from services.common.grpc_util import error_details
from services.gateway import field_errors

log = logging.getLogger(__name__)


class ApiError(Exception):
    """An answer other than success, with its HTTP status and a machine-readable code."""

    def __init__(self, status: int, code: str, message: str, **extra: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers: dict[str, str] = {}  # e.g. Retry-After of a 429 or 503
        self.extra: dict[str, Any] = {k: v for k, v in extra.items() if v}

    def response(self) -> Response:
        body: dict[str, Any] = {"code": self.code, "message": self.message, **self.extra}
        reply = jsonify(error=body)
        reply.status_code = self.status
        reply.headers.update(self.headers)
        return reply


def code_for(reason: str) -> str:
    """The error code for an HTTP reason phrase: "URI Too Long" -> "uri_too_long"."""
    return "_".join(reason.lower().replace("-", " ").split()) or "error"


def error_json(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()


class JsonErrorRequestHandler(WSGIRequestHandler):
    """The development server's handler, with its own refusals (414 for a request line over
    64 KiB, 431 for a header line over 64 KiB or more than 100 headers, 400 for a malformed
    request) written in the API's JSON error shape instead of http.server's HTML page."""

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        short, long = self.responses.get(code, ("Error", ""))
        reason = message or short
        self.log_error("code %d, message %s", code, reason)
        self.send_response(code, reason)
        self.send_header("Connection", "close")
        body = b""
        if code >= 200 and code not in (204, 205, 304) and self.command != "HEAD":
            text = reason if not (explain or long) else f"{reason}: {explain or long}"
            body = error_json(code_for(short), text)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            self.wfile.write(body)


def retry_later(status: int, code: str, message: str, retry_after_s: int) -> ApiError:
    """A refusal that says when to try again (Retry-After, in seconds)."""
    err = ApiError(status, code, message)
    err.headers["Retry-After"] = str(retry_after_s)
    return err


def bad_request(message: str, field: str = "", reason: str = "") -> ApiError:
    """A 400; `reason` (field_errors.REASONS) when the caller knows why better than the value
    itself says (an unknown field), else field_errors explains it from the request."""
    return ApiError(400, "bad_request", message, field=field, reason=reason)


def explain_field(err: ApiError) -> None:
    """Give a 400 that names its field a `reason` and `params` the page words (field_errors)."""
    field = err.extra.get("field")
    if err.status != 400 or not isinstance(field, str) or not field or err.extra.get("params"):
        return
    if request.method == "GET":
        body: Any = request.args.to_dict()
    else:
        body = request.get_json(silent=True, force=True)
    given = err.extra.get("reason", "")
    reason, params = field_errors.explain(field, body, known_fields=given != "unknown_field")
    err.extra["reason"], err.extra["params"] = given or reason, params


STORE_RETRY_AFTER_S = 1  # the engine's storage gate (services/engine/core/storage_gate.py)
ENGINE_RETRY_AFTER_S = 60  # the engine's own attempt counters are per minute

_BY_STATUS: dict[grpc.StatusCode, tuple[int, str]] = {
    grpc.StatusCode.INVALID_ARGUMENT: (400, "invalid_argument"),
    grpc.StatusCode.OUT_OF_RANGE: (400, "invalid_argument"),
    grpc.StatusCode.PERMISSION_DENIED: (403, "permission_denied"),
    grpc.StatusCode.UNAUTHENTICATED: (403, "permission_denied"),
    grpc.StatusCode.NOT_FOUND: (404, "game_not_found"),
    grpc.StatusCode.ABORTED: (409, "version_conflict"),
    grpc.StatusCode.ALREADY_EXISTS: (409, "conflict"),
    grpc.StatusCode.FAILED_PRECONDITION: (409, "failed_precondition"),
    grpc.StatusCode.UNAVAILABLE: (503, "unavailable"),
    grpc.StatusCode.DEADLINE_EXCEEDED: (503, "deadline_exceeded"),
    grpc.StatusCode.RESOURCE_EXHAUSTED: (503, "unavailable"),
    grpc.StatusCode.CANCELLED: (503, "unavailable"),
}

# FAILED_PRECONDITION reasons that are not a plain conflict.
_BY_REASON: dict[str, int] = {
    "illegal_move": 422,
    "idempotency_mismatch": 422,  # a used move_id sent with a different move
    "game_running": 403,
}

_BACKEND_DOWN = {
    grpc.StatusCode.UNAVAILABLE: "is not answering",
    grpc.StatusCode.DEADLINE_EXCEEDED: "did not answer in time",
}


def from_rpc_error(error: grpc.RpcError, backend: str) -> ApiError:
    """The HTTP answer for a failed call to `backend` ("engine" or "ai")."""
    code = error.code() if isinstance(error, grpc.Call) else grpc.StatusCode.UNKNOWN
    details = (error.details() if isinstance(error, grpc.Call) else "") or ""
    if code == grpc.StatusCode.UNAVAILABLE and error_details(error).get("reason") == "storage_full":
        # Redis is at its maxmemory: the engine answers, but takes no write. Say so.
        # The engine's sentence says whether running games go on (the watermark for new games).
        log.warning("%s: the game store is full: %s", backend, details)
        message = details[:1].upper() + details[1:] if details else "The game store is full."
        return ApiError(503, "storage_full", message)
    if code == grpc.StatusCode.UNAVAILABLE and error_details(error).get("reason") == (
        "storage_unavailable"
    ):
        # The engine found Redis gone and answered at once (issue 32): so does the gateway,
        # saying when to try again: the engine probes Redis a few times a second.
        log.warning("%s: the game store is not answering: %s", backend, details)
        return retry_later(
            503,
            "unavailable",
            "The game store is not answering; try again soon.",
            STORE_RETRY_AFTER_S,
        )
    if code in _BACKEND_DOWN:
        # Transport sentences ("failed to connect to all addresses ...") help no user.
        log.warning("%s call failed: %s %s", backend, code.name, details)
        status, name = _BY_STATUS[code]
        message = f"The {backend} service {_BACKEND_DOWN[code]}; try again soon."
        return ApiError(status, name, message)
    if code not in _BY_STATUS:
        log.error("%s call failed: %s %s", backend, code, details)
        message = f"The {backend} service failed to answer this request."
        return ApiError(502, "backend_error", message)
    status, name = _BY_STATUS[code]
    extra = error_details(error)
    reason = extra.pop("reason", "") or name
    if code == grpc.StatusCode.FAILED_PRECONDITION:
        status = _BY_REASON.get(reason, 409)
    message = details or reason.replace("_", " ")
    params = _params(extra.pop("params", ""))
    if extra.get("rule"):
        extra["rule"] = _rule_text(extra["rule"])
        if extra["rule"] not in message:
            message = f"{message} ({extra['rule']})"  # API.md: the message names the rule
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and reason == "rate_limited":
        status = 429  # the engine counts a client's attempts per minute (players.py)
    answer = ApiError(status, reason, message, **extra)
    if status == 429:
        answer.headers["Retry-After"] = str(ENGINE_RETRY_AFTER_S)
    if answer.extra.get("refusal"):
        answer.extra["params"] = params  # the page words the refusal from its catalogue
    return answer


def _params(text: str) -> dict[str, str | int]:
    """A refusal's parameters from their JSON metadata: an object of texts and integers only."""
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    if not isinstance(value, dict):
        return {}
    return {
        str(k): v for k, v in value.items() if isinstance(v, str | int) and not isinstance(v, bool)
    }


_RULE_SECTION = re.compile(r"\b(RULES(?:-[A-Z]+)?\.md) \?(?=\d)")


def _rule_text(rule: str) -> str:
    """The engine's rule names arrive as ASCII metadata, where "§" became "?"; put it back for
    every rules file ("RULES-METROX.md ?3" -> "RULES-METROX.md §3"), so the name matches the one
    the message already ends with and is not appended a second time."""
    return _RULE_SECTION.sub(r"\1 §", rule)


def register(app: Flask) -> None:
    """Turn every exception into the JSON error shape, in one place."""

    @app.errorhandler(ApiError)
    def api_error(err: ApiError) -> Response:
        explain_field(err)
        return err.response()

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException) -> Response:
        code = code_for(err.name or "error")
        reply = ApiError(err.code or 500, code, err.description or err.name).response()
        for key, value in err.get_headers():
            if key.lower() != "content-type":  # keep Allow, Retry-After and the like
                reply.headers[key] = value
        return reply

    @app.errorhandler(Exception)
    def unexpected(err: Exception) -> Response:
        log.exception("unexpected error")
        return ApiError(500, "internal_error", "Something went wrong on the server.").response()

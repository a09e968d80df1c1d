"""uvicorn's httptools protocol with the gateway's bounds on a request's head, refused in the
API's JSON error shape (as gunicorn's parser and the development server did before, with the
same settings): a request line over GATEWAY_LIMIT_REQUEST_LINE bytes is 414, a header over
GATEWAY_LIMIT_REQUEST_FIELD_SIZE or more than GATEWAY_LIMIT_REQUEST_FIELDS headers 431, any
other unreadable request 400. The head is refused while it arrives, so an oversized one never
sits in memory whole."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from services.gateway.errors import error_json
from services.gateway.live.uvicorn_internals import HttpToolsProtocol


@dataclass(frozen=True)
class HeadLimits:
    line: int = 8190
    field_size: int = 16 * 1024
    fields: int = 100

    @classmethod
    def from_env(cls) -> HeadLimits:
        def read(name: str, default: int) -> int:
            raw = os.environ.get(name, "").strip()
            if not raw:
                return default
            if not raw.isdigit():
                raise SystemExit(f"configuration: {name} must be a whole number, got {raw!r}")
            return int(raw)

        return cls(
            read("GATEWAY_LIMIT_REQUEST_LINE", cls.line),
            read("GATEWAY_LIMIT_REQUEST_FIELD_SIZE", cls.field_size),
            read("GATEWAY_LIMIT_REQUEST_FIELDS", cls.fields),
        )


LIMITS = HeadLimits.from_env()
REASONS = {
    400: b"Bad Request",
    414: b"Request-URI Too Long",
    431: b"Request Header Fields Too Large",
}


TRANSPORT = "metro.transport"  # the scope's extension holding the connection's transport


class _HeadTooLarge(Exception):
    pass


class GatewayHttpProtocol(HttpToolsProtocol):
    """HttpToolsProtocol that counts the head as it comes and answers refusals in JSON."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._refusal: tuple[int, str] | None = None
        self._head = 0  # bytes of the head so far (None of the body)
        self._in_head = True
        self._fields = 0

    def data_received(self, data: bytes) -> None:
        if self._in_head:
            self._head += len(data)
            if self._head > LIMITS.line + LIMITS.fields * LIMITS.field_size + 4:
                self._refusal = (431, "Request Header Fields Too Large: the request's head is "
                                      "too large.")  # fmt: skip
                self.send_400_response("")
                return
        super().data_received(data)

    def on_message_begin(self) -> None:
        self._in_head, self._fields = True, 0
        super().on_message_begin()

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        if len(self.url) > LIMITS.line:
            self._refusal = (414, f"Request-URI Too Long: the URL is over {LIMITS.line} bytes.")
            raise _HeadTooLarge

    def on_header(self, name: bytes, value: bytes) -> None:
        self._fields += 1
        if self._fields > LIMITS.fields:
            self._refusal = (431, "Request Header Fields Too Large: more than "
                                  f"{LIMITS.fields} headers.")  # fmt: skip
            raise _HeadTooLarge
        if len(name) + len(value) + 2 > LIMITS.field_size:
            self._refusal = (431, "Request Header Fields Too Large: a header is over "
                                  f"{LIMITS.field_size} bytes.")  # fmt: skip
            raise _HeadTooLarge
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head, self._head = False, 0
        # The live stream handler bounds its connection's buffers (asgi.bound_buffers).
        self.scope.setdefault("extensions", {})[TRANSPORT] = self.transport  # type: ignore[typeddict-item,assignment]
        super().on_headers_complete()

    def send_400_response(self, msg: str) -> None:
        status, text = self._refusal or (400, "Bad Request: the request could not be read.")
        reason = REASONS[status]
        code = reason.decode().lower().replace("-", " ").replace(" ", "_")
        body = error_json(code, text)
        self.transport.write(
            b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
            b"connection: close\r\n\r\n%s" % (status, reason, len(body), body)
        )
        self.transport.close()

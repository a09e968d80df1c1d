"""What a live stream request asks, checked before the stream opens (issue 31 item 1): one set of
checks for both kinds of stream the ASGI server holds, a game's (`GET /api/games/{id}/events`) and
a player's own (`GET /api/players/me/events`), so both refuse bad input with the same codes and
messages (API.md, docs/bots.md) and nothing about a request is parsed twice in two ways.

Why here and not beside Flask's request helpers: a stream request is read from an ASGI scope's
headers and query, outside any Flask request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from werkzeug.datastructures import Headers

from services.gateway.calls import bearer_token_of
from services.gateway.errors import ApiError, bad_request
from services.gateway.http_kit import KEY_HEADER, KEY_SHAPE
from services.gateway.live.wire import valid_event_id

__all__ = ["PlayerStreamRequest", "StreamRequest", "resume_point", "seat_denied"]


def resume_point(headers: Headers | Mapping[str, str], args: Mapping[str, str]) -> str:
    """The event id to resume after: `Last-Event-ID` (which wins) or `?last_event_id=`; "" for
    none. 400 when it is not an event id."""
    after = (headers.get("Last-Event-ID") or args.get("last_event_id", "")).strip()
    if after and not valid_event_id(after):
        raise bad_request(
            "Last-Event-ID must be an event id such as '1718000000000-0' (two whole numbers "
            "below 2^64).",
            field="Last-Event-ID",
        )
    return after


@dataclass(frozen=True)
class StreamRequest:
    """What a game stream request asks: resume after `after`, with deltas or not, for a token."""

    after: str
    deltas: bool
    token: str | None
    chat: bool = False  # `?chat=1`: the reader's chat room's new lines too (`event: chat`)

    @classmethod
    def parse(cls, headers: Headers | Mapping[str, str], args: Mapping[str, str]) -> StreamRequest:
        """400 for a malformed Last-Event-ID or `delta`; 403 for a malformed Authorization."""
        after = resume_point(headers, args)
        flag = args.get("delta", "0")
        if flag not in ("0", "1"):
            raise bad_request("'delta' must be 1 (events carry a delta) or 0.", field="delta")
        chat = args.get("chat", "0")
        if chat not in ("0", "1"):
            raise bad_request("'chat' must be 1 (chat lines too) or 0.", field="chat")
        token = bearer_token_of(headers.get("Authorization"))
        return cls(after, flag == "1", token, chat == "1")


@dataclass(frozen=True)
class PlayerStreamRequest:
    """What a player's own stream asks: the player's device key and where to resume."""

    key: str
    after: str

    @classmethod
    def parse(
        cls, headers: Headers | Mapping[str, str], args: Mapping[str, str]
    ) -> PlayerStreamRequest:
        """403 `bad_player_key` without a well-formed X-Player-Key (checked first, as every
        player route does); 400 for a malformed Last-Event-ID."""
        key = (headers.get(KEY_HEADER) or "").strip()
        if not key:
            raise ApiError(
                403, "bad_player_key", f"This needs a player: send the device key in {KEY_HEADER}."
            )
        if not KEY_SHAPE.fullmatch(key):
            raise ApiError(
                403, "bad_player_key",
                f"The {KEY_HEADER} header is not a device key of this server.",
            )  # fmt: skip
        return cls(key, resume_point(headers, args))


def seat_denied() -> ApiError:
    """A token that is not a seat's at this game (a stranger's stream of a private seat)."""
    return ApiError(403, "permission_denied", "This token is not a seat's token in this game.")

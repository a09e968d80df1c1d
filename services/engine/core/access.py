"""Who is calling, and which seat they may act or look as (engine.proto, "Authorisation").

Three kinds of caller: a seat token (that seat only), the AI service credential (seats the AI plays,
named in the request), and nobody (a spectator: the public view and nothing else). A private game
(a daily attempt) has no spectators: every read of it is its seat's (`check_private`). A seat
token is either the one the seat was given (its hash is in the game's meta) or one its player
claimed for another device (players.py; the service looks it up only for a token no seat of the
meta knows).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass, replace
from typing import Protocol

import grpc

from services.common.auth import MAX_TOKEN_LENGTH, is_service_credential, token_hash
from services.common.grpc_util import ServiceError, bearer_token, invalid_argument
from services.engine.core.meta import GameMeta


def denied(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.PERMISSION_DENIED, message, reason="permission_denied")


@dataclass(frozen=True, slots=True)
class Caller:
    token: str | None
    is_ai_service: bool
    # The seat this person's token was found to speak for: the one it was issued for, or one
    # its player claimed it for (players.py); looked up once per call (`seat_of` below).
    proven_seat: int | None = None

    @classmethod
    def from_metadata(cls, metadata: object, ai_credential: str) -> Caller:
        token = bearer_token(metadata)  # type: ignore[arg-type]
        if token is not None and len(token) > MAX_TOKEN_LENGTH:
            raise denied("the token is not valid")
        return cls(token=token, is_ai_service=is_service_credential(token, ai_credential))

    def require_ai_service(self) -> None:
        if not self.is_ai_service:
            raise denied("this call needs the AI service credential")

    def seat(self, meta: GameMeta, game_id: str, requested: int | None) -> int:
        """The seat this caller acts for (moves, legal moves): a spectator is refused."""
        seat = self.seat_if_any(meta, game_id, requested)
        if seat is None:
            raise denied("this call needs a seat token (authorization: Bearer <token>)")
        return seat

    def seat_if_any(self, meta: GameMeta, game_id: str, requested: int | None) -> int | None:
        """The seat this caller speaks for in this game; None for a spectator (a read that
        anyone may make, and a seat's token makes that seat's)."""
        if self.token is None:
            if requested is not None:
                raise denied(f"seat {requested}'s view and moves need that seat's token")
            return None
        if self.is_ai_service:
            if requested is None:
                raise invalid_argument(
                    "seat", "with the AI service credential, name the AI seat in 'seat'"
                )
            if not 0 <= requested < len(meta.seats):
                raise invalid_argument(
                    "seat", f"seat must be 0-{len(meta.seats) - 1}; got {requested}"
                )
            if not meta.seats[requested].played_by_ai:
                raise denied(
                    f"seat {requested} is not played by the AI; "
                    "the AI service credential acts for AI seats (and seats the AI took over)"
                )
            return requested
        index = self.proven_seat
        if index is None:
            index = self.issued_seat(meta, game_id)
        if index is None:
            raise denied(f"the token is not valid for game {game_id}")
        if requested is not None and requested != index:
            raise denied(f"this token is seat {index}'s, not seat {requested}'s")
        return index

    def issued_seat(self, meta: GameMeta, game_id: str) -> int | None:
        """The seat whose own token this is, if any."""
        assert self.token is not None
        presented = token_hash(game_id, self.token)  # once, then compared with every seat's
        for index, info in enumerate(meta.seats):
            if info.token_hash and hmac.compare_digest(info.token_hash, presented):
                return index
        return None


class ClaimedSeats(Protocol):
    async def claimed_seat(self, game_id: str, token: str) -> int | None: ...


async def seat_of(
    caller: Caller, claims: ClaimedSeats, meta: GameMeta, game_id: str, requested: int | None
) -> int:
    """The seat the caller acts for (Caller.seat): a spectator is refused."""
    return (await _proven(caller, claims, meta, game_id)).seat(meta, game_id, requested)


async def seat_if_any(
    caller: Caller, claims: ClaimedSeats, meta: GameMeta, game_id: str, requested: int | None
) -> int | None:
    """The caller's seat, None for a spectator (Caller.seat_if_any)."""
    return (await _proven(caller, claims, meta, game_id)).seat_if_any(meta, game_id, requested)


async def _proven(caller: Caller, claims: ClaimedSeats, meta: GameMeta, game_id: str) -> Caller:
    """The caller with the seat its token speaks for, a token its player claimed for another
    device included (looked up only for a token that no seat was given)."""
    if caller.token is not None and not caller.is_ai_service and caller.proven_seat is None:
        found = caller.issued_seat(meta, game_id)
        if found is None:
            found = await claims.claimed_seat(game_id, caller.token)
        if found is not None:
            caller = replace(caller, proven_seat=found)
    return caller


async def own_seat(caller: Caller, claims: ClaimedSeats, meta: GameMeta, game_id: str) -> int:
    """The caller's own seat (a person's seat token; never the AI credential)."""
    if caller.is_ai_service:
        raise invalid_argument("token", "this call needs a player's seat token")
    return await seat_of(caller, claims, meta, game_id, None)


async def check_private(
    caller: Caller,
    claims: ClaimedSeats,
    meta: GameMeta,
    game_id: str,
    what: str,
    *,
    ai_may: bool = False,
) -> None:
    """The one rule for reading a private game (a daily attempt): its view, events, table,
    record and analysis all show the day's cards, so each is its seat's alone (a seat token, or
    one its player claimed); nothing to check for a public game. `what` names the read for the
    refusal. `ai_may`: the AI service credential may read it too (it plays the seat while its
    player is away, or analyses the attempt its player asked about); the call itself checks the
    seat the AI names."""
    if not meta.private:
        return
    if caller.token is None or (caller.is_ai_service and not ai_may):
        raise denied(f"game {game_id} is private: {what} needs its seat's token")
    if not caller.is_ai_service:
        await own_seat(caller, claims, meta, game_id)

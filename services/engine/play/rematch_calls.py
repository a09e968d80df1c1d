"""Rematch (engine.proto): after a game, the same table again, seats rotated. Storage and the
offer's life: rematch.py; the new game is made by the lobby's one create path.

A seat's token for the new game is derived from the token it accepts with (its seat token of
the old game), so accepting twice before the new game starts (a double click, a second tab)
answers the same token and never voids the first; a device whose token differs (one its player
claimed) gets none, and so does any accept once the new game has started.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
from dataclasses import replace

import grpc
from metro.v1 import engine_pb2

from services.common.auth import TOKEN_BYTES, token_hash
from services.common.grpc_util import ServiceError
from services.common.levels import still_offered
from services.engine.core import timeouts, validation
from services.engine.core.access import Caller, own_seat, seat_if_any
from services.engine.core.edge import failed
from services.engine.core.meta import AI, HUMAN, SeatInfo
from services.engine.core.shards import new_game_id
from services.engine.core.table import Table
from services.engine.core.tables import Tables
from services.engine.play.lobby import Lobby
from services.engine.play.rematch import Offer, Offers, rotated
from services.engine.players.players import Players
from services.engine.players.ratings import RatingBook

log = logging.getLogger("metro.engine.players")


def _no_offer(game_id: str) -> ServiceError:
    return ServiceError(
        grpc.StatusCode.NOT_FOUND,
        f"no rematch was offered after game {game_id} (or the offer has expired)",
        reason="no_rematch_offer",
    )


def rematch_token(old_token: str, new_game_id: str, old_seat: int) -> str:
    """The new game's token of the seat that accepts with `old_token`: the same on every try."""
    message = f"rematch-token:{new_game_id}:{old_seat}".encode()
    mac = hmac.new(old_token.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:TOKEN_BYTES]).decode().rstrip("=")


class Rematches:
    def __init__(
        self,
        tables: Tables,
        lobby: Lobby,
        players: Players,
        rating_book: RatingBook,
        offers: Offers,
    ) -> None:
        self.tables = tables
        self.lobby = lobby
        self.players = players
        self.rating_book = rating_book
        self.offers = offers

    async def accept(
        self, request: engine_pb2.RematchRequest, caller: Caller, *, offer: bool
    ) -> engine_pb2.RematchAnswer:
        game_id = validation.game_id(request.game_id)
        table = await self.tables.load(game_id)
        seat = await own_seat(caller, self.players, table.meta, game_id)
        assert caller.token is not None  # (own_seat needs one)
        if table.status != "over":
            raise failed("game_not_over", f"game {game_id} is not over: a rematch comes after")
        current = await self.offers.get(game_id)
        if current is None:
            if not offer:
                raise _no_offer(game_id)
            seats = table.meta.seats
            await self.offers.offer(
                game_id,
                new_game_id(),
                rotated(len(seats)),
                [i for i, s in enumerate(seats) if s.kind != AI],
                [i for i, s in enumerate(seats) if s.kind == AI],
            )
            current = await self.offers.get(game_id)
            if current is None:
                raise _no_offer(game_id)  # expired at once: only with a broken clock
        token = rematch_token(caller.token, current.game_id, seat)
        hashed = token_hash(current.game_id, token)
        said = await self.offers.accept(game_id, seat, hashed)
        if said == "none":
            raise _no_offer(game_id)
        if said == "declined":
            raise failed("rematch_declined", "a player declined: there is no rematch")
        if said == "sealed":
            # Every seat had accepted before: this seat's token went out in its answer then.
            return await self._answer(table, seat)
        if said == "again":
            # Accepted before (a double click, a second tab): the same token when this is the
            # token that accepted then, else none; the first stays valid either way.
            now = await self.offers.get(game_id)
            same = now is not None and hmac.compare_digest(now.accepted.get(seat, ""), hashed)
            return await self._answer(table, seat, token if same else "")
        return await self._answer(table, seat, token)

    async def decline(
        self, request: engine_pb2.RematchRequest, caller: Caller
    ) -> engine_pb2.RematchAnswer:
        game_id = validation.game_id(request.game_id)
        table = await self.tables.load(game_id)
        seat = await own_seat(caller, self.players, table.meta, game_id)
        said = await self.offers.decline(game_id, seat)
        if said == "none":
            raise _no_offer(game_id)
        if said == "sealed":
            raise failed("rematch_started", "every player accepted: the rematch has begun")
        return await self._answer(table, None)

    async def get(
        self, request: engine_pb2.RematchRequest, caller: Caller
    ) -> engine_pb2.RematchAnswer:
        game_id = validation.game_id(request.game_id)
        table = await self.tables.load(game_id)
        seat = None
        if caller.token is not None and not caller.is_ai_service:
            seat = await seat_if_any(caller, self.players, table.meta, game_id, None)
        offer = await self.offers.get(game_id)
        if offer is None:
            return engine_pb2.RematchAnswer()  # none offered: no rematch_json
        shown = seat if seat is not None and seat in offer.accepted else None
        return await self._answer(table, shown)

    async def _answer(
        self, table: Table, seat: int | None, token: str = ""
    ) -> engine_pb2.RematchAnswer:
        """The offer as it stands, the new game started when it is sealed and not yet made."""
        offer = await self.offers.get(table.game_id)
        if offer is None:
            raise _no_offer(table.game_id)
        started = False
        if offer.sealed:
            started = await self._start(table, offer)
        out = engine_pb2.RematchAnswer(
            rematch_json=json.dumps(offer.public(started), separators=(",", ":")),
            game_id=offer.game_id,
            token=token,
        )
        if seat is not None:
            out.seat = offer.new_seat(seat)
        return out

    async def _start(self, old: Table, offer: Offer) -> bool:
        """Make the new game (create-if-absent, one request key: two makers start one game).
        True once it exists."""
        if await self.tables.store.version_of(offer.game_id) is not None:
            return True
        meta, kind = old.meta, old.meta.kind
        seats: list[SeatInfo] = []
        for old_seat in offer.order:
            info = meta.seats[old_seat]
            if info.kind == AI:
                seats.append(SeatInfo(AI, info.name, still_offered(info.level, kind)))
            else:
                seats.append(SeatInfo(HUMAN, info.name, "", offer.accepted[old_seat]))
        # The table first, so that the game never exists without its players and rating.
        table = await self.players.table(old.game_id)
        now = timeouts.now_ms()
        for new_seat, old_seat in enumerate(offer.order):
            player = table.get(f"p{old_seat}")
            if player and meta.seats[old_seat].kind != AI:
                await self.players.sit(offer.game_id, kind, new_seat, player, now)
        if table.get("rated") == "1":
            await self.players.set_table(offer.game_id, {"rated": "1", "kind": kind})
            await self.rating_book.make_due(kind, offer.game_id)
        clock = meta.clock_rules
        if clock is not None:
            clock = replace(clock, ai_level=still_offered(clock.ai_level, kind))
        made = await self.lobby.open_table(
            offer.game_id, kind, meta.rules, seats, clock,
            f"rematch:{old.game_id}", rematch_of=old.game_id,
        )  # fmt: skip
        if made:
            log.info("game %s: rematch of %s started", offer.game_id, old.game_id)
        return made

"""Invitations (issue 24): a table's seat reserved for a bot account, which learns of it on its
own event stream (player_feed.py) and accepts (takes the seat, with a token) or declines (the
seat becomes an ordinary open seat).

A seat of kind "bot" in a create (lobby.py), or a ladder game (ladder.py), is an open seat with
`invited` = the bot's player id: nobody else may join it (`GameMeta.joinable_seats`), and the
game waits for it like for any open seat. Accepting and declining are commits through
tables.py, so the table's watchers see the seat change hands.

Keys: invitation:{<id>}  hash: game_id, game, seat, player_id, from, ladder ("1"), state
("open", "accepted", "declined"); kept as long as a waiting game.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import grpc
from metro.v1 import engine_pb2

from services.common.auth import new_token, token_hash
from services.common.grpc_util import ServiceError, invalid_argument
from services.engine.core.edge import aborted, failed, not_found
from services.engine.core.meta import HUMAN, OPEN, SeatInfo
from services.engine.core.store import Conflict, new_request_key
from services.engine.core.table import Table
from services.engine.core.tables import COMMIT_ATTEMPTS, Tables, start_fields, status_of
from services.engine.players.bot_accounts import BotAccounts
from services.engine.players.player_feed import Feed, your_turn
from services.engine.players.players import PlayerInfo, Players, presented_key

INVITATION_TTL_S = 7 * 24 * 3600


def invitation_key(invitation_id: str) -> str:
    return f"invitation:{{{invitation_id}}}"


def invitation_id(game_id: str, seat: int) -> str:
    """Derived from the game and seat, so a repeated create invites once."""
    return hashlib.sha256(f"invitation:{game_id}:{seat}".encode()).hexdigest()[:24]


def _bad_id(value: str) -> bool:
    return not (0 < len(value) <= 64 and value.isalnum())


class Invitations:
    def __init__(self, tables: Tables, players: Players, bots: BotAccounts, feed: Feed) -> None:
        self.tables = tables
        self.players = players
        self.bots = bots
        self.feed = feed
        self.redis = players.redis

    async def resolve(self, name: str, field: str) -> tuple[str, str]:
        """The bot a create's seat names: (player id, name)."""
        return await self.bots.by_name(name, field)

    async def invite(
        self,
        game_id: str,
        kind: str,
        rules: dict[str, Any],
        seats: Sequence[int],
        sender: str,
        *,
        ladder: bool = False,
    ) -> None:
        """Send each reserved seat's bot its invitation (once per seat, however often called)."""
        table = await self.tables.load(game_id)
        for seat in seats:
            info = table.meta.seats[seat]
            if not info.invited:
                continue
            iid = invitation_id(game_id, seat)
            key = invitation_key(iid)
            if not await self.redis.hsetnx(key, "state", "open"):
                continue  # invited before (a repeated create)
            pipe = self.redis.pipeline(transaction=False)
            pipe.hset(
                key,
                mapping={"game_id": game_id, "game": kind, "seat": seat,
                         "player_id": info.invited, "from": sender, "ladder": int(ladder)},
            )  # fmt: skip
            pipe.expire(key, INVITATION_TTL_S)
            await pipe.execute()
            await self.feed.publish(
                info.invited,
                {"type": "invitation", "invitation_id": iid, "game_id": game_id, "game": kind,
                 "rules": rules, "seat": seat, "from": sender, "ladder": ladder},
            )  # fmt: skip

    async def _mine(
        self, request: engine_pb2.InvitationRequest, context: Any
    ) -> tuple[PlayerInfo, str, dict[str, str]]:
        iid = request.invitation_id
        if _bad_id(iid):
            raise invalid_argument("invitation_id", "not an invitation id of this server")
        me = await self.players.who(presented_key(context.invocation_metadata()))
        await self.bots.require(me, "answering an invitation")
        fields = dict(await self.redis.hgetall(invitation_key(iid)))
        if not fields.get("game_id"):
            raise ServiceError(
                grpc.StatusCode.NOT_FOUND,
                f"no invitation {iid}: it never existed or has expired",
                reason="invitation_not_found",
            )
        if fields.get("player_id") != me.player_id:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                "this invitation is for another bot",
                reason="permission_denied",
            )
        return me, iid, fields

    async def accept(
        self, request: engine_pb2.InvitationRequest, context: Any
    ) -> engine_pb2.JoinGameResponse:
        me, iid, fields = await self._mine(request, context)
        game_id, seat = fields["game_id"], int(fields["seat"])
        if fields.get("state") == "declined":
            raise failed("invitation_declined", f"invitation {iid} was declined")
        gone = failed("invitation_gone", f"invitation {iid} was answered already")
        if fields.get("state") == "accepted":
            raise gone
        for _ in range(COMMIT_ATTEMPTS):
            table = await self.tables.load(game_id)
            info = table.meta.seats[seat]
            if (
                info.kind == HUMAN
                and (await self.players.table(game_id)).get(f"p{seat}") == me.player_id
            ):  # accepted before (or by a racing twin of this request): one token per
                # invitation, as docs/bots.md says; a bot that lost the answer claims its seat
                # (POST /api/games/{id}/claim) for a new token
                raise gone
            if info.kind != OPEN or info.invited != me.player_id or table.status == "over":
                raise failed("invitation_gone", f"seat {seat} of game {game_id} is not yours")
            await self.bots.take_game(me.player_id, game_id, self._running)
            # The player sits first, so the commit's your_turn finds it (player_feed.py).
            await self.players.sit(
                game_id, table.meta.kind, seat, me.player_id, table.created_at_ms
            )
            token = new_token()
            taken = SeatInfo(HUMAN, info.name, "", token_hash(game_id, token), bot=True)
            meta = table.meta.with_seat(seat, taken)
            event = {"action": "join", "seat": seat, "name": info.name, "bot": True,
                     **start_fields(table.state, status_of(meta, table.state))}  # fmt: skip
            result = await self.tables.commit(
                table, table.state, event, new_request_key(), meta=meta, moved=()
            )
            if isinstance(result, Conflict):
                if result.current_version is None:
                    raise not_found(game_id)
                continue
            await self.redis.hset(invitation_key(iid), "state", "accepted")
            return engine_pb2.JoinGameResponse(game_id=game_id, seat=seat, token=token)
        raise aborted(game_id, None, -1)

    async def decline(
        self, request: engine_pb2.InvitationRequest, context: Any
    ) -> engine_pb2.DeclineInvitationResponse:
        me, iid, fields = await self._mine(request, context)
        game_id, seat = fields["game_id"], int(fields["seat"])
        for _ in range(COMMIT_ATTEMPTS):
            table = await self.tables.load(game_id)
            info = table.meta.seats[seat]
            if info.kind != OPEN or info.invited != me.player_id:
                if fields.get("state") == "declined":
                    return engine_pb2.DeclineInvitationResponse(declined=True)
                raise failed("invitation_gone", f"seat {seat} of game {game_id} is not yours")
            meta = table.meta.with_seat(seat, SeatInfo(OPEN, ""))
            event = {"action": "declined", "seat": seat, "name": info.name}
            result = await self.tables.commit(
                table, table.state, event, new_request_key(), meta=meta, moved=()
            )
            if isinstance(result, Conflict):
                if result.current_version is None:
                    raise not_found(game_id)
                continue
            await self.redis.hset(invitation_key(iid), "state", "declined")
            return engine_pb2.DeclineInvitationResponse(declined=True)
        raise aborted(game_id, None, -1)

    async def _running(self, game_id: str) -> bool:
        now = await self.tables.store.version_of(game_id)
        return now is not None and now[1] != "over"

    async def bot_sat(self, table: Table, seat: int, player_id: str) -> None:
        """A bot took a seat by joining and SitPlayer: mark the seat as a bot's (its name is
        marked everywhere) and, when the seat must move now, say so on its stream."""
        await self.bots.take_game(player_id, table.game_id, self._running)
        for _ in range(COMMIT_ATTEMPTS):
            info = table.meta.seats[seat]
            if info.bot:
                break
            meta = table.meta.with_seat(seat, replace(info, bot=True))
            result = await self.tables.commit(
                table, table.state, {"action": "bot", "seat": seat}, new_request_key(),
                meta=meta, moved=(),
            )  # fmt: skip
            if not isinstance(result, Conflict):
                return  # the commit's own your_turn follows (player_feed.py)
            if result.current_version is None:
                raise not_found(table.game_id)
            table = await self.tables.load(table.game_id)
        if table.status == "playing" and seat in table.state.to_move():
            await self.feed.publish(player_id, your_turn(table, seat))

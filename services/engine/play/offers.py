"""Agreeing to stop (Offer, issue 35): at a table of people only, a seat offers the rest to
abort the game (no result) or to end it now (scored as it stands); both are unrated. Every seat
still in play must accept; a decline, or anything else committed at the table (a move, a seat
leaving: tables.py), ends the offer. One offer at a time, numbered (`n`), so an answer names the
offer it answers and a late answer to an old one is refused rather than applied to a new one.

The offer and the end live in the game's meta (public facts, in every view): a stopped game is
"over" whatever its state says (tables.status_of); its state has no outcome, so ratings pass it
over, and its record ends where the play stopped (it still replays).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from metro.v1 import engine_pb2

from services.common.grpc_util import invalid_argument
from services.engine.core import validation
from services.engine.core.access import Caller, ClaimedSeats, seat_of
from services.engine.core.edge import aborted, failed
from services.engine.core.meta import GameMeta
from services.engine.core.store import new_request_key
from services.engine.core.table import Table, seat_view
from services.engine.core.tables import Tables

OFFER_ATTEMPTS = 20  # an answer races the other seats' answers and moves
KINDS = ("abort", "end")
ANSWERS = ("accept", "decline")


def in_play(meta: GameMeta) -> list[int]:
    """The seats still in the game (not retired): those whose yes an offer needs."""
    return [i for i, s in enumerate(meta.seats) if not s.lost]


def people_only(meta: GameMeta) -> bool:
    """A table of people: no AI seat, no bot account, nobody's seat played by the AI now."""
    return all(s.kind == "human" and not s.bot and not s.away for s in meta.seats if not s.lost)


def winners_now(table: Table) -> list[int]:
    """The seats in play with the highest score as the game stands (an "end" agreed)."""
    scores = list(table.state.scores)
    seats = in_play(table.meta)
    best = max(scores[s] for s in seats)
    return [s for s in seats if scores[s] == best]


class StopOffers:
    def __init__(self, tables: Tables, claims: ClaimedSeats) -> None:
        self.tables = tables
        self.claims = claims

    async def offer(self, request: engine_pb2.OfferRequest, caller: Caller) -> engine_pb2.GameView:
        game_id = validation.game_id(request.game_id)
        if caller.is_ai_service:
            raise invalid_argument("offer", "only a seat's own player offers or answers")
        if request.answer and request.answer not in ANSWERS:
            raise invalid_argument("answer", "answer is 'accept' or 'decline'")
        if not request.answer and request.kind not in KINDS:
            raise invalid_argument("kind", "kind is 'abort' (no result) or 'end' (as it stands)")
        for _ in range(OFFER_ATTEMPTS):
            table = await self.tables.load(game_id)
            seat = await seat_of(caller, self.claims, table.meta, game_id, None)
            change = self._change(table, seat, request)
            if change is None:
                return seat_view(table, seat)  # answered already: nothing changes
            meta, event = change
            result = await self.tables.commit(
                table, table.state, event, new_request_key(), meta=meta, new_turn=False,
                moved=(),
            )  # fmt: skip
            view = await self.tables.seat_view_after(result, game_id, seat)
            if view is not None:
                return view
        raise aborted(game_id, None, -1)

    def _change(
        self, table: Table, seat: int, request: engine_pb2.OfferRequest
    ) -> tuple[GameMeta, dict[str, Any]] | None:
        """The meta and event of this offer or answer; None when it changes nothing."""
        meta = table.meta
        if table.status != "playing":
            raise failed("game_not_playing", f"game {table.game_id} is not being played")
        if meta.seats[seat].lost:
            raise failed("seat_retired", "your seat is out of the game")
        offer = meta.offer
        if not request.answer:
            if not people_only(meta):
                raise failed(
                    "people_only", "only a table of people (no AI, no bot) can agree to stop"
                )
            if offer is not None:
                raise failed("offer_open", f"offer {offer['n']} is still open: answer it first")
            n = meta.offers_made + 1
            offer = {"n": n, "kind": request.kind, "by": seat, "accepted": [seat]}
            event = {"action": "offer", "seat": seat, "offer": offer}
            return replace(meta, offer=offer, offers_made=n), event
        if offer is None or offer["n"] != request.n:
            raise failed("offer_closed", f"offer {request.n} is not open (declined or lapsed)")
        if request.answer == "decline":
            event = {"action": "offer_declined", "seat": seat, "offer": offer}
            return replace(meta, offer=None), event
        if seat in offer["accepted"]:
            return None
        offer = {**offer, "accepted": sorted([*offer["accepted"], seat])}
        if set(offer["accepted"]) < set(in_play(meta)):
            event = {"action": "offer_accepted", "seat": seat, "offer": offer}
            return replace(meta, offer=offer), event
        winners = winners_now(table) if offer["kind"] == "end" else []
        ended = {"kind": offer["kind"], "winners": winners}
        event = {"action": "offer_agreed", "seat": seat, "offer": offer, "winners": winners}
        return replace(meta, offer=None, ended=ended), event

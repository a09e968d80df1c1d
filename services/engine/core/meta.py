"""What the engine knows about a game beyond the rules core's state: its kind, options, and who
sits where (names, kinds, AI levels, hashed tokens). Stored as JSON in the game's hash."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from services.common.levels import DEFAULT_LEVEL
from services.engine.core.clocks import Clock, ClockRules

HUMAN, OPEN, AI = "human", "open", "ai"
SEAT_KINDS = (HUMAN, OPEN, AI)


@dataclass(frozen=True, slots=True)
class SeatInfo:
    kind: str
    name: str = ""
    level: str = ""
    token_hash: str = ""
    away: bool = False  # a person's seat the AI plays (time ran out, or the player left)
    lost: bool = False  # retired by a time-out at a table where that loses
    bot: bool = False  # a bot account holds this seat, or is invited to it (issue 24)
    invited: str = ""  # an open seat reserved for this bot's player id (invitations.py)

    def public(self) -> dict[str, Any]:
        """The seat as anyone may see it (never the token hash)."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.kind == AI:
            out["level"] = self.level
        if self.bot:
            out["bot"] = True
        return out

    @property
    def played_by_ai(self) -> bool:
        return self.kind == AI or self.away


@dataclass(frozen=True, slots=True)
class GameMeta:
    kind: str
    rules: dict[str, Any]
    seats: tuple[SeatInfo, ...]
    created_at_ms: int
    extra: dict[str, Any] = field(default_factory=dict)
    clock_rules: ClockRules | None = None
    clock: Clock | None = None  # where the clocks stand (None: the table has no clock)
    # Unlisted, and its record only for its seats (a daily puzzle's attempt: daily.py).
    private: bool = False
    # A scored daily attempt (daily_calls.py): its player gets no hints while it runs (the
    # view's `"hints": false`; the AI service refuses them), so the day's results are theirs.
    scored_daily: bool = False
    # An open offer to stop (offers.py, issue 35): {"n", "kind", "by", "accepted": [seats]}.
    offer: dict[str, Any] | None = None
    offers_made: int = 0  # numbers the offers (n), so an answer names the one it answers
    # Stopped by agreement (offers.py): {"kind": "abort"|"end", "winners": [...]}; the game is
    # then over whatever its state says, and unrated (the state has no outcome).
    ended: dict[str, Any] | None = None

    @property
    def open_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.kind == OPEN]

    @property
    def joinable_seats(self) -> list[int]:
        """Open seats anyone may take: not those reserved for an invited bot."""
        return [i for i, s in enumerate(self.seats) if s.kind == OPEN and not s.invited]

    @property
    def status_before_over(self) -> str:
        """ "waiting" while a seat is open, else "playing"."""
        return "waiting" if self.open_seats else "playing"

    def is_ai(self, seat: int | None) -> bool:
        """Whether the AI plays `seat` now (an AI seat, or a person's seat while away)."""
        return seat is not None and 0 <= seat < len(self.seats) and self.seats[seat].played_by_ai

    def ai_level(self, seat: int) -> str:
        """The level the AI plays `seat` at: its own, or the table's for an away seat."""
        info = self.seats[seat]
        if info.kind == AI:
            return info.level
        return self.clock_rules.ai_level if self.clock_rules else DEFAULT_LEVEL

    def with_seat(self, seat: int, info: SeatInfo) -> GameMeta:
        seats = list(self.seats)
        seats[seat] = info
        return replace(self, seats=tuple(seats))

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "kind": self.kind,
            "rules": self.rules,
            "seats": [asdict(s) for s in self.seats],
            "created_at_ms": self.created_at_ms,
        }
        if self.clock_rules is not None:
            data["clock_rules"] = self.clock_rules.to_json()
        if self.clock is not None:
            data["clock"] = self.clock.to_json()
        if self.private:
            data["private"] = True
        if self.scored_daily:
            data["scored_daily"] = True
        if self.offer is not None:
            data["offer"] = self.offer
        if self.offers_made:
            data["offers_made"] = self.offers_made
        if self.ended is not None:
            data["ended"] = self.ended
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameMeta:
        return cls(
            kind=data["kind"],
            rules=data["rules"],
            seats=tuple(SeatInfo(**s) for s in data["seats"]),
            created_at_ms=int(data.get("created_at_ms", 0)),
            clock_rules=ClockRules(**data["clock_rules"]) if "clock_rules" in data else None,
            clock=Clock.from_json(data["clock"]) if "clock" in data else None,
            private=bool(data.get("private", False)),
            scored_daily=bool(data.get("scored_daily", False)),
            offer=data.get("offer"),
            offers_made=int(data.get("offers_made", 0)),
            ended=data.get("ended"),
        )

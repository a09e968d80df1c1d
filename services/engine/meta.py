"""What the engine knows about a game beyond the rules core's state: its kind, options, and who
sits where (names, kinds, AI levels, hashed tokens). Stored as JSON in the game's hash."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

HUMAN, OPEN, AI = "human", "open", "ai"
SEAT_KINDS = (HUMAN, OPEN, AI)


@dataclass(frozen=True, slots=True)
class SeatInfo:
    kind: str
    name: str = ""
    level: str = ""
    token_hash: str = ""

    def public(self) -> dict[str, Any]:
        """The seat as anyone may see it (never the token hash)."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.kind == AI:
            out["level"] = self.level
        return out


@dataclass(frozen=True, slots=True)
class GameMeta:
    kind: str
    rules: dict[str, Any]
    seats: tuple[SeatInfo, ...]
    created_at_ms: int
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def open_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.kind == OPEN]

    @property
    def status_before_over(self) -> str:
        """ "waiting" while a seat is open, else "playing"."""
        return "waiting" if self.open_seats else "playing"

    def is_ai(self, seat: int | None) -> bool:
        return seat is not None and 0 <= seat < len(self.seats) and self.seats[seat].kind == AI

    def with_seat(self, seat: int, info: SeatInfo) -> GameMeta:
        seats = list(self.seats)
        seats[seat] = info
        return replace(self, seats=tuple(seats))

    def to_json(self) -> str:
        return json.dumps(
            {
                "kind": self.kind,
                "rules": self.rules,
                "seats": [asdict(s) for s in self.seats],
                "created_at_ms": self.created_at_ms,
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameMeta:
        return cls(
            kind=data["kind"],
            rules=data["rules"],
            seats=tuple(SeatInfo(**s) for s in data["seats"]),
            created_at_ms=int(data.get("created_at_ms", 0)),
        )

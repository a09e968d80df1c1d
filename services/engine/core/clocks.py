"""Table clocks: how long each seat may take, and what happens when its time runs out.

Pure arithmetic on milliseconds (no I/O, no reading of the wall clock): the engine passes `now_ms`
in, stores the result with the game, and its clock keeper (timeouts.py) acts on deadlines
that have passed, so a clock runs out even when no browser is open and across engine restarts.

Two kinds of clock, chosen by the table (`"clock"` when the game is created):
- real time: `move_s` seconds for each move, then the seat's own `bank_s` (a reserve that only
  shrinks: the time a move takes beyond `move_s` comes out of it);
- correspondence: `move_s` (e.g. a day) for each move, no bank.
In a simultaneous turn the clock is per turn: every seat that must choose has the same deadline,
`move_s` from the turn's start; banks are for turns a seat plays alone.

When a seat's time runs out (`on_timeout`): "ai" (the default) lets the AI play for the seat at the
table's `ai_level` until its player takes it back; "lose" freezes the seat's score and skips its
turns for the rest of the game.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from services.common.levels import DEFAULT_LEVEL, level_error

REAL_TIME, CORRESPONDENCE = "realtime", "correspondence"
MODES = (REAL_TIME, CORRESPONDENCE)
ON_TIMEOUT = ("ai", "lose")
# Bounds that keep a table playable: at least 5 s a move, at most 14 days; a bank up to 2 h.
MOVE_S_RANGE = {REAL_TIME: (5, 3600), CORRESPONDENCE: (600, 14 * 86400)}
BANK_S_MAX = 7200
FIELDS = ("mode", "move_s", "bank_s", "on_timeout", "ai_level")


class ClockError(ValueError):
    """A clock setting that is not allowed; `field` names it as the request holds it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True, slots=True)
class ClockRules:
    """The table's choice of clock."""

    mode: str
    move_s: int
    bank_s: int = 0
    on_timeout: str = "ai"
    ai_level: str = DEFAULT_LEVEL

    @classmethod
    def parse(cls, data: Mapping[str, Any] | None, kind: str | None = None) -> ClockRules | None:
        """The clock a create request for game `kind` asks for (None: no clock); ClockError
        naming a bad field."""
        if data is None or data == {} or data.get("mode") in (None, "none"):
            extra = set(data or {}) - {"mode"}
            if extra:
                name = f"clock.{sorted(extra)[0]}"
                raise ClockError(name, f"{name}: a table without a clock takes no other setting")
            return None
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise ClockError(
                f"clock.{unknown[0]}",
                f"clock.{unknown[0]} is not a clock setting; known: {', '.join(FIELDS)}",
            )
        mode = data.get("mode")
        if mode not in MODES:
            raise ClockError(
                "clock.mode", "clock.mode must be 'realtime', 'correspondence' or 'none'"
            )
        low, high = MOVE_S_RANGE[mode]
        move_s = _whole(data.get("move_s", 30 if mode == REAL_TIME else 86400), "clock.move_s")
        if not low <= move_s <= high:
            raise ClockError(
                "clock.move_s", f"clock.move_s must be {low}-{high} seconds for a {mode} clock"
            )
        bank_s = _whole(data.get("bank_s", 180 if mode == REAL_TIME else 0), "clock.bank_s")
        if mode == CORRESPONDENCE and bank_s:
            raise ClockError("clock.bank_s", "clock.bank_s: a correspondence clock has no bank")
        if not 0 <= bank_s <= BANK_S_MAX:
            raise ClockError("clock.bank_s", f"clock.bank_s must be 0-{BANK_S_MAX} seconds")
        on_timeout = data.get("on_timeout", "ai")
        if on_timeout not in ON_TIMEOUT:
            raise ClockError("clock.on_timeout", "clock.on_timeout must be 'ai' or 'lose'")
        level = data.get("ai_level", DEFAULT_LEVEL)
        error = (
            level_error(level, "clock.ai_level", kind)
            if isinstance(level, str)
            else (f"clock.ai_level must be a string naming a level; got {level!r}")
        )
        if error:
            raise ClockError("clock.ai_level", error)
        return cls(mode, move_s, bank_s, on_timeout, level)

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "move_s": self.move_s,
            "bank_s": self.bank_s,
            "on_timeout": self.on_timeout,
            "ai_level": self.ai_level,
        }


def _whole(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ClockError(field, f"{field} must be a whole number of seconds")
    return value


@dataclass(frozen=True, slots=True)
class Clock:
    """Where the clocks stand: each seat's bank, the open turn's start, each mover's deadline.

    `deadlines_ms` holds a deadline for each seat whose time runs now (the seats to move that a
    person plays); empty when no clock runs (no seat to time, or the game is over)."""

    banks_ms: tuple[int, ...]
    turn_started_ms: int
    deadlines_ms: tuple[tuple[int, int], ...] = ()  # (seat, deadline)

    @classmethod
    def start(cls, rules: ClockRules, seats: int) -> Clock:
        return cls(banks_ms=(rules.bank_s * 1000,) * seats, turn_started_ms=0)

    @property
    def next_deadline_ms(self) -> int | None:
        """The earliest deadline, None when no clock runs: what the keeper's index holds."""
        return min((d for _, d in self.deadlines_ms), default=None)

    def expired(self, now_ms: int) -> tuple[int, ...]:
        """The seats whose time has run out at `now_ms`."""
        return tuple(seat for seat, deadline in self.deadlines_ms if deadline <= now_ms)

    def after_change(
        self,
        rules: ClockRules,
        moved: Iterable[int],
        timed: Iterable[int],
        now_ms: int,
        new_turn: bool,
    ) -> Clock:
        """The clock after a public change at `now_ms`.

        `moved`: the seats whose move ended their time this turn (their overrun comes out of
        their bank); `timed`: the seats to move now whose time runs (people, not the AI);
        `new_turn`: the change began a new turn (else the running deadlines stay as they are).
        """
        banks = list(self.banks_ms)
        moved = tuple(moved)
        if rules.mode == REAL_TIME and self.turn_started_ms and len(moved) == 1:
            # (A simultaneous turn's choosers all had the turn's time; no bank is drawn on.)
            used = now_ms - self.turn_started_ms
            overrun = max(0, used - rules.move_s * 1000)
            banks[moved[0]] = max(0, banks[moved[0]] - overrun)
        timed = tuple(timed)
        if not new_turn:
            keep = set(timed)
            return Clock(
                tuple(banks),
                self.turn_started_ms,
                tuple((s, d) for s, d in self.deadlines_ms if s in keep),
            )
        with_bank = rules.mode == REAL_TIME and len(timed) == 1
        deadlines = tuple(
            (seat, now_ms + rules.move_s * 1000 + (banks[seat] if with_bank else 0))
            for seat in sorted(timed)
        )
        return Clock(tuple(banks), now_ms, deadlines)

    def resume(self, rules: ClockRules, seats: Iterable[int], now_ms: int) -> Clock:
        """Start `seats`' clocks afresh mid-turn (taken back from the AI): a whole move's time
        plus their banks from now."""
        running = dict(self.deadlines_ms)
        for seat in seats:
            bank = self.banks_ms[seat] if rules.mode == REAL_TIME else 0
            running[seat] = now_ms + rules.move_s * 1000 + bank
        return Clock(self.banks_ms, self.turn_started_ms, tuple(sorted(running.items())))

    def remaining_ms(self, now_ms: int) -> list[int | None]:
        """Each seat's time left now: its running deadline's distance, or its bank when its
        clock is not running (None without a bank)."""
        running = dict(self.deadlines_ms)
        out: list[int | None] = []
        for seat, bank in enumerate(self.banks_ms):
            if seat in running:
                out.append(max(0, running[seat] - now_ms))
            else:
                out.append(bank)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "banks_ms": list(self.banks_ms),
            "turn_started_ms": self.turn_started_ms,
            "deadlines_ms": [list(x) for x in self.deadlines_ms],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Clock:
        return cls(
            banks_ms=tuple(int(b) for b in data["banks_ms"]),
            turn_started_ms=int(data["turn_started_ms"]),
            deadlines_ms=tuple((int(s), int(d)) for s, d in data.get("deadlines_ms", ())),
        )

"""The clock arithmetic (services/engine/core/clocks.py), with the time passed in as a test
clock."""

from __future__ import annotations

import pytest

from services.engine.core.clocks import Clock, ClockError, ClockRules

REAL = ClockRules.parse({"mode": "realtime", "move_s": 30, "bank_s": 180})
POST = ClockRules.parse({"mode": "correspondence", "move_s": 86400})


def test_no_clock_is_none_and_takes_no_other_setting() -> None:
    assert ClockRules.parse(None) is None
    assert ClockRules.parse({}) is None
    assert ClockRules.parse({"mode": "none"}) is None
    with pytest.raises(ClockError) as err:
        ClockRules.parse({"mode": "none", "move_s": 10})
    assert err.value.field == "clock.move_s"


@pytest.mark.parametrize(
    ("setting", "field"),
    [
        ({"mode": "blitz"}, "clock.mode"),
        ({"mode": "realtime", "move_s": 1}, "clock.move_s"),
        ({"mode": "realtime", "move_s": "30"}, "clock.move_s"),
        ({"mode": "realtime", "move_s": True}, "clock.move_s"),
        ({"mode": "realtime", "bank_s": -1}, "clock.bank_s"),
        ({"mode": "correspondence", "bank_s": 60}, "clock.bank_s"),
        ({"mode": "realtime", "on_timeout": "pause"}, "clock.on_timeout"),
        ({"mode": "realtime", "ai_level": "godlike"}, "clock.ai_level"),
        ({"mode": "realtime", "speed": 2}, "clock.speed"),
    ],
)
def test_bad_settings_name_the_field(setting: dict[str, object], field: str) -> None:
    with pytest.raises(ClockError) as err:
        ClockRules.parse(setting)
    assert err.value.field == field
    assert field in str(err.value)


def test_defaults() -> None:
    assert ClockRules("realtime", 30, 180, "ai", "medium") == REAL
    assert ClockRules("correspondence", 86400, 0, "ai", "medium") == POST
    assert ClockRules.parse({"mode": "realtime"}) == ClockRules("realtime", 30, 180)


def test_real_time_overrun_comes_out_of_the_bank() -> None:
    assert REAL is not None
    clock = Clock.start(REAL, 2).after_change(REAL, (), (0,), now_ms=1_000, new_turn=True)
    assert clock.deadlines_ms == ((0, 1_000 + 30_000 + 180_000),)
    assert clock.next_deadline_ms == 211_000
    # Seat 0 takes 50 s: 20 s beyond its 30 s come out of its bank.
    clock = clock.after_change(REAL, (0,), (1,), now_ms=51_000, new_turn=True)
    assert clock.banks_ms == (160_000, 180_000)
    assert clock.deadlines_ms == ((1, 51_000 + 30_000 + 180_000),)
    # Seat 1 is quick: its bank is untouched.
    clock = clock.after_change(REAL, (1,), (0,), now_ms=56_000, new_turn=True)
    assert clock.banks_ms == (160_000, 180_000)
    assert clock.deadlines_ms == ((0, 56_000 + 30_000 + 160_000),)
    assert clock.remaining_ms(66_000) == [180_000, 180_000]


def test_expiry_is_exactly_at_the_deadline() -> None:
    assert REAL is not None
    clock = Clock.start(REAL, 2).after_change(REAL, (), (1,), now_ms=0, new_turn=True)
    assert clock.expired(209_999) == ()
    assert clock.expired(210_000) == (1,)


def test_correspondence_has_no_bank() -> None:
    """A day per move, with a test clock three days on."""
    assert POST is not None
    day = 86_400_000
    clock = Clock.start(POST, 3).after_change(POST, (), (2,), now_ms=5, new_turn=True)
    assert clock.deadlines_ms == ((2, 5 + day),)
    assert clock.expired(day) == ()
    assert clock.expired(3 * day) == (2,)
    clock = clock.after_change(POST, (2,), (0,), now_ms=day, new_turn=True)
    assert clock.banks_ms == (0, 0, 0)


def test_simultaneous_turn_keeps_its_deadlines_while_seats_choose() -> None:
    """Per turn: every chooser's deadline is set at the turn's start; a choice stops only that
    seat's clock."""
    assert REAL is not None
    clock = Clock.start(REAL, 3).after_change(REAL, (), (0, 1, 2), now_ms=0, new_turn=True)
    assert clock.deadlines_ms == ((0, 30_000), (1, 30_000), (2, 30_000))
    clock = clock.after_change(REAL, (), (0, 2), now_ms=40_000, new_turn=False)
    assert [s for s, _ in clock.deadlines_ms] == [0, 2]
    assert clock.turn_started_ms == 0
    # The turn resolves late: nobody's bank pays for it.
    clock = clock.after_change(REAL, (0, 1, 2), (0, 1, 2), now_ms=90_000, new_turn=True)
    assert clock.banks_ms == (180_000,) * 3


def test_round_trip() -> None:
    assert REAL is not None
    clock = Clock.start(REAL, 2).after_change(REAL, (), (0,), now_ms=7, new_turn=True)
    assert Clock.from_json(clock.to_json()) == clock


def test_a_seat_taken_back_mid_turn_gets_a_fresh_deadline() -> None:
    assert REAL is not None
    clock = Clock.start(REAL, 2).after_change(REAL, (), (), now_ms=0, new_turn=True)
    assert clock.next_deadline_ms is None
    clock = clock.resume(REAL, (1,), now_ms=100_000)
    assert clock.deadlines_ms == ((1, 100_000 + 30_000 + 180_000),)

"""The compact record format (games/compact.py and each game's compact.py): every finished
game's record comes back equal from its bytes, whatever the game, seat count, variant or
retirements; the bytes stay small; bad bytes and bad records are refused with RecordError."""

from __future__ import annotations

import random
import zlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import games
from games.compact import VERSION, decode_record, encode_record
from games.errors import RecordError


def finished(kind: str, rules: dict[str, Any], seed: int, retire_p: float = 0.0) -> dict[str, Any]:
    """A game played to its end at random through the checked door; with `retire_p`, a random
    seat retires before a move with that chance (on its own turn, another's, mid-draw...)."""
    game = games.get(kind)
    state = game.new_state(game.normalise_rules(rules), seed)
    rng = random.Random(seed)
    while not state.is_over:
        left = [s for s in range(state.seat_count) if s not in state.retired]
        if retire_p and rng.random() < retire_p and left:
            state.retire(rng.choice(left))
            continue
        seat = state.to_move()[0]
        legal = state.legal_moves(seat)
        state.play(seat, legal[rng.randrange(len(legal))].to_json())
    return state.record([{"name": f"p{i}", "kind": "human"} for i in range(state.seat_count)])


def roundtrip(record: dict[str, Any]) -> bytes:
    data = encode_record(record)
    assert decode_record(data, record["seats"]) == record
    return data


CASES = [
    *[("metro", {"players": n}) for n in range(2, 7)],
    ("metro", {"players": 3, "online": True, "hand_size": 2}),
    ("metro", {"players": 4, "rotation": True, "hand_size": 3}),
    ("metro", {"players": 5, "online": True, "rotation": True}),
    *[("metrox", {"players": n}) for n in (1, 2, 20)],
    ("metrox", {"players": 3, "map": "kessel", "daily": "golden-1"}),
    *[("underground", {"players": n}) for n in range(2, 6)],
]


@pytest.mark.parametrize(("kind", "rules"), CASES, ids=lambda v: str(v))
def test_records_come_back_equal_with_and_without_retirements(
    kind: str, rules: dict[str, Any]
) -> None:
    for seed in range(4 if kind == "underground" else 8):
        roundtrip(finished(kind, rules, seed, retire_p=0.0 if seed % 2 else 0.03))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from(CASES),
    seed=st.integers(0, 2**31),
    retire_p=st.sampled_from([0.0, 0.01, 0.05, 0.3]),
)
def test_any_random_finished_game_round_trips(
    case: tuple[str, dict[str, Any]], seed: int, retire_p: float
) -> None:
    kind, rules = case
    roundtrip(finished(kind, rules, seed, retire_p))


def test_every_seat_retiring_round_trips() -> None:
    for kind, rules in (("metro", {"players": 3}), ("metrox", {"players": 3}),
                        ("underground", {"players": 3})):  # fmt: skip
        roundtrip(finished(kind, rules, 5, retire_p=0.9))


@pytest.mark.parametrize(
    ("kind", "rules", "most"),
    [
        ("metro", {"players": 2}, 80),
        ("metro", {"players": 6}, 140),
        ("metrox", {"players": 2}, 64),
        ("metrox", {"players": 20}, 320),
        ("underground", {"players": 2}, 128),
        ("underground", {"players": 5}, 128),
    ],
)
def test_bytes_stay_small(kind: str, rules: dict[str, Any], most: int) -> None:
    sizes = [len(roundtrip(finished(kind, rules, seed))) for seed in range(6)]
    assert max(sizes) <= most, sizes


def test_seats_are_not_stored_and_come_from_the_caller() -> None:
    record = finished("metro", {"players": 2}, 1)
    data = encode_record(record)
    assert b"p0" not in data
    other = [{"name": "deleted player", "kind": "human"}, {"name": "bot", "kind": "ai"}]
    assert decode_record(data, other) == {**record, "seats": other}
    with pytest.raises(RecordError, match="seats"):
        decode_record(data, other[:1])


def test_every_damaged_byte_and_every_cut_is_refused() -> None:
    data = encode_record(finished("underground", {"players": 2}, 3))
    for i in range(len(data)):
        for flip in (1, 0x80, 0xFF):
            bad = data[:i] + bytes([data[i] ^ flip]) + data[i + 1 :]
            with pytest.raises(RecordError):
                decode_record(bad, [{}, {}])
    for n in range(len(data)):
        with pytest.raises(RecordError):
            decode_record(data[:n], [{}, {}])
    with pytest.raises(RecordError):
        decode_record(data + b"\x00", [{}, {}])
    with pytest.raises(RecordError):
        decode_record("not bytes", [{}, {}])  # type: ignore[arg-type]


def _sealed(body: bytes) -> bytes:
    return body + zlib.crc32(body).to_bytes(4, "little")


def test_bytes_with_a_good_checksum_are_still_checked_by_replay() -> None:
    """Past the checksum, decoding re-checks: a changed payload either is refused or is the
    record of another legal game (the rules core replayed it), never a broken record."""
    record = finished("metro", {"players": 3}, 2, retire_p=0.03)
    body = encode_record(record)[:-4]
    seats = record["seats"]
    with pytest.raises(RecordError, match="version"):
        decode_record(_sealed(bytes([VERSION + 1]) + body[1:]), seats)
    with pytest.raises(RecordError, match="tag"):
        decode_record(_sealed(body[:1] + b"\xfe" + body[2:]), seats)
    with pytest.raises(RecordError, match="shortest"):
        decode_record(_sealed(body + b"\x00"), seats)
    rng = random.Random(7)
    other_games = 0
    for _ in range(200):
        i = rng.randrange(2, len(body))
        changed = body[:i] + bytes([body[i] ^ (1 << rng.randrange(8))]) + body[i + 1 :]
        if rng.random() < 0.2:  # or longer: a number past the game's end
            changed += bytes([rng.randrange(1, 256)])
        try:
            back = decode_record(_sealed(changed), seats)
        except RecordError:
            continue
        other_games += 1
        assert back != record
        games.get("metro").replay(back)
        assert decode_record(encode_record(back), seats) == back
    assert other_games < 200


def test_records_the_format_cannot_give_back_are_refused() -> None:
    record = finished("metro", {"players": 2}, 4)
    with pytest.raises(RecordError, match="replay to itself"):
        encode_record({**record, "note": "extra"})
    with pytest.raises(RecordError, match="replay to itself"):
        encode_record({**record, "scores": [0, 0]})
    with pytest.raises(RecordError):
        encode_record({**record, "moves": record["moves"][:-3]})  # not finished
    moves = [dict(m) for m in record["moves"]]
    moves[5]["placement"] = moves[4]["placement"]  # a square taken already
    with pytest.raises(RecordError, match="move 5"):
        encode_record({**record, "moves": moves})
    with pytest.raises(RecordError):
        encode_record({**record, "rules": {"players": 9}})
    with pytest.raises(RecordError, match="unknown game"):
        encode_record({**record, "game": "chess"})
    with pytest.raises(RecordError):
        encode_record({**record, "deck": record["deck"][1:]})
    x = finished("metrox", {"players": 2}, 4)
    with pytest.raises(RecordError):
        encode_record({**x, "cards": ["5*", *x["cards"][1:]]})
    u = finished("underground", {"players": 2}, 4)
    with pytest.raises(RecordError):
        encode_record({**u, "moves": u["moves"][1:]})


def test_a_choice_value_the_layout_does_not_know_goes_as_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A map added to the game but not (yet) to the codec's layout still round-trips."""
    codec = games.get("metrox").record_codec()
    record = finished("metrox", {"players": 2, "map": "kessel"}, 3)
    known = encode_record(record)
    monkeypatch.setattr(type(codec), "rules_layout", (("players", ()), ("map", ()), ("daily", ())))
    as_text = encode_record(record)
    assert len(as_text) > len(known)
    assert decode_record(as_text, record["seats"]) == record


def test_bytes_from_a_shorter_layout_decode_after_options_are_added(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Options appended to a layout later read as absent (their default) from older bytes."""
    codec = games.get("metrox").record_codec()
    full = codec.rules_layout
    record = finished("metrox", {"players": 2}, 4)
    monkeypatch.setattr(type(codec), "rules_layout", full[:2])
    old = encode_record(record)
    monkeypatch.setattr(type(codec), "rules_layout", full)
    assert decode_record(old, record["seats"]) == record
    monkeypatch.setattr(type(codec), "rules_layout", full[:1])
    with pytest.raises(RecordError, match="newer layout"):
        decode_record(old, record["seats"])


# Bytes written by version 1 of the format: they must decode to these games for good (a change
# of the format, of a codec's layout or of the rules core that breaks them fails here).
PINNED = {
    ("metro", 2): (
        "0101cc584cf3cec6a2242a942c2a3cf502753dfaba78a3f7c6e553a1776bbbb174df2bdbfe3b230e"
        "34a1555e7a7f58f1b00754202f66eb55b2790ef2b27104eaa8735e"
    ),
    ("metrox", 2): (
        "0102c4ce2e8118d8187194d0acf7b536c46aa1f6f314c3f97faa55fb22b8b46825a25ec55f6bf22782a7"
    ),
    ("underground", 2): (
        "0103b6a515b4766567b1f75c56e0993d353c1519c37ec8a8bf916773d1f759b9b33de88e4161498c"
        "b27000b70a05eab1a58496a187587c7e5db9730d9c8656b46734a732e7911bc28c39cfe7b628b7ea"
        "4302b3dd00ac04ce581a8c5c1c1cb28f"
    ),
}


@pytest.mark.parametrize(("kind", "players"), list(PINNED))
def test_archived_bytes_of_version_1_still_decode(kind: str, players: int) -> None:
    record = finished(kind, {"players": players}, 11)
    data = bytes.fromhex(PINNED[kind, players])
    assert decode_record(data, record["seats"]) == record
    assert encode_record(record) == data

"""The compact record format: a finished game's record in a few dozen bytes (docs/archive.md).

Why: the archive keeps every game for good, so a record's size is paid a billion times. As
lichess does, a move is stored as its index in that position's legal-move list and decoded by
replay through the rules core; chance (deck orders, revealed cards) is stored as the rank of
each item among those still left; the rules as each option's index in the game's option table.
Seats are not stored: names live apart (and change when a player deletes their account).

Every symbol is coded exactly (no tables to train) into one big integer by range coding with
unbounded precision (rANS over Python ints): a symbol of frequency f out of a total T costs
log2(T/f) bits, a uniform choice among n costs log2(n). Layout:

    byte 0     VERSION
    byte 1     the game's tag (`RecordCodec.tag`, from the game's own codec)
    bytes 2..  the coded integer, little-endian, minimal length (no trailing zero byte)
    last 4     CRC-32 of everything before it

The game-agnostic part lives here (the framing, the rules by option table, moves by legal
index, permutations); each game's own part (its chance, its retirements, how its record walks)
is its package's `compact.py`, reached through one hook, `Game.record_codec()`, so that nothing
here names a game. Decoding re-checks everything: bad bytes raise `RecordError`, never a wrong
record; encoding checks that the bytes give back the very record it was handed.
"""

from __future__ import annotations

import json
import zlib
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Protocol

from games import registry
from games.base import JSON, Game, GameState
from games.errors import GameError, RecordError

VERSION = 1
_HEAD = 2  # version and tag
_CRC = 4
_UINT_BITS = 64


class Writer:
    """Collects symbols in order; `finish()` codes them (last first, as rANS does)."""

    __slots__ = ("_syms",)

    def __init__(self) -> None:
        self._syms: list[tuple[int, int, int]] = []  # (cumulative, frequency, total)

    def put(self, value: int, radix: int) -> None:
        """A uniform choice: `value` among `radix` (0 <= value < radix)."""
        if radix > 1:
            self._syms.append((value, 1, radix))

    def put_weighted(self, cum: int, freq: int, total: int) -> None:
        """A symbol whose interval is [cum, cum + freq) out of `total`."""
        if freq != total:
            self._syms.append((cum, freq, total))

    def put_uint(self, value: int) -> None:
        """A non-negative integer of any size, self-delimiting (Elias gamma: 2 log2 v + 1 bits),
        so that it reads back whatever range the option tables allow later."""
        if value < 0:
            raise RecordError("a number in the record is negative")
        w = value + 1
        n = w.bit_length()
        if n > _UINT_BITS:
            raise RecordError("a number in the record is too large")
        for _ in range(n - 1):
            self.put(0, 2)
        self.put(1, 2)
        self.put(w - (1 << (n - 1)), 1 << (n - 1))

    def put_text(self, text: str) -> None:
        data = text.encode()
        self.put_uint(len(data))
        for b in data:
            self.put(b, 256)

    def put_perm(self, items: Sequence[Hashable], pool: Counter[Any]) -> None:
        """`items` in order, each drawn from `pool` (a multiset, consumed): log2 of the number of
        distinct orders in all. The caller has checked that `items` is exactly `pool`."""
        keys = sorted(pool)
        counts = [pool[k] for k in keys]
        index = {k: i for i, k in enumerate(keys)}
        total = len(items)
        syms = self._syms
        for item in items:
            i = index[item]
            f = counts[i]
            if f != total:
                syms.append((sum(counts[:i]), f, total))
            counts[i] = f - 1
            total -= 1

    def put_pick(self, item: Hashable, pool: Counter[Any]) -> None:
        """One `item` drawn from `pool` (not consumed): log2(total / its count) bits."""
        cum = total = 0
        for k in sorted(pool):
            if k == item:
                cum = total
            total += pool[k]
        self.put_weighted(cum, pool[item], total)

    def finish(self) -> int:
        x = 0
        for cum, freq, total in reversed(self._syms):
            if freq == 1:
                x = x * total + cum
            else:
                q, r = divmod(x, freq)
                x = q * total + cum + r
        return x


class Reader:
    """Takes the symbols back in the order they were put."""

    __slots__ = ("_x",)

    def __init__(self, x: int) -> None:
        self._x = x

    def take(self, radix: int) -> int:
        if radix <= 1:
            return 0
        self._x, value = divmod(self._x, radix)
        return value

    def take_weighted(self, cums: Sequence[int], freqs: Sequence[int], total: int) -> int:
        """The index of the interval the next symbol falls in."""
        q, r = divmod(self._x, total)
        i = 0
        while cums[i] + freqs[i] <= r:
            i += 1
        self._x = freqs[i] * q + r - cums[i]
        return i

    def take_uint(self) -> int:
        n = 1
        while not self.take(2):
            n += 1
            if n > _UINT_BITS:
                raise RecordError("compact record: a number runs past its bounds")
        return (1 << (n - 1)) + self.take(1 << (n - 1)) - 1

    def take_text(self, limit: int = 4096) -> str:
        n = self.take_uint()
        if n > limit:
            raise RecordError("compact record: a text field is too long")
        try:
            return bytes(self.take(256) for _ in range(n)).decode()
        except UnicodeDecodeError:
            raise RecordError("compact record: a text field is not UTF-8") from None

    def take_perm(self, pool: Counter[Any]) -> list[Any]:
        """The items of `pool` in the order `Writer.put_perm` put them."""
        keys = sorted(pool)
        counts = [pool[k] for k in keys]
        total = sum(counts)
        out: list[Any] = []
        x = self._x
        while total:
            if len(keys) == 1:  # the rest is all one item: nothing was written for it
                out.extend(keys * total)
                break
            q, r = divmod(x, total)
            acc = i = 0
            for c in counts:  # the interval r falls in (the decoding hot path: no lists)
                if r < acc + c:
                    break
                acc += c
                i += 1
            x = c * q + r - acc
            out.append(keys[i])
            total -= 1
            if c == 1:
                del keys[i], counts[i]
            else:
                counts[i] = c - 1
        self._x = x
        return out

    def take_pick(self, pool: Counter[Any]) -> Any:
        """The item `Writer.put_pick` put, from the same `pool`."""
        keys = sorted(k for k in pool if pool[k] > 0)
        if not keys:
            raise RecordError("compact record: nothing left to draw")
        freqs = [pool[k] for k in keys]
        cums, acc = [], 0
        for f in freqs:
            cums.append(acc)
            acc += f
        return keys[self.take_weighted(cums, freqs, acc) if len(keys) > 1 else 0]

    @property
    def empty(self) -> bool:
        return self._x == 0


# ---- moves by their index among the legal moves (the protocol's fast door) -----------------------


def put_move(out: Writer, state: GameState, seat: int, move: Any, escape: bool) -> None:
    """Write `move` as its index in `state.legal_moves(seat)` and apply it by the fast door;
    RecordError when it is not legal. `escape`: one more symbol is possible here (`put_escape`:
    an event of the game's own, such as a retirement)."""
    legal = state.legal_moves(seat)
    try:
        i = legal.index(move)
    except ValueError:
        raise RecordError(f"move {move!r} of seat {seat} is not legal here") from None
    out.put(i, len(legal) + escape)
    state.apply(seat, legal[i])


def put_escape(out: Writer, state: GameState, seat: int) -> None:
    """Instead of a move of `seat`: the game's own event comes next."""
    n = len(state.legal_moves(seat))
    out.put(n, n + 1)


def take_move(inp: Reader, state: GameState, seat: int, escape: bool) -> Any:
    """The move `put_move` wrote, applied; None for an escape (`put_escape`)."""
    legal = state.legal_moves(seat)
    i = inp.take(len(legal) + escape)
    if i == len(legal):
        if not escape:
            raise RecordError(f"compact record: seat {seat} has no legal move here")
        return None
    move = legal[i]
    state.apply(seat, move)
    return move


# ---- the hook: a game's own part -----------------------------------------------------------------


class RecordCodec(Protocol):
    """A game's part of the format (`Game.record_codec()`, in the game's package)."""

    @property
    def tag(self) -> int:
        """The game's byte in the format (1-255; never reused for another game)."""

    @property
    def rules_layout(self) -> Sequence[tuple[str, Sequence[Any]]]:
        """The options in the order the format writes them, each with the values a `choice`
        option is written as an index among (any other value goes as JSON text). Append only:
        never reorder or drop an option or a value, so that every archived record still decodes
        (an option added later reads as absent, i.e. its default, from older bytes)."""

    def encode(self, record: Mapping[str, Any], rules: JSON, out: Writer) -> GameState:
        """Write the record's chance and decisions (after the rules, already written); return the
        final state, played through the fast door. RecordError for a record it cannot hold."""

    def decode(self, rules: JSON, inp: Reader) -> GameState:
        """Read back what `encode` wrote; the final state. RecordError for bad input."""


def _codec(game: Game) -> RecordCodec:
    codec = game.record_codec()
    if codec is None:
        raise RecordError(f"game {game.kind!r} has no compact record format")
    return codec  # type: ignore[no-any-return]


def _by_tag(tag: int) -> tuple[Game, RecordCodec]:
    for game in registry.all_games():
        codec = game.record_codec()
        if codec is not None and codec.tag == tag:
            return game, codec
    raise RecordError(f"compact record: no game has tag {tag}")


def _kind_of(record: Mapping[str, Any]) -> Game:
    kind = record.get("game")
    if kind is None:  # a record from before records named their game: the default game's
        return registry.default()
    try:
        return registry.get(kind)
    except GameError:
        raise RecordError(f"unknown game {kind!r} in the record") from None


# ---- the rules, by the game's option table -------------------------------------------------------


def _put_rules(game: Game, codec: RecordCodec, rules: Any, out: Writer) -> JSON:
    """The options in the codec's layout: their count, then each one in a form that does not
    depend on the option table's ranges or choices today (those may grow): a bool as a bit, an
    int as a self-delimiting number, a choice or text as 0 (absent), 1 (JSON text follows) or
    2 + its index among the layout's known values."""
    if not isinstance(rules, Mapping):
        raise RecordError("the record's 'rules' must be a JSON object")
    try:
        normal = game.normalise_rules(rules)
    except GameError as err:
        raise RecordError(str(err)) from None
    if normal != dict(rules):
        raise RecordError("the record's rules are not in their normal form")
    layout = codec.rules_layout
    kinds = {o.name: o.kind for o in game.options}
    if not set(normal) <= {name for name, _ in layout}:
        raise RecordError("the record's rules name options the format does not lay out")
    out.put_uint(len(layout))
    for name, known in layout:
        value: Any = normal.get(name)
        if kinds.get(name) == "bool":
            out.put(int(value), 2)
        elif kinds.get(name) == "int":
            out.put_uint(value)
        elif value is None:
            out.put_uint(0)
        elif value in known:
            out.put_uint(2 + list(known).index(value))
        else:
            out.put_uint(1)
            out.put_text(json.dumps(value))
    return normal


def _take_rules(game: Game, codec: RecordCodec, inp: Reader) -> JSON:
    layout = codec.rules_layout
    count = inp.take_uint()
    if count > len(layout):
        raise RecordError("compact record: rules from a newer layout than this code knows")
    kinds = {o.name: o.kind for o in game.options}
    rules: JSON = {}
    for name, known in layout[:count]:
        if kinds.get(name) == "bool":
            rules[name] = bool(inp.take(2))
        elif kinds.get(name) == "int":
            rules[name] = inp.take_uint()
        else:
            code = inp.take_uint()
            if code == 1:
                try:
                    rules[name] = json.loads(inp.take_text())
                except ValueError:
                    raise RecordError("compact record: a rule's text is not JSON") from None
            elif code >= 2:
                if code - 2 >= len(known):
                    raise RecordError(f"compact record: no known value {code - 2} of {name!r}")
                rules[name] = known[code - 2]
    try:
        return game.normalise_rules(rules)
    except GameError as err:
        raise RecordError(f"compact record: bad rules: {err}") from None


# ---- the two doors -------------------------------------------------------------------------------


def encode_record(record: Mapping[str, Any]) -> bytes:
    """A finished game's record (as `Game.record` gives it) in the compact format, without its
    seats. RecordError for a record that is malformed, unfinished, breaks a rule, or holds
    anything the format would not give back."""
    if not isinstance(record, Mapping):
        raise RecordError("a record must be a JSON object")
    game = _kind_of(record)
    codec = _codec(game)
    out = Writer()
    rules = _put_rules(game, codec, record.get("rules"), out)
    try:
        state = codec.encode(record, rules, out)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:
        raise RecordError(f"the record is malformed: {err!r}") from None
    if not state.is_over:
        raise RecordError("only a finished game's record is archived")
    seats = record.get("seats")
    if not isinstance(seats, list) or game.record(state, seats) != dict(record):
        raise RecordError("the record does not replay to itself (extra fields, or other seats)")
    x = out.finish()
    body = bytes((VERSION, codec.tag)) + x.to_bytes((x.bit_length() + 7) // 8, "little")
    return body + zlib.crc32(body).to_bytes(_CRC, "little")


def decode_record(data: bytes, seats: Sequence[Mapping[str, Any]]) -> JSON:
    """The record `encode_record` was given, naming `seats`; RecordError for bad bytes."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise RecordError("compact record: bytes expected")
    data = bytes(data)
    if len(data) < _HEAD + _CRC:
        raise RecordError("compact record: too short")
    body, crc = data[:-_CRC], data[-_CRC:]
    if zlib.crc32(body).to_bytes(_CRC, "little") != crc:
        raise RecordError("compact record: checksum mismatch (corrupt bytes)")
    if body[0] != VERSION:
        raise RecordError(f"compact record: unknown version {body[0]} (this code reads {VERSION})")
    game, codec = _by_tag(body[1])
    payload = body[_HEAD:]
    if payload and payload[-1] == 0:
        raise RecordError("compact record: not in its shortest form")
    inp = Reader(int.from_bytes(payload, "little"))
    try:
        rules = _take_rules(game, codec, inp)
        state = codec.decode(rules, inp)
    except RecordError:
        raise
    except (GameError, KeyError, TypeError, ValueError, IndexError) as err:
        raise RecordError(f"compact record: does not replay: {err}") from None
    if not state.is_over or not inp.empty:
        raise RecordError("compact record: the moves do not end with the game")
    if len(seats) != state.seat_count:
        raise RecordError(f"compact record: {len(seats)} seats given for {state.seat_count}")
    return game.record(state, seats)

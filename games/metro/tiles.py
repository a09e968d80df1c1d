"""Metro tiles (RULES.md §2) and the placement notation (§8).

A tile is one of 24 ways to pair each even connector with an odd one. Internally a tile is an
index into CODES; `EXIT[t * 8 + entry]` is the connector a track entering at `entry` leaves by.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

from games.errors import InvalidMoveError
from games.metro.board import SIZE, square

_OFFSET = {"a": 5, "b": 3, "c": 7, "d": 1}
_LETTER = {v: k for k, v in _OFFSET.items()}


def pairs_of(code: str) -> tuple[tuple[int, int], ...]:
    """The four (even, odd) connector pairs of a tile code."""
    return tuple((e, (e + _OFFSET[ch]) % 8) for e, ch in zip((0, 2, 4, 6), code, strict=True))


def _is_tile(code: str) -> bool:
    return len({odd for _, odd in pairs_of(code)}) == 4


CODES: tuple[str, ...] = tuple(
    code for code in ("".join(p) for p in itertools.product("abcd", repeat=4)) if _is_tile(code)
)
INDEX: dict[str, int] = {code: i for i, code in enumerate(CODES)}
if len(CODES) != 24:  # a property of the definition, checked once at import
    raise RuntimeError("the tile definition must give exactly 24 tiles")

# The 60-tile set: copies per code.
SET_COUNTS: dict[str, int] = {
    **dict.fromkeys(["aaaa", "aacb", "acba", "baac", "cbaa"], 4),
    **dict.fromkeys(["bcbc", "cbcb"], 3),
    **dict.fromkeys(
        [
            "bbbb",
            "cccc",
            "dddd",
            "adad",
            "dada",
            "accd",
            "ccda",
            "cdac",
            "dacc",
            "adbb",
            "badb",
            "bbad",
            "dbba",
            "bcdd",
            "cddb",
            "dbcd",
            "ddbc",
        ],
        2,
    ),
}
TILE_SET: tuple[str, ...] = tuple(code for code in CODES for _ in range(SET_COUNTS[code]))
SET_COUNTER: Counter[str] = Counter(TILE_SET)


def _exits(code: str) -> list[int]:
    out = [0] * 8
    for a, b in pairs_of(code):
        out[a], out[b] = b, a
    return out


EXIT: tuple[int, ...] = tuple(x for code in CODES for x in _exits(code))


def rotate(code: str) -> str:
    """The tile turned 90° clockwise: connector k becomes k + 2."""
    turned = sorted(((a + 2) % 8, (b + 2) % 8) for a, b in pairs_of(code))
    return "".join(_LETTER[(b - a) % 8] for a, b in turned)


def rotations(code: str) -> tuple[str, ...]:
    """The distinct codes of a tile in its four orientations, the tile itself first."""
    out = [code]
    for _ in range(3):
        nxt = rotate(out[-1])
        if nxt not in out:
            out.append(nxt)
    return tuple(out)


# ROTATIONS[t]: tile indices of t's distinct orientations (t first).
ROTATIONS: tuple[tuple[int, ...], ...] = tuple(
    tuple(INDEX[r] for r in rotations(code)) for code in CODES
)


# ROTATION_CLASS[t]: one tile index shared by every orientation of t (the same physical shape).
ROTATION_CLASS: tuple[int, ...] = tuple(min(r) for r in ROTATIONS)


def check_code(code: object) -> str:
    if not isinstance(code, str) or code not in INDEX:
        raise InvalidMoveError(
            f"{code!r} is not a tile code: four letters from a-d, each even connector joined "
            "to a distinct odd one (RULES.md §2)"
        )
    return code


@dataclass(frozen=True, slots=True)
class Placement:
    """A tile code on a square: `Placement.parse("cccc32")` ⇄ `str(placement)`."""

    tile: str
    row: int
    col: int

    @classmethod
    def parse(cls, text: object) -> Placement:
        if not isinstance(text, str) or len(text) != 6:
            raise InvalidMoveError(
                f"{text!r} is not a placement: a tile code and row and column digits, "
                "e.g. 'cccc32' (RULES.md §8)"
            )
        check_code(text[:4])
        if not (text[4].isdigit() and text[5].isdigit()) or not text[4:].isascii():
            raise InvalidMoveError(f"{text!r}: row and column must be digits 0-7 (RULES.md §8)")
        return cls(text[:4], int(text[4]), int(text[5]))

    @property
    def on_board(self) -> bool:
        return 0 <= self.row < SIZE and 0 <= self.col < SIZE

    @property
    def square(self) -> int:
        return square(self.row, self.col)

    @property
    def tile_index(self) -> int:
        return INDEX[self.tile]

    def __str__(self) -> str:
        return f"{self.tile}{self.row}{self.col}"

    def __repr__(self) -> str:
        return f"Placement.parse({str(self)!r})"


def parse_sequence(text: object) -> list[Placement]:
    """Split a placement sequence ("aacb01cccc32") into placements (RULES.md §8)."""
    if not isinstance(text, str):
        raise InvalidMoveError("placements must be a string of concatenated placements")
    if len(text) % 6:
        raise InvalidMoveError(
            f"a placement sequence has 6 characters per placement; got {len(text)} characters"
        )
    out = []
    for i in range(0, len(text), 6):
        try:
            out.append(Placement.parse(text[i : i + 6]))
        except InvalidMoveError as err:
            raise InvalidMoveError(f"placement {i // 6}: {err}") from None
    return out

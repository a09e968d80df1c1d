"""Which Redis Cluster slot a game lives in, so that each write stays within one slot.

A Redis Cluster runs a script only when every key it names hashes to one slot. A commit writes
the game's own keys and also a status index and the bot-job stream; so those shared keys are
split into SHARD_COUNT shards, each pinned to one slot by a short hash tag, and every game id is
drawn so that it hashes to the slot of one shard. Then `game:{id}…`, `games:{tag}:<status>` and
`bot-turns:{tag}` of that game's shard share a slot, on one server or on a cluster alike.

The shard slots are spread one per band of 16384 / SHARD_COUNT slots, so a cluster that splits
the slots into contiguous ranges (as `--cluster create` does) holds shards on every primary.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import string
from binascii import crc_hqx

SLOTS = 16384  # Redis Cluster's hash slots: CRC16 (XMODEM, as binascii.crc_hqx) mod 16384
SHARD_COUNT = 64
ALPHABET = (string.ascii_letters + string.digits + "-_").encode()  # what a game id may hold
ID_RANDOM_BYTES = 9  # 72 random bits: 12 characters, then two chosen to land in a shard


def slot_of(text: str) -> int:
    """The slot of a hash tag (or of a key without braces)."""
    return crc_hqx(text.encode(), 0) % SLOTS


def _find_tags() -> tuple[str, ...]:
    """For every shard the first short string (in ALPHABET order) whose slot lies in its band."""
    band = SLOTS // SHARD_COUNT
    tags: dict[int, str] = {}
    for length in (1, 2, 3):
        for value in range(len(ALPHABET) ** length):
            chars = []
            for _ in range(length):
                value, digit = divmod(value, len(ALPHABET))
                chars.append(chr(ALPHABET[digit]))
            tag = "".join(chars)
            tags.setdefault(slot_of(tag) // band, tag)
        if len(tags) == SHARD_COUNT:
            return tuple(tags[shard] for shard in range(SHARD_COUNT))
    raise AssertionError("every band of slots has a short tag")  # 3 characters always suffice


TAGS: tuple[str, ...] = _find_tags()
_SHARD_OF_SLOT: dict[int, int] = {slot_of(tag): shard for shard, tag in enumerate(TAGS)}


def shard_of(game_id: str) -> int | None:
    """The shard of a game id; None for an id the engine never made (so no such game)."""
    return _SHARD_OF_SLOT.get(slot_of(game_id))


def _endings() -> tuple[list[tuple[int, str]], dict[int, str]]:
    """Two-character pieces and their CRCs, for building an id that lands in a chosen slot.

    With a zero start and no final XOR, CRC16/XMODEM is linear over equal-length messages, so
    crc(p + ab + cd) = crc(p + 0000) ^ crc(ab + 00) ^ crc(cd) (the zero bytes change nothing).
    """
    pairs = [chr(a) + chr(b) for a in ALPHABET for b in ALPHABET]
    heads = [(crc_hqx(pair.encode() + b"\0\0", 0) % SLOTS, pair) for pair in pairs]
    tails: dict[int, str] = {}
    for pair in pairs:
        tails.setdefault(crc_hqx(pair.encode(), 0) % SLOTS, pair)
    return heads, tails


_HEADS, _TAILS = _endings()


def new_game_id(seed: bytes | None = None) -> str:
    """A game id (16 URL-safe characters) in a shard drawn uniformly: fresh, or with `seed`
    the one id that seed always gives (a create's idempotency key: a repeat names the game the
    first try made).

    Twelve random characters (72 bits), then four chosen so that the id hashes to the drawn
    shard's slot: a few dictionary look-ups (see _endings), never a search over ids.
    """
    attempt = 0
    while True:
        if seed is None:
            shard, start = secrets.randbelow(SHARD_COUNT), secrets.randbelow(64)
            prefix = secrets.token_urlsafe(ID_RANDOM_BYTES)
        else:
            drawn = hashlib.sha256(seed + attempt.to_bytes(4, "big")).digest()
            shard, start = drawn[0] % SHARD_COUNT, drawn[1] % 64
            prefix = base64.urlsafe_b64encode(drawn[2 : 2 + ID_RANDOM_BYTES]).decode()
        target = slot_of(TAGS[shard])
        need = target ^ crc_hqx(prefix.encode() + b"\0\0\0\0", 0) % SLOTS
        for head_crc, head in _HEADS[start * 64 :]:
            tail = _TAILS.get(need ^ head_crc)
            if tail is not None:
                return prefix + head + tail
        attempt += 1  # No ending fitted (never seen in practice): draw another prefix.

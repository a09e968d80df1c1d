"""Game ids and the shards of the keys many games share: every key one commit touches hashes to
one Redis Cluster slot (checked against a real cluster in tests/cluster)."""

from __future__ import annotations

import re
from collections import Counter

import grpc
import pytest

from services.engine.core.shards import SHARD_COUNT, SLOTS, TAGS, new_game_id, shard_of, slot_of
from services.engine.core.store import (
    answers_key,
    bot_stream,
    clocks_key,
    events_key,
    game_key,
    index_key,
    pending_key,
)
from services.engine.core.validation import GAME_ID
from tests.engine.helpers import code
from tests.fixtures.engine import EngineClient


def _hash_tag(key: str) -> str:
    """What Redis Cluster hashes: the text of the first non-empty {...}, else the whole key."""
    found = re.search(r"\{([^}]+)\}", key)
    return found[1] if found else key


@pytest.mark.parametrize(
    ("key", "slot"),
    [("foo", 12182), ("bar", 5061), ("hello", 866), ("somekey", 11058), ("123456789", 0x31C3)],
)
def test_slots_are_redis_clusters_crc16(key: str, slot: int) -> None:
    assert slot_of(key) == slot


def test_every_shard_has_its_own_slot_spread_over_the_slot_range() -> None:
    assert len(TAGS) == SHARD_COUNT == len(set(TAGS))
    band = SLOTS // SHARD_COUNT
    for shard, tag in enumerate(TAGS):
        assert slot_of(tag) // band == shard, tag  # one per band: on every primary of a cluster
        assert "{" not in tag and "}" not in tag


def test_new_ids_are_url_safe_distinct_and_land_in_uniformly_drawn_shards() -> None:
    ids = [new_game_id() for _ in range(6400)]
    assert len(set(ids)) == len(ids)
    counts: Counter[int] = Counter()
    for game_id in ids:
        assert len(game_id) == 16 and GAME_ID.fullmatch(game_id), game_id
        shard = shard_of(game_id)
        assert shard is not None and slot_of(game_id) == slot_of(TAGS[shard])
        counts[shard] += 1
    # 100 expected per shard: every shard is used, none is favoured (bounds ~6 sigma).
    assert len(counts) == SHARD_COUNT
    assert min(counts.values()) >= 40 and max(counts.values()) <= 160, counts


def test_every_key_a_commit_touches_hashes_to_the_games_slot() -> None:
    for _ in range(200):
        game_id = new_game_id()
        shard = shard_of(game_id)
        assert shard is not None
        indexes = [index_key(status, shard) for status in ("waiting", "playing", "over")]
        keys = [game_key(game_id), events_key(game_id), answers_key(game_id),
                pending_key(game_id), bot_stream(shard), clocks_key(shard), *indexes]  # fmt: skip
        assert {slot_of(_hash_tag(key)) for key in keys} == {slot_of(game_id)}


def test_an_id_outside_every_shard_is_no_game(engine_client: EngineClient) -> None:
    outside = next(
        f"nosuchgame{i:06d}" for i in range(100_000) if shard_of(f"nosuchgame{i:06d}") is None
    )
    inside = new_game_id()  # in a shard, never created
    for game_id in (outside, inside):
        with pytest.raises(grpc.RpcError) as missing:
            engine_client.view(game_id)
        assert code(missing.value) == grpc.StatusCode.NOT_FOUND, game_id

"""Finished games written into the archive row by row as migrations/0001_archive.sql lays them
out (the archiver writes the same rows from the engine's outbox): the read tests choose exactly
what is there (many games, erased players, private attempts) without playing each one."""

from __future__ import annotations

import itertools
import random
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

import psycopg

import games
from games.compact import encode_record

_CLOCK = itertools.count(1_700_000_000_000, 1000)


def new_id(length: int = 16) -> str:
    """A game id (16) or player id (12) as the engine makes them."""
    return secrets.token_urlsafe(length * 3 // 4)[:length]


def random_record(seed: int) -> dict[str, Any]:
    """A finished 2-player Metro game's record, played at random by the rules core."""
    game = games.get("metro")
    state = game.new_state({"players": 2}, seed)
    rng = random.Random(seed)
    while not state.is_over:
        seat = state.to_move()[0]
        state.apply(seat, rng.choice(list(state.legal_moves(seat))))
    return dict(game.record(state))


def add_player(url: str, player_id: str, name: str, *, bot: bool = False) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO players (id, name, bot) VALUES (metro_id(%s), %s, %s)"
            " ON CONFLICT (id) DO NOTHING",
            (player_id, name, bot),
        )


def add_game(
    url: str,
    record: Mapping[str, Any],
    seats: Sequence[Mapping[str, Any]],
    *,
    game_id: str | None = None,
    kind: str = "metro",
    version: int = 10,
    private_seat: int = -1,
    tokens: Mapping[int, str] | None = None,
    analysis: bytes | None = None,
    ended_ms: int | None = None,
) -> str:
    """One finished game's rows. `seats`: each {"player_id"} (a player added before) or
    {"name"} (a guest) or {"level"} (the AI), with "score", "result" ('w'/'d'/'l') and
    optionally "rating_before"/"rating_after" (hundredths)."""
    game_id = game_id or new_id()
    ended = ended_ms if ended_ms is not None else next(_CLOCK)
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        # The kind's number, given the first time one is archived, as services/archive/writes.py
        # kind_id numbers it (an archiver that numbered it meanwhile wins: DO NOTHING).
        find = "SELECT id FROM game_kinds WHERE name = %s"
        if conn.execute(find, (kind,)).fetchone() is None:
            conn.execute(
                "INSERT INTO game_kinds (id, name) SELECT coalesce(max(id), 0) + 1, %s"
                " FROM game_kinds ON CONFLICT DO NOTHING",
                (kind,),
            )
        kind_no = conn.execute(find, (kind,)).fetchone()
        assert kind_no is not None, kind
        row = conn.execute(
            "INSERT INTO games (created_ms, ended_ms, version, last_event_seq, kind, private_seat,"
            " rated, id, record, players) VALUES (%s, %s, %s, 0, %s, %s, %s, metro_id(%s), %s,"
            " '')"
            " RETURNING no",
            (ended - 60_000, ended, version, kind_no[0], private_seat,
             any("rating_after" in s for s in seats), game_id, encode_record(record)),
        ).fetchone()  # fmt: skip
        assert row is not None
        no = row[0]
        for index, seat in enumerate(seats):
            conn.execute(
                "INSERT INTO seats (game, player, score, kind, seat, rating_before, rating_after,"
                " result) VALUES (%s, coalesce((SELECT no FROM players WHERE id = metro_id(%s)),"
                " 0), %s, %s, %s, %s, %s, %s)",
                (no, seat.get("player_id"), seat["score"], kind_no[0], index,
                 seat.get("rating_before"), seat.get("rating_after"), seat["result"]),
            )  # fmt: skip
            if "player_id" not in seat:
                label_kind, label = ("a", seat["level"]) if "level" in seat else ("h", seat["name"])
                conn.execute(
                    "INSERT INTO seat_labels (game, seat, seat_kind, label) VALUES (%s,%s,%s,%s)",
                    (no, index, label_kind, label),
                )
        # The game's packed player numbers (migrations/0002): its seats are found through them.
        conn.execute(
            "UPDATE games SET players = (SELECT string_agg(int4send(p), ''::bytea ORDER BY p)"
            " FROM (SELECT DISTINCT player AS p FROM seats WHERE game = %s) d) WHERE no = %s",
            (no, no),
        )
        for index, token_hash in (tokens or {}).items():
            conn.execute(
                "INSERT INTO game_tokens (game, seat, token_hash) VALUES (%s, %s, %s)",
                (no, index, token_hash),
            )
        if analysis is not None:
            conn.execute(
                "INSERT INTO analyses (game, done_ms, result) VALUES (%s, %s, %s)",
                (no, ended + 1, analysis),
            )
    return game_id

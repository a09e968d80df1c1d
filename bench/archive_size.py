"""Bytes on disk per archived game of one kind, through the archivers' own write path.

    .venv/bin/python bench/archive_size.py --games 1000 [--kind metro --players 2]

Starts a PostgreSQL of its own (services/common/postgres_server.py), applies the migrations,
plays `--games` random finished games with the rules core (distinct records), writes each as an
archiver does (services/archive/writes.py write_game: one transaction per game, a rated table,
both seats held by players drawn from `--pool` players), runs VACUUM ANALYZE (as autovacuum
would), and prints JSON: the bytes of games, seats, seat_labels and game_tokens with their
indexes (pg_total_relation_size) per game, the part that is the compact record, and the
players table apart (it grows with players, not games). Also PostgreSQL's start time here.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games
from services.archive.gather import GameRow, SeatRow, encode_record, result_of

PER_GAME = ("games", "seats", "seat_labels", "game_tokens")
ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def random_game(kind: str, players: int, seed: int) -> tuple[dict[str, Any], Any]:
    game = games.get(kind)
    state = game.new_state(game.normalise_rules({"players": players}), seed)
    rng = random.Random(seed)
    while not state.is_over:
        seat = state.to_move()[0]
        state.apply(seat, state.random_move(seat, rng.random))
    return state.record([{"name": f"p{i}", "kind": "human"} for i in range(players)]), state


def rows(args: argparse.Namespace) -> list[GameRow]:
    rng = random.Random(1)
    pool = [(f"{i:012d}"[-12:].replace("0", "A"), f"Player {i}") for i in range(args.pool)]
    out, t = [], 1_767_225_600_000  # 2026-01-01
    for n in range(args.games):
        record, state = random_game(args.kind, args.players, n)
        winners = list(state.outcome().winners)
        seated = rng.sample(pool, args.players)
        t += rng.randint(1, 60_000)
        seats = [
            SeatRow(seat=i, player_id=pid, name=name, bot=False, seat_kind="h", level="",
                    score=int(state.scores[i]), result=result_of(i, winners),
                    rating_before=rng.randint(-500, 3000), rating_after=rng.randint(-500, 3000))
            for i, (pid, name) in enumerate(seated)
        ]  # fmt: skip
        game_id = "".join(rng.choice(ID_ALPHABET) for _ in range(16))
        out.append(GameRow(game_id=game_id, kind=args.kind, created_ms=t - 900_000, ended_ms=t,
                           last_event_seq=0, version=2 * len(record.get("moves", [])) + 3,
                           private_seat=-1, rated=True, record=encode_record(record),
                           seats=seats))  # fmt: skip
    return out


async def load(url: str, game_rows: list[GameRow]) -> float:
    import psycopg

    from services.archive.writes import write_game

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        began = time.perf_counter()
        for row in game_rows:
            await write_game(conn, row)
        return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--kind", default="metro")
    parser.add_argument("--players", type=int, default=2, help="seats per game")
    parser.add_argument("--pool", type=int, default=200, help="distinct players")
    args = parser.parse_args()

    import psycopg

    from services.archive.migrate import migrate
    from services.common.postgres_server import PostgresServer

    game_rows = rows(args)
    with tempfile.TemporaryDirectory(prefix="archive-size-") as tmp:
        server = PostgresServer(Path(tmp) / "pg", fast=True)
        with server:
            url = server.create_database("size")
            migrate(url)
            elapsed = asyncio.run(load(url, game_rows))
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("VACUUM ANALYZE")
                sizes = {
                    t: conn.execute("SELECT pg_total_relation_size(%s)", (t,)).fetchone()[0]
                    for t in (*PER_GAME, "players")
                }
                heap = {
                    t: conn.execute("SELECT pg_relation_size(%s)", (t,)).fetchone()[0]
                    for t in PER_GAME
                }
                version = conn.execute("SHOW server_version").fetchone()[0]
    per_game = sum(sizes[t] for t in PER_GAME) / args.games
    record = statistics.fmean(len(r.record) for r in game_rows)
    print(json.dumps({
        "bench": "archive_size", "kind": args.kind, "seats": args.players, "games": args.games,
        "postgres": f"{version} ({server.bin_dir})",
        "postgres_start_s": round(server.start_seconds, 2),
        "bytes_per_game": round(per_game, 1),
        "record_bytes_mean": round(record, 1),
        "bytes_per_game_besides_record": round(per_game - record, 1),
        "by_table_with_indexes_per_game": {t: round(sizes[t] / args.games, 1) for t in PER_GAME},
        "by_table_heap_only_per_game": {t: round(heap[t] / args.games, 1) for t in PER_GAME},
        "players_table_bytes": sizes["players"],
        "write_games_per_s": round(args.games / elapsed),
    }, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()

"""The archive's costs (issue 29 items 3 and 7); prints one JSON object. Not a test.

.venv/bin/python bench/archive.py [--games N] [--db-games N] [--players N] [--pool N]

Part 1, the compact record format (games/compact.py), one core: encode and decode games/s
(CPU time of this process, so that other processes on the machine do not count; wall-clock
figures beside them) and bytes per game, per kind (Metro 2 and 4 players, Metro X 2 and 20,
Underground 2), against the record's JSON without its seats (plain and zlib'd).

Part 2, with a real PostgreSQL (DATABASE_URL, else one started by
services/common/postgres_server.py in a temporary directory; `--db-games 0` skips it): load
`--db-games` finished games over `--players` players, all kinds, through the archive's write
path (one transaction per game, as an archiver commits it), then report bytes per game on disk
(tables and indexes) per kind, write throughput, the history page and profile p50/p99 (the read
side's own queries, services/archive/reads.py) and the export rate. Playing a million games on
two cores takes too long, so a pool of `--pool` distinct random games per kind is played and
their records are reused with fresh ids, players and dates (the output says so: `reused`).

(tests/bench/test_benches.py runs it with tiny figures, so that an API change cannot rot it.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games
from games.compact import decode_record, encode_record

# name: (game kind, rules, share of the games loaded into the database)
KINDS: dict[str, tuple[str, dict[str, Any], float]] = {
    "metro_2p": ("metro", {"players": 2}, 0.55),
    "metro_4p": ("metro", {"players": 4}, 0.10),
    "metrox_2p": ("metrox", {"players": 2}, 0.15),
    "metrox_20p": ("metrox", {"players": 20}, 0.01),
    "underground_2p": ("underground", {"players": 2}, 0.19),
}


def play(kind: str, rules: dict[str, Any], seed: int) -> dict[str, Any]:
    """A finished game of uniformly random legal moves (the fast door), as its record."""
    game = games.get(kind)
    state = game.new_state(game.normalise_rules(rules), seed)
    rng = random.Random(seed)
    while not state.is_over:
        seat = state.to_move()[0]
        state.apply(seat, state.random_move(seat, rng.random))
    return state.record([{"name": f"p{i}", "kind": "human"} for i in range(state.seat_count)])


def rate(fn: Callable[[Any], Any], items: list[Any], repeat: int = 3) -> tuple[float, float]:
    """Best of `repeat` runs over `items`: (items per CPU second, items per wall second)."""
    cpu = wall = float("inf")
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        for item in items:
            fn(item)
        cpu = min(cpu, time.process_time() - c0)
        wall = min(wall, time.perf_counter() - w0)
    return len(items) / max(cpu, 1e-9), len(items) / max(wall, 1e-9)


def codec_part(n: int) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    out: dict[str, Any] = {}
    pools: dict[str, list[dict[str, Any]]] = {}
    for name, (kind, rules, _) in KINDS.items():
        records = [play(kind, rules, seed) for seed in range(n)]
        pools[name] = records
        data = [encode_record(r) for r in records]
        pairs = list(zip(data, [r["seats"] for r in records], strict=True))
        enc_cpu, enc_wall = rate(encode_record, records)
        dec_cpu, dec_wall = rate(lambda p: decode_record(*p), pairs)
        sizes = [len(d) for d in data]
        plain = [len(json.dumps({**r, "seats": []}, separators=(",", ":"))) for r in records]
        packed = [len(zlib.compress(json.dumps({**r, "seats": []}).encode(), 9)) for r in records]
        out[name] = {
            "games": n,
            "encode_games_per_s_cpu": round(enc_cpu),
            "encode_games_per_s_wall": round(enc_wall),
            "decode_games_per_s_cpu": round(dec_cpu),
            "decode_games_per_s_wall": round(dec_wall),
            "bytes_mean": round(statistics.fmean(sizes), 1),
            "bytes_min": min(sizes),
            "bytes_max": max(sizes),
            "json_bytes_mean": round(statistics.fmean(plain)),
            "json_zlib_bytes_mean": round(statistics.fmean(packed)),
        }
    return out, pools


REGULAR_SHARE = 0.02  # players[0] sits at this share of the games (a long history)

# ---- part 2: PostgreSQL ------------------------------------------------------------------------


def _pid(rng: random.Random, size: int) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    return "".join(rng.choice(alphabet) for _ in range(size))


def _results(scores: list[int], retired: set[int]) -> list[str]:
    left = [s for i, s in enumerate(scores) if i not in retired]
    best = max(left) if left else None
    winners = [i for i, s in enumerate(scores) if s == best and i not in retired]
    return ["w" if winners == [i] else "d" if i in winners else "l" for i in range(len(scores))]


class Loader:
    """Writes games as an archiver does: one transaction per game (the game row, decided by
    ON CONFLICT on its id, then its players, seats and labels)."""

    GAME = (
        "INSERT INTO games (created_ms, ended_ms, version, last_event_seq, kind, rated, id,"
        " record, players) VALUES (%s, %s, %s, 0, %s, %s, %s, %s, %s) ON CONFLICT (id)"
        " DO NOTHING RETURNING no"
    )
    PLAYERS = (
        "WITH want AS (SELECT * FROM unnest(%s::bytea[], %s::text[]) AS w(id, name)),"
        " ins AS (INSERT INTO players (id, name) SELECT id, name FROM want"
        " ON CONFLICT (id) DO NOTHING RETURNING no, id)"
        " SELECT w.id, coalesce(i.no, p.no) FROM want w LEFT JOIN ins i ON i.id = w.id"
        " LEFT JOIN players p ON p.id = w.id"
    )
    SEATS = (
        "INSERT INTO seats (game, player, score, kind, seat, rating_before, rating_after,"
        " result) SELECT %s, * FROM unnest(%s::int4[], %s::int4[], %s::int2[], %s::int2[],"
        ' %s::int2[], %s::int2[], %s::"char"[])'
    )
    LABELS = (
        "INSERT INTO seat_labels (game, seat, seat_kind, label)"
        " SELECT %s, s, 'a', 'medium' FROM unnest(%s::int2[]) AS s"
    )

    def __init__(self, conn: Any, kinds: dict[str, int]) -> None:
        self.conn = conn
        self.kinds = kinds

    def write(self, game: dict[str, Any]) -> bool:
        from services.archive.ids import pack_id, pack_players

        with self.conn.transaction():
            # The players first: the game's row lists their numbers (migrations/0002).
            humans = [(i, p) for i, p in enumerate(game["players"]) if p is not None]
            ids = [pack_id(p[0]) for _, p in humans]
            found = dict(self.conn.execute(self.PLAYERS, (ids, [p[1] for _, p in humans])))
            player_no = {i: found[pack_id(p[0])] for i, p in humans}
            n = len(game["scores"])
            numbers = [player_no.get(i, 0) for i in range(n)]
            row = self.conn.execute(
                self.GAME,
                (game["created_ms"], game["ended_ms"], game["version"], self.kinds[game["kind"]],
                 game["rated"], pack_id(game["id"]), game["record"], pack_players(numbers)),
            ).fetchone()  # fmt: skip
            if row is None:
                return False  # archived already: nothing else is written
            no = row[0]
            self.conn.execute(
                self.SEATS,
                (no, numbers, game["scores"],
                 [self.kinds[game["kind"]]] * n, list(range(n)), game["before"],
                 game["after"], game["results"]),
            )  # fmt: skip
            bots = [i for i in range(n) if i not in player_no]
            if bots:
                self.conn.execute(self.LABELS, (no, bots))
        return True


def _games(n: int, pools: dict[str, list[dict[str, Any]]], players: list[tuple[str, str]],
           seed: int) -> Any:  # fmt: skip
    """`n` archive rows: records from the pools (encoded once), fresh ids, players, dates."""
    rng = random.Random(seed)
    names = list(KINDS)
    weights = [KINDS[k][2] for k in names]
    encoded = {k: [(encode_record(r), r) for r in pools[k]] for k in names}
    rating: dict[int, int] = {}
    t = 1_704_067_200_000  # 2024-01-01
    for _ in range(n):
        name = rng.choices(names, weights)[0]
        data, record = rng.choice(encoded[name])
        seats = len(record["scores"])
        picked = rng.sample(range(len(players)), seats)
        if rng.random() < REGULAR_SHARE and 0 not in picked:
            picked[0] = 0  # the regular: a long history to page and export
        who = [None if rng.random() < 0.05 else players[p] for p in picked]
        rated = rng.random() < 0.7
        before = [
            rating.get(p, 0) if rated and w else None for p, w in zip(picked, who, strict=True)
        ]
        after = [None if b is None else max(-3000, min(3000, b + rng.randint(-150, 150)))
                 for b in before]  # fmt: skip
        for p, a in zip(picked, after, strict=True):
            if a is not None:
                rating[p] = a
        t += rng.randint(1, 60_000)
        yield name, {
            "id": _pid(rng, 16), "kind": KINDS[name][0], "record": data, "players": who,
            "created_ms": t - 600_000, "ended_ms": t, "version": 200, "rated": rated,
            "scores": record["scores"], "results": _results(record["scores"], set()),
            "before": before, "after": after,
        }  # fmt: skip


async def _load_real(url: str, rows: list[dict[str, Any]], write_game: Any) -> float:
    """Write `rows` through the archivers' write path; the seconds it took."""
    import psycopg

    from services.archive.gather import GameRow, SeatRow

    def seat(game: dict[str, Any], i: int) -> Any:
        who = game["players"][i]
        return SeatRow(
            seat=i, player_id=who[0] if who else None, name=who[1] if who else "",
            bot=False, seat_kind="h" if who else "a", level="" if who else "medium",
            score=game["scores"][i], result=game["results"][i],
            rating_before=game["before"][i], rating_after=game["after"][i],
        )  # fmt: skip

    def game_row(g: dict[str, Any]) -> Any:
        return GameRow(
            game_id=g["id"], kind=g["kind"], created_ms=g["created_ms"], ended_ms=g["ended_ms"],
            last_event_seq=0, version=g["version"], private_seat=-1, rated=g["rated"],
            record=g["record"], seats=[seat(g, i) for i in range(len(g["scores"]))],
        )  # fmt: skip

    made = [game_row(g) for g in rows]
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        start = time.perf_counter()
        for row in made:
            await write_game(conn, row)
        return time.perf_counter() - start


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 2)


def db_part(args: argparse.Namespace, pools: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    import psycopg

    from services.archive.migrate import migrate
    from services.archive.reads import Archive
    from services.common.postgres_server import PostgresServer

    server = None
    url = os.environ.get("DATABASE_URL", "")
    tmp = tempfile.TemporaryDirectory(prefix="bench-archive-")
    try:
        if not url:
            server = PostgresServer(tmp.name).start()
            url = server.url
        migrate(url)
        out: dict[str, Any] = {"database": "DATABASE_URL" if server is None else "embedded"}
        rng = random.Random(1)
        players = [(_pid(rng, 12), f"player {i}") for i in range(args.players)]
        per_kind: dict[str, int] = dict.fromkeys(KINDS, 0)
        with psycopg.connect(url, autocommit=True) as conn:
            kinds = dict(conn.execute("SELECT name, id FROM game_kinds").fetchall())
            rows = list(_games(args.db_games, pools, players, 2))
            for name, _ in rows:
                per_kind[name] += 1
            try:
                from services.archive.writes import write_game
            except ImportError:  # before the archiver's write path exists: the same SQL here
                loader = Loader(conn, {k: int(v) for k, v in kinds.items()})
                path = "bench/archive.py's Loader (the schema's transaction)"
                start = time.perf_counter()
                for _, game in rows:
                    loader.write(game)
                elapsed = time.perf_counter() - start
            else:
                path = "services/archive/writes.py write_game (the archivers' own)"
                elapsed = asyncio.run(_load_real(url, [g for _, g in rows], write_game))
            conn.execute("VACUUM ANALYZE")
            out["load"] = {
                "games": args.db_games,
                "players": args.players,
                "reused": f"records of {args.pool} distinct random games per kind, reused "
                "with fresh ids, players and dates",
                "games_per_kind": per_kind,
                "write_games_per_s": round(args.db_games / elapsed),
                "write_path": f"{path}: one transaction per game, one connection",
            }
            out["disk"] = _disk(conn, args.db_games, per_kind, pools)
        out["reads"] = _reads(Archive(url), players, args.reads)
        return out
    finally:
        if server is not None:
            server.stop()
        tmp.cleanup()


def _disk(conn: Any, n: int, per_kind: dict[str, int],
          pools: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:  # fmt: skip
    """Bytes on disk, tables and indexes; per kind by the arithmetic: a game's share of the
    games table and its indexes besides the record, its record (the TOAST-free bytea), and
    its seats' share of the seats table and indexes."""
    size = {
        t: int(conn.execute("SELECT pg_total_relation_size(%s)", (t,)).fetchone()[0])
        for t in ("games", "seats", "players", "seat_labels")
    }
    indexes = {
        str(name): int(bytes_)
        for name, bytes_ in conn.execute(
            "SELECT indexrelname, pg_relation_size(indexrelid) FROM pg_stat_user_indexes"
            " WHERE relname IN ('games', 'seats', 'players', 'seat_labels')"
        ).fetchall()
    }
    heaps = {
        t: int(conn.execute("SELECT pg_table_size(%s)", (t,)).fetchone()[0])
        for t in ("games", "seats", "players", "seat_labels")
    }
    record_bytes = int(conn.execute("SELECT sum(pg_column_size(record)) FROM games").fetchone()[0])
    seat_rows = int(conn.execute("SELECT count(*) FROM seats").fetchone()[0])
    label_share = size["seat_labels"] / max(n, 1)
    game_fixed = (size["games"] - record_bytes) / max(n, 1)
    per_seat = size["seats"] / max(seat_rows, 1)
    kinds = {}
    for name in KINDS:
        sample = pools[name]
        rec = statistics.fmean(len(encode_record(r)) + 1 for r in sample)  # +1: bytea header
        seats = len(sample[0]["scores"])
        kinds[name] = round(game_fixed + rec + seats * per_seat + label_share)
    return {
        "total_bytes": sum(size.values()),
        "bytes_per_game_all": round(sum(size.values()) / max(n, 1)),
        "tables_with_indexes": size,
        "tables_alone": heaps,
        "indexes": indexes,
        "games_row_and_indexes_besides_record": round(game_fixed),
        "per_seat_row_and_indexes": round(per_seat),
        "bytes_per_game_by_kind": kinds,
        "players_table_bytes_per_game": round(size["players"] / max(n, 1)),
    }


def _reads(archive: Any, players: list[tuple[str, str]], count: int) -> dict[str, Any]:
    from services.archive.reads import decode_cursor

    rng = random.Random(3)
    chosen = [rng.choice(players)[0] for _ in range(count)]
    history, profile = [], []
    for pid in chosen:
        t = time.perf_counter()
        archive.history(pid, limit=20)
        history.append(time.perf_counter() - t)
        t = time.perf_counter()
        archive.profile(pid)
        profile.append(time.perf_counter() - t)
    regular = players[0][0]
    t = time.perf_counter()
    pages = 0
    cursor: str | None = None
    page = archive.history(regular, limit=20)
    while page is not None and pages < 5:
        pages += 1
        cursor = page[1]
        if cursor is None:
            break
        page = archive.history(regular, limit=20, before=decode_cursor(cursor))
    deep_ms = (time.perf_counter() - t) / max(pages, 1) * 1000
    exported = 0
    t = time.perf_counter()
    for _ in archive.export(regular):
        exported += 1
    elapsed = time.perf_counter() - t
    archive.close()
    return {
        "regular_player_history_page_ms": round(deep_ms, 2),
        "players_asked": count,
        "history_page_ms_p50": _pct(history, 0.5),
        "history_page_ms_p99": _pct(history, 0.99),
        "profile_ms_p50": _pct(profile, 0.5),
        "profile_ms_p99": _pct(profile, 0.99),
        "export_games_of_regular_player": exported,
        "export_games_per_s": round(exported / max(elapsed, 1e-9)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per kind for part 1")
    parser.add_argument("--db-games", type=int, default=1_000_000, help="0: skip part 2")
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--pool", type=int, default=0, help="distinct games per kind (part 2)")
    parser.add_argument("--reads", type=int, default=400, help="players asked (part 2)")
    args = parser.parse_args()
    args.pool = args.pool or args.games
    codec, pools = codec_part(max(args.games, 1))
    if args.pool > args.games:
        for name, (kind, rules, _) in KINDS.items():
            pools[name] += [play(kind, rules, s) for s in range(args.games, args.pool)]
    out: dict[str, Any] = {
        "bench": "archive",
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "codec": codec,
    }
    if args.db_games > 0:
        out["postgres"] = db_part(args, pools)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

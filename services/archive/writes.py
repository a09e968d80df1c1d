"""The archive's one write path: a finished game, whole, in ONE PostgreSQL transaction.

`INSERT INTO games ... ON CONFLICT (id) DO NOTHING RETURNING no` decides whether this
transaction is the first to archive the game: when it returns no row, nothing else of the game
is written again (an archiver that died after its commit and before its acknowledgement, or two
archivers handed the same entry, write the game once). Players are upserted in id order, so two
transactions sharing players never deadlock. bench/archive.py writes through here too.
"""

from __future__ import annotations

import time
from typing import Any

import psycopg

from services.archive.chat import blank, merge, pack_lines, unpack_lines
from services.archive.gather import GameRow
from services.archive.ids import pack_id, pack_players, unpack_players

_KINDS: dict[tuple[str, int, str, str], int] = {}  # (host, port, database, kind) -> number

_INSERT_GAME = (
    "INSERT INTO games (created_ms, ended_ms, version, last_event_seq, kind, private_seat,"
    " rated, id, record, players) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
    " ON CONFLICT (id) DO NOTHING RETURNING no"
)
_UPSERT_PLAYERS = (
    "INSERT INTO players AS p (id, name, bot)"
    " SELECT * FROM unnest(%s::bytea[], %s::text[], %s::bool[])"
    " ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, bot = EXCLUDED.bot"
    " WHERE NOT p.deleted"
    " AND (p.name IS DISTINCT FROM EXCLUDED.name OR p.bot IS DISTINCT FROM EXCLUDED.bot)"
)
_INSERT_SEATS = (
    "INSERT INTO seats (game, player, score, kind, seat, rating_before, rating_after, result)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)
_UPSERT_ANALYSIS = (
    "INSERT INTO analyses (game, done_ms, result) VALUES (%s, %s, %s)"
    " ON CONFLICT (game) DO UPDATE SET done_ms = EXCLUDED.done_ms, result = EXCLUDED.result"
)


async def kind_id(conn: psycopg.AsyncConnection[Any], name: str) -> int:
    """The number of a game kind, added when the archive has not seen it (cached)."""
    key = (conn.info.host, conn.info.port, conn.info.dbname, name)
    if key in _KINDS:
        return _KINDS[key]
    for _ in range(5):
        cur = await conn.execute("SELECT id FROM game_kinds WHERE name = %s", (name,))
        row = await cur.fetchone()
        if row is not None:
            _KINDS[key] = int(row[0])
            return _KINDS[key]
        await conn.execute(
            "INSERT INTO game_kinds (id, name) SELECT coalesce(max(id), 0) + 1, %s"
            " FROM game_kinds ON CONFLICT DO NOTHING",
            (name,),
        )
    raise RuntimeError(f"could not number the game kind {name!r}")


async def write_game(conn: psycopg.AsyncConnection[Any], game: GameRow) -> bool:
    """Archive one game; True when this call wrote it, False when the archive had it already
    (its analysis, if one came with it, is written either way)."""
    async with conn.transaction():
        kind = await kind_id(conn, game.kind)
        # The players first: the game's row lists their numbers (its seats are found through
        # the player index). Upserting them again for a game archived already changes nothing.
        numbers = await _players(conn, game)
        seat_players = [numbers.get(s.player_id, 0) if s.player_id else 0 for s in game.seats]
        cur = await conn.execute(
            _INSERT_GAME,
            (
                game.created_ms,
                game.ended_ms,
                game.version,
                game.last_event_seq,
                kind,
                game.private_seat,
                game.rated,
                pack_id(game.game_id),
                game.record,
                pack_players(seat_players),
            ),
        )
        row = await cur.fetchone()
        if row is None:
            if game.analysis is not None:
                await write_analysis(conn, game.game_id, game.analysis)
            return False
        number = int(row[0])
        async with conn.cursor() as cur:
            await cur.executemany(
                _INSERT_SEATS,
                [
                    (
                        number,
                        player,
                        s.score,
                        kind,
                        s.seat,
                        s.rating_before,
                        s.rating_after,
                        s.result,
                    )
                    for s, player in zip(game.seats, seat_players, strict=True)
                ],
            )
            labels = [(number, s.seat, *s.label) for s in game.seats if s.label is not None]
            if labels:
                await cur.executemany(
                    "INSERT INTO seat_labels (game, seat, seat_kind, label)"
                    " VALUES (%s, %s, %s, %s)",
                    labels,
                )
            if game.tokens:
                await cur.executemany(
                    "INSERT INTO game_tokens (game, seat, token_hash) VALUES (%s, %s, %s)",
                    [(number, seat, token) for seat, token in game.tokens],
                )
        if game.analysis is not None:
            await conn.execute(_UPSERT_ANALYSIS, (number, int(time.time() * 1000), game.analysis))
        if game.chat:
            deleted = await _deleted_seats(conn, number, seat_players)
            await conn.execute(
                "INSERT INTO game_chats (game, lines) VALUES (%s, %s)",
                (number, pack_lines(blank(merge([], game.chat), deleted))),
            )
        return True


async def _deleted_seats(
    conn: psycopg.AsyncConnection[Any], number: int, seat_players: list[int]
) -> set[int]:
    """The seats of game `number` whose player deleted their account: their lines are archived
    blank, as DELETE /api/players/me blanks those archived before (reads.Archive.erase)."""
    players = sorted({p for p in seat_players if p})
    if not players:
        return set()
    cur = await conn.execute("SELECT no FROM players WHERE no = ANY(%s) AND deleted", (players,))
    gone = {int(row[0]) for row in await cur.fetchall()}
    return {seat for seat, player in enumerate(seat_players) if player in gone}


async def write_chat(
    conn: psycopg.AsyncConnection[Any], game_id: str, lines: list[list[Any]]
) -> bool:
    """Add the players' room's lines said after the end to an archived game's chat (merged by
    line id: writing the same lines twice changes nothing); False when the game is not archived
    yet (its own entry will gather them)."""
    async with conn.transaction():
        cur = await conn.execute(
            "SELECT g.no, g.players, c.lines FROM games g"
            " LEFT JOIN game_chats c ON c.game = g.no WHERE g.id = %s FOR UPDATE OF g",
            (pack_id(game_id),),
        )
        row = await cur.fetchone()
        if row is None:
            return False
        number, old = int(row[0]), unpack_lines(row[2]) if row[2] is not None else []
        cur = await conn.execute(
            "SELECT s.seat, p.deleted FROM seats s JOIN players p ON p.no = s.player"
            " WHERE s.game = %s AND s.player = ANY(%s)",
            (number, unpack_players(row[1])),
        )
        deleted = {int(seat) for seat, gone in await cur.fetchall() if gone}
        merged = blank(merge(old, lines), deleted)
        if merged == old:
            return True
        await conn.execute(
            "INSERT INTO game_chats (game, lines) VALUES (%s, %s)"
            " ON CONFLICT (game) DO UPDATE SET lines = EXCLUDED.lines",
            (number, pack_lines(merged)),
        )
        return True


async def _players(conn: psycopg.AsyncConnection[Any], game: GameRow) -> dict[str, int]:
    """Upsert the game's players (name, bot mark; a deleted player stays erased) and answer
    their numbers by id."""
    by_id: dict[str, tuple[str, bool]] = {}
    for seat in game.seats:
        if seat.player_id:
            by_id[seat.player_id] = (seat.name, seat.bot)
    if not by_id:
        return {}
    ids = sorted(by_id)
    packed = [pack_id(p) for p in ids]
    await conn.execute(
        _UPSERT_PLAYERS, (packed, [by_id[p][0] for p in ids], [by_id[p][1] for p in ids])
    )
    cur = await conn.execute("SELECT id, no FROM players WHERE id = ANY(%s)", (packed,))
    numbers = {bytes(row[0]): int(row[1]) for row in await cur.fetchall()}
    return {p: numbers[pack_id(p)] for p in ids}


async def write_analysis(conn: psycopg.AsyncConnection[Any], game_id: str, result: bytes) -> bool:
    """Archive a done analysis of an archived game; False when the game is not archived yet."""
    cur = await conn.execute("SELECT no FROM games WHERE id = %s", (pack_id(game_id),))
    row = await cur.fetchone()
    if row is None:
        return False
    await conn.execute(_UPSERT_ANALYSIS, (int(row[0]), int(time.time() * 1000), result))
    return True


async def archived(conn: psycopg.AsyncConnection[Any], game_id: str) -> bool:
    cur = await conn.execute("SELECT 1 FROM games WHERE id = %s", (pack_id(game_id),))
    return await cur.fetchone() is not None

"""The archive's reads for the gateway: finished games, their analyses, players' profiles and
histories, exports, and a player's erasure (issue 29; schema in migrations/).

Sync psycopg through a `ConnectionPool` made on the first call of each process (never at import:
gunicorn forks after loading the app, and a pool's connections do not survive a fork). Every
statement has a short timeout and taking a connection waits briefly: when PostgreSQL is down or
slow, a call raises `ArchiveUnavailable` (the gateway answers 503) within about two seconds.
Nothing on the live path calls this module: only finished games' links, profiles and histories.
"""

from __future__ import annotations

import base64
import binascii
import os
import threading
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import orjson
import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from games.compact import decode_record
from services.archive import sql
from services.archive.chat import blank, pack_lines, shown, unpack_lines
from services.archive.ids import unpack_players

DELETED_NAME = "deleted player"
STATEMENT_TIMEOUT_MS = 2000  # one read of a page or a profile takes milliseconds
CONNECT_WAIT_S = 2.0  # the longest a request waits for a connection before the 503
POOL_MAX = 8
EXPORT_BATCH = 500
RESULTS = ("win", "loss", "draw")
_RESULT = {"w": "win", "l": "loss", "d": "draw"}
_RESULT_CHAR = {v: k for k, v in _RESULT.items()}


class ArchiveUnavailable(Exception):
    """PostgreSQL did not answer in time (down, unreachable or overloaded)."""


@dataclass(frozen=True, slots=True)
class ArchivedGame:
    """A finished game as the archive keeps it, its record decoded."""

    game_id: str
    kind: str
    seats: list[dict[str, Any]]  # seat, name (DELETED_NAME once erased), kind, level, bot,
    # player_id, score, result, rating_before, rating_after
    record: dict[str, Any]
    created_at_ms: int
    ended_at_ms: int
    version: int
    last_event_id: str
    private_seat: int | None  # a daily attempt's seat: its record is that seat's alone
    token_hashes: tuple[str, ...] = ()  # a private game's seats' token hashes
    rated: bool = False

    @property
    def private_owner(self) -> str | None:
        """The player of a private game's seat ("" for a guest); None for a public game."""
        if self.private_seat is None:
            return None
        seat = self.seats[self.private_seat] if self.private_seat < len(self.seats) else {}
        return str(seat.get("player_id") or "")


def encode_cursor(game_no: int) -> str:
    """An opaque page cursor: the archive's number of the last game shown (every game archived
    later gets a higher one, so a page never shifts)."""
    return base64.urlsafe_b64encode(f"g{game_no}".encode()).decode().rstrip("=")


def decode_cursor(text: str) -> int:
    """The game number of a cursor; ValueError for one this module did not make."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
        if not raw.startswith("g") or not raw[1:].isdigit() or len(raw) > 12:
            raise ValueError
        return int(raw[1:])
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise ValueError("not a cursor of this server") from None


def _decode_record(data: bytes, seats: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The record from its compact bytes (games/compact.py), naming `seats`."""
    return dict(decode_record(bytes(data), list(seats)))


class Archive:
    """The archive's reads, over one lazily made pool per process."""

    def __init__(self, url: str | None = None) -> None:
        self.url = url if url is not None else os.environ.get("DATABASE_URL", "")
        self._lock = threading.Lock()
        self._pool: ConnectionPool | None = None
        self._pid = 0

    @property
    def configured(self) -> bool:
        return bool(self.url)

    def _get_pool(self) -> ConnectionPool:
        pool, pid = self._pool, os.getpid()
        if pool is not None and self._pid == pid:
            return pool
        with self._lock:
            if self._pool is None or self._pid != pid:
                self._pool = ConnectionPool(
                    self.url,
                    min_size=0,
                    max_size=POOL_MAX,
                    open=False,
                    timeout=CONNECT_WAIT_S,
                    kwargs={
                        "autocommit": True,
                        "connect_timeout": 2,
                        "options": f"-c statement_timeout={STATEMENT_TIMEOUT_MS}",
                    },
                )
                self._pool.open(wait=False)
                self._pid = pid
            return self._pool

    def close(self) -> None:
        with self._lock:
            if self._pool is not None and self._pid == os.getpid():
                self._pool.close()
            self._pool = None

    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection[Any]]:
        if not self.url:
            raise ArchiveUnavailable("no archive is configured (DATABASE_URL)")
        try:
            with self._get_pool().connection(timeout=CONNECT_WAIT_S) as conn:
                yield conn
        except (PoolTimeout, psycopg.OperationalError) as err:
            raise ArchiveUnavailable(str(err).splitlines()[0] if str(err) else "down") from None

    def _rows(self, sql: str, args: Mapping[str, Any] | Sequence[Any]) -> list[dict[str, Any]]:
        with self._conn() as conn, conn.cursor(row_factory=dict_row) as cur:
            cur.execute(sql, args)  # type: ignore[arg-type]
            return list(cur.fetchall())

    # ---- games ------------------------------------------------------------------------------

    def game(self, game_id: str) -> ArchivedGame | None:
        """The archived game, its record decoded; None when the archive has none of that id."""
        rows = self._rows(sql.GAME, {"game_id": game_id})
        if not rows:
            return None
        row = rows[0]
        seats = self._seats_of({row["no"]: row["players"]})[row["no"]]
        private = int(row["private_seat"])
        hashes: tuple[str, ...] = ()
        if private >= 0:
            tokens = {r["seat"]: r["token_hash"] for r in self._rows(sql.TOKENS, row)}
            hashes = tuple(tokens.get(i, "") for i in range(len(seats)))
        return ArchivedGame(
            game_id=row["game_id"],
            kind=row["kind"],
            seats=seats,
            record=_decode_record(row["record"], [public_seat(s) for s in seats]),
            created_at_ms=int(row["created_ms"]),
            ended_at_ms=int(row["ended_ms"]),
            version=int(row["version"]),
            last_event_id=f"{row['ended_ms']}-{row['last_event_seq']}",
            private_seat=private if private >= 0 else None,
            token_hashes=hashes,
            rated=bool(row["rated"]),
        )

    def analysis(self, game_id: str) -> dict[str, Any] | None:
        """The game's finished analysis (the AI's document), None when it has none."""
        rows = self._rows(sql.ANALYSIS, {"game_id": game_id})
        if not rows:
            return None
        return dict(orjson.loads(zlib.decompress(bytes(rows[0]["result"]))))

    # ---- players ----------------------------------------------------------------------------

    def _player(self, player_id: str) -> dict[str, Any] | None:
        rows = self._rows(sql.PLAYER, {"player_id": player_id})
        return rows[0] if rows else None

    def profile(self, player_id: str) -> dict[str, Any] | None:
        """`{"player_id", "name", "bot", "games": {kind: {games, wins, mean_score, rating,
        rating_history}}}`; None for a player the archive never saw at a finished game."""
        player = self._player(player_id)
        if player is None:
            return None
        kinds: dict[str, Any] = {}
        for row in self._rows(sql.PROFILE_STATS, player):
            kinds[row["kind"]] = {
                "games": int(row["games"]),
                "wins": int(row["wins"]),
                "mean_score": round(float(row["mean_score"] or 0), 2),
                "rating": None,
                "rating_history": [],
            }
        for row in self._rows(sql.RATINGS, player):
            entry = kinds.get(row["kind"])
            if entry is not None:
                point = [int(row["ended_at_ms"]), _rating(row["rating_after"])]
                entry["rating_history"].append(point)
                entry["rating"] = point[1]
        return {
            "player_id": player_id,
            "name": DELETED_NAME if player["deleted"] else str(player["name"] or ""),
            "bot": bool(player["bot"]),
            "games": kinds,
        }

    def history(
        self,
        player_id: str,
        *,
        kind: str | None = None,
        result: str | None = None,
        vs: str | None = None,
        before: int | None = None,
        limit: int = 20,
    ) -> tuple[list[dict[str, Any]], str | None] | None:
        """A page of the player's public games newest first, and the cursor of the next page
        (None: the last); None for a player the archive never saw."""
        player = self._player(player_id)
        if player is None:
            return None
        opponent = self._player(vs) if vs else None
        if vs and opponent is None:
            return [], None  # never met anyone of that id
        args = {
            "no": player["no"],
            "kind": kind,
            "result": _RESULT_CHAR[result] if result else None,
            "vs": opponent["no"] if opponent else None,
            "before": before,
            "limit": limit + 1,
        }
        rows = self._rows(sql.HISTORY, args)
        more = len(rows) > limit
        rows = rows[:limit]
        seats_by_game = self._seats_of({r["no"]: r["players"] for r in rows})
        games = []
        for row in rows:
            seats = seats_by_game.get(row["no"], [])
            games.append(
                {
                    "game_id": row["game_id"],
                    "game": row["kind"],
                    "ended_at": int(row["ended_at_ms"]),
                    "seats": [_listed(s) for s in seats],
                    "scores": [s.get("score") for s in seats],
                    "result": _RESULT[row["result"]],
                    "seat": row["seat"],
                    "rated": row["rated"],
                }
            )
        return games, encode_cursor(rows[-1]["no"]) if more else None

    def _seats_of(
        self, games: Mapping[int, bytes], conn: psycopg.Connection[Any] | None = None
    ) -> dict[int, list[dict[str, Any]]]:
        """The seats of these games (their archive numbers and packed player numbers,
        games.players), as `_seat` shapes them."""
        out: dict[int, list[dict[str, Any]]] = {n: [] for n in games}
        pairs = [(no, p) for no, packed in games.items() for p in unpack_players(packed)]
        if not pairs:
            return out
        args = {"games": [no for no, _ in pairs], "players": [p for _, p in pairs]}
        if conn is None:
            rows = self._rows(sql.SEATS_OF, args)
        else:
            with conn.cursor(row_factory=dict_row) as cur:
                cur.execute(sql.SEATS_OF, args)
                rows = cur.fetchall()
        for row in rows:
            out.setdefault(row["no"], []).append(_seat(row))
        return out

    def export(self, player_id: str, *, private_too: bool = False) -> Iterator[bytes]:
        """Every game of the player as NDJSON lines of records, newest first, read through a
        server-side cursor in batches (memory stays flat however many games). Nothing for a
        player the archive never saw."""
        player = self._player(player_id)
        if player is None:
            return
        with self._conn() as conn, conn.transaction(), conn.cursor(name="export_nos") as nos:
            nos.itersize = EXPORT_BATCH
            nos.execute(sql.EXPORT_NOS, {"no": player["no"], "private_too": private_too})
            while batch := [b[0] for b in nos.fetchmany(EXPORT_BATCH)]:
                with conn.cursor(row_factory=dict_row) as cur:
                    cur.execute(sql.EXPORT_ROWS, {"nos": batch})
                    rows = {r["no"]: r for r in cur.fetchall()}
                seats = self._seats_of({no: rows[no]["players"] for no in batch}, conn)
                for no in batch:
                    row = rows[no]
                    public = [public_seat(s) for s in seats.get(no, [])]
                    record = _decode_record(row["record"], public)
                    record["seats"] = public
                    record["game_id"] = row["game_id"]
                    record["game"] = row["kind"]
                    record["ended_at"] = int(row["ended_at_ms"])
                    yield orjson.dumps(record) + b"\n"

    def chat(self, game: ArchivedGame) -> list[dict[str, Any]]:
        """The game's archived chat (the players' room), oldest first, as GET .../chat answers
        lines: each seat's name as the game's seats show it now ("deleted player" once erased)."""
        rows = self._rows(sql.CHAT, {"game_id": game.game_id})
        if not rows:
            return []
        names = {int(s["seat"]): str(s.get("name", "")) for s in game.seats}
        return [shown(line, names) for line in unpack_lines(rows[0]["lines"])]

    def erase(self, player_id: str) -> None:
        """Forget the player's name (their games stay, shown as "deleted player") and blank
        their archived chat lines (their text goes; each line stays, marked deleted)."""
        with self._conn() as conn, conn.transaction():
            conn.execute(sql.ERASE, {"player_id": player_id})
            with conn.cursor(row_factory=dict_row) as cur:
                cur.execute(sql.PLAYER_CHATS, {"player_id": player_id})
                chats = cur.fetchall()
            for row in chats:
                lines = unpack_lines(row["lines"])
                blanked = blank(lines, {int(seat) for seat in row["seats"]})
                if blanked != lines:
                    conn.execute(sql.SET_CHAT, {"game": row["game"], "lines": pack_lines(blanked)})

    def own_lines(self, player_id: str) -> list[dict[str, Any]]:
        """The player's own archived chat lines (their export), newest game first."""
        out = []
        for row in self._rows(sql.PLAYER_CHATS, {"player_id": player_id}):
            seats = {int(seat) for seat in row["seats"]}
            for line in unpack_lines(row["lines"]):
                if line[1] in seats:
                    entry = shown(line, {})
                    entry.pop("name", None)
                    out.append({"game_id": row["game_id"], **entry})
        return out

    def about(self, player_id: str) -> dict[str, Any]:
        """Everything the archive holds about the player (GET /api/players/me/export)."""
        player = self._player(player_id)
        if player is None:
            return {"player": None, "games": [], "chat": []}
        games = []
        for row in self._rows(sql.ABOUT_SEATS, player):
            row["result"] = _RESULT.get(row["result"], row["result"])
            for name in ("rating_before", "rating_after"):
                row[name] = _rating(row[name]) if row[name] is not None else None
            games.append(row)
        me = {k: player[k] for k in ("player_id", "name", "bot", "deleted")}
        return {"player": me, "games": games, "chat": self.own_lines(player_id)}


def _rating(hundredths: int) -> float:
    return round(int(hundredths) / 100, 2)


def _seat(row: Mapping[str, Any]) -> dict[str, Any]:
    """A seat as the API shows it: the player's name (or "deleted player"), the guest's, or
    the AI's with its level; its score, result and ratings; its player's id when it has one."""
    index = int(row["seat"])
    out: dict[str, Any] = {"seat": index, "kind": "human"}
    if row["label_kind"] == "a":
        out.update(kind="ai", name=f"AI {index + 1}", level=row["label"])  # the lobby's name
    elif row["player_id"] is not None:
        out["name"] = DELETED_NAME if row["deleted"] else (row["player_name"] or "")
        if not row["deleted"]:
            out["player_id"] = row["player_id"]
        if row["player_bot"]:
            out["bot"] = True
    else:
        out["name"] = row["label"] or f"Player {index + 1}"
    out["score"] = int(row["score"])
    out["result"] = _RESULT.get(row["result"], "loss")
    for name in ("rating_before", "rating_after"):
        if row[name] is not None:
            out[name] = _rating(row[name])
    return out


def public_seat(seat: Mapping[str, Any]) -> dict[str, Any]:
    """The seat as a record names it (the engine's SeatInfo.public): no id, score or rating."""
    return {k: seat[k] for k in ("name", "kind", "level", "bot") if k in seat}


def _listed(seat: Mapping[str, Any]) -> dict[str, Any]:
    """A seat in a history line: as public, with its player's id (the profile's link)."""
    out = public_seat(seat)
    out["seat"] = seat["seat"]
    if "player_id" in seat:
        out["player_id"] = seat["player_id"]
    return out

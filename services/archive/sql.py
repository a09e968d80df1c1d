"""The statements of reads.py, on the schema of migrations/0001_archive.sql (ids as bytes through
metro_id()/metro_id_text(), kinds as numbers in game_kinds, results and seat kinds as "char").

A player's history, profile and export read the `seats_by_player` index range (player, newest
first); private games (daily attempts, `private_seat` >= 0) never leave through the public ones.
"""

from __future__ import annotations

GAME = """
SELECT metro_id_text(g.id) AS game_id, k.name AS kind, g.created_ms, g.ended_ms, g.version,
       g.last_event_seq, g.private_seat, g.record
FROM games g JOIN game_kinds k ON k.id = g.kind
WHERE g.id = metro_id(%(game_id)s)
"""

TOKENS = """
SELECT seat, token_hash FROM game_tokens WHERE game_id = metro_id(%(game_id)s) ORDER BY seat
"""

# The seats of some games, with their players' names (NULL once deleted).
SEATS_OF = """
SELECT metro_id_text(s.game_id) AS game_id, s.seat, s.seat_kind::text AS seat_kind, s.score,
       s.result::text AS result, s.rating_before, s.rating_after,
       metro_id_text(s.player_id) AS player_id, s.label, p.name AS player_name,
       p.bot AS player_bot, p.deleted
FROM seats s LEFT JOIN players p ON p.id = s.player_id
WHERE s.game_id = ANY (SELECT metro_id(x) FROM unnest(%(game_ids)s::text[]) AS x)
ORDER BY s.game_id, s.seat
"""

ANALYSIS = "SELECT result FROM analyses WHERE game_id = metro_id(%(game_id)s)"

PLAYER = """
SELECT metro_id_text(id) AS player_id, name, bot, deleted
FROM players WHERE id = metro_id(%(player_id)s)
"""

# Per kind: games, wins (the only winner) and mean score over the player's public games.
PROFILE_STATS = """
SELECT k.name AS kind, count(*) AS games, count(*) FILTER (WHERE s.result = 'w') AS wins,
       avg(s.score) AS mean_score
FROM seats s
JOIN game_kinds k ON k.id = s.kind
JOIN games g ON g.id = s.game_id AND g.private_seat = -1
WHERE s.player_id = metro_id(%(player_id)s)
GROUP BY k.name ORDER BY k.name
"""

# The rating after each rated game, oldest first.
RATINGS = """
SELECT k.name AS kind, s.ended_ms AS ended_at_ms, s.rating_after
FROM seats s JOIN game_kinds k ON k.id = s.kind
WHERE s.player_id = metro_id(%(player_id)s) AND s.rating_after IS NOT NULL
ORDER BY s.ended_ms, s.game_id
"""

# A page of the history: the cursor (ended_ms, game id) is the last row of the page before, so
# rows arriving meanwhile (newer) do not move the rows after it.
HISTORY = """
SELECT metro_id_text(s.game_id) AS game_id, k.name AS kind, s.ended_ms AS ended_at_ms, s.seat,
       s.result::text AS result
FROM seats s
JOIN game_kinds k ON k.id = s.kind
JOIN games g ON g.id = s.game_id AND g.private_seat = -1
WHERE s.player_id = metro_id(%(player_id)s)
  AND (%(kind)s::text IS NULL OR k.name = %(kind)s::text)
  AND (%(result)s::text IS NULL OR s.result = %(result)s::text::"char")
  AND (%(vs)s::text IS NULL OR EXISTS (
        SELECT 1 FROM seats o
        WHERE o.game_id = s.game_id AND o.player_id = metro_id(%(vs)s::text)))
  AND (%(before_ms)s::int8 IS NULL
       OR (s.ended_ms, s.game_id) < (%(before_ms)s::int8, metro_id(%(before_id)s::text)))
ORDER BY s.ended_ms DESC, s.game_id DESC
LIMIT %(limit)s
"""

# Every public game of the player, newest first (a server-side cursor reads it in batches).
EXPORT_IDS = """
SELECT metro_id_text(s.game_id)
FROM seats s JOIN games g ON g.id = s.game_id AND (g.private_seat = -1 OR %(private_too)s)
WHERE s.player_id = metro_id(%(player_id)s)
ORDER BY s.ended_ms DESC, s.game_id DESC
"""

EXPORT_ROWS = """
SELECT metro_id_text(g.id) AS game_id, k.name AS kind, g.ended_ms AS ended_at_ms, g.record
FROM games g JOIN game_kinds k ON k.id = g.kind
WHERE g.id = ANY (SELECT metro_id(x) FROM unnest(%(game_ids)s::text[]) AS x)
"""

# The name goes; the row stays (their games name them "deleted player").
ERASE = """
INSERT INTO players (id, name, bot, deleted) VALUES (metro_id(%(player_id)s), NULL, false, true)
ON CONFLICT (id) DO UPDATE SET name = NULL, deleted = true
"""

# Everything about the player's seats, private games included (their own export).
ABOUT_SEATS = """
SELECT metro_id_text(s.game_id) AS game_id, k.name AS game, s.ended_ms AS ended_at, s.seat,
       s.score, s.result::text AS result, s.rating_before, s.rating_after,
       g.private_seat >= 0 AS private, g.rated
FROM seats s JOIN game_kinds k ON k.id = s.kind JOIN games g ON g.id = s.game_id
WHERE s.player_id = metro_id(%(player_id)s)
ORDER BY s.ended_ms DESC, s.game_id DESC
"""

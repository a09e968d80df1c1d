"""The statements of reads.py, on the schema of migrations/0001_archive.sql and 0002: ids as
bytes through metro_id()/metro_id_text(), games and players numbered inside the archive (`no`),
kinds as numbers in game_kinds, results as "char", ratings in hundredths.

A player's history, profile and export read the `seats_by_player` index range (player, newest
game first); private games (daily attempts, `private_seat` >= 0) never leave through the public
ones. A history page's cursor is the last game's number: every game archived later gets a
higher one, so pages already read never shift.
"""

from __future__ import annotations

GAME = """
SELECT g.no, metro_id_text(g.id) AS game_id, k.name AS kind, g.created_ms, g.ended_ms,
       g.version, g.last_event_seq, g.private_seat, g.rated, g.record, g.players
FROM games g JOIN game_kinds k ON k.id = g.kind
WHERE g.id = metro_id(%(game_id)s)
"""

TOKENS = "SELECT seat, token_hash FROM game_tokens WHERE game = %(no)s ORDER BY seat"

# The seats of some games (by number), with their players' names (NULL once deleted) or their
# labels (a guest's name, an AI seat's level). Found through the player index: each game's
# packed list of its players' numbers (games.players; 0: the seats no player holds), unpacked
# by the caller, gives the (game, player) pairs to look up (migrations/0002). Pairs from
# constant arrays: the planner knows how many and probes seats_by_player for each.
SEATS_OF = """
SELECT s.game AS no, s.seat, s.score, s.result::text AS result, s.rating_before,
       s.rating_after, metro_id_text(p.id) AS player_id, p.name AS player_name,
       p.bot AS player_bot, p.deleted, l.seat_kind::text AS label_kind, l.label
FROM unnest(%(games)s::int4[], %(players)s::int4[]) AS q(game, player)
JOIN seats s ON s.player = q.player AND s.game = q.game
LEFT JOIN players p ON p.no = s.player
LEFT JOIN seat_labels l ON l.game = s.game AND l.seat = s.seat
ORDER BY s.game, s.seat
"""

ANALYSIS = """
SELECT a.result FROM analyses a JOIN games g ON g.no = a.game WHERE g.id = metro_id(%(game_id)s)
"""

PLAYER = """
SELECT no, metro_id_text(id) AS player_id, name, bot, deleted
FROM players WHERE id = metro_id(%(player_id)s)
"""

# Per kind: games, wins (the only winner) and mean score over the player's public games.
PROFILE_STATS = """
SELECT k.name AS kind, count(*) AS games, count(*) FILTER (WHERE s.result = 'w') AS wins,
       avg(s.score) AS mean_score
FROM seats s
JOIN game_kinds k ON k.id = s.kind
JOIN games g ON g.no = s.game AND g.private_seat = -1
WHERE s.player = %(no)s
GROUP BY k.name ORDER BY k.name
"""

# The rating after each rated game, oldest first.
RATINGS = """
SELECT k.name AS kind, g.ended_ms AS ended_at_ms, s.rating_after
FROM seats s JOIN game_kinds k ON k.id = s.kind JOIN games g ON g.no = s.game
WHERE s.player = %(no)s AND s.rating_after IS NOT NULL
ORDER BY s.game
"""

# A page of the history, newest first; `before`: the last game number of the page before.
HISTORY = """
SELECT s.game AS no, metro_id_text(g.id) AS game_id, k.name AS kind, g.ended_ms AS ended_at_ms,
       s.seat, s.result::text AS result, g.rated, g.players
FROM seats s
JOIN game_kinds k ON k.id = s.kind
JOIN games g ON g.no = s.game AND g.private_seat = -1
WHERE s.player = %(no)s
  AND (%(kind)s::text IS NULL OR k.name = %(kind)s::text)
  AND (%(result)s::text IS NULL OR s.result = %(result)s::text::"char")
  AND (%(vs)s::int4 IS NULL OR EXISTS (
        SELECT 1 FROM seats o WHERE o.game = s.game AND o.player = %(vs)s::int4))
  AND (%(before)s::int4 IS NULL OR s.game < %(before)s::int4)
ORDER BY s.game DESC
LIMIT %(limit)s
"""

# Every public game of the player, newest first (a server-side cursor reads it in batches).
EXPORT_NOS = """
SELECT s.game
FROM seats s JOIN games g ON g.no = s.game AND (g.private_seat = -1 OR %(private_too)s)
WHERE s.player = %(no)s
ORDER BY s.game DESC
"""

EXPORT_ROWS = """
SELECT g.no, metro_id_text(g.id) AS game_id, k.name AS kind, g.ended_ms AS ended_at_ms, g.record,
       g.players
FROM games g JOIN game_kinds k ON k.id = g.kind
WHERE g.no = ANY (%(nos)s::int4[])
"""

# The name goes; the row stays (their games name them "deleted player"). A player the archive
# has not seen yet gets the row now, so that a game archived later shows no name either.
ERASE = """
INSERT INTO players (id, name, bot, deleted) VALUES (metro_id(%(player_id)s), NULL, false, true)
ON CONFLICT (id) DO UPDATE SET name = NULL, deleted = true
"""

# Everything about the player's seats, private games included (their own export).
ABOUT_SEATS = """
SELECT metro_id_text(g.id) AS game_id, k.name AS game, g.ended_ms AS ended_at, s.seat,
       s.score, s.result::text AS result, s.rating_before, s.rating_after,
       g.private_seat >= 0 AS private, g.rated
FROM seats s JOIN game_kinds k ON k.id = s.kind JOIN games g ON g.no = s.game
WHERE s.player = %(no)s
ORDER BY s.game DESC
"""

# A game's archived chat, the players' room (migrations/0003).
CHAT = """
SELECT c.lines FROM game_chats c JOIN games g ON g.no = c.game WHERE g.id = metro_id(%(game_id)s)
"""

# The archived chats of the player's games, with the seats they held there (the erasure blanks
# those seats' lines; their export lists them).
PLAYER_CHATS = """
SELECT c.game, metro_id_text(g.id) AS game_id, c.lines, array_agg(s.seat) AS seats
FROM players p
JOIN seats s ON s.player = p.no
JOIN game_chats c ON c.game = s.game
JOIN games g ON g.no = s.game
WHERE p.id = metro_id(%(player_id)s)
GROUP BY c.game, g.id, c.lines
ORDER BY c.game DESC
"""

SET_CHAT = "UPDATE game_chats SET lines = %(lines)s WHERE game = %(game)s"

-- A game's seats found through the player index (issue 29: <= 400 bytes a 2-player Metro game;
-- 0001 gave 427). `seats_by_game` cost about 43 bytes a game (one deduplicated entry of 4 bytes
-- key and two heap pointers, 8 bytes of tuple header, 4 of line pointer, page slack); a packed
-- list of the game's player numbers in its `games` row costs 9 (a 1-byte varlena header and 4
-- bytes a distinct player), and with it a game's seats are the (player, game) entries of the
-- player index, which the history needs anyway.
--
--  * games.players: the distinct player numbers of the game's seats, ascending, each an int4
--    in network byte order (int4send; services/archive/ids.py unpack_players, or SQL metro_players);
--    a seat that no player holds (a guest, the AI) counts as player 0.
--  * seats.player: 0, not NULL, for a seat no player holds (players are numbered from 1, so
--    the LEFT JOIN to players still finds nobody), so that such seats are in the player index
--    too and found the same way.
--  * seats_by_player covers every seat (player, game DESC); seats_by_game goes.
--
-- On a large archive this rewrites every games row once (the UPDATE): the table doubles until
-- VACUUM reclaims the old versions.

ALTER TABLE games ADD COLUMN players bytea NOT NULL DEFAULT ''::bytea;

UPDATE seats SET player = 0 WHERE player IS NULL;
ALTER TABLE seats ALTER COLUMN player SET NOT NULL;

UPDATE games g SET players = coalesce((
    SELECT string_agg(int4send(p.player), ''::bytea ORDER BY p.player)
    FROM (SELECT DISTINCT s.player FROM seats s WHERE s.game = g.no) p
), ''::bytea);

ALTER TABLE games ALTER COLUMN players DROP DEFAULT;

DROP INDEX seats_by_player;
DROP INDEX seats_by_game;
CREATE INDEX seats_by_player ON seats (player, game DESC);

-- The player numbers of a packed list (games.players), for joins on the player index.
CREATE FUNCTION metro_players(bytea) RETURNS SETOF int4
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT (get_byte($1, i) << 24) | (get_byte($1, i + 1) << 16)
       | (get_byte($1, i + 2) << 8) | get_byte($1, i + 3)
  FROM generate_series(0, length($1) - 4, 4) AS i
$$;

-- The archive: every finished game for good (issue 29). Written by the archivers
-- (services/archive/archiver.py) from the engine's outbox; read by the gateway
-- (services/archive/reads.py). Never edit a committed migration: add 0002_*.sql.
--
-- Designed for <= 400 bytes per 2-player Metro game, table rows and indexes together. A heap
-- row costs 24 bytes of header and 4 of line pointer before any data, and a row with a NULL in
-- it needs a bitmap that pushes the header to 32 bytes once a table has more than 8 columns;
-- B-tree pages filled by inserts in random key order end up about 70 % full. Hence:
--  * ids are bytes, not text: a game id (16 base64url characters) is stored as its 12 bytes,
--    a player id (12 characters) as its 9 bytes (metro_id() / metro_id_text() below); and
--    inside the archive games and players are numbered (int4 `no`), so the per-seat rows and
--    their indexes repeat 4 bytes, not 12 or 9 (int4 numbers 2.1 billion games; the road
--    past that is in docs/archive.md);
--  * times are int8 milliseconds since the epoch, as the engine and the API speak them;
--  * columns go widest fixed-size first (no alignment padding); `seats` has 8 columns so a
--    NULL costs no extra header; ratings are int2 hundredths (4 bytes for before and after);
--  * four indexes: games by id (the links) and by number (ordered inserts: pages full), a
--    game's seats (ordered, deduplicated: one entry per game), a player's seats newest first.
--
-- Exactly once: an archiver writes a game with its seats, labels, tokens and players in ONE
-- transaction; `INSERT INTO games ... ON CONFLICT (id) DO NOTHING RETURNING no` decides: when
-- it returns no row the game is archived already and the transaction writes nothing else.

-- Ids as bytes. A 12- or 16-character base64url id becomes its 9 or 12 bytes; any other text
-- id (none is made today) is kept as one zero byte + its UTF-8, two zero bytes when that would
-- be 9 or 12 bytes long, so the two forms never collide. services/archive/ids.py does the same
-- in Python.
CREATE FUNCTION metro_id(text) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE
    WHEN $1 ~ '^([A-Za-z0-9_-]{12}|[A-Za-z0-9_-]{16})$'
      THEN decode(translate($1, '-_', '+/'), 'base64')
    WHEN octet_length($1) IN (8, 11)
      THEN '\x0000'::bytea || convert_to($1, 'UTF8')
    ELSE '\x00'::bytea || convert_to($1, 'UTF8')
  END
$$;

CREATE FUNCTION metro_id_text(bytea) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE
    WHEN length($1) IN (9, 12) THEN translate(encode($1, 'base64'), '+/', '-_')
    ELSE convert_from(ltrim($1, '\x00'::bytea), 'UTF8')
  END
$$;

-- The game kinds (games/registry.py), numbered so that rows hold 2 bytes, not the name. An
-- archiver adds a kind it does not find.
CREATE TABLE game_kinds (
    id   smallint PRIMARY KEY,
    name text     NOT NULL UNIQUE
);
-- No rows here: the schema names no game. A kind gets its number the first time a game of it is
-- archived (services/archive/writes.py kind_id), so a new game needs no migration.

-- Every player the archive has seen at a seat (services/engine/players.py). A deleted player
-- (DELETE /api/players/me) keeps the row with name NULL and deleted true: their games stay,
-- shown to their opponents as "deleted player".
CREATE TABLE players (
    no      int4    GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id      bytea   NOT NULL UNIQUE,          -- metro_id(player id): 9 bytes
    name    text,                             -- NULL once deleted
    bot     boolean NOT NULL DEFAULT false,   -- a bot account (issue 24)
    deleted boolean NOT NULL DEFAULT false
);

-- One row per finished game.
CREATE TABLE games (
    created_ms     int8     NOT NULL,  -- when the game was created (ms)
    ended_ms       int8     NOT NULL,  -- the ms part of its last event id: when it ended
    version        int4     NOT NULL,  -- its final version
    last_event_seq int4     NOT NULL,  -- its last event id is ended_ms || '-' || last_event_seq
    no             int4     GENERATED ALWAYS AS IDENTITY,  -- archive order; seats refer to it
    kind           smallint NOT NULL REFERENCES game_kinds (id),
    private_seat   smallint NOT NULL DEFAULT -1,  -- a daily attempt: the one seat that may read
                                                  -- its record (game_tokens); -1: public
    rated          boolean  NOT NULL,  -- the table was rated (each rated seat has its ratings)
    id             bytea    NOT NULL,  -- metro_id(game id): 12 bytes
    record         bytea    NOT NULL,  -- games/compact.py encode_record(record): the moves as
                                       -- indexes into each position's legal moves, decoded by
                                       -- replay; WITHOUT the seats (they come from `seats`,
                                       -- `players` and `seat_labels`: names change, a deleted
                                       -- player's goes)
    CONSTRAINT games_pkey PRIMARY KEY (id)
);
CREATE UNIQUE INDEX games_by_no ON games (no);

-- One row per seat of each game: exactly 8 columns (see above). The game's kind is repeated so
-- that a player's history is filtered without reading `games`.
--   result: 'w' won (the only winner), 'd' drew (one of several winners), 'l' lost.
--   player NULL: a guest or an AI seat (its name or level is in seat_labels).
--   rating_before / rating_after: the seat's rating (openskill's mu - 3 sigma, the number the
--   leaderboard shows) in hundredths; NULL both when the seat was not rated.
CREATE TABLE seats (
    game          int4     NOT NULL,  -- games.no
    player        int4,               -- players.no; NULL for a guest or the AI
    score         int4     NOT NULL,  -- the final score
    kind          smallint NOT NULL,  -- = games.kind
    seat          smallint NOT NULL,  -- 0-based
    rating_before smallint,
    rating_after  smallint,
    result        "char"   NOT NULL
);

-- A game's seats (game page, record, history's opponents, the `vs` filter).
CREATE INDEX seats_by_game ON seats (game);

-- A player's games, newest first (archive order: `before` is a games.no, stable while new
-- games arrive, since every new game gets a higher number): the history (kind / result / vs
-- are checked on this range's rows), the profile's counts and rating history.
CREATE INDEX seats_by_player ON seats (player, game DESC) WHERE player IS NOT NULL;

-- The seats no player holds: a guest's name ('h'), or an AI seat's level ('a': 'medium',
-- 'mcts-200'). A seat of a player has no row here (its name is the player's).
CREATE TABLE seat_labels (
    game      int4     NOT NULL,  -- games.no
    seat      smallint NOT NULL,
    seat_kind "char"   NOT NULL,  -- 'h' a guest, 'a' the AI
    label     text     NOT NULL,
    PRIMARY KEY (game, seat)
);

-- The seat tokens of private games only (daily attempts), so that an archived attempt's
-- record stays its seat's alone: services/common/auth.py's token_hash (hex).
CREATE TABLE game_tokens (
    game       int4     NOT NULL,  -- games.no
    seat       smallint NOT NULL,
    token_hash text     NOT NULL,
    PRIMARY KEY (game, seat)
);

-- A finished analysis (the AI workers' document, services/engine/analysis.py) as
-- zlib-compressed JSON; written when it is done, possibly long after the game.
CREATE TABLE analyses (
    game    int4  PRIMARY KEY,  -- games.no
    done_ms int8  NOT NULL,
    result  bytea NOT NULL      -- zlib.compress(the JSON document's bytes)
);

-- A finished game's chat, the players' room only (issue 35): readable afterwards by those who
-- sat at the table (services/gateway/archive_view.py archived_chat). The spectators' room is not
-- archived: it expires with the game's Redis keys.
--
-- One row per game that has any players' line, none for the others (most games: 0 bytes). The
-- lines are one zlib'd JSON array (services/archive/chat.py pack_lines): per line its Redis
-- stream id (the id the page already knows, so a line is never shown twice), the seat, its time
-- (as the few ms it differs from the id's) and its text or party preset; a line of a player who deleted their account keeps its id, seat
-- and time, its text gone and marked deleted. The seat names the writer through `seats`, so a
-- deleted player's name goes with the rest of them. A row costs its 28-byte header, 4+1 bytes
-- of data headers and the compressed lines, plus ~20 bytes of primary-key index entry.
CREATE TABLE game_chats (
    game  int4  PRIMARY KEY,  -- games.no
    lines bytea NOT NULL      -- zlib.compress(JSON [[id, seat, at, "t"|"p"|"d", body], ...]),
                              -- or that JSON itself when shorter (it starts with "[")
);

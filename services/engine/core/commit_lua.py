"""The Lua scripts behind every write to a game (see GameStore.commit and GameStore.submit).

Kept as Python strings so that they ship with the package however it is installed. Two scripts,
two kinds of write: COMMIT_LUA for a change everyone sees (create, join, a move, a resolved
simultaneous turn), checked against the exact version; SUBMIT_LUA for one seat's hidden choice
in an open simultaneous turn, checked against the turn only, so that any number of seats
choosing at once never conflict with one another.
"""

# Shared by both scripts: settle one seat's bot job, refresh the TTLs.
_HELPERS = r"""
local function settle_job(game, bots, group, seat)
  local field = 'bot:' .. seat
  local job = redis.call('HGET', game, field)
  if job then
    redis.pcall('XACK', bots, group, job)
    redis.call('XDEL', bots, job)
    redis.call('HDEL', game, field)
  end
end

local function expire_all(ttl, ...)
  for _, key in ipairs({...}) do
    redis.call('EXPIRE', key, ttl)
  end
end
"""

COMMIT_LUA = (
    _HELPERS
    + r"""
-- Commit one public change to a game, atomically.
--
-- KEYS[1] game hash      (version, status, state, meta, created_at, last_event_id, turn,
--                         turn_version, bot:<seat> job ids)
-- KEYS[2] event stream   (one entry per change; its id is the public event id)
-- KEYS[3] answers hash   (request key -> "event_id\nversion", for idempotent retries)
-- KEYS[4] bot-turns stream (jobs for AI workers, consumer group ARGV[12])
-- KEYS[5..7] status indexes: waiting, playing, over (zsets scored by created_at)
-- KEYS[8] pending hash   (seat -> hidden choice of the open simultaneous turn): emptied
-- KEYS[9] clock index    (zset of game ids by their next clock deadline, ms)
-- KEYS[10] feed outbox   (the shard's stream of what commits owe the players' feeds:
--                         feed_outbox.py, consumer group "feed-writers")
--
-- ARGV[1]  expected version, or "" to create the game (the hash must not exist yet)
-- ARGV[2]  request key: a repeat of it returns the stored answer and changes nothing
-- ARGV[3]  new state JSON           ARGV[4]  new meta JSON, or "" when unchanged
-- ARGV[5]  new status               ARGV[6]  public event JSON, after '{"version":N,'
-- ARGV[7]  TTL in seconds for the game's keys
-- ARGV[8]  AI seats due to move now: "seat=level" items joined by ",", or ""
-- ARGV[9]  number of seats          ARGV[10] game id     ARGV[11] game kind
-- ARGV[12] bot consumer group       ARGV[13] bot stream MAXLEN (approximate)
-- ARGV[14] created_at (ms; create only)   ARGV[15] the new state's turn number
-- ARGV[16] the game's next clock deadline (ms), or "" when nothing is timed
-- ARGV[17] the feed outbox entry's doc (feed_outbox.feed_doc), or "" when none is owed
-- ARGV[18] the feed outbox MAXLEN (approximate)
-- KEYS[11] archive outbox (the shard's stream of finished games for the archivers:
--                          archive_outbox.py, consumer group "archivers")
-- ARGV[19] "1" when an archive is configured (DATABASE_URL), else ""
-- ARGV[20] the request's fingerprint (a move's hash), or "": stored with the answer, so that a
--          different request under the same key is told apart (moves.py: idempotency_mismatch)
--
-- Returns {"ok", event_id, version} | {"dup", "event_id\nversion"} | {"conflict", version}
-- | {"gone"} | {"exists"}.

local game, events, answers, bots = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local index = {waiting = KEYS[5], playing = KEYS[6], over = KEYS[7]}
local pending, clocks = KEYS[8], KEYS[9]

local prior = redis.call('HGET', answers, ARGV[2])
if prior then
  return {'dup', prior}
end

local version
local old_status = false
if ARGV[1] == '' then
  if redis.call('EXISTS', game) == 1 then
    return {'exists'}
  end
  version = 1
  redis.call('HSET', game, 'created_at', ARGV[14])
else
  local current = redis.call('HGET', game, 'version')
  if not current then
    return {'gone'}
  end
  if current ~= ARGV[1] then
    return {'conflict', current}
  end
  version = tonumber(current) + 1
  old_status = redis.call('HGET', game, 'status')
end

local event_id = redis.call('XADD', events, '*', 'version', version,
  'event', '{"version":' .. version .. ',' .. ARGV[6])
redis.call('HSET', game, 'version', version, 'status', ARGV[5], 'state', ARGV[3],
  'last_event_id', event_id, 'turn', ARGV[15], 'turn_version', version)
if ARGV[4] ~= '' then
  redis.call('HSET', game, 'meta', ARGV[4])
end
redis.call('DEL', pending)
redis.call('HSET', answers, ARGV[2], event_id .. '\n' .. version
  .. (ARGV[20] ~= '' and ('\n' .. ARGV[20]) or ''))

-- The status indexes behind ListGames.
if old_status ~= ARGV[5] then
  if old_status and index[old_status] then
    redis.call('ZREM', index[old_status], ARGV[10])
  end
  if index[ARGV[5]] then
    redis.call('ZADD', index[ARGV[5]], redis.call('HGET', game, 'created_at'), ARGV[10])
  end
end

-- A public change settles every job of the previous turn; AI seats due now get new ones.
for seat = 0, tonumber(ARGV[9]) - 1 do
  settle_job(game, bots, ARGV[12], seat)
end
for item in string.gmatch(ARGV[8], '[^,]+') do
  local seat, level = string.match(item, '^(%d+)=(.*)$')
  local job = redis.call('XADD', bots, 'MAXLEN', '~', ARGV[13], '*',
    'game_id', ARGV[10], 'game', ARGV[11], 'seat', seat, 'version', version, 'level', level)
  redis.call('HSET', game, 'bot:' .. seat, job)
end

-- The clock index the clock keeper reads (timeouts.py): one entry per game with a deadline.
if ARGV[16] == '' then
  redis.call('ZREM', clocks, ARGV[10])
else
  redis.call('ZADD', clocks, ARGV[16], ARGV[10])
end

-- ---- Players' feed outbox (issue 30 item 4) ----
-- What this commit owes the players' own streams (your_turn, game_over), written in this same
-- atomic step, so that no kill between the move and the feed write can lose it: the engines'
-- OutboxReader fans it out to feed:{player} (another slot) and acknowledges it once written.
if ARGV[17] ~= '' then
  redis.call('XADD', KEYS[10], 'MAXLEN', '~', ARGV[18], '*',
    'game_id', ARGV[10], 'version', version, 'doc', ARGV[17])
end
-- ---- end of the players' feed outbox ----

-- ---- Archive outbox (issue 29) ----
-- The commit that ends a game names it in its shard's archive outbox in this same atomic step,
-- when an archive is configured: an archiver copies the game to PostgreSQL, then gives its keys
-- their finished TTL (until then they are held: Tables.ttl), then deletes the entry. Never
-- trimmed: every entry is a game not archived yet.
if ARGV[19] == '1' and ARGV[5] == 'over' and old_status ~= 'over' then
  redis.call('XADD', KEYS[11], '*', 'game_id', ARGV[10], 'what', 'game')
end
-- ---- end of the archive outbox ----

expire_all(tonumber(ARGV[7]), game, events, answers)
return {'ok', event_id, tostring(version)}
"""
)

SUBMIT_LUA = (
    _HELPERS
    + r"""
-- Store one seat's hidden choice for the open simultaneous turn, unless it is the choice that
-- completes the turn: that one is never stored here (the caller commits the resolved turn with
-- COMMIT_LUA instead, in one write), so a complete set of choices never waits in Redis.
--
-- KEYS[1] game hash   KEYS[2] event stream   KEYS[3] answers hash   KEYS[4] pending hash
-- KEYS[5] bot-turns stream
--
-- ARGV[1] request key          ARGV[2] the turn number the choice was made in
-- ARGV[3] seat                 ARGV[4] the choice (move JSON)
-- ARGV[5] public event JSON, after '{"version":N,'
-- ARGV[6] how many seats choose in this turn
-- ARGV[7] TTL in seconds       ARGV[8] bot consumer group
-- ARGV[9] the version of the turn's last public change (the hash's turn_version) the caller
--         counted ARGV[6] from: a public change since (a seat retired) may change the count
-- ARGV[10] the choice's fingerprint, or "" (stored with the answer, as in COMMIT_LUA)
--
-- Returns {"ok", event_id, version} | {"dup", "event_id\nversion"} | {"gone"}
-- | {"turn", version} (the turn, or its seats, changed since: look again)
-- | {"last", version} (every other seat has chosen: commit the resolved turn instead).

local game, events, answers, pending, bots = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]

local prior = redis.call('HGET', answers, ARGV[1])
if prior then
  return {'dup', prior}
end
local turn, current, turn_version = unpack(redis.call('HMGET', game, 'turn', 'version',
  'turn_version'))
if not current then
  return {'gone'}
end
if turn ~= ARGV[2] or (turn_version or current) ~= ARGV[9] then
  return {'turn', current}
end
local others = redis.call('HLEN', pending) - redis.call('HEXISTS', pending, ARGV[3])
if others + 1 >= tonumber(ARGV[6]) then
  return {'last', current}
end

redis.call('HSET', pending, ARGV[3], ARGV[4])
local version = redis.call('HINCRBY', game, 'version', 1)
local event_id = redis.call('XADD', events, '*', 'version', version,
  'event', '{"version":' .. version .. ',' .. ARGV[5])
redis.call('HSET', game, 'last_event_id', event_id)
redis.call('HSET', answers, ARGV[1], event_id .. '\n' .. version
  .. (ARGV[10] ~= '' and ('\n' .. ARGV[10]) or ''))
settle_job(game, bots, ARGV[8], ARGV[3])
expire_all(tonumber(ARGV[7]), game, events, answers, pending)
return {'ok', event_id, tostring(version)}
"""
)

# The read of a game with its pending choices, in one atomic step: a script, not MULTI/EXEC,
# because redis-py's asyncio cluster client runs transactions through a helper thread that
# blocks the event loop and breaks when a node dies (seen with redis-py 8.1). Flagged
# no-writes, so that it runs when the server is out of memory (reads go on; store_limits).
LOAD_LUA = r"""#!lua flags=no-writes
-- KEYS[1] game hash   KEYS[2] pending hash
-- Returns {the game's fields (nil when missing), pending as a flat field/value list}.
return {
  redis.call('HMGET', KEYS[1], 'version', 'status', 'state', 'meta', 'created_at',
             'last_event_id', 'turn_version'),
  redis.call('HGETALL', KEYS[2]),
}
"""

"""The Lua script behind every write to a game (see GameStore.commit).

Kept as a Python string so that it ships with the package however it is installed.
"""

COMMIT_LUA = r"""
-- Commit one change to a game, atomically: the only way the engine writes a game.
--
-- KEYS[1] game hash      (version, status, state, meta, created_at, last_event_id, bot_job)
-- KEYS[2] event stream   (one entry per change; its id is the public event id)
-- KEYS[3] answers hash   (request key -> "event_id\nversion\nanswer", for idempotent retries)
-- KEYS[4] bot-turns stream (jobs for AI workers, consumer group ARGV[13])
-- KEYS[5..7] status indexes: waiting, playing, over (zsets scored by created_at)
--
-- ARGV[1]  expected version, or "" to create the game (the hash must not exist yet)
-- ARGV[2]  request key: a repeat of it returns the stored answer and changes nothing
-- ARGV[3]  answer to store under the request key (may be "")
-- ARGV[4]  new state JSON           ARGV[5]  new meta JSON, or "" when unchanged
-- ARGV[6]  new status               ARGV[7]  public event JSON
-- ARGV[8]  TTL in seconds for the game's keys
-- ARGV[9]  seat of an AI whose turn it now is, or ""    ARGV[10] that seat's level
-- ARGV[11] game id    ARGV[12] game kind    ARGV[13] bot consumer group
-- ARGV[14] bot stream MAXLEN (approximate)  ARGV[15] created_at (ms; create only)
--
-- Returns {"ok", event_id, version} | {"dup", answer} | {"conflict", version} | {"gone"}
-- | {"exists"}.

local game, events, answers, bots = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local index = {waiting = KEYS[5], playing = KEYS[6], over = KEYS[7]}

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
  redis.call('HSET', game, 'created_at', ARGV[15])
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

local event_id = redis.call('XADD', events, '*', 'version', version, 'event', ARGV[7])
redis.call('HSET', game, 'version', version, 'status', ARGV[6], 'state', ARGV[4],
  'last_event_id', event_id)
if ARGV[5] ~= '' then
  redis.call('HSET', game, 'meta', ARGV[5])
end
redis.call('HSET', answers, ARGV[2], event_id .. '\n' .. version .. '\n' .. ARGV[3])

-- The status indexes behind ListGames.
if old_status ~= ARGV[6] then
  if old_status and index[old_status] then
    redis.call('ZREM', index[old_status], ARGV[11])
  end
  if index[ARGV[6]] then
    redis.call('ZADD', index[ARGV[6]], redis.call('HGET', game, 'created_at'), ARGV[11])
  end
end

-- Any change settles the job for the previous turn; a new AI turn gets a new job.
local old_job = redis.call('HGET', game, 'bot_job')
if old_job then
  redis.pcall('XACK', bots, ARGV[13], old_job)
  redis.call('XDEL', bots, old_job)
  redis.call('HDEL', game, 'bot_job')
end
if ARGV[9] ~= '' then
  local job = redis.call('XADD', bots, 'MAXLEN', '~', ARGV[14], '*',
    'game_id', ARGV[11], 'game', ARGV[12], 'seat', ARGV[9], 'version', version,
    'level', ARGV[10])
  redis.call('HSET', game, 'bot_job', job)
end

local ttl = tonumber(ARGV[8])
redis.call('EXPIRE', game, ttl)
redis.call('EXPIRE', events, ttl)
redis.call('EXPIRE', answers, ttl)
return {'ok', event_id, tostring(version)}
"""

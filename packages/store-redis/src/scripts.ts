// The Lua scripts of every write. A script runs alone on the server: the checks it makes (the
// store's generation, a fence, an entry's state) and the write it does are one step no other
// client can come between. Time is the server's (`TIME`), so hosts whose clocks disagree agree on
// when a lease or a claim ends.
//
// Conventions: KEYS[1] is the generation key and ARGV[1] the generation this store opened; a script
// answers "lost" when they differ (the data was lost or replaced under it, README: "What it
// assumes"). A fenced write passes the lease's key after its own keys and the fence's holder and
// value as its last two arguments; it answers "fence" when the fence no longer holds.

const prelude = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function generation_holds()
  return redis.call('GET', KEYS[1]) == ARGV[1]
end
-- The lease is still this holder's, under this fence value, and unexpired.
local function fence_holds(lease, holder, value)
  local l = redis.call('HMGET', lease, 'holder', 'fence', 'expiresAt')
  return l[1] == holder and l[2] == value and tonumber(l[3]) > now_ms()
end
`;

/** A script whose body may use the prelude. */
const script = (body: string) => `${prelude}\n${body}`;

/** Creates the generation key if there is none; answers the generation in force. */
export const openGeneration = `
local current = redis.call('GET', KEYS[1])
if current then return current end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
`;

/** KEYS: generation, value, [lease]. ARGV: generation, value, [holder, fence]. */
export const setValue = script(`
if not generation_holds() then return 'lost' end
if KEYS[3] and not fence_holds(KEYS[3], ARGV[3], ARGV[4]) then return 'fence' end
redis.call('SET', KEYS[2], ARGV[2])
return 'ok'
`);

/**
 * KEYS: generation, lease. ARGV: generation, holder, ttl. Takes a lease that is free, expired or the
 * holder's own, raising the fence kept in the same hash; answers { "ok", fence, ttl } or { "held" }.
 */
export const acquireLease = script(`
if not generation_holds() then return {'lost'} end
local now = now_ms()
local l = redis.call('HMGET', KEYS[2], 'holder', 'fence', 'expiresAt')
if l[1] and l[1] ~= ARGV[2] and tonumber(l[3]) > now then return {'held'} end
local fence = (tonumber(l[2]) or 0) + 1
redis.call('HSET', KEYS[2], 'holder', ARGV[2], 'fence', fence, 'expiresAt', now + tonumber(ARGV[3]))
return {'ok', fence}
`);

/** KEYS: generation, lease. ARGV: generation, ttl, holder, fence. */
export const renewLease = script(`
if not generation_holds() then return 'lost' end
if not fence_holds(KEYS[2], ARGV[3], ARGV[4]) then return 'fence' end
redis.call('HSET', KEYS[2], 'expiresAt', now_ms() + tonumber(ARGV[2]))
return 'ok'
`);

/** KEYS: lease. ARGV: holder, fence. Ends the lease now, keeping its fence; nothing when it is another's. */
export const releaseLease = `
local l = redis.call('HMGET', KEYS[1], 'holder', 'fence')
if l[1] == ARGV[1] and l[2] == ARGV[2] then redis.call('HSET', KEYS[1], 'expiresAt', 0) end
return 'ok'
`;

/** Writes an intent unless its key has an entry that is not `not-applied`: answers { "exists", intent, settlement } then. */
const begin = `
local function begin(entry, unresolved, key, intent)
  local state = redis.call('HGET', entry, 'state')
  if state and state ~= 'not-applied' then
    local e = redis.call('HMGET', entry, 'intent', 'settlement')
    return {'exists', e[1], e[2]}
  end
  redis.call('DEL', entry)
  redis.call('HSET', entry, 'intent', intent, 'state', 'pending')
  redis.call('ZADD', unresolved, 0, key)
  return {'ok'}
end
`;

/**
 * KEYS: generation, entry, unresolved, [lease]. ARGV: generation, key, intent JSON, [holder, fence].
 * Writes the intent unless the key has an entry that is not `not-applied`: answers that entry then.
 */
export const beginIntent = script(`${begin}
if not generation_holds() then return {'lost'} end
if KEYS[4] and not fence_holds(KEYS[4], ARGV[4], ARGV[5]) then return {'fence'} end
return begin(KEYS[2], KEYS[3], ARGV[2], ARGV[3])
`);

/**
 * Settles an entry: a settled entry expires after the retention (the server's clock); an unresolved
 * one stays listed and never expires. `keep` is "unresolved" or the retention in ms. A settlement
 * that names its intent (`of`: its id, else "") settles only that intent, and only while it is
 * unresolved, but for `applied`, which replaces any other outcome of it (core's \`settles\`). An
 * intent written before ids is named by its start (core's \`intentIdOf\`).
 */
const settle = `
local function settles(entry, of, state)
  local current = redis.call('HMGET', entry, 'state', 'intent')
  if not current[1] then return false end
  if of == '' then return true end
  local intent = cjson.decode(current[2])
  -- An id that is not a string (absent, or JSON null: cjson.null is truthy) names the intent by its start.
  local id = type(intent.id) == 'string' and intent.id or string.format('t%d', intent.startedAt)
  if id ~= of then return false end
  local was = current[1]
  return was == 'pending' or was == 'disputed' or (state == 'applied' and was ~= 'applied')
end
local function settle(entry, unresolved, key, settlement, state, keep, of)
  if not settles(entry, of, state) then return end
  redis.call('HSET', entry, 'settlement', settlement, 'state', state)
  if keep == 'unresolved' then
    redis.call('PERSIST', entry)
    redis.call('ZADD', unresolved, 0, key)
  else
    redis.call('ZREM', unresolved, key)
    redis.call('PEXPIRE', entry, keep)
  end
end
`;

/** KEYS: generation, entry, unresolved, [lease]. ARGV: generation, key, settlement JSON, state, keep, of, [holder, fence]. */
export const settleIntent = script(`${settle}
if not generation_holds() then return 'lost' end
if KEYS[4] and not fence_holds(KEYS[4], ARGV[7], ARGV[8]) then return 'fence' end
settle(KEYS[2], KEYS[3], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
return 'ok'
`);

/**
 * The outcome and the chain link its answer carried, in one write. KEYS: generation, entry,
 * unresolved, value, lease. ARGV: generation, key, settlement JSON, state, keep, of, link, holder, fence.
 */
export const settleIntentWithLink = script(`${settle}
if not generation_holds() then return 'lost' end
if not fence_holds(KEYS[5], ARGV[8], ARGV[9]) then return 'fence' end
redis.call('SET', KEYS[4], ARGV[7])
settle(KEYS[2], KEYS[3], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
return 'ok'
`);

/**
 * An applied intent's outcome with its link, then the register's next intent: one write (one fsync
 * under appendfsync always) for a register's calls back to back. KEYS: generation, entry,
 * unresolved, value, next entry, lease. ARGV: generation, key, settlement JSON, state, keep, of,
 * link, next key, next intent JSON, holder, fence.
 */
export const settleThenBegin = script(`${settle}${begin}
if not generation_holds() then return {'lost'} end
if not fence_holds(KEYS[6], ARGV[10], ARGV[11]) then return {'fence'} end
redis.call('SET', KEYS[4], ARGV[7])
settle(KEYS[2], KEYS[3], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
return begin(KEYS[5], KEYS[3], ARGV[8], ARGV[9])
`);

/**
 * KEYS: generation, unresolved. ARGV: generation, key prefix, journal key prefix. The unresolved
 * entries whose key starts with the prefix, as { "ok", key, intent, settlement, … } (under the
 * generation, as getIntent): the sorted set is ordered by key, so the prefix
 * is one range (byte 255 never occurs in UTF-8, so "prefix\\255" bounds every key that starts with it).
 */
export const pendingIntents = script(`
if not generation_holds() then return {'lost'} end
local keys = redis.call('ZRANGEBYLEX', KEYS[2], '[' .. ARGV[2], '(' .. ARGV[2] .. '\\255')
local out = {'ok'}
for _, key in ipairs(keys) do
  local e = redis.call('HMGET', ARGV[3] .. key, 'intent', 'settlement')
  if e[1] then
    out[#out + 1] = key
    out[#out + 1] = e[1]
    out[#out + 1] = e[2] or ''
  end
end
return out
`);

/**
 * KEYS: generation, entry. ARGV: generation. Answers { "ok", intent, settlement } (false for what the
 * entry lacks). Under the generation as the writes are: the journal lost under a running process is
 * an error, never "no entry", which would read as "never sent".
 */
export const getIntent = script(`
if not generation_holds() then return {'lost'} end
local e = redis.call('HMGET', KEYS[2], 'intent', 'settlement')
return {'ok', e[1], e[2]}
`);

/** KEYS: generation, lock, value. ARGV: generation, owner, lock ms. Takes the lock of a value; answers { "ok", value } or { "held" }. */
export const takeValueLock = script(`
if not generation_holds() then return {'lost'} end
if not redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3]) then return {'held'} end
return {'ok', redis.call('GET', KEYS[3])}
`);

/** KEYS: lock. ARGV: owner, lock ms. Extends the lock while its owner's decision runs. */
export const extendValueLock = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'lost' end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 'ok'
`;

/**
 * KEYS: generation, lock, value. ARGV: generation, owner, [new value]. Writes the decision only if
 * the lock is still the owner's (its fence), frees the lock, answers { "ok", value stored }.
 */
export const writeUnderValueLock = script(`
if not generation_holds() then return {'lost'} end
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return {'fence'} end
if ARGV[3] then redis.call('SET', KEYS[3], ARGV[3]) end
redis.call('DEL', KEYS[2])
return {'ok', redis.call('GET', KEYS[3])}
`);

/** KEYS: lock. ARGV: owner. Frees the lock when the decision failed. */
export const freeValueLock = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 'ok'
`;

/**
 * KEYS: generation, delivery. ARGV: generation, claim ms, token. Answers "new", "processing" or
 * "done". A claim is the value `processing <token>` until it expires.
 */
export const claimCallback = script(`
if not generation_holds() then return 'lost' end
local state = redis.call('GET', KEYS[2])
if state == 'done' then return 'done' end
if state then return 'processing' end
redis.call('SET', KEYS[2], 'processing ' .. ARGV[3], 'PX', ARGV[2])
return 'new'
`);

/** KEYS: generation, delivery. ARGV: generation, retention ms. */
export const completeCallback = script(`
if not generation_holds() then return 'lost' end
redis.call('SET', KEYS[2], 'done', 'PX', ARGV[2])
return 'ok'
`);

/** KEYS: generation, delivery. ARGV: generation, lease ms, token. Extends the claim taken under the token: "ok", or "gone" when it is not that delivery's (any more). */
export const renewCallback = script(`
if not generation_holds() then return 'lost' end
if redis.call('GET', KEYS[2]) ~= 'processing ' .. ARGV[3] then return 'gone' end
redis.call('SET', KEYS[2], 'processing ' .. ARGV[3], 'PX', ARGV[2])
return 'ok'
`);

/** KEYS: delivery. ARGV: token. Frees the claim taken under the token; another's claim, or a done delivery, stays. */
export const releaseCallback = `
if redis.call('GET', KEYS[1]) == 'processing ' .. ARGV[1] then redis.call('DEL', KEYS[1]) end
return 'ok'
`;

/**
 * KEYS: generation, order. ARGV: generation, status, expected ("" for none), retention ms.
 * Compare-and-set: answers "ok" when the recorded status was the expected one, "changed" otherwise.
 */
export const recordOrderStatus = script(`
if not generation_holds() then return 'lost' end
local current = redis.call('GET', KEYS[2])
if ARGV[3] == '' then
  if current then return 'changed' end
elseif current ~= ARGV[3] then
  return 'changed'
end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[4])
return 'ok'
`);

--- @include "schedule-run"
--- @include "events"
--- @include "dependency-forget"
--[[
  Dependencies (SPEC §12): an execution added with `after` waits for other keys to end.

  A waiter w: runs:<w> has state 'scheduled' and the fields 'after' (JSON array of the keys, in
  the order given), 'open' (how many have not ended yet; absent once none is open) and
  'onDependencyFailure' ('run'; absent = 'fail'). It is in no queue or lane while it waits;
  <prefix>waiting (zset, scored by add time) lists the waiters, for snapshots and clear.
  <prefix>deps:<w> (hash) maps each key of `after` to '' while it is open, to the generation
  of the end it got (its outcome is <prefix>outcome:<generation>:<key>), or to '!' for a key
  that never existed.

  A dependency d that somebody waits on: runs:<d> has the field 'waited' (the generation d had
  when its first waiter came), and <prefix>waiters:<waited>:<d> (zset, scored by add time)
  holds its waiters. So a key nobody waits on costs nothing more than the fields its end
  already reads. When d ends, its outcome is written once, <prefix>outcome:<gen>:<d> (hash:
  state, result, error, left = how many waiters have not let go of it yet, list = the waiters
  not yet told), and its waiters are told, at most DEPS_BUDGET per script call; what is left
  is listed in <prefix>releasing (zset of '<gen>:<d>') for the due-task mover to go on with
  (and <prefix>wake is published). A waiter lets go of its outcomes when it ends, is replaced
  or is cancelled; the last one deletes the outcome.

  (deps_forget, the outcomes' names and their counts: includes/dependency-forget.lua; how a
  waiter is added: includes/schedule-waiter.lua)
  deps_ended(prefix, key, generation, waited, after, state, err, result, now, ttl)
                                      an execution ended: it lets go of its own outcomes
                                      (after: its runs field) and tells its waiters (waited:
                                      its runs field)
  deps_ended_read(prefix, key, generation, state, err, now, ttl)
                                      the same for an end without a result ('failed' or
                                      'cancelled'), reading the fields first (generation
                                      nil: read too)
  deps_continue(prefix, now, ttl)     go on telling waiters listed in <prefix>releasing;
                                      returns whether some are left
]]
local DEPS_BUDGET = 100
local DEPS_SPENT = 0
local TELL -- deps_tell, defined below (telling a waiter that fails tells its own waiters)

-- Tell the waiters listed for the outcome <gen>:<d>, within the budget of this call.
local function deps_tell_list(prefix, gen, d, now, ttl)
  local outcome = deps_outcome(prefix, gen, d)
  local o = redis.call('HMGET', outcome, 'state', 'error', 'list')
  local member = gen .. ':' .. d
  local list = o[3]
  if not list then
    redis.call('ZREM', prefix .. 'releasing', member)
    return
  end
  local room = DEPS_BUDGET - DEPS_SPENT
  if room > 0 then
    local batch = redis.call('ZRANGE', list, 0, room - 1)
    if #batch > 0 then redis.call('ZREM', list, unpack(batch)) end
    DEPS_SPENT = DEPS_SPENT + #batch
    for _, w in ipairs(batch) do TELL(prefix, w, d, gen, o[1], o[2] or '', now, ttl) end
  end
  if redis.call('EXISTS', list) == 1 then
    redis.call('ZADD', prefix .. 'releasing', now, member)
    redis.call('PUBLISH', prefix .. 'wake', now)
  else
    redis.call('ZREM', prefix .. 'releasing', member)
    redis.call('HDEL', outcome, 'list')
  end
end

local function deps_resolve(prefix, d, gen, waited, state, err, result, now, ttl)
  redis.call('HDEL', prefix .. 'runs:' .. d, 'waited')
  local list = prefix .. 'waiters:' .. waited .. ':' .. d
  local n = redis.call('ZCARD', list)
  if n == 0 then return end
  local outcome = deps_outcome(prefix, gen, d)
  redis.call('HINCRBY', outcome, 'left', n)
  redis.call('HSET', outcome, unpack(field_push(deps_outcome_fields(state, err, result), 'list', list)))
  deps_tell_list(prefix, gen, d, now, ttl)
end

local function deps_ended(prefix, key, generation, waited, after, state, err, result, now, ttl)
  if after then deps_forget(prefix, key) end
  if waited then deps_resolve(prefix, key, generation or '0', waited, state, err, result, now, ttl) end
end

local function deps_ended_read(prefix, key, generation, state, err, now, ttl)
  local r = redis.call('HMGET', prefix .. 'runs:' .. key, 'waited', 'after', 'generation')
  deps_ended(prefix, key, generation or r[3], r[1], r[2], state, err, '', now, ttl)
end

-- End a waiter that will not run because a dependency failed (fields: its runs fields as
-- deps_tell read them).
local function deps_fail(prefix, w, r, err, now, ttl)
  local runs = prefix .. 'runs:' .. w
  event_add(prefix, 'failed', w, r[4], r[7], now, { error = err })
  deps_forget(prefix, w)
  if ttl > 0 then
    redis.call('HSET', runs, 'state', 'failed', 'completedAt', now, 'error', err)
    redis.call('PEXPIRE', runs, ttl)
  else
    redis.call('DEL', runs)
  end
  state_publish(prefix, w, { type = 'state', key = w, state = 'failed', completedAt = tonumber(now), error = err })
  if r[11] then deps_resolve(prefix, w, r[10], r[11], 'failed', err, '', now, ttl) end
end

-- The message of a failed dependency, as DependencyFailedError carries it.
local function deps_failure(d, state, err)
  return 'DependencyFailedError: dependency ' .. d .. ' ' .. state .. ((err and err ~= '') and (': ' .. err) or '')
end

-- Tell waiter w that dependency d ended (outcome <gen>:<d>, its state and error).
TELL = function(prefix, w, d, gen, state, err, now, ttl)
  local runs = prefix .. 'runs:' .. w
  local r = redis.call('HMGET', runs, 'state', 'open', 'onDependencyFailure', 'task', 'args', 'when', 'attempt',
    'traceparent', 'tracestate', 'generation', 'waited')
  local deps = prefix .. 'deps:' .. w
  if r[1] ~= 'scheduled' or not r[2] or redis.call('HGET', deps, d) ~= '' then
    -- replaced, cancelled or ended since it was listed: it lets go at once
    deps_unref(prefix, gen, d)
    return
  end
  redis.call('HSET', deps, d, gen)
  local open = redis.call('HINCRBY', runs, 'open', -1)
  if state ~= 'completed' and r[3] ~= 'run' then
    deps_fail(prefix, w, r, deps_failure(d, state, err), now, ttl)
  elseif open <= 0 then
    redis.call('HDEL', runs, 'open')
    redis.call('ZREM', prefix .. 'waiting', w)
    -- queued as if added now; a later `when` still holds
    schedule_run(prefix, w, r[4], r[5], r[6], r[7], now, r[8], r[9], nil, nil)
  end
end

local function deps_continue(prefix, now, ttl)
  local releasing = prefix .. 'releasing'
  if redis.call('EXISTS', releasing) == 0 then return false end
  for _, member in ipairs(redis.call('ZRANGE', releasing, 0, 9)) do
    if DEPS_SPENT >= DEPS_BUDGET then break end
    local colon = string.find(member, ':', 1, true)
    deps_tell_list(prefix, string.sub(member, 1, colon - 1), string.sub(member, colon + 1), now, ttl)
  end
  return redis.call('EXISTS', releasing) == 1
end

--- @include "admission"
--- @include "end-cancelled"
--- @include "lanes"
--- @include "pause"
--- @include "states"
--- @include "events"
--- @include "attempts"
--[[
  Claims: whether a delivered message runs now, decided and marked (claim-2.lua calls it for
  the messages a worker asks for; finish-2.lua for the messages it reads along). The statuses
  are claim-2.lua's.

  claim_context(prefix, group, worker, now, ttl, deadTtl, mostStarts, dead)
    The settings of one call's claims: key prefix, consumer group, worker (consumer) name, now
    (epoch ms), executionTtl, dead-letter retention (ms), most starts of one attempt, and the
    dead-letter stream. The pause set is read at the first claim that needs it.
  claim_one(c, key, generation, id, rules)
    Claim one message (rules: its admission rules, decoded); a record of it that cannot be
    read dead-letters the message alone and answers 'error'.
]]
local function claim_context(prefix, group, worker, now, ttl, deadTtl, mostStarts, dead)
  return { prefix = prefix, group = group, worker = worker, now = now, nowN = tonumber(now), ttl = tonumber(ttl),
    deadTtl = tonumber(deadTtl), mostStarts = tonumber(mostStarts), dead = dead }
end

local function claim_paused(c)
  if c.paused == nil then c.paused = paused_set(c.prefix) end
  return c.paused
end

local function claim_entry(c, mid)
  local lane, id = lane_of(c.prefix, mid)
  return redis.call('XRANGE', lane, id, id)[1]
end

local function claim_dead_letter(c, key, task, args, err, attempt)
  redis.call('XADD', c.dead, 'MINID', '~', c.nowN - c.deadTtl, '*',
    'key', key, 'task', task, 'args', args, 'error', err, 'attempt', attempt, 'deadAt', c.now)
end

-- The runs fields every claim reads (indexes 1-4, 6, 7, 10 and 11 of `current` in claim_run);
-- the others (EXTRA) are read only by the branches that need them (claim_extra).
local CLAIM_FIELDS = { 'generation', 'state', 'cancel', 'task', 'attempt', 'starts', 'progressed', 'worker' }
local EXTRA_FIELDS = { 'args', 'traceparent', 'tracestate', 'startedAt', 'past', 'when' }
local EXTRA_AT = { 5, 8, 9, 12, 13, 14 }

-- no lost start to keep (shared: a claim's history is replaced, never changed in place)
local NO_HISTORY = {}

local function claim_extra(runs, current)
  if current.extra then return end
  current.extra = true
  local x = redis.call('HMGET', runs, unpack(EXTRA_FIELDS))
  for i, at in ipairs(EXTRA_AT) do current[at] = x[i] end
end

-- a start this claim does not make keeps the lost start it found, where the record stays
local function claim_keep_history(runs, history)
  if #history > 0 and redis.call('EXISTS', runs) == 1 then redis.call('HSET', runs, unpack(history)) end
end

local function claim_run(c, key, generation, id, rules)
  local runs = c.prefix .. 'runs:' .. key
  -- current: generation, state, cancel, task, args, attempt, starts, traceparent, tracestate,
  -- progressed, worker, startedAt, past, when (by index; see CLAIM_FIELDS and EXTRA_FIELDS)
  local r = redis.call('HMGET', runs, unpack(CLAIM_FIELDS))
  local current = { r[1], r[2], r[3], r[4], nil, r[5], r[6], nil, nil, r[7], r[8] }
  -- a foreign producer's task still ahead of its time (its `when`)
  local ahead = nil
  if generation == '0' and current[1] == false then
    -- a message from a producer that writes only the stream: it gets its runs hash now
    local fields = claim_entry(c, id)
    local f = {}
    if fields then
      for j = 1, #fields[2], 2 do f[fields[2][j]] = fields[2][j + 1] end
    end
    -- a `when` that is not a finite number counts as now
    local due = tonumber(f.when or '')
    if due and (due ~= due or due == math.huge or due == -math.huge) then due = nil end
    redis.call('HSET', runs, 'generation', '0', 'state', 'queued', 'task', f.task or '', 'args', f.args or '[]',
      'when', due and f.when or c.now, 'attempt', f.attempt or '1')
    current = { '0', 'queued', false, f.task or '', f.args or '[]', f.attempt or '1', false, extra = true }
    if due and due > c.nowN then
      ahead = f.when
      -- its deferral keeps the producer's trace context
      current[8], current[9] = f.traceparent or '', f.tracestate or ''
    end
  end
  local state = current[2]
  if current[1] ~= generation or state == 'completed' or state == 'failed' or state == 'cancelled' then
    lane_drop(c.prefix, c.group, id)
    release_slots(c.prefix, rules, key, c.now)
    return 'superseded'
  end
  if current[3] == '1' then
    lane_drop(c.prefix, c.group, id)
    release_slots(c.prefix, rules, key, c.now)
    end_cancelled(c.prefix, key, c.now, c.ttl)
    return 'cancelled'
  end
  local starts = tonumber(current[7] or '0')
  -- a start before this one whose worker went silent: its message is delivered again, and the
  -- start joins the earlier attempts
  local history = NO_HISTORY
  if starts > 0 and current[11] then
    claim_extra(runs, current)
    local prior = current[13] and redis.call('HGET', runs, 'attempts')
    history = { 'past', '1', 'attempts', attempts_push(prior, { attempt = tonumber(current[6]), worker = current[11],
      dueAt = tonumber(current[14]), startedAt = tonumber(current[12]), endedAt = c.nowN, outcome = 'lost' }) }
  end
  if starts >= c.mostStarts then
    -- its worker vanished every time it ran: it is not started again
    lane_drop(c.prefix, c.group, id)
    release_slots(c.prefix, rules, key, c.now)
    claim_extra(runs, current)
    local err = 'PoisonMessageError: started ' .. starts .. ' times, its worker never finished it'
    claim_dead_letter(c, key, current[4], current[5], err, current[6])
    deps_ended_read(c.prefix, key, current[1], 'failed', err, c.now, c.ttl)
    local progress = c.prefix .. 'progress:' .. key
    if c.ttl > 0 then
      redis.call('HSET', runs, 'state', 'failed', 'completedAt', c.now, 'error', err, unpack(history))
      redis.call('HDEL', runs, 'streamId', 'worker', 'startedAt')
      redis.call('PEXPIRE', runs, c.ttl)
      redis.call('PEXPIRE', progress, c.ttl)
    else
      redis.call('DEL', runs, progress)
    end
    state_publish(c.prefix, key,
      { type = 'state', key = key, state = 'failed', completedAt = c.nowN, error = err })
    event_dead(c.prefix, key, current[4], current[6], c.now, { error = err })
    return 'poisoned'
  end
  if not ahead and is_paused(claim_paused(c), current[4]) then
    local entry = claim_entry(c, id)
    lane_drop(c.prefix, c.group, id)
    release_slots(c.prefix, rules, key, c.now)
    hold(c.prefix, key, current[4], id, entry and entry[2])
    claim_keep_history(runs, history)
    return 'held'
  end
  -- a foreign producer's future task waits in the queue for its time, as a rule would defer it
  local verdict, detail, rule = 'defer', ahead, nil
  if not ahead then verdict, detail, rule = admit(c.prefix, rules, key, c.now) end
  if verdict == 'drop' then
    lane_drop(c.prefix, c.group, id)
    -- a slot reserved for it when it was woken from a waiting line goes back
    release_slots(c.prefix, rules, key, c.now)
    end_cancelled(c.prefix, key, c.now, c.ttl)
    claim_keep_history(runs, history)
    return 'cancelled'
  elseif verdict == 'defer' then
    lane_drop(c.prefix, c.group, id)
    claim_extra(runs, current)
    schedule_run(c.prefix, key, current[4], current[5], detail, current[6], c.now, current[8] or '', current[9] or '')
    -- why, for explain (a later schedule of the key clears it)
    if rule then redis.call('HSET', runs, 'deferredBy', rule, 'deferredUntil', detail) end
    claim_keep_history(runs, history)
    return 'deferred'
  elseif verdict == 'wait' then
    lane_drop(c.prefix, c.group, id)
    redis.call('RPUSH', detail, key)
    redis.call('SADD', c.prefix .. 'lines', detail)
    redis.call('HSET', runs, 'waiting', detail)
    redis.call('HDEL', runs, 'streamId')
    claim_keep_history(runs, history)
    return 'waiting'
  end
  -- not acknowledged: the message stays pending while it runs, for redelivery
  redis.call('HSET', runs, 'state', 'running', 'worker', c.worker, 'startedAt', c.now, 'starts', starts + 1,
    unpack(history))
  -- an earlier attempt's progress goes (runs field 'progressed': there is some)
  if current[10] then
    redis.call('HDEL', runs, 'streamId', 'reserved', 'reservedMax', 'progressed')
    redis.call('DEL', c.prefix .. 'progress:' .. key)
  else
    redis.call('HDEL', runs, 'streamId', 'reserved', 'reservedMax')
  end
  if state_wanted(c.prefix, false) then
    state_publish(c.prefix, key,
      { type = 'state', key = key, state = 'running', worker = c.worker, startedAt = c.nowN })
  end
  if events_on(c.prefix) then event_add(c.prefix, 'started', key, current[4], current[6], c.now, { worker = c.worker }) end
  return 'run'
end

local function claim_one(c, key, generation, id, rules)
  local ok, status = pcall(claim_run, c, key, generation, id, rules)
  if ok then return status end
  -- a record of this message cannot be read (a wrong-typed key): it goes to the dead letters
  -- alone, and the other messages of the call go on
  local reason = type(status) == 'table' and status.err or tostring(status)
  local entry = claim_entry(c, id)
  local f = {}
  if entry then
    for j = 1, #entry[2], 2 do f[entry[2][j]] = entry[2][j + 1] end
  end
  lane_drop(c.prefix, c.group, id)
  claim_dead_letter(c, key, f.task or '', f.args or '', 'UnreadableRecordError: ' .. reason, f.attempt or '1')
  return 'error'
end

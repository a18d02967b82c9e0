#!lua flags=allow-oom
--- @include "admission"
--- @include "end-cancelled"
--- @include "lanes"
--- @include "pause"
--[[
  claim: decide for each delivered message whether it runs now, and mark the ones that do.

  KEYS[1] stream (the lanes of the messages are named by their ids; see includes/lanes.lua)
  KEYS[2] dead (dead-letter stream)
  ARGV[1] key prefix         ARGV[2] consumer group   ARGV[3] worker name
  ARGV[4] now (epoch ms)     ARGV[5] executionTtl (ms; 0 = keep nothing)
  ARGV[6] dead-letter retention (ms)
  ARGV[7] most starts of one attempt (maxRedeliveries + 1)
  ARGV[8..] groups of 4: task key, message generation, message id, admission
    admission: '' or a JSON array of the task's admission rules (see includes/admission.lua)

  A message with generation 0 whose key has no runs hash comes from a producer that writes
  only the stream (see the wire format): its runs hash is made from the message, and when its
  `when` is still ahead the task waits in the queue until then ('deferred'), as if it had
  been scheduled here.

  Every start of an attempt is counted (runs field 'starts', reset when the key is scheduled
  again); an attempt that already started ARGV[7] times without an end was taken down with
  its worker each time: it is not started again.

  Returns one status per group:
    'run'        the runs hash says running (worker, startedAt); 'running' is published
    'superseded' the key was rescheduled, replaced or cleared since this message was written;
                 the message is acknowledged and deleted, the runs hash untouched (a
                 concurrency slot the key held is given back)
    'cancelled'  the key was cancelled (or dropped by a rule): it ends 'cancelled'
    'deferred'   a rule moved the task to a later time (new generation, in the queue; runs
                 fields 'deferredBy' (rate | debounce) and 'deferredUntil' say why, for explain)
    'waiting'    every concurrency slot is taken: the task waits in line (runs field
                 'waiting' names the line, <prefix>lines holds every non-empty line) and is
                 put back on the stream when a slot frees
    'poisoned'   the attempt started ARGV[7] times without an end: it is dead-lettered with
                 PoisonMessageError and ends 'failed'
    'held'       the docket or the task is paused: the message is held (see includes/pause.lua)
                 and any concurrency slot reserved for it is given back; it stays 'queued'
    'error'      a record of the message cannot be read (a wrong-typed key): the message is
                 dead-lettered alone with the reason; the others go on
]]
local prefix, group, worker, now, ttl = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local deadTtl, mostStarts = tonumber(ARGV[6]), tonumber(ARGV[7])
local nowN = tonumber(now)
local paused = paused_set(prefix)

local function entry_of(mid)
  local lane, id = lane_of(prefix, mid)
  return redis.call('XRANGE', lane, id, id)[1]
end

local function dead_letter(key, task, args, err, attempt)
  redis.call('XADD', KEYS[2], 'MINID', '~', nowN - deadTtl, '*',
    'key', key, 'task', task, 'args', args, 'error', err, 'attempt', attempt, 'deadAt', now)
end

local function claim(key, generation, id, rules)
  local runs = prefix .. 'runs:' .. key
  local current = redis.call('HMGET', runs, 'generation', 'state', 'cancel', 'task', 'args', 'attempt', 'starts',
    'traceparent', 'tracestate')
  -- a task deferred by a rule keeps linking to its producer's span
  local ahead, traceparent, tracestate = nil, current[8] or '', current[9] or ''
  if generation == '0' and current[1] == false then
    -- a message from a producer that writes only the stream: it gets its runs hash now
    local fields = entry_of(id)
    local f = {}
    if fields then
      for j = 1, #fields[2], 2 do f[fields[2][j]] = fields[2][j + 1] end
    end
    -- a `when` that is not a finite number counts as now
    local due = tonumber(f.when or '')
    if due and (due ~= due or due == math.huge or due == -math.huge) then due = nil end
    redis.call('HSET', runs, 'generation', '0', 'state', 'queued', 'task', f.task or '', 'args', f.args or '[]',
      'when', due and f.when or now, 'attempt', f.attempt or '1')
    current = { '0', 'queued', false, f.task or '', f.args or '[]', f.attempt or '1', false }
    if due and due > nowN then
      ahead = f.when
      -- its deferral keeps the producer's trace context
      traceparent, tracestate = f.traceparent or '', f.tracestate or ''
    end
  end
  local state = current[2]
  if current[1] ~= generation or state == 'completed' or state == 'failed' or state == 'cancelled' then
    lane_drop(prefix, group, id)
    release_slots(prefix, rules, key, now)
    return 'superseded'
  end
  if current[3] == '1' then
    lane_drop(prefix, group, id)
    release_slots(prefix, rules, key, now)
    end_cancelled(prefix, key, now, ttl)
    return 'cancelled'
  end
  local starts = tonumber(current[7] or '0')
  if starts >= mostStarts then
    -- its worker vanished every time it ran: it is not started again
    lane_drop(prefix, group, id)
    release_slots(prefix, rules, key, now)
    local err = 'PoisonMessageError: started ' .. starts .. ' times, its worker never finished it'
    dead_letter(key, current[4], current[5], err, current[6])
    deps_ended_read(prefix, key, current[1], 'failed', err, now, ttl)
    local progress = prefix .. 'progress:' .. key
    if ttl > 0 then
      redis.call('HSET', runs, 'state', 'failed', 'completedAt', now, 'error', err)
      redis.call('HDEL', runs, 'streamId', 'worker', 'startedAt')
      redis.call('PEXPIRE', runs, ttl)
      redis.call('PEXPIRE', progress, ttl)
    else
      redis.call('DEL', runs, progress)
    end
    redis.call('PUBLISH', prefix .. 'state:' .. key,
      cjson.encode({ type = 'state', key = key, state = 'failed', completedAt = nowN, error = err }))
    event_dead(prefix, key, current[4], current[6], now, { error = err })
    return 'poisoned'
  end
  if not ahead and is_paused(paused, current[4]) then
    local entry = entry_of(id)
    lane_drop(prefix, group, id)
    release_slots(prefix, rules, key, now)
    hold(prefix, key, current[4], id, entry and entry[2])
    return 'held'
  end
  -- a foreign producer's future task waits in the queue for its time, as a rule would defer it
  local verdict, detail, rule = 'defer', ahead, nil
  if not ahead then verdict, detail, rule = admit(prefix, rules, key, now) end
  if verdict == 'drop' then
    lane_drop(prefix, group, id)
    -- a slot reserved for it when it was woken from a waiting line goes back
    release_slots(prefix, rules, key, now)
    end_cancelled(prefix, key, now, ttl)
    return 'cancelled'
  elseif verdict == 'defer' then
    lane_drop(prefix, group, id)
    schedule_run(prefix, key, current[4], current[5], detail, current[6], now, traceparent, tracestate)
    -- why, for explain (a later schedule of the key clears it)
    if rule then redis.call('HSET', runs, 'deferredBy', rule, 'deferredUntil', detail) end
    return 'deferred'
  elseif verdict == 'wait' then
    lane_drop(prefix, group, id)
    redis.call('RPUSH', detail, key)
    redis.call('SADD', prefix .. 'lines', detail)
    redis.call('HSET', runs, 'waiting', detail)
    redis.call('HDEL', runs, 'streamId')
    return 'waiting'
  end
  -- not acknowledged: the message stays pending while it runs, for redelivery
  redis.call('HSET', runs, 'state', 'running', 'worker', worker, 'startedAt', now, 'starts', starts + 1)
  redis.call('HDEL', runs, 'streamId', 'reserved', 'reservedMax')
  redis.call('DEL', prefix .. 'progress:' .. key)
  redis.call('PUBLISH', prefix .. 'state:' .. key,
    cjson.encode({ type = 'state', key = key, state = 'running', worker = worker, startedAt = nowN }))
  event_add(prefix, 'started', key, current[4], current[6], now, { worker = worker })
  return 'run'
end

local out = {}
for i = 8, #ARGV, 4 do
  local key, generation, id, admission = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local rules = admission ~= '' and cjson.decode(admission) or {}
  local ok, status = pcall(claim, key, generation, id, rules)
  if ok then
    out[#out + 1] = status
  else
    -- a record of this message cannot be read (a wrong-typed key): it goes to the dead letters
    -- alone, and the other messages of the call go on
    local reason = type(status) == 'table' and status.err or tostring(status)
    local entry = entry_of(id)
    local f = {}
    if entry then
      for j = 1, #entry[2], 2 do f[entry[2][j]] = entry[2][j + 1] end
    end
    lane_drop(prefix, group, id)
    dead_letter(key, f.task or '', f.args or '', 'UnreadableRecordError: ' .. reason, f.attempt or '1')
    out[#out + 1] = 'error'
  end
end
events_flush(prefix)
return out

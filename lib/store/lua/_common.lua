--[[
  Shared functions, prepended to every script of this folder (they are not scripts).

  schedule_run(prefix, key, task, args, when, attempt, now, traceparent, tracestate)
    Schedule a new execution of `key` (new generation): queued on the stream when due, else
    parked and queued by time; the runs hash records it (with the trace context, if any) and
    the state is published.
    Returns state, generation.
  leave_line(prefix, line, key)
    Take `key` out of a concurrency waiting line (and the line out of the set of lines once
    empty).
  schedule_key(prefix, group, key, task, args, when, attempt, now, mode, traceparent, tracestate)
    What schedule-4.lua does for one key (see there); returns its reply.
  release_slot(prefix, slots, max, key, now)
    Give back `key`'s concurrency slot and wake waiters, first come first served, while
    slots are free: each woken task gets a reserved slot (runs fields 'reserved' and
    'reservedMax', so that a cancel can give it back) and goes back on the stream.
]]
local function schedule_run(prefix, key, task, args, when, attempt, now, traceparent, tracestate)
  local runs = prefix .. 'runs:' .. key
  local fresh = redis.call('EXISTS', runs) == 0
  local generation = redis.call('HINCRBY', runs, 'generation', 1)
  local fields = { 'key', key, 'task', task, 'args', args, 'when', when, 'attempt', attempt, 'generation', generation }
  if traceparent and traceparent ~= '' then
    fields[#fields + 1] = 'traceparent'
    fields[#fields + 1] = traceparent
    if tracestate and tracestate ~= '' then
      fields[#fields + 1] = 'tracestate'
      fields[#fields + 1] = tracestate
    end
  end
  if not fresh then
    redis.call('HDEL', runs, 'worker', 'startedAt', 'completedAt', 'error', 'cancel', 'streamId', 'waiting',
      'reserved', 'reservedMax', 'traceparent', 'tracestate')
    redis.call('PERSIST', runs)
  end
  if traceparent and traceparent ~= '' then
    -- kept so that a retry or a successor still links to the producer's span
    redis.call('HSET', runs, 'traceparent', traceparent, 'tracestate', tracestate or '')
  end
  local state
  if tonumber(when) <= tonumber(now) then
    state = 'queued'
    local id = redis.call('XADD', prefix .. 'stream', '*', unpack(fields))
    redis.call('HSET', runs, 'state', state, 'task', task, 'args', args, 'when', when, 'attempt', attempt, 'streamId', id)
  else
    state = 'scheduled'
    local queue = prefix .. 'queue'
    redis.call('HSET', prefix .. 'parked:' .. key, unpack(fields))
    redis.call('ZADD', queue, when, key)
    redis.call('HSET', runs, 'state', state, 'task', task, 'args', args, 'when', when, 'attempt', attempt)
    local first = redis.call('ZRANGE', queue, 0, 0)
    if first[1] == key then redis.call('PUBLISH', prefix .. 'wake', when) end
  end
  redis.call('PUBLISH', prefix .. 'state:' .. key,
    cjson.encode({ type = 'state', key = key, state = state, when = tonumber(when) }))
  return state, generation
end

local function leave_line(prefix, line, key)
  redis.call('LREM', line, 0, key)
  if redis.call('EXISTS', line) == 0 then redis.call('SREM', prefix .. 'lines', line) end
end

local function release_slot(prefix, slots, max, key, now)
  redis.call('ZREM', slots, key)
  local waiters = slots .. ':waiters'
  while redis.call('ZCARD', slots) < max do
    local next = redis.call('LPOP', waiters)
    if not next then break end
    if redis.call('EXISTS', waiters) == 0 then redis.call('SREM', prefix .. 'lines', waiters) end
    local runs = prefix .. 'runs:' .. next
    local run = redis.call('HMGET', runs, 'state', 'waiting', 'task', 'args', 'when', 'attempt')
    if run[1] == 'queued' and run[2] == waiters then
      redis.call('ZADD', slots, now, next)
      schedule_run(prefix, next, run[3], run[4], run[5], run[6], now, '', '')
      redis.call('HSET', runs, 'reserved', slots, 'reservedMax', max)
    end
  end
end

local function schedule_key(prefix, group, key, task, args, when, attempt, now, mode, traceparent, tracestate)
  local runs = prefix .. 'runs:' .. key
  local stream = prefix .. 'stream'
  local run = redis.call('HMGET', runs, 'state', 'streamId', 'waiting', 'when', 'generation', 'task', 'args', 'attempt')
  local state = run[1]
  if mode == 'add' and (state == 'scheduled' or state == 'queued' or state == 'running') then
    return { 'already_scheduled', state, run[4] or when, run[5] or '0', run[6] or task, run[7] or args, run[8] or '1' }
  end
  if state then
    -- what is left of an earlier execution of this key (a new key has nothing to clean)
    if run[2] then
      redis.call('XACK', stream, group, run[2])
      redis.call('XDEL', stream, run[2])
    end
    if run[3] then leave_line(prefix, run[3], key) end
    redis.call('ZREM', prefix .. 'queue', key)
    redis.call('DEL', prefix .. 'parked:' .. key, prefix .. 'results:' .. key, prefix .. 'progress:' .. key)
  end
  local newState, generation = schedule_run(prefix, key, task, args, when, attempt, now, traceparent, tracestate)
  return { 'scheduled', newState, when, tostring(generation), task, args, attempt }
end

--- @include "queue"
--- @include "lanes"
--- @include "pause"
--[[
  run_message(key, task, args, when, attempt, generation, priority, traceparent, tracestate)
    The fields of an execution's message (see the wire format): the priority only when it is
    not 5 (nil counts as 5), the trace context only when there is a traceparent.
]]
local function run_message(key, task, args, when, attempt, generation, priority, traceparent, tracestate)
  local fields = { 'key', key, 'task', task, 'args', args, 'when', when, 'attempt', attempt, 'generation', generation }
  if priority and priority ~= '5' then
    fields[#fields + 1] = 'priority'
    fields[#fields + 1] = priority
  end
  if traceparent and traceparent ~= '' then
    fields[#fields + 1] = 'traceparent'
    fields[#fields + 1] = traceparent
    if tracestate and tracestate ~= '' then
      fields[#fields + 1] = 'tracestate'
      fields[#fields + 1] = tracestate
    end
  end
  return fields
end

--[[
  schedule_run(prefix, key, task, args, when, attempt, now, traceparent, tracestate, priority)
    Schedule a new execution of `key` (new generation): queued in the lane of its priority when
    due, else queued by time (its message is made from the runs hash when it comes due: a
    future task is stored once); the runs hash records it (with the trace context, if
    any) and the state is published; a task that becomes the earliest in the queue is
    announced on <prefix>wake. `priority` nil keeps the key's priority (a retry, a successor,
    a deferral); the runs hash and the message carry it when it is not 5.
    Returns state, generation.
]]
local function schedule_run(prefix, key, task, args, when, attempt, now, traceparent, tracestate, priority)
  local runs = prefix .. 'runs:' .. key
  local fresh = redis.call('EXISTS', runs) == 0
  local generation = redis.call('HINCRBY', runs, 'generation', 1)
  if priority == nil then
    priority = fresh and '5' or (redis.call('HGET', runs, 'priority') or '5')
  elseif priority == '5' then
    if not fresh then redis.call('HDEL', runs, 'priority') end
  else
    redis.call('HSET', runs, 'priority', priority)
  end
  local fields = run_message(key, task, args, when, attempt, generation, priority, traceparent, tracestate)
  if not fresh then
    -- work held while paused is replaced by this run
    unhold(prefix, key)
    redis.call('HDEL', runs, 'worker', 'startedAt', 'completedAt', 'error', 'cancel', 'streamId', 'waiting',
      'reserved', 'reservedMax', 'traceparent', 'tracestate', 'starts', 'deferredBy', 'deferredUntil')
    redis.call('PERSIST', runs)
  end
  if traceparent and traceparent ~= '' then
    -- kept so that a retry or a successor still links to the producer's span
    redis.call('HSET', runs, 'traceparent', traceparent, 'tracestate', tracestate or '')
  end
  local state
  if tonumber(when) <= tonumber(now) then
    state = 'queued'
    local id = lane_push(prefix, lane_for(priority), fields)
    redis.call('HSET', runs, 'state', state, 'task', task, 'args', args, 'when', when, 'attempt', attempt, 'streamId', id)
  else
    state = 'scheduled'
    lane_ensure(prefix, lane_for(priority))
    local queue = prefix .. 'queue'
    redis.call('ZADD', queue, queue_score(queue, when), key)
    redis.call('HSET', runs, 'state', state, 'task', task, 'args', args, 'when', when, 'attempt', attempt)
    local first = redis.call('ZRANGE', queue, 0, 0)
    if first[1] == key then redis.call('PUBLISH', prefix .. 'wake', when) end
  end
  redis.call('PUBLISH', prefix .. 'state:' .. key,
    cjson.encode({ type = 'state', key = key, state = state, when = tonumber(when) }))
  return state, generation
end

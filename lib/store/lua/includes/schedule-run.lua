--- @include "states"
--- @include "queue"
--- @include "lanes"
--- @include "fields"
--[[
  run_message(key, task, args, when, attempt, generation, priority, traceparent, tracestate)
    The fields of an execution's message (see the wire format): the priority only when it is
    not 5 (nil counts as 5), the trace context only when there is a traceparent.
]]
local function run_message(key, task, args, when, attempt, generation, priority, traceparent, tracestate)
  local fields = { 'key', key, 'task', task, 'args', args, 'when', when, 'attempt', attempt, 'generation', generation }
  if priority ~= '5' then field_push(fields, 'priority', priority) end
  if traceparent and traceparent ~= '' then
    field_push(fields, 'traceparent', traceparent)
    field_push(fields, 'tracestate', tracestate)
  end
  return fields
end

--[[
  run_record(task, args, when, attempt, priority, traceparent, tracestate)
    The runs fields of a new execution: task, args, when, attempt, the priority when it is not
    5, and the trace context when there is a traceparent (kept so that a retry or a successor
    still links to the producer's span).
]]
local function run_record(task, args, when, attempt, priority, traceparent, tracestate)
  local record = { 'task', task, 'args', args, 'when', when, 'attempt', attempt }
  if priority ~= '5' then field_push(record, 'priority', priority) end
  if traceparent and traceparent ~= '' then
    record[#record + 1] = 'traceparent'
    record[#record + 1] = traceparent
    record[#record + 1] = 'tracestate'
    record[#record + 1] = tracestate or ''
  end
  return record
end

--[[
  run_renew(runs, before, priority)
    Start a new generation of an execution's runs hash and return it: what is left of the
    earlier execution goes (a new key, `before` = { generation, state } both nil, has nothing
    to clean), its priority too unless the new one's `priority` is not 5.
]]
local function run_renew(runs, before, priority)
  local generation = redis.call('HINCRBY', runs, 'generation', 1)
  if before[1] or before[2] then
    local stale = { 'worker', 'startedAt', 'completedAt', 'error', 'cancel', 'streamId', 'waiting', 'reserved',
      'reservedMax', 'traceparent', 'tracestate', 'starts', 'deferredBy', 'deferredUntil' }
    if priority == '5' then stale[#stale + 1] = 'priority' end
    redis.call('HDEL', runs, unpack(stale))
    redis.call('PERSIST', runs)
  end
  return generation
end

--[[
  schedule_run(prefix, key, task, args, when, attempt, now, traceparent, tracestate, priority, before)
    Schedule a new execution of `key` (new generation): queued in the lane of its priority when
    due, else queued by time (its message is made from the runs hash when it comes due: a
    future task is stored once); the runs hash records it (with the trace context, if
    any) and the state is published; a task that becomes the earliest in the queue is
    announced on <prefix>wake. `priority` nil keeps the key's priority (a retry, a successor,
    a deferral); the runs hash and the message carry it when it is not 5. `before`: the runs
    fields generation, state and priority as the caller has just read them, or nil (read here).
    Returns state, generation.
]]
local function schedule_run(prefix, key, task, args, when, attempt, now, traceparent, tracestate, priority, before)
  local runs = prefix .. 'runs:' .. key
  before = before or redis.call('HMGET', runs, 'generation', 'state', 'priority')
  if priority == nil then priority = before[3] or '5' end
  local generation = run_renew(runs, before, priority)
  local fields = run_message(key, task, args, when, attempt, generation, priority, traceparent, tracestate)
  local record = run_record(task, args, when, attempt, priority, traceparent, tracestate)
  local state
  if tonumber(when) <= tonumber(now) then
    state = 'queued'
    field_push(record, 'streamId', lane_push(prefix, lane_for(priority), fields))
    redis.call('HSET', runs, 'state', state, unpack(record))
  else
    state = 'scheduled'
    lane_ensure(prefix, lane_for(priority))
    local queue = prefix .. 'queue'
    redis.call('ZADD', queue, queue_score(queue, when), key)
    redis.call('HSET', runs, 'state', state, unpack(record))
    local first = redis.call('ZRANGE', queue, 0, 0)
    if first[1] == key then redis.call('PUBLISH', prefix .. 'wake', when) end
  end
  state_publish(prefix, key, { type = 'state', key = key, state = state, when = tonumber(when) })
  return state, generation
end

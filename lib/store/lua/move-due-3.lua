#!lua flags=allow-oom
--- @include "queue"
--- @include "lanes"
--[[
  move-due: move future tasks whose time has come from the queue to the stream.

  KEYS[1] queue              KEYS[2] stream           KEYS[3] dead (dead-letter stream)
  ARGV[1] now (epoch ms)     ARGV[2] key prefix       ARGV[3] most tasks to move in this call
  ARGV[4] dead-letter retention (ms)                   ARGV[5] executionTtl (ms)

  Returns { moved, next } where next is the due time (epoch ms) of the earliest task left in
  the queue, or -1 when the queue is empty. Each moved task's message goes to the lane of its
  priority (its generation unchanged): made from its runs hash, or taken as it is from
  parked:<key> when a producer wrote one, its runs hash records state 'queued' and the stream id
  (so that cancel and replace can still remove it), and 'queued' is published. A task whose
  records cannot be read (a wrong-typed key) leaves the queue for the dead letters, with the
  reason, and its execution fails when its record can still be written; the others go on.
]]
local now, prefix = ARGV[1], ARGV[2]
local deadTtl, ttl = tonumber(ARGV[4]), tonumber(ARGV[5])

-- The message of a future task, from its runs hash (what schedule_run would have written).
local function message_of(key)
  local r = redis.call('HMGET', prefix .. 'runs:' .. key, 'state', 'task', 'args', 'when', 'attempt', 'generation',
    'priority', 'traceparent', 'tracestate')
  if r[1] ~= 'scheduled' then return {} end
  local fields = { 'key', key, 'task', r[2], 'args', r[3], 'when', r[4], 'attempt', r[5], 'generation', r[6] }
  if r[7] and r[7] ~= '5' then
    fields[#fields + 1] = 'priority'
    fields[#fields + 1] = r[7]
  end
  if r[8] and r[8] ~= '' then
    fields[#fields + 1] = 'traceparent'
    fields[#fields + 1] = r[8]
    if r[9] and r[9] ~= '' then
      fields[#fields + 1] = 'tracestate'
      fields[#fields + 1] = r[9]
    end
  end
  return fields
end

local function move(key)
  local parked = prefix .. 'parked:' .. key
  -- a parked hash comes from a producer that writes the wire format by hand
  local fields = redis.call('HGETALL', parked)
  if #fields == 0 then fields = message_of(key) end
  if #fields > 0 then
    local id = lane_push(prefix, lane_for(priority_of(fields)), fields)
    local runs = prefix .. 'runs:' .. key
    redis.call('HSET', runs, 'state', 'queued', 'streamId', id)
    redis.call('DEL', parked)
    local when = redis.call('HGET', runs, 'when')
    redis.call('PUBLISH', prefix .. 'state:' .. key,
      cjson.encode({ type = 'state', key = key, state = 'queued', when = tonumber(when) }))
  end
end

local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', queue_due(now), 'LIMIT', 0, tonumber(ARGV[3]))
for _, key in ipairs(due) do
  local ok, problem = pcall(move, key)
  if not ok then
    local err = 'UnreadableRecordError: ' .. (type(problem) == 'table' and problem.err or tostring(problem))
    redis.call('XADD', KEYS[3], 'MINID', '~', tonumber(now) - deadTtl, '*',
      'key', key, 'task', '', 'args', '', 'error', err, 'attempt', '1', 'deadAt', now)
    redis.call('DEL', prefix .. 'parked:' .. key)
    local runs = prefix .. 'runs:' .. key
    local written = redis.pcall('HSET', runs, 'state', 'failed', 'completedAt', now, 'error', err)
    if type(written) ~= 'table' then
      if ttl > 0 then redis.call('PEXPIRE', runs, ttl) else redis.call('DEL', runs) end
      redis.call('PUBLISH', prefix .. 'state:' .. key,
        cjson.encode({ type = 'state', key = key, state = 'failed', completedAt = tonumber(now), error = err }))
    end
  end
  redis.call('ZREM', KEYS[1], key)
end
return { #due, queue_head(KEYS[1]) }

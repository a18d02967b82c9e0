#!lua flags=allow-oom
--- @include "states"
--- @include "schedule-run"
--- @include "dependencies"
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
  Then it goes on telling the waiters of dependencies that ended with more waiters than one
  call tells (see includes/dependencies.lua); next is now while some are left.
]]
local now, prefix = ARGV[1], ARGV[2]
local deadTtl, ttl = tonumber(ARGV[4]), tonumber(ARGV[5])

-- The message of a due task, its priority and its when: made from its runs hash (what
-- schedule_run would have written), or taken as it is from parked:<key> (then deleted) when a
-- producer that writes the wire format by hand wrote one. No fields when there is no message.
local function message_of(key)
  local r = redis.call('HMGET', prefix .. 'runs:' .. key, 'state', 'task', 'args', 'when', 'attempt', 'generation',
    'priority', 'traceparent', 'tracestate')
  local parked = prefix .. 'parked:' .. key
  -- (HLEN also fails on a parked record that cannot be read, as its HGETALL would)
  if r[1] == 'scheduled' and redis.call('HLEN', parked) == 0 then
    return run_message(key, r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9]), r[7] or '5', r[4]
  end
  local fields = redis.call('HGETALL', parked)
  if #fields > 0 then redis.call('DEL', parked) end
  return fields, priority_of(fields), r[4]
end

local function move(key)
  local fields, priority, when = message_of(key)
  if #fields == 0 then return end
  local id = lane_push(prefix, lane_for(priority), fields)
  redis.call('HSET', prefix .. 'runs:' .. key, 'state', 'queued', 'streamId', id)
  state_publish(prefix, key, { type = 'state', key = key, state = 'queued', when = tonumber(when) })
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
      -- its waiters hear that it failed (before its record may go)
      deps_ended_read(prefix, key, nil, 'failed', err, now, ttl)
      if ttl > 0 then redis.call('PEXPIRE', runs, ttl) else redis.call('DEL', runs) end
      state_publish(prefix, key,
        { type = 'state', key = key, state = 'failed', completedAt = tonumber(now), error = err })
    end
  end
  redis.call('ZREM', KEYS[1], key)
end
if deps_continue(prefix, now, ttl) then
  events_flush(prefix)
  return { #due, tonumber(now) }
end
events_flush(prefix)
return { #due, queue_head(KEYS[1]) }

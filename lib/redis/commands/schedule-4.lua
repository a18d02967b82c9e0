--[[
  schedule: add or replace one execution of a task key.

  KEYS[1] stream             KEYS[2] queue
  KEYS[3] parked:<key>       KEYS[4] runs:<key>
  ARGV[1] task key           ARGV[2] task name        ARGV[3] encoded args
  ARGV[4] when (epoch ms)    ARGV[5] attempt          ARGV[6] now (epoch ms)
  ARGV[7] mode: 'add' refuses a live key, 'replace' removes its scheduled or queued copy
  ARGV[8] consumer group     ARGV[9] key prefix       ARGV[10] traceparent ('' = none)
  ARGV[11] tracestate ('' = none)

  Returns { disposition, state, when, generation }:
    { 'already_scheduled', <live state>, <its when>, <its generation> } when mode is 'add' and
    the key is scheduled, queued or running (nothing changes), else
    { 'scheduled', 'queued' | 'scheduled', when, <new generation> }.
  Every schedule bumps the key's generation; the message carries it so that a stale copy is
  skipped by the worker. The new state is published on <prefix>state:<key>; a task that becomes
  the earliest in the queue is announced on <prefix>wake.
]]
local key, task, args, when, attempt, now, mode = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local group, prefix = ARGV[8], ARGV[9]
local runs = KEYS[4]

local state = redis.call('HGET', runs, 'state')
if mode == 'add' and (state == 'scheduled' or state == 'queued' or state == 'running') then
  local live = redis.call('HMGET', runs, 'when', 'generation')
  return { 'already_scheduled', state, live[1] or when, live[2] or '0' }
end

local streamId = redis.call('HGET', runs, 'streamId')
if streamId then
  redis.call('XACK', KEYS[1], group, streamId)
  redis.call('XDEL', KEYS[1], streamId)
end
redis.call('ZREM', KEYS[2], key)
redis.call('DEL', KEYS[3], prefix .. 'results:' .. key, prefix .. 'progress:' .. key)

local generation = redis.call('HINCRBY', runs, 'generation', 1)
local fields = { 'key', key, 'task', task, 'args', args, 'when', when, 'attempt', attempt, 'generation', generation }
if ARGV[10] ~= '' then
  fields[#fields + 1] = 'traceparent'
  fields[#fields + 1] = ARGV[10]
  if ARGV[11] ~= '' then
    fields[#fields + 1] = 'tracestate'
    fields[#fields + 1] = ARGV[11]
  end
end

redis.call('HDEL', runs, 'worker', 'startedAt', 'completedAt', 'error', 'cancel', 'streamId')
redis.call('PERSIST', runs)
local newState
if tonumber(when) <= tonumber(now) then
  newState = 'queued'
  local id = redis.call('XADD', KEYS[1], '*', unpack(fields))
  redis.call('HSET', runs, 'state', newState, 'task', task, 'args', args, 'when', when, 'attempt', attempt, 'streamId', id)
else
  newState = 'scheduled'
  redis.call('HSET', KEYS[3], unpack(fields))
  redis.call('ZADD', KEYS[2], when, key)
  redis.call('HSET', runs, 'state', newState, 'task', task, 'args', args, 'when', when, 'attempt', attempt)
  local first = redis.call('ZRANGE', KEYS[2], 0, 0)
  if first[1] == key then
    redis.call('PUBLISH', prefix .. 'wake', when)
  end
end
redis.call('PUBLISH', prefix .. 'state:' .. key,
  cjson.encode({ type = 'state', key = key, state = newState, when = tonumber(when) }))
return { 'scheduled', newState, when, tostring(generation) }

--[[
  schedule: add or replace one execution of a task key.

  KEYS[1] stream             KEYS[2] queue
  KEYS[3] parked:<key>       KEYS[4] runs:<key>
  ARGV[1] task key           ARGV[2] task name        ARGV[3] encoded args
  ARGV[4] when (epoch ms)    ARGV[5] attempt          ARGV[6] now (epoch ms)
  ARGV[7] mode: 'add' refuses a live key, 'replace' removes its scheduled or queued copy
  ARGV[8] consumer group     ARGV[9] key prefix       ARGV[10] traceparent ('' = none)
  ARGV[11] tracestate ('' = none)

  Returns { disposition, state, when, generation, task, args, attempt }:
    { 'already_scheduled', <live state>, <its when>, <its generation>, <its task>, <its args>,
    <its attempt> } when mode is 'add' and the key is scheduled, queued or running (nothing
    changes), else { 'scheduled', 'queued' | 'scheduled', when, <new generation>, task, args,
    attempt }.
  Every schedule bumps the key's generation; the message carries it so that a stale copy is
  skipped by the worker. The new state is published on <prefix>state:<key>; a task that becomes
  the earliest in the queue is announced on <prefix>wake.
]]
local key, task, args, when, attempt, now, mode = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local group, prefix = ARGV[8], ARGV[9]
local runs = KEYS[4]

local run = redis.call('HMGET', runs, 'state', 'streamId', 'waiting', 'when', 'generation', 'task', 'args', 'attempt')
local state = run[1]
if mode == 'add' and (state == 'scheduled' or state == 'queued' or state == 'running') then
  return { 'already_scheduled', state, run[4] or when, run[5] or '0', run[6] or task, run[7] or args, run[8] or '1' }
end

if state then
  -- what is left of an earlier execution of this key (a new key has nothing to clean)
  if run[2] then
    redis.call('XACK', KEYS[1], group, run[2])
    redis.call('XDEL', KEYS[1], run[2])
  end
  if run[3] then leave_line(prefix, run[3], key) end
  redis.call('ZREM', KEYS[2], key)
  redis.call('DEL', KEYS[3], prefix .. 'results:' .. key, prefix .. 'progress:' .. key)
end

local newState, generation = schedule_run(prefix, key, task, args, when, attempt, now, ARGV[10], ARGV[11])
return { 'scheduled', newState, when, tostring(generation), task, args, attempt }

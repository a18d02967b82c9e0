#!lua flags=allow-oom
--- @include "lines"
--- @include "end-cancelled"
--- @include "pause"
--[[
  cancel: stop one task key from running.

  KEYS[1] stream             KEYS[2] queue
  KEYS[3] parked:<key>       KEYS[4] runs:<key>
  ARGV[1] task key           ARGV[2] consumer group   ARGV[3] now (epoch ms)
  ARGV[4] executionTtl (ms; 0 = keep nothing)         ARGV[5] key prefix

  A scheduled or queued task (also one waiting for a concurrency slot, or holding a reserved
  one, which is given back, or one held while paused) is removed from the queue and the stream and ends 'cancelled'
  (published). A running task is flagged and its key is published on <prefix>cancel so that its
  worker aborts it; the worker records the end (and a redelivered copy of it is skipped). A
  finished or unknown key is left as it is.

  Returns { state found, task name }: state 'scheduled' | 'queued' | 'running' | 'completed' |
  'failed' | 'cancelled' | 'missing'.
]]
local key, group, now, ttl, prefix = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
local runs = KEYS[4]
local run = redis.call('HMGET', runs, 'state', 'task', 'streamId', 'waiting', 'reserved', 'reservedMax', 'held',
  'generation', 'waited', 'after')
local state, task = run[1], run[2] or ''
if not state then return { 'missing', '' } end
if state == 'running' then
  redis.call('HSET', runs, 'cancel', '1')
  redis.call('PUBLISH', prefix .. 'cancel', key)
  return { state, task }
end
if state ~= 'scheduled' and state ~= 'queued' then return { state, task } end

if run[3] then lane_drop(prefix, group, run[3]) end
if run[4] then leave_line(prefix, run[4], key) end
if run[7] then unhold(prefix, key, run[7]) end
if run[5] then release_slot(prefix, run[5], tonumber(run[6]), key, now) end
redis.call('ZREM', KEYS[2], key)
redis.call('DEL', KEYS[3])
end_cancelled(prefix, key, now, ttl, { run[8], run[9], run[10] })
events_flush(prefix)
return { state, task }

#!lua flags=allow-oom
--- @include "queue"
--[[
  heartbeat: record that a worker is alive and which tasks it runs.

  KEYS[1] workers (zset: worker → last seen)          KEYS[2] worker-tasks:<worker> (set)
  KEYS[3] queue
  ARGV[1] worker name        ARGV[2] now (epoch ms)   ARGV[3] liveness window (ms)
  ARGV[4] key prefix         ARGV[5] lifetime of the task registry (ms)
  ARGV[6] what the worker tells about itself (JSON text: host, pid, start, version,
          concurrency), kept as worker-info:<worker>; '' = nothing (the key is left alone)
  ARGV[7..] task names: the task registry is (re)written (worker-tasks:<worker> and
            task-workers:<task> for each task); the worker runs this script once
            REGISTER_EVERY heartbeat intervals have passed since its last write (the beats
            between are beat-2.lua), so the registry lives longer than the window: liveness
            comes from `workers`

  Workers not seen within the window are pruned from `workers`. Every key written here
  expires, so a dead worker leaves nothing behind.
  Returns the due time (epoch ms) of the earliest task in the queue, or -1 when it is empty:
  the worker's scheduler learns of a future task even when nobody announced it.
]]
local worker, now, window, prefix = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local lifetime = tonumber(ARGV[5])
redis.call('ZADD', KEYS[1], now, worker)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if ARGV[6] ~= '' then
  redis.call('SET', prefix .. 'worker-info:' .. worker, ARGV[6], 'PX', lifetime)
end
if #ARGV > 6 then
  redis.call('DEL', KEYS[2])
  for i = 7, #ARGV do
    redis.call('SADD', KEYS[2], ARGV[i])
    local taskWorkers = prefix .. 'task-workers:' .. ARGV[i]
    redis.call('ZADD', taskWorkers, now, worker)
    redis.call('ZREMRANGEBYSCORE', taskWorkers, '-inf', now - lifetime)
    redis.call('PEXPIRE', taskWorkers, lifetime)
  end
  redis.call('PEXPIRE', KEYS[2], lifetime)
end
return queue_head(KEYS[3])

#!lua flags=allow-oom
--- @include "queue"
--[[
  beat: a worker is alive (the beats between two heartbeat-3.lua calls).

  KEYS[1] workers (zset: worker → last seen)          KEYS[2] queue
  ARGV[1] worker name        ARGV[2] now (epoch ms)

  Returns the due time (epoch ms) of the earliest task in the queue, or -1 when it is empty.
]]
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return queue_head(KEYS[2])

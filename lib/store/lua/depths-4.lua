#!lua flags=no-writes
--- @include "queue"
--- @include "lanes"
--- @include "pause"
--[[
  depths: the counts of the docket at one moment.

  KEYS[1] stream             KEYS[2] queue            KEYS[3] workers
  KEYS[4] dead (dead-letter stream)
  ARGV[1] consumer group     ARGV[2] now (epoch ms)   ARGV[3] live since (epoch ms)
  ARGV[4] key prefix

  Returns { messages in the lanes, pending (read by a worker, not ended; 0 without the
  group), due in the queue, future in the queue, workers seen since ARGV[3], dead letters,
  tasks held while paused, 1 while the waiters of an ended dependency are still being told
  (see includes/dependencies.lua) else 0 }.
  Messages stay in their lane until their end is written, so the pending ones are the
  running tasks.
]]
local length, pending = lane_depths(ARGV[4], ARGV[1])
return {
  length,
  pending,
  redis.call('ZCOUNT', KEYS[2], '-inf', queue_due(ARGV[2])),
  redis.call('ZCOUNT', KEYS[2], queue_due(ARGV[2]) + 1, '+inf'),
  redis.call('ZCOUNT', KEYS[3], ARGV[3], '+inf'),
  redis.call('XLEN', KEYS[4]),
  held_count(ARGV[4]),
  redis.call('EXISTS', ARGV[4] .. 'releasing'),
}

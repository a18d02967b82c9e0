#!lua flags=no-writes
--- @include "queue"
--[[
  depths: the counts of the docket at one moment.

  KEYS[1] stream             KEYS[2] queue            KEYS[3] workers
  KEYS[4] dead (dead-letter stream)
  ARGV[1] consumer group     ARGV[2] now (epoch ms)   ARGV[3] live since (epoch ms)

  Returns { stream length, pending (read by a worker, not ended; 0 without the group), due
  in the queue, future in the queue, workers seen since ARGV[3], dead letters }. Messages stay on the stream
  until their end is written, so the pending ones are the running tasks.
]]
local pending = 0
local summary = redis.pcall('XPENDING', KEYS[1], ARGV[1])
if type(summary) == 'table' and not summary.err then pending = summary[1] end
return {
  redis.call('XLEN', KEYS[1]),
  pending,
  redis.call('ZCOUNT', KEYS[2], '-inf', queue_due(ARGV[2])),
  redis.call('ZCOUNT', KEYS[2], queue_due(ARGV[2]) + 1, '+inf'),
  redis.call('ZCOUNT', KEYS[3], ARGV[3], '+inf'),
  redis.call('XLEN', KEYS[4]),
}

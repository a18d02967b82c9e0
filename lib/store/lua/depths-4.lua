#!lua flags=no-writes
--- @include "queue"
--- @include "lanes"
--[[
  depths: the counts of the docket at one moment.

  KEYS[1] stream             KEYS[2] queue            KEYS[3] workers
  KEYS[4] dead (dead-letter stream)
  ARGV[1] consumer group     ARGV[2] now (epoch ms)   ARGV[3] live since (epoch ms)
  ARGV[4] key prefix

  Returns { messages in the lanes, pending (read by a worker, not ended; 0 without the
  group), due in the queue, future in the queue, workers seen since ARGV[3], dead letters,
  tasks held while paused }.
  Messages stay in their lane until their end is written, so the pending ones are the
  running tasks.
]]
local length, pending = 0, 0
for _, name in ipairs(lane_names(ARGV[4])) do
  local lane = ARGV[4] .. name
  length = length + redis.call('XLEN', lane)
  local summary = redis.pcall('XPENDING', lane, ARGV[1])
  if type(summary) == 'table' and not summary.err then pending = pending + summary[1] end
end
local held = 0
for _, task in ipairs(redis.call('SMEMBERS', ARGV[4] .. 'held')) do
  held = held + redis.call('ZCARD', ARGV[4] .. 'held:' .. task)
end
return {
  length,
  pending,
  redis.call('ZCOUNT', KEYS[2], '-inf', queue_due(ARGV[2])),
  redis.call('ZCOUNT', KEYS[2], queue_due(ARGV[2]) + 1, '+inf'),
  redis.call('ZCOUNT', KEYS[3], ARGV[3], '+inf'),
  redis.call('XLEN', KEYS[4]),
  held,
}

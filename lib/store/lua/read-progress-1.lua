#!lua flags=no-writes
--[[
  read-progress: the progress of several executions.

  KEYS[1] stream (only to route the call to the docket's node)
  ARGV[1] key prefix         ARGV[2..] task keys

  Returns one flat field/value list per key (empty when it has no progress).
]]
local out = {}
for i = 2, #ARGV do out[#out + 1] = redis.call('HGETALL', ARGV[1] .. 'progress:' .. ARGV[i]) end
return out

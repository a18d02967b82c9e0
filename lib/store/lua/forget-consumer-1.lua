#!lua flags=allow-oom
--[[
  forget-consumer: remove a stopping worker's consumer from the group, unless a message is
  still pending for it (redelivery needs the consumer's entry until then).

  KEYS[1] stream
  ARGV[1] consumer group     ARGV[2] consumer

  Returns 1 when the consumer was removed, else 0 (also without a group).
]]
local pending = redis.pcall('XPENDING', KEYS[1], ARGV[1], '-', '+', 1, ARGV[2])
if type(pending) ~= 'table' or pending.err or #pending > 0 then return 0 end
redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
return 1

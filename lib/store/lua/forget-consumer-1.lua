#!lua flags=allow-oom
--- @include "lanes"
--[[
  forget-consumer: remove a stopping worker's consumer from the group of every lane, unless a
  message is still pending for it in one (redelivery needs the consumer's entry until then).

  KEYS[1] stream
  ARGV[1] consumer group     ARGV[2] consumer         ARGV[3] key prefix

  Returns 1 when the consumer was removed, else 0 (also without a group).
]]
local prefix = ARGV[3]
local lanes = lane_names(prefix)
for _, name in ipairs(lanes) do
  local pending = redis.pcall('XPENDING', prefix .. name, ARGV[1], '-', '+', 1, ARGV[2])
  if type(pending) ~= 'table' or pending.err then
    if name == 'stream' then return 0 end
  elseif #pending > 0 then
    return 0
  end
end
for _, name in ipairs(lanes) do redis.pcall('XGROUP', 'DELCONSUMER', prefix .. name, ARGV[1], ARGV[2]) end
return 1

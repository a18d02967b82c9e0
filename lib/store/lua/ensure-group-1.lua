#!lua flags=allow-oom
--- @include "lanes"
--[[
  ensure-group: create the consumer group of every lane (and the stream) unless it exists.
  A script, so that a worker can start on a full Redis (XGROUP CREATE alone is refused there).

  KEYS[1] stream
  ARGV[1] consumer group     ARGV[2] key prefix

  Returns 1 when the group of 'stream' was created, 0 when it existed.
]]
local created = 0
for _, name in ipairs(lane_names(ARGV[2])) do
  local reply = redis.pcall('XGROUP', 'CREATE', ARGV[2] .. name, ARGV[1], '0', 'MKSTREAM')
  if type(reply) == 'table' and reply.err then
    if not string.find(reply.err, 'BUSYGROUP', 1, true) then return redis.error_reply(reply.err) end
  elseif name == 'stream' then
    created = 1
  end
end
return created

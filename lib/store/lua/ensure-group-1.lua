#!lua flags=allow-oom
--- @include "lanes"
--[[
  ensure-group: create the consumer group of every lane (and the stream) unless it exists.
  A script, so that a worker can start on a full Redis (XGROUP CREATE alone is refused there).

  KEYS[1] stream
  ARGV[1] key prefix

  Returns nothing; an error other than BUSYGROUP (the group exists) is raised.
]]
for _, name in ipairs(lane_names(ARGV[1])) do
  local reply = lane_group(ARGV[1], name)
  if type(reply) == 'table' and reply.err and not string.find(reply.err, 'BUSYGROUP', 1, true) then
    return redis.error_reply(reply.err)
  end
end

#!lua flags=allow-oom
--[[
  ensure-group: create the consumer group of the stream (and the stream) unless it exists.
  A script, so that a worker can start on a full Redis (XGROUP CREATE alone is refused there).

  KEYS[1] stream
  ARGV[1] consumer group

  Returns 1 when the group was created, 0 when it existed.
]]
local reply = redis.pcall('XGROUP', 'CREATE', KEYS[1], ARGV[1], '0', 'MKSTREAM')
if type(reply) == 'table' and reply.err then
  if string.find(reply.err, 'BUSYGROUP', 1, true) then return 0 end
  return redis.error_reply(reply.err)
end
return 1

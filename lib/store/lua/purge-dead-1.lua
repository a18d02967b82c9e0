#!lua flags=allow-oom
--[[
  purge-dead: delete every dead letter.

  KEYS[1] dead (dead-letter stream)

  Returns how many there were.
]]
local count = redis.call('XLEN', KEYS[1])
redis.call('DEL', KEYS[1])
return count

#!lua flags=allow-oom
--[[
  progress: update the progress of a running task and publish it.

  KEYS[1] progress:<key>     KEYS[2] runs:<key>
  ARGV[1] task key           ARGV[2] generation of the running execution
  ARGV[3] operation: 'total' | 'increment' | 'message'
  ARGV[4] operand (a number, or the message; '' with 'message' clears it)
  ARGV[5] now (epoch ms)     ARGV[6] progress channel

  A write from a superseded or finished execution changes nothing. The runs hash gets the field
  'progressed', so that the claim of a later attempt and the end of this one touch the progress
  hash only when there is one. Returns the new progress as { current, total, message, updatedAt }
  or an empty array when superseded.
]]
local run = redis.call('HMGET', KEYS[2], 'generation', 'state', 'progressed')
if run[1] ~= ARGV[2] or run[2] ~= 'running' then return {} end
if not run[3] then redis.call('HSET', KEYS[2], 'progressed', '1') end
local op, operand = ARGV[3], ARGV[4]
if op == 'total' then
  redis.call('HSET', KEYS[1], 'total', operand)
elseif op == 'increment' then
  redis.call('HINCRBY', KEYS[1], 'current', operand)
elseif operand == '' then
  redis.call('HDEL', KEYS[1], 'message')
else
  redis.call('HSET', KEYS[1], 'message', operand)
end
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[5])
local p = redis.call('HMGET', KEYS[1], 'current', 'total', 'message', 'updatedAt')
local event = { type = 'progress', key = ARGV[1], current = tonumber(p[1] or '0'),
  total = tonumber(p[2] or '100'), updatedAt = tonumber(p[4]) }
if p[3] then event.message = p[3] end
redis.call('PUBLISH', ARGV[6], cjson.encode(event))
return { p[1] or '0', p[2] or '100', p[3] or '', p[4] }

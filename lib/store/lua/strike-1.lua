#!lua
--[[
  strike: append a strike or a restore to the docket's strike log and tell every process.

  KEYS[1] strikes (stream)
  ARGV[1] 'strike' | 'restore'   ARGV[2] task name ('' = every task)
  ARGV[3] parameter ('' = the whole task)   ARGV[4] operator   ARGV[5] encoded value
  ARGV[6] notification channel

  Returns the id of the new entry.
]]
local id = redis.call('XADD', KEYS[1], '*', 'op', ARGV[1], 'task', ARGV[2], 'parameter', ARGV[3],
  'operator', ARGV[4], 'value', ARGV[5])
redis.call('PUBLISH', ARGV[6], id)
return id

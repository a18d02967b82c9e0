#!lua flags=no-writes
--- @include "members"
--[[
  workers: the live workers of the docket, or of one task.

  KEYS[1] workers (zset: worker → last seen)
  ARGV[1] key prefix         ARGV[2] live since (epoch ms)
  ARGV[3] task name ('' = every worker; else the members of task-workers:<task>)

  Returns one { name, last seen, { task, … }, about } per worker seen since ARGV[2]: `about`
  is the JSON text of worker-info:<worker>, '' when there is none (an older worker).
]]
local prefix, since = ARGV[1], tonumber(ARGV[2])
local names = ARGV[3] == '' and redis.call('ZRANGE', KEYS[1], 0, -1)
  or redis.call('ZRANGE', prefix .. 'task-workers:' .. ARGV[3], 0, -1)
local out = {}
for _, name in ipairs(names) do
  local seen = tonumber(redis.call('ZSCORE', KEYS[1], name) or '0')
  if seen >= since then
    local tasks = members_sorted(prefix .. 'worker-tasks:' .. name)
    local about = redis.call('GET', prefix .. 'worker-info:' .. name) or ''
    out[#out + 1] = { name, tostring(seen), tasks, about }
  end
end
return out

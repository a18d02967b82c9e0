#!lua flags=no-writes
--- @include "lanes"
--- @include "dependency-forget"
--- @include "members"
--[[
  snapshot: the executions of the lanes, the queue, the executions waiting for their
  dependencies, the concurrency waiting lines and the work held while paused.

  KEYS[1] stream             KEYS[2] queue
  ARGV[1] key prefix         ARGV[2] most entries read from each place

  Returns { row, row, … }: a row is { key, state, task, args, when, attempt, worker, startedAt,
  generation, { keys it still waits for } } read from runs:<key> and deps:<key> (a key is
  listed once, also when it is both running and rescheduled), in the order of the places
  above (waiting lines and held tasks by name).
]]
local prefix, limit = ARGV[1], tonumber(ARGV[2])
local keys, seen = {}, {}
local function add(key)
  if key and not seen[key] then
    seen[key] = true
    keys[#keys + 1] = key
  end
end
for _, name in ipairs(lane_names(prefix)) do
  for _, entry in ipairs(redis.call('XRANGE', prefix .. name, '-', '+', 'COUNT', limit)) do
    add(field_of(entry[2], 'key'))
  end
end
for _, key in ipairs(redis.call('ZRANGE', KEYS[2], 0, limit - 1)) do add(key) end
for _, key in ipairs(redis.call('ZRANGE', prefix .. 'waiting', 0, limit - 1)) do add(key) end
for _, line in ipairs(members_sorted(prefix .. 'lines')) do
  for _, key in ipairs(redis.call('LRANGE', line, 0, limit - 1)) do add(key) end
end
for _, task in ipairs(members_sorted(prefix .. 'held')) do
  for _, key in ipairs(redis.call('ZRANGE', prefix .. 'held:' .. task, 0, limit - 1)) do add(key) end
end
local out = {}
for _, key in ipairs(keys) do
  local r = redis.call('HMGET', prefix .. 'runs:' .. key, 'state', 'task', 'args', 'when', 'attempt', 'worker',
    'startedAt', 'generation', 'open')
  out[#out + 1] = { key, r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9] and deps_open(prefix, key) or {} }
end
return out

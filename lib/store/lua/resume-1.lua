#!lua flags=allow-oom
--- @include "lanes"
--- @include "pause"
--- @include "members"
--[[
  resume: lift a pause and put held work back, in its order, ahead of what came after it.

  KEYS[1] paused (set)
  ARGV[1] key prefix
  ARGV[2] what to lift: '*' (the docket) or a task name; '' lifts nothing (a later step)
  ARGV[3] most tasks to move in this call

  The held work of every task that is no longer paused (the docket and the task both lifted)
  goes back, oldest first across tasks, to the 'resumed' lane of its priority (see
  includes/lanes.lua), which workers read before the lane of new work of that priority. The
  runs hash records the new stream id. Returns { moved, left }: left counts the held tasks that
  could move still (call again with ARGV[2] = '' while it is not 0).
]]
local prefix, what, budget = ARGV[1], ARGV[2], tonumber(ARGV[3])
if what ~= '' then redis.call('SREM', KEYS[1], what) end

local paused = paused_set(prefix)
local candidates, free = {}, {}
for _, task in ipairs(members_sorted(prefix .. 'held')) do
  if not is_paused(paused, task) then
    free[#free + 1] = task
    local got = redis.call('ZRANGE', prefix .. 'held:' .. task, 0, budget - 1, 'WITHSCORES')
    for i = 1, #got, 2 do
      candidates[#candidates + 1] = { tonumber(got[i + 1]), got[i], task }
    end
  end
end
table.sort(candidates, function(a, b)
  if a[1] ~= b[1] then return a[1] < b[1] end
  return a[2] < b[2]
end)

local moved = 0
for i = 1, math.min(budget, #candidates) do
  local key, task = candidates[i][2], candidates[i][3]
  local runs, parked = prefix .. 'runs:' .. key, prefix .. 'parked:' .. key
  redis.call('ZREM', prefix .. 'held:' .. task, key)
  local held = redis.pcall('HGET', runs, 'held')
  local fields = redis.pcall('HGETALL', parked)
  if held == task and type(fields) == 'table' and not fields.err and #fields > 0 then
    local id = lane_push(prefix, lane_for(priority_of(fields), true), fields)
    redis.call('HSET', runs, 'streamId', id)
    unpark(prefix, key)
    moved = moved + 1
  else
    redis.pcall('DEL', parked)
  end
end

local left = 0
for _, task in ipairs(free) do
  local n = redis.call('ZCARD', prefix .. 'held:' .. task)
  if n == 0 then redis.call('SREM', prefix .. 'held', task) end
  left = left + n
end
return { moved, left }

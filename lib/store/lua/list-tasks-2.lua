#!lua flags=no-writes
--- @include "lanes"
--- @include "dependency-forget"
--[[
  list-tasks: one page of the live executions (running, queued, scheduled) that pass a filter,
  and how many pass it in all.

  KEYS[1] stream             KEYS[2] queue
  ARGV[1] key prefix
  ARGV[2] the states listed, comma-separated (of running, queued, scheduled)
  ARGV[3] task name ('' = any task)
  ARGV[4] search text in lower case ('' = none): it passes a key that starts with it, and a
          task name or arguments (their stored text) that contain it, case aside
  ARGV[5] offset             ARGV[6] page size

  Order: the lanes (stream order: what runs and what is due), the concurrency waiting lines,
  the work held while paused, the queue by due time, then the executions waiting for their
  dependencies (scheduled) by add time; a key is listed once, by the state of its record.
  Returns { total, { row, … } }, a row as in snapshot-2.lua: { key, state, task, args, when,
  attempt, worker, startedAt, generation, { keys it still waits for } }.
  Cost: 'scheduled' alone with no task and no search reads its page of the queue and of the
  waiting executions only, O(log N + page); anything else reads the record of every live
  execution once.
]]
local prefix, task, q = ARGV[1], ARGV[3], ARGV[4]
local offset, size = tonumber(ARGV[5]), tonumber(ARGV[6])
local states = {}
for state in string.gmatch(ARGV[2], '[^,]+') do states[state] = true end

local function read(key)
  return redis.call('HMGET', prefix .. 'runs:' .. key, 'state', 'task', 'args', 'when', 'attempt',
    'worker', 'startedAt', 'generation', 'open')
end
local function row(key, r)
  return { key, r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9] and deps_open(prefix, key) or {} }
end

local out = {}
local waiting = prefix .. 'waiting'
if ARGV[2] == 'scheduled' and task == '' and q == '' then
  -- the page of the queue, then of the executions waiting for their dependencies
  local queued, waiters = redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', waiting)
  if offset < queued then
    for _, key in ipairs(redis.call('ZRANGE', KEYS[2], offset, offset + size - 1)) do
      out[#out + 1] = row(key, read(key))
    end
  end
  local from, room = math.max(0, offset - queued), size - #out
  if room > 0 and from < waiters then
    for _, key in ipairs(redis.call('ZRANGE', waiting, from, from + room - 1)) do
      out[#out + 1] = row(key, read(key))
    end
  end
  return { queued + waiters, out }
end

local seen, total = {}, 0
local function passes(key, r)
  if not r[1] or not states[r[1]] then return false end
  if task ~= '' and r[2] ~= task then return false end
  if q == '' then return true end
  return string.sub(string.lower(key), 1, #q) == q
    or (r[2] and string.find(string.lower(r[2]), q, 1, true) ~= nil)
    or (r[3] and string.find(string.lower(r[3]), q, 1, true) ~= nil)
end
local function consider(key)
  if not key or seen[key] then return end
  seen[key] = true
  local r = read(key)
  if not passes(key, r) then return end
  total = total + 1
  if total > offset and #out < size then out[#out + 1] = row(key, r) end
end

if states.running or states.queued then
  for _, name in ipairs(lane_names(prefix)) do
    for _, entry in ipairs(redis.call('XRANGE', prefix .. name, '-', '+')) do
      consider(field_of(entry[2], 'key'))
    end
  end
end
if states.queued then
  for _, line in ipairs(redis.call('SMEMBERS', prefix .. 'lines')) do
    for _, key in ipairs(redis.call('LRANGE', line, 0, -1)) do consider(key) end
  end
  for _, held in ipairs(redis.call('SMEMBERS', prefix .. 'held')) do
    for _, key in ipairs(redis.call('ZRANGE', prefix .. 'held:' .. held, 0, -1)) do consider(key) end
  end
end
if states.scheduled or states.queued then
  for _, key in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do consider(key) end
end
if states.scheduled then
  for _, key in ipairs(redis.call('ZRANGE', waiting, 0, -1)) do consider(key) end
end
return { total, out }

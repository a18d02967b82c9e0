#!lua flags=allow-oom
--[[
  history: one page of the finished executions a dashboard keeps in <prefix>history (see
  includes/states.lua), newest end first, that pass a filter, and how many pass it in all.

  KEYS[1] history (zset: key → end time, epoch ms)
  ARGV[1] key prefix
  ARGV[2] the states listed, comma-separated (of completed, failed, cancelled)
  ARGV[3] task name ('' = any task)
  ARGV[4] search text in lower case ('' = none): it passes a key that starts with it, and a
          task name, arguments (their stored text) or error that contain it, case aside
  ARGV[5] offset             ARGV[6] page size
  ARGV[7] '1': the search looks into the arguments too ('0': key, task name and error only)

  An entry whose record is gone (expired after executionTtl, or deleted) or that is live again
  (the key was added since) is removed as it is met, so that the total counts what can be
  shown. Reads the record of every entry once: the history is bounded by its size (at most
  10 000).
  Returns { total, { row, … } }, a row { key, state, task, args, when, attempt, worker,
  startedAt, completedAt, error }.
]]
local prefix, task, q = ARGV[1], ARGV[3], ARGV[4]
local offset, size, inArgs = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7] == '1'
local states = {}
for state in string.gmatch(ARGV[2], '[^,]+') do states[state] = true end
local ENDED = { completed = true, failed = true, cancelled = true }

local function passes(key, r)
  if not states[r[1]] then return false end
  if task ~= '' and r[2] ~= task then return false end
  if q == '' then return true end
  return string.sub(string.lower(key), 1, #q) == q
    or (r[2] and string.find(string.lower(r[2]), q, 1, true) ~= nil)
    or (inArgs and r[3] and string.find(string.lower(r[3]), q, 1, true) ~= nil)
    or (r[9] and string.find(string.lower(r[9]), q, 1, true) ~= nil)
end

local total, out, gone = 0, {}, {}
local keys = redis.call('ZRANGE', KEYS[1], 0, -1)
for i = #keys, 1, -1 do
  local key = keys[i]
  local r = redis.call('HMGET', prefix .. 'runs:' .. key, 'state', 'task', 'args', 'when', 'attempt', 'worker',
    'startedAt', 'completedAt', 'error')
  if not r[1] or not ENDED[r[1]] then
    gone[#gone + 1] = key
  elseif passes(key, r) then
    total = total + 1
    if total > offset and #out < size then
      out[#out + 1] = { key, r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9] }
    end
  end
end
-- removed 1 000 at a time (a Lua unpack has a limit)
for first = 1, #gone, 1000 do
  redis.call('ZREM', KEYS[1], unpack(gone, first, math.min(first + 999, #gone)))
end
return { total, out }

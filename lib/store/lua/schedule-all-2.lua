#!lua
--- @include "schedule-key"
--[[
  schedule-all: add or replace several task keys in one call, all or none (an agenda's
  scatter). Every record the call would read is checked before anything is written: when one
  cannot be read (a wrong-typed key), nothing is written and the call answers which request it
  was. Then each request is scheduled in order as schedule-4.lua does (a key given twice
  answers 'already_scheduled' the second time when mode is 'add').

  KEYS[1] stream             KEYS[2] queue
  ARGV[1] now (epoch ms)     ARGV[2] consumer group   ARGV[3] key prefix
  ARGV[4..] groups of 9: task key, task name, encoded args, when (epoch ms), attempt, mode
            ('add' | 'replace'), traceparent ('' = none), tracestate ('' = none), priority

  Returns { 'ok', <the replies of schedule-4.lua, 7 values per group> }, or
  { 'refused', <1-based number of the group, 0 for the stream or the queue>, <reason> } with
  nothing written.
]]
local now, group, prefix = ARGV[1], ARGV[2], ARGV[3]

-- the type of `key` when it is not one of `allowed` (a set of type names), else nil
local function unreadable(key, allowed)
  local found = redis.call('TYPE', key)['ok']
  if found == 'none' or allowed[found] then return nil end
  return found
end

local docket_wide = { { KEYS[1], { stream = true } }, { KEYS[2], { zset = true } } }
for _, check in ipairs(docket_wide) do
  local found = unreadable(check[1], check[2])
  if found then
    return { 'refused', '0', 'UnreadableRecordError: WRONGTYPE ' .. check[1] .. ' is a ' .. found }
  end
end

local hash, stream = { hash = true }, { stream = true }
local n = 0
for i = 4, #ARGV, 9 do
  n = n + 1
  local key = ARGV[i]
  local records = {
    { prefix .. 'runs:' .. key, hash },
    { prefix .. 'parked:' .. key, hash },
    { prefix .. lane_for(ARGV[i + 8]), stream },
  }
  for _, check in ipairs(records) do
    local found = unreadable(check[1], check[2])
    if found then
      return { 'refused', tostring(n), 'UnreadableRecordError: WRONGTYPE ' .. check[1] .. ' is a ' .. found }
    end
  end
end

local out = schedule_groups(schedule_key, prefix, group, now, { 'ok' })
events_flush(prefix)
return out

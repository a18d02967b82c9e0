--- @include "watching"
--[[
  State channels: an execution's state changes go to <prefix>state:<key> (JSON, see the wire
  format) while some process listens (<prefix>states:on, see includes/watching.lua).

  History: while a dashboard keeps one (<prefix>history:on), every end (completed, failed,
  cancelled) told here is gathered, and history_flush (called by events_flush at the end of a
  call) adds them to <prefix>history (zset: key → end time, epoch ms), keeps the newest
  `history:on` of them, and lets the set expire `HISTORY_TTL` after its last write.

  state_publish(prefix, key, event)   publish `event` (a table) on the key's state channel
  state_wanted(prefix, ended)         whether state_publish has anything to do for a change
                                      (ended: to completed, failed or cancelled), so that the
                                      event is built only then
  history_flush(prefix)               write the ends gathered in this call
]]
local HISTORY = {}
local HISTORY_ENDS = { completed = true, failed = true, cancelled = true }
-- a day: a history nobody reads is gone a day after its last end
local HISTORY_TTL = 86400000

local function state_publish(prefix, key, event)
  local w = watching(prefix)
  if w.states then redis.call('PUBLISH', prefix .. 'state:' .. key, cjson.encode(event)) end
  if w.history and HISTORY_ENDS[event.state] and event.completedAt then
    HISTORY[#HISTORY + 1] = event.completedAt
    HISTORY[#HISTORY + 1] = key
  end
end

local function state_wanted(prefix, ended)
  local w = watching(prefix)
  return w.states or (ended and w.history ~= false)
end

local function history_flush(prefix)
  if #HISTORY == 0 then return end
  local history, most = prefix .. 'history', WATCHING.history
  -- only the newest `most` can stay; written 500 at a time (a Lua unpack has a limit)
  -- (pairs of score and key: #HISTORY and 2 * most are even, so `from` is a score)
  local from = math.max(1, #HISTORY - 2 * most + 1)
  for first = from, #HISTORY, 1000 do
    redis.call('ZADD', history, unpack(HISTORY, first, math.min(first + 999, #HISTORY)))
  end
  redis.call('ZREMRANGEBYRANK', history, 0, -(most + 1))
  redis.call('PEXPIRE', history, HISTORY_TTL)
  HISTORY = {}
end

--- @include "states"
--[[
  Events: while some process listens (<prefix>events:on, see includes/watching.lua), a script
  collects the events of its call and publishes them at its end as one JSON array on
  <prefix>events. Each event: { type, key, taskName, attempt, at (epoch ms), worker?, error?,
  durationMs? }; type one of scheduled, started, completed, failed, retrying, cancelled, dead.

  event_add(prefix, type, key, task, attempt, now, extra)  extra: nil or a table of fields
  event_dead(prefix, key, task, attempt, now, extra)       an end that is dead-lettered: failed,
                                                           then dead (the same extra fields)
  events_flush(prefix)                                     publish what was collected, and write
                                                           the history's ends (history_flush)
]]
local EVENTS = {}

local function events_on(prefix)
  return watching(prefix).events
end

local function event_add(prefix, kind, key, task, attempt, now, extra)
  if not events_on(prefix) then return end
  local e = { type = kind, key = key, taskName = task or '', attempt = tonumber(attempt) or 1, at = tonumber(now) }
  if extra then
    for k, v in pairs(extra) do e[k] = v end
  end
  EVENTS[#EVENTS + 1] = e
end

local function event_dead(prefix, key, task, attempt, now, extra)
  event_add(prefix, 'failed', key, task, attempt, now, extra)
  event_add(prefix, 'dead', key, task, attempt, now, extra)
end

local function events_flush(prefix)
  history_flush(prefix)
  if #EVENTS > 0 then
    redis.call('PUBLISH', prefix .. 'events', cjson.encode(EVENTS))
    EVENTS = {}
  end
end

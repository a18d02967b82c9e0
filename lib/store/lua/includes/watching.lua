--[[
  Who is watching the docket, read once per call, at the first need, in one MGET: the markers
  <prefix>states:on (some process listens to state channels), <prefix>events:on (some process
  listens to events) and <prefix>history:on (a dashboard keeps a history of finished
  executions; its value is how many it keeps). Listeners set their marker with a time to live
  and renew it. With nobody watching, a call that has something to tell costs one MGET.

  watching(prefix)   { states = bool, events = bool, history = most kept (a number) or false }
]]
local WATCHING = nil

local function watching(prefix)
  if WATCHING == nil then
    local on = redis.call('MGET', prefix .. 'states:on', prefix .. 'events:on', prefix .. 'history:on')
    WATCHING = { states = on[1] ~= false, events = on[2] ~= false, history = on[3] and tonumber(on[3]) or false }
    if WATCHING.history and WATCHING.history < 1 then WATCHING.history = false end
  end
  return WATCHING
end

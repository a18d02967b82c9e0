--[[
  State channels: an execution's state changes go to <prefix>state:<key> (JSON, see the wire
  format) while some process listens (<prefix>states:on exists; listeners set it before they
  read a state, and renew it). With no listener, the only cost is one EXISTS per call that has
  a state to tell.

  state_publish(prefix, key, event)   publish `event` (a table) on the key's state channel
]]
local STATES_ON = nil

local function state_publish(prefix, key, event)
  if STATES_ON == nil then STATES_ON = redis.call('EXISTS', prefix .. 'states:on') == 1 end
  if STATES_ON then redis.call('PUBLISH', prefix .. 'state:' .. key, cjson.encode(event)) end
end

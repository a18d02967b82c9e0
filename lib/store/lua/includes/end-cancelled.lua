--- @include "states"
--- @include "events"
--[[
  end_cancelled(prefix, key, now, ttl)
    End the execution of `key` as 'cancelled' (it never starts, or its start is refused): the
    runs hash keeps state and completedAt for `ttl` ms (or is deleted when ttl is 0), its
    progress is dropped, and 'cancelled' is published.
]]
local function end_cancelled(prefix, key, now, ttl)
  local runs = prefix .. 'runs:' .. key
  if events_on(prefix) then
    local r = redis.call('HMGET', runs, 'task', 'attempt')
    event_add(prefix, 'cancelled', key, r[1], r[2], now, nil)
  end
  redis.call('DEL', prefix .. 'progress:' .. key)
  if ttl > 0 then
    redis.call('HSET', runs, 'state', 'cancelled', 'completedAt', now)
    redis.call('HDEL', runs, 'streamId', 'cancel', 'waiting', 'reserved', 'reservedMax')
    redis.call('PEXPIRE', runs, ttl)
  else
    redis.call('DEL', runs)
  end
  state_publish(prefix, key, { type = 'state', key = key, state = 'cancelled', completedAt = tonumber(now) })
end

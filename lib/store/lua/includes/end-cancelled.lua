--- @include "states"
--- @include "events"
--- @include "dependencies"
--[[
  end_cancelled(prefix, key, now, ttl)
    End the execution of `key` as 'cancelled' (it never starts, or its start is refused): the
    runs hash keeps state and completedAt for `ttl` ms (or is deleted when ttl is 0), its
    progress is dropped, and 'cancelled' is published. Its waiters are told, and a waiter lets
    go of its dependencies (see includes/dependencies.lua): `deps`, when given, holds its runs
    fields generation, waited and after as the caller read them; else they are read here.
]]
local function end_cancelled(prefix, key, now, ttl, deps)
  local runs = prefix .. 'runs:' .. key
  if deps then
    deps_ended(prefix, key, deps[1], deps[2], deps[3], 'cancelled', '', '', now, ttl)
  else
    deps_ended_read(prefix, key, nil, 'cancelled', '', now, ttl)
  end
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

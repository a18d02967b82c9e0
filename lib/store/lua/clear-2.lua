#!lua flags=allow-oom
--- @include "end-cancelled"
--- @include "lanes"
--- @include "pause"
--- @include "dependencies"
--[[
  clear: remove every scheduled and queued task (also those waiting for a concurrency slot,
  held while paused, or waiting for their dependencies; a pause itself stays);
  running tasks go on.

  KEYS[1] stream             KEYS[2] queue
  ARGV[1] key prefix         ARGV[2] consumer group   ARGV[3] now (epoch ms)
  ARGV[4] executionTtl (ms; 0 = keep nothing)

  Each removed key ends 'cancelled' (published); messages already claimed by a worker (state
  running) stay. Returns the number of tasks removed.
]]
local prefix, group, now, ttl = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local removed = 0
local function cancel(key)
  end_cancelled(prefix, key, now, ttl)
  removed = removed + 1
end

-- waiters first, the last added first (so that a chain's later links do not fail on its
-- earlier ones ending cancelled)
local waiters = redis.call('ZRANGE', prefix .. 'waiting', 0, -1)
for i = #waiters, 1, -1 do
  if redis.call('HGET', prefix .. 'runs:' .. waiters[i], 'state') == 'scheduled' then cancel(waiters[i]) end
end
for _, key in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  redis.call('DEL', prefix .. 'parked:' .. key)
  cancel(key)
end
redis.call('DEL', KEYS[2])

for _, line in ipairs(redis.call('SMEMBERS', prefix .. 'lines')) do
  for _, key in ipairs(redis.call('LRANGE', line, 0, -1)) do
    if redis.call('HGET', prefix .. 'runs:' .. key, 'waiting') == line then cancel(key) end
  end
  redis.call('DEL', line)
end
redis.call('DEL', prefix .. 'lines')

for _, task in ipairs(redis.call('SMEMBERS', prefix .. 'held')) do
  for _, key in ipairs(redis.call('ZRANGE', prefix .. 'held:' .. task, 0, -1)) do
    -- (the held sets themselves go whole)
    if unpark(prefix, key) then cancel(key) end
  end
  redis.call('DEL', prefix .. 'held:' .. task)
end
redis.call('DEL', prefix .. 'held')

for _, name in ipairs(lane_names(prefix)) do
  local lane = prefix .. name
  for _, entry in ipairs(redis.call('XRANGE', lane, '-', '+')) do
    local id, key = entry[1], field_of(entry[2], 'key')
    local state = key and redis.call('HGET', prefix .. 'runs:' .. key, 'state')
    if state ~= 'running' then
      redis.call('XACK', lane, group, id)
      redis.call('XDEL', lane, id)
      if state == 'queued' then cancel(key) end
    end
  end
end
events_flush(prefix)
return removed

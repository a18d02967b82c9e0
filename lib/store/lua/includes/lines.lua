--- @include "schedule-run"
--[[
  leave_line(prefix, line, key)
    Take `key` out of a concurrency waiting line (and the line out of the set of lines once
    empty).
  release_slot(prefix, slots, max, key, now)
    Give back `key`'s concurrency slot and wake waiters, first come first served, while
    slots are free: each woken task gets a reserved slot (runs fields 'reserved' and
    'reservedMax', so that a cancel can give it back) and goes back on the stream.
]]
local function leave_line(prefix, line, key)
  redis.call('LREM', line, 0, key)
  if redis.call('EXISTS', line) == 0 then redis.call('SREM', prefix .. 'lines', line) end
end

local function release_slot(prefix, slots, max, key, now)
  redis.call('ZREM', slots, key)
  local waiters = slots .. ':waiters'
  while redis.call('ZCARD', slots) < max do
    local next = redis.call('LPOP', waiters)
    if not next then break end
    if redis.call('EXISTS', waiters) == 0 then redis.call('SREM', prefix .. 'lines', waiters) end
    local runs = prefix .. 'runs:' .. next
    local run = redis.call('HMGET', runs, 'state', 'waiting', 'task', 'args', 'when', 'attempt', 'traceparent',
      'tracestate')
    if run[1] == 'queued' and run[2] == waiters then
      redis.call('ZADD', slots, now, next)
      schedule_run(prefix, next, run[3], run[4], run[5], run[6], now, run[7] or '', run[8] or '')
      redis.call('HSET', runs, 'reserved', slots, 'reservedMax', max)
    end
  end
end

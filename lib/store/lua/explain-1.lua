#!lua flags=no-writes
--- @include "lanes"
--- @include "pause"
--- @include "dependency-forget"
--[[
  explain: why an execution is where it is, from Redis alone.

  KEYS[1] runs:<key>
  ARGV[1] key prefix         ARGV[2] task key         ARGV[3] now (epoch ms)
  ARGV[4] live since (epoch ms: workers seen since then are alive)
  ARGV[5] most tasks counted ahead of a queued one

  Returns { state, reason, detail, since, until, task, args } (since and until in epoch ms, ''
  when none; state 'missing' when the key has no record). The reasons, the first that applies:
    finished      completed, failed or cancelled (since: when it ended)
    running       on a worker (detail: the worker; since: its start)
    dependencies  waiting for other keys to end (detail: the keys still open)
    rate_limited  a rate limit deferred it (until: when it may start)
    debouncing    a debounce holds it until things settle (until)
    scheduled     due later (until: its time)
    paused        due, but its task or the docket is paused
    no_worker     due, and no live worker runs its task
    concurrency   waiting in line for a concurrency slot (detail: the slot and who holds it)
    queued        due, waiting for a worker (detail: how many are ahead of it, capped)
  Strikes are the caller's to check (the strike list lives in each process).
]]
local prefix, key, now, liveSince, cap = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local r = redis.call('HMGET', KEYS[1], 'state', 'task', 'when', 'worker', 'startedAt', 'completedAt', 'held',
  'waiting', 'deferredBy', 'deferredUntil', 'streamId', 'args', 'error', 'open')
local state, task, args = r[1], r[2] or '', r[12] or '[]'
local function answer(reason, detail, since, till)
  return { state, reason, detail, since or '', till or '', task, args }
end
if not state then
  state = 'missing'
  return answer('finished', 'no record of this key: never added here, or its record expired', nil, nil)
end
if state == 'completed' or state == 'failed' or state == 'cancelled' then
  return answer('finished', state .. (r[13] and (': ' .. r[13]) or ''), r[6], nil)
end
if state == 'running' then
  return answer('running', 'on worker ' .. (r[4] or '?'), r[5], nil)
end
if state == 'scheduled' and r[14] then
  return answer('dependencies', 'waiting for ' .. table.concat(deps_open(prefix, key), ', '), nil, nil)
end
if state == 'scheduled' then
  local till = tonumber(r[10] or '')
  if r[9] and till and till > now then
    if r[9] == 'rate' then
      return answer('rate_limited', 'a rate limit deferred it until its window has room', nil, r[10])
    end
    return answer('debouncing', 'a debounce holds it until calls settle', nil, r[10])
  end
  return answer('scheduled', 'due at its time', nil, r[3])
end
-- queued
local paused = paused_set(prefix)
if r[7] or is_paused(paused, task) then
  local what = paused['*'] and 'the docket is paused'
    or ('task ' .. task .. ' is paused')
  return answer('paused', what .. (r[7] and '; its message is held until resume' or ''), nil, nil)
end
-- a worker whose registry lists '*' runs any task through its fallback task
local live = 0
for _, registry in ipairs({ task, '*' }) do
  for _, worker in ipairs(redis.call('ZRANGE', prefix .. 'task-workers:' .. registry, 0, -1)) do
    local seen = tonumber(redis.call('ZSCORE', prefix .. 'workers', worker) or '0')
    if seen >= liveSince then live = live + 1 end
  end
end
if live == 0 then
  return answer('no_worker', 'no live worker runs task ' .. task, nil, nil)
end
if r[8] then
  local slots = string.gsub(r[8], ':waiters$', '')
  local holders = redis.call('ZRANGE', slots, 0, 9)
  local name = string.sub(slots, #prefix + 1)
  return answer('concurrency', 'waiting for a slot of ' .. name .. '; held by ' ..
    (#holders > 0 and table.concat(holders, ', ') or 'nobody (its turn is next)'), nil, nil)
end
local ahead = 0
if r[11] then
  local own, id = lane_of(prefix, r[11])
  for _, name in ipairs(lane_names(prefix)) do
    if ahead >= cap then break end
    local lane = prefix .. name
    if lane == own then
      local before = redis.call('XRANGE', lane, '-', id, 'COUNT', cap + 1)
      local n = #before
      if n > 0 and before[n][1] == id then n = n - 1 end
      ahead = ahead + n
      break
    end
    ahead = ahead + redis.call('XLEN', lane)
  end
end
local shown = ahead >= cap and ('at least ' .. cap) or tostring(ahead)
return answer('queued', shown .. ' ahead of it (started or waiting for a worker)', nil, nil)

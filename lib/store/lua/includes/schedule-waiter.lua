--- @include "schedule-key"
--- @include "dependencies"
--[[
  deps_register(prefix, key, after, now)
    Make `key` wait for the keys of `after` (a Lua array): returns how many are open and the
    first ended one that did not complete ({ key, state, error } or nil).
  deps_reaches(prefix, after, key)
    Whether `key` is among `after` or among the open dependencies of the waiters they name,
    transitively.
]]
local function deps_register(prefix, key, after, now)
  local deps = prefix .. 'deps:' .. key
  local open, failed = 0, nil
  for _, d in ipairs(after) do
    if redis.call('HEXISTS', deps, d) == 0 then
      local runs = prefix .. 'runs:' .. d
      local dr = redis.call('HMGET', runs, 'state', 'generation', 'waited', 'error')
      local state = dr[1]
      if state == 'scheduled' or state == 'queued' or state == 'running' then
        local waited = dr[3]
        if not waited then
          waited = dr[2] or '0'
          redis.call('HSET', runs, 'waited', waited)
        end
        redis.call('ZADD', prefix .. 'waiters:' .. waited .. ':' .. d, now, key)
        redis.call('HSET', deps, d, '')
        open = open + 1
      elseif state then
        -- ended before this waiter came: its outcome, from its record
        local gen = dr[2] or '0'
        local outcome = deps_outcome(prefix, gen, d)
        if redis.call('HINCRBY', outcome, 'left', 1) == 1 then
          local result = redis.call('GET', prefix .. 'results:' .. d)
          redis.call('HSET', outcome, unpack(deps_outcome_fields(state, dr[4], result)))
        end
        redis.call('HSET', deps, d, gen)
        if state ~= 'completed' and not failed then failed = { d, state, dr[4] } end
      else
        redis.call('HSET', deps, d, '!')
        if not failed then failed = { d, 'failed', 'unknown dependency: ' .. d } end
      end
    end
  end
  return open, failed
end

local function deps_reaches(prefix, after, key)
  local seen, todo = {}, {}
  for _, d in ipairs(after) do todo[#todo + 1] = d end
  while #todo > 0 do
    local d = table.remove(todo)
    if d == key then return true end
    if not seen[d] then
      seen[d] = true
      if redis.call('HGET', prefix .. 'runs:' .. d, 'open') then
        for _, open in ipairs(deps_open(prefix, d)) do todo[#todo + 1] = open end
      end
    end
  end
  return false
end

--[[
  schedule_waiter(prefix, group, key, task, args, when, attempt, now, mode, traceparent, tracestate,
                  priority, after, onFailure, ttl)
    Add or replace one execution of `key` that waits for the keys of `after` (JSON array) to
    end (see includes/dependencies.lua); `onFailure` 'fail' | 'run'; `ttl` the executionTtl
    (ms) for a waiter that fails at once. Returns what schedule_key returns, or
    { 'cycle', <reason>, '', '', '', '', '' } when a replace would wait for itself.
    Keys that already ended (or never existed) count as ended at once: with 'fail', one that
    did not complete ends the new execution 'failed' (DependencyFailedError) without running
    it; when none is open the execution is scheduled as by `add`.
]]
local function schedule_waiter(prefix, group, key, task, args, when, attempt, now, mode, traceparent, tracestate,
                               priority, after, onFailure, ttl)
  local keys = cjson.decode(after)
  local runs = prefix .. 'runs:' .. key
  local run, live = schedule_prior(prefix, key, mode, task, args, when)
  if live then return live end
  if mode == 'replace' and deps_reaches(prefix, keys, key) then
    return { 'cycle', 'replace(' .. key .. '): its `after` reaches ' .. key .. ' itself (a cycle)', '', '', '', '', '' }
  end
  -- an earlier waiter of this key lets go first; the outcomes of ended dependencies are read
  -- before this key's own records go
  if run[10] then deps_forget(prefix, key) end
  local open, failed = deps_register(prefix, key, keys, now)
  schedule_clear(prefix, group, key, run)
  priority = priority or '5'
  local extra = field_push({ 'after', after }, 'onDependencyFailure', onFailure == 'run' and 'run' or nil)
  if open == 0 and not (failed and onFailure ~= 'run') then
    local newState, generation = schedule_run(prefix, key, task, args, when, attempt, now, traceparent, tracestate,
      priority, { run[5], run[1], nil })
    redis.call('HSET', runs, unpack(extra))
    event_add(prefix, 'scheduled', key, task, attempt, now, nil)
    return { 'scheduled', newState, when, tostring(generation), task, args, attempt }
  end
  -- (its own priority, if not 5, is written with its record below)
  local generation = run_renew(runs, { run[5], run[1] }, '5')
  event_add(prefix, 'scheduled', key, task, attempt, now, nil)
  if failed and onFailure ~= 'run' then
    -- a dependency had already failed: this execution ends without running (and a live
    -- execution it replaced ends with it, for whoever waited on that)
    redis.call('HSET', runs, 'task', task, 'args', args, 'when', when, 'attempt', attempt, 'state', 'scheduled')
    local waited = redis.call('HGET', runs, 'waited')
    deps_fail(prefix, key, { 'scheduled', false, false, task, args, when, attempt, false, false, tostring(generation),
      waited }, deps_failure(failed[1], failed[2], failed[3]), now, ttl)
    return { 'scheduled', 'failed', when, tostring(generation), task, args, attempt }
  end
  -- it waits: in no queue or lane until its last dependency ends
  local record = field_push(run_record(task, args, when, attempt, priority, traceparent, tracestate), 'state',
    'scheduled')
  field_push(record, 'open', open)
  for i = 1, #extra, 2 do field_push(record, extra[i], extra[i + 1]) end
  redis.call('HSET', runs, unpack(record))
  redis.call('ZADD', prefix .. 'waiting', now, key)
  state_publish(prefix, key, { type = 'state', key = key, state = 'scheduled', when = tonumber(when) })
  return { 'scheduled', 'scheduled', when, tostring(generation), task, args, attempt }
end

--[[
  schedule_waiter_isolated(...): schedule_waiter with the same arguments, except that a record
  that cannot be read (a wrong-typed key) fails this key only.
]]
local function schedule_waiter_isolated(...)
  local ok, reply = pcall(schedule_waiter, ...)
  if ok then return reply end
  local reason = type(reply) == 'table' and reply.err or tostring(reply)
  return { 'error', 'UnreadableRecordError: ' .. reason, '', '', '', '', '' }
end

--[[
  schedule_after_groups(plain, waiter, prefix, group, now, ttl, out)
    For each group of 11 ARGV from ARGV[5] (task key, task name, args, when, attempt, mode,
    traceparent, tracestate, priority, after (JSON array, '' = none), onDependencyFailure), call
    `plain` (schedule_key or its isolated form) for a group without `after` and `waiter`
    (schedule_waiter or its isolated form) for one with it, and append its 7 reply values to
    `out`.
]]
local function schedule_after_groups(plain, waiter, prefix, group, now, ttl, out)
  for i = 5, #ARGV, 11 do
    local reply
    if ARGV[i + 9] == '' then
      reply = plain(prefix, group, ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], now, ARGV[i + 5],
        ARGV[i + 6], ARGV[i + 7], ARGV[i + 8])
    else
      reply = waiter(prefix, group, ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], now, ARGV[i + 5],
        ARGV[i + 6], ARGV[i + 7], ARGV[i + 8], ARGV[i + 9], ARGV[i + 10], ttl)
    end
    for j = 1, 7 do out[#out + 1] = reply[j] end
  end
  return out
end

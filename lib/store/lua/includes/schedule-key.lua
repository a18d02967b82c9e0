--- @include "lines"
--- @include "events"
--- @include "pause"
--- @include "dependency-forget"
--[[
  schedule_prior(prefix, key, mode, task, args, when)
    What an add or replace reads first of the key's earlier execution: its runs fields state,
    streamId, waiting, when, generation, task, args, attempt, held, after and past, and the
    'already_scheduled' reply when `mode` is 'add' and that execution is live (else nil).
  schedule_clear(prefix, group, key, run)
    Remove what is left of that earlier execution (`run` as schedule_prior read it; a new key
    has nothing to clean): its message, its place in a waiting line, its work held while
    paused, its place in the queue, its parked, results and progress records, its earlier
    attempts and its error's stack. A waiter lets go
    of its dependencies on its own (deps_forget).
  schedule_key(prefix, group, key, task, args, when, attempt, now, mode, traceparent, tracestate, priority)
    Add or replace one execution of `key` (what schedule-4.lua does; see there); returns its
    reply. `priority` ('0'…'9') is the new execution's ('5' when nil).
]]
local function schedule_prior(prefix, key, mode, task, args, when)
  local run = redis.call('HMGET', prefix .. 'runs:' .. key, 'state', 'streamId', 'waiting', 'when', 'generation',
    'task', 'args', 'attempt', 'held', 'after', 'past')
  local state = run[1]
  if mode == 'add' and (state == 'scheduled' or state == 'queued' or state == 'running') then
    return run, { 'already_scheduled', state, run[4] or when, run[5] or '0', run[6] or task, run[7] or args,
      run[8] or '1' }
  end
  return run, nil
end

local function schedule_clear(prefix, group, key, run)
  if not run[1] then return end
  if run[2] then lane_drop(prefix, group, run[2]) end
  if run[3] then leave_line(prefix, run[3], key) end
  if run[9] then unhold(prefix, key, run[9]) end
  redis.call('ZREM', prefix .. 'queue', key)
  redis.call('DEL', prefix .. 'parked:' .. key, prefix .. 'results:' .. key, prefix .. 'progress:' .. key)
  if run[11] then redis.call('HDEL', prefix .. 'runs:' .. key, 'attempts', 'stack', 'past') end
end

local function schedule_key(prefix, group, key, task, args, when, attempt, now, mode, traceparent, tracestate,
                            priority)
  local run, live = schedule_prior(prefix, key, mode, task, args, when)
  if live then return live end
  -- a waiter replaced by a plain execution lets go of its dependencies
  if run[10] then deps_forget(prefix, key) end
  schedule_clear(prefix, group, key, run)
  local newState, generation = schedule_run(prefix, key, task, args, when, attempt, now, traceparent, tracestate,
    priority or '5', { run[5], run[1], nil })
  event_add(prefix, 'scheduled', key, task, attempt, now, nil)
  return { 'scheduled', newState, when, tostring(generation), task, args, attempt }
end

--[[
  schedule_key_isolated(...): schedule_key with the same arguments, except that a record of
  the key that cannot be read (a wrong-typed key) fails this key only:
  { 'error', <reason>, '', '', '', '', '' }.
]]
local function schedule_key_isolated(...)
  local ok, reply = pcall(schedule_key, ...)
  if ok then return reply end
  local reason = type(reply) == 'table' and reply.err or tostring(reply)
  return { 'error', 'UnreadableRecordError: ' .. reason, '', '', '', '', '' }
end

--[[
  schedule_groups(schedule, prefix, group, now, out)
    Call `schedule` (schedule_key or schedule_key_isolated) for each group of 9 ARGV from
    ARGV[4] (task key, task name, args, when, attempt, mode, traceparent, tracestate, priority)
    and append its 7 reply values to `out`.
]]
local function schedule_groups(schedule, prefix, group, now, out)
  for i = 4, #ARGV, 9 do
    local reply = schedule(prefix, group, ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], now,
      ARGV[i + 5], ARGV[i + 6], ARGV[i + 7], ARGV[i + 8])
    for j = 1, 7 do out[#out + 1] = reply[j] end
  end
  return out
end

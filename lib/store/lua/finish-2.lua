#!lua flags=allow-oom
--- @include "states"
--- @include "lines"
--- @include "lanes"
--- @include "events"
--- @include "dependencies"
--- @include "attempts"
--[[
  finish: record how delivered messages ended, several in one call.

  KEYS[1] stream             KEYS[2] dead (dead-letter stream)
  ARGV[1] key prefix         ARGV[2] consumer group   ARGV[3] now (epoch ms)
  ARGV[4] executionTtl (ms; 0 = keep nothing)         ARGV[5] dead-letter retention (ms)
  ARGV[6] consumer that reads along ('' = none)        ARGV[7] most new messages it reads
  ARGV[8] the ends: a JSON array with one array of strings per end (a missing value is ''):
            task key, message generation, message id, outcome, result, error, retry when
            (epoch ms), attempt, task name, args, admission (the rules themselves, an array),
            next when, next args, the error's stack
            (one argument, not 14 per end: see store/scripts/packed.ts)
    outcome 'completed' | 'failed' | 'cancelled': the execution ends; result ('' = none) is
            stored under results:<key> and the error ('' = none) in the runs hash, both for
            executionTtl, or the runs hash is deleted when executionTtl is 0
    outcome 'retry': the same key is scheduled again at retry-when with the given attempt
            (new generation; queued at once when due, else in the queue); the attempt that
            failed joins the runs field 'attempts' (see includes/attempts.lua)
    outcome 'dead': like 'failed', and the message also goes to the dead-letter stream with
            task name, args, error, attempt and stack
    The stack of a failed end is kept beside its error (runs field 'stack').
    outcome 'rejected': a message whose fields could not be read goes to the dead-letter
            stream; the execution of its key fails only when this very message is the one it
            waits on (runs field streamId), so a foreign entry carrying a live key and
            generation changes nothing else
    admission: the JSON rules the message was admitted with (see claim-2.lua); its
            concurrency slots are given back and waiters woken
    next when ('' = none): a perpetual task's successor, scheduled under the same key after
            the execution ended, with next args ('' = the same args) and attempt 1
  Every message is acknowledged and deleted (all of a lane in one XACK and one XDEL). An
  outcome whose generation is not the key's current one, or whose execution already ended,
  changes nothing else (a successor exists, or the end was recorded first). A cancel recorded before the end (runs field cancel) makes
  it 'cancelled', whatever the outcome (no retry, no successor, no dead letter): the order in
  Redis decides. An end whose records cannot be read (a wrong-typed key) is dead-lettered
  alone, with the reason, and the others go on ('error').

  Events (see includes/events.lua): completed, failed, cancelled, retrying (with the failed
  attempt's number and error), and failed then dead for an end that is dead-lettered.

  After the ends, the consumer of ARGV[6] reads up to ARGV[7] new messages of the lanes in
  rank order (as XREADGROUP … '>' does; see includes/lanes.lua), so that a worker whose tasks
  ended gets its next ones in this call.

  Returns, as one JSON text, [ statuses, messages ]: one status per end, 'ok', 'superseded',
  'cancelled' (a recorded cancel won) or 'error' (dead-lettered: its records are unreadable),
  and the messages read along as XREADGROUP gives them ([ id, [ field, value, … ] ] each, the
  id naming its lane; none when the group is missing). An empty list encodes as {}.
]]
local prefix, group, now, ttl, deadTtl = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local TERMINAL = { completed = true, failed = true, cancelled = true }

local function dead_letter(key, task, args, err, attempt, stack)
  redis.call('XADD', KEYS[2], 'MINID', '~', tonumber(now) - deadTtl, '*', unpack(field_push(
    { 'key', key, 'task', task, 'args', args, 'error', err, 'attempt', attempt, 'deadAt', now }, 'stack', stack)))
end

-- `run`: the runs fields read before (read_run); a field that is not there is not deleted, a
-- progress hash that was never written (no 'progressed') is not touched
local function end_run(key, runs, run, state, err, result, stack)
  if ttl > 0 then
    if err ~= '' then
      if stack ~= '' then
        redis.call('HSET', runs, 'state', state, 'completedAt', now, 'error', err, 'stack', stack, 'past', '1')
      else
        redis.call('HSET', runs, 'state', state, 'completedAt', now, 'error', err)
      end
    else
      redis.call('HSET', runs, 'state', state, 'completedAt', now)
    end
    if run.cancel or run.streamId then redis.call('HDEL', runs, 'cancel', 'streamId') end
    redis.call('PEXPIRE', runs, ttl)
    if run.progressed then redis.call('PEXPIRE', prefix .. 'progress:' .. key, ttl) end
    if result ~= '' then redis.call('SET', prefix .. 'results:' .. key, result, 'PX', ttl) end
  else
    redis.call('DEL', runs, prefix .. 'progress:' .. key)
  end
  if state_wanted(prefix, true) then
    local event = { type = 'state', key = key, state = state, completedAt = tonumber(now) }
    if err ~= '' then event.error = err end
    state_publish(prefix, key, event)
  end
end

-- The runs fields every end reads, read once; the others only by the ends that need them
-- (events, a retry, a successor), once (run_extra).
local function read_run(runs)
  local r = redis.call('HMGET', runs, 'generation', 'state', 'cancel', 'streamId', 'progressed', 'waited', 'after')
  return { runs = runs, generation = r[1], state = r[2], cancel = r[3], streamId = r[4], progressed = r[5],
    waited = r[6], after = r[7] }
end

local function run_extra(run)
  if run.extra then return run end
  run.extra = true
  local r = redis.call('HMGET', run.runs, 'worker', 'startedAt', 'task', 'priority', 'traceparent', 'tracestate',
    'past', 'when')
  run.worker, run.startedAt, run.task, run.priority, run.traceparent, run.tracestate, run.past, run.when =
    r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]
  return run
end

-- The event of an end, with the worker and how long the attempt ran (when events are on), from
-- the runs fields read before it (`run`); kind 'dead' tells failed, then dead.
local function end_event(kind, key, run, task, attempt, err)
  if not events_on(prefix) then return end
  run_extra(run)
  local extra = { worker = run.worker or nil }
  if run.startedAt then extra.durationMs = tonumber(now) - tonumber(run.startedAt) end
  if err and err ~= '' then extra.error = err end
  task = task ~= '' and task or run.task
  if kind == 'dead' then
    event_dead(prefix, key, task, attempt, now, extra)
  else
    event_add(prefix, kind, key, task, attempt, now, extra)
  end
end

-- One end; returns its status.
local function finish(key, generation, id, outcome, result, err, retryWhen, attempt, task, args, admission,
                      nextWhen, nextArgs, stack)
  if type(admission) == 'table' then
    for _, r in ipairs(admission) do
      if r.t == 'conc' then release_slot(prefix, prefix .. r.k, r.m, key, now) end
    end
  end
  local runs = prefix .. 'runs:' .. key
  if outcome == 'rejected' then
    dead_letter(key, task, args, err, attempt, stack)
    local run = key ~= '' and id ~= '' and read_run(runs)
    if run and run.streamId == id then
      end_event('dead', key, run, task, attempt, err)
      end_run(key, runs, run, 'failed', err, '', stack)
      deps_ended(prefix, key, run.generation, run.waited, run.after, 'failed', err, '', now, ttl)
      return 'ok'
    end
    return 'superseded'
  end
  local run = key ~= '' and generation ~= '' and read_run(runs)
  local same = run and run.generation == generation
  local applies = same and not TERMINAL[run.state]
  if applies and run.cancel == '1' then
    end_event('cancelled', key, run, task, attempt, '')
    end_run(key, runs, run, 'cancelled', '', '', '')
    deps_ended(prefix, key, run.generation, run.waited, run.after, 'cancelled', '', '', now, ttl)
    return 'cancelled'
  end
  local dead = false
  if outcome == 'dead' then
    -- (an end written again after a lost reply finds its execution ended: no second letter)
    if applies or not same then dead_letter(key, task, args, err, attempt, stack) end
    outcome = 'failed'
    dead = true
  end
  if not applies then return 'superseded' end
  if outcome == 'retry' then
    run_extra(run)
    end_event('retrying', key, run, task, tonumber(attempt) - 1, err)
    schedule_run(prefix, key, task, args, retryWhen, attempt, now, run.traceparent, run.tracestate, nil,
      { run.generation, run.state, run.priority })
    local prior = run.past and redis.call('HGET', runs, 'attempts')
    redis.call('HSET', runs, 'past', '1', 'attempts', attempts_push(prior, {
      attempt = tonumber(attempt) - 1, worker = run.worker or nil, dueAt = tonumber(run.when),
      startedAt = tonumber(run.startedAt),
      endedAt = tonumber(now), outcome = 'failed', error = err ~= '' and err or nil,
      stack = stack ~= '' and stack or nil, retryAt = tonumber(retryWhen) }))
    return 'ok'
  end
  -- a successor keeps fields that the end may delete (executionTtl 0): read them first
  if nextWhen ~= '' and outcome ~= 'cancelled' then run_extra(run) end
  end_event(dead and 'dead' or outcome, key, run, task, attempt, err)
  end_run(key, runs, run, outcome, err, result, stack)
  deps_ended(prefix, key, run.generation, run.waited, run.after, outcome, err, result, now, ttl)
  if nextWhen ~= '' and outcome ~= 'cancelled' then
    -- the ended record is kept for executionTtl (0: it is gone, and the successor's record is
    -- new); either way the successor keeps the priority and the trace context read above
    local kept = ttl > 0
    -- the successor is a new execution: it starts without the attempts and stack of this one
    if kept and (run.past or (err ~= '' and stack ~= '')) then redis.call('HDEL', runs, 'attempts', 'stack', 'past') end
    schedule_run(prefix, key, task, nextArgs ~= '' and nextArgs or args, nextWhen, 1, now,
      run.traceparent, run.tracestate, run.priority or '5', kept and { run.generation, outcome, run.priority } or {})
  end
  return 'ok'
end

local out = {}
for _, e in ipairs(cjson.decode(ARGV[8])) do
  local key, id, task, args, attempt = e[1] or '', e[3] or '', e[9] or '', e[10] or '', e[8] or '1'
  if id ~= '' then lane_drop_later(prefix, group, id) end
  local ok, status = pcall(finish, key, e[2] or '', id, e[4] or '', e[5] or '', e[6] or '', e[7] or '',
    attempt, task, args, e[11], e[12] or '', e[13] or '', e[14] or '')
  if ok then
    out[#out + 1] = status
  else
    -- a record of this end cannot be read (a wrong-typed key): the end goes to the dead letters alone
    local reason = type(status) == 'table' and status.err or tostring(status)
    dead_letter(key, task, args, 'UnreadableRecordError: ' .. reason, attempt, '')
    out[#out + 1] = 'error'
  end
end
-- every ended message is acknowledged and deleted, one XACK and one XDEL per lane
lane_drops_flush()
local read = {}
local want = tonumber(ARGV[7]) or 0
if ARGV[6] ~= '' and want > 0 then read = lane_read(prefix, ARGV[6], want, lane_names(prefix)) end
events_flush(prefix)
return cjson.encode({ out, read })

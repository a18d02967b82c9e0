--- @include "admission"
--- @include "end-cancelled"
--[[
  claim: decide for each delivered message whether it runs now, and mark the ones that do.

  KEYS[1] stream
  ARGV[1] key prefix         ARGV[2] consumer group   ARGV[3] worker name
  ARGV[4] now (epoch ms)     ARGV[5] executionTtl (ms; 0 = keep nothing)
  ARGV[6..] groups of 4: task key, message generation, message id, admission
    admission: '' or a JSON array of the task's admission rules (see includes/admission.lua)

  A message with generation 0 whose key has no runs hash comes from a producer that writes
  only the stream (see the README's wire format): its runs hash is made from the message, and
  when its `when` is still ahead the task is parked until then ('deferred'), as if it had been
  scheduled here.

  Returns one status per group:
    'run'        the runs hash says running (worker, startedAt); 'running' is published
    'superseded' the key was rescheduled, replaced or cleared since this message was written;
                 the message is acknowledged and deleted, the runs hash untouched (a
                 concurrency slot the key held is given back)
    'cancelled'  the key was cancelled (or dropped by a rule): it ends 'cancelled'
    'deferred'   a rule moved the task to a later time (new generation, parked)
    'waiting'    every concurrency slot is taken: the task waits in line (runs field
                 'waiting' names the line, <prefix>lines holds every non-empty line) and is
                 put back on the stream when a slot frees
]]
local prefix, group, worker, now, ttl = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local nowN = tonumber(now)
local stream = KEYS[1]

local function ack(id)
  redis.call('XACK', stream, group, id)
  redis.call('XDEL', stream, id)
end

local out = {}
for i = 6, #ARGV, 4 do
  local key, generation, id, admission = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local rules = admission ~= '' and cjson.decode(admission) or {}
  local runs = prefix .. 'runs:' .. key
  local current = redis.call('HMGET', runs, 'generation', 'state', 'cancel', 'task', 'args', 'attempt')
  local ahead = nil
  if generation == '0' and current[1] == false then
    -- a message from a producer that writes only the stream: it gets its runs hash now
    local fields = redis.call('XRANGE', stream, id, id)[1]
    local f = {}
    if fields then
      for j = 1, #fields[2], 2 do f[fields[2][j]] = fields[2][j + 1] end
    end
    -- a `when` that is not a finite number counts as now
    local due = tonumber(f.when or '')
    if due and (due ~= due or due == math.huge or due == -math.huge) then due = nil end
    redis.call('HSET', runs, 'generation', '0', 'state', 'queued', 'task', f.task or '', 'args', f.args or '[]',
      'when', due and f.when or now, 'attempt', f.attempt or '1')
    current = { '0', 'queued', false, f.task or '', f.args or '[]', f.attempt or '1' }
    if due and due > nowN then ahead = f.when end
  end
  local state = current[2]
  if current[1] ~= generation or state == 'completed' or state == 'failed' or state == 'cancelled' then
    ack(id)
    release_slots(prefix, rules, key, now)
    out[#out + 1] = 'superseded'
  elseif current[3] == '1' then
    ack(id)
    release_slots(prefix, rules, key, now)
    end_cancelled(prefix, key, now, ttl)
    out[#out + 1] = 'cancelled'
  else
    -- a foreign producer's future task waits in the queue for its time, as a rule would defer it
    local verdict, detail = 'defer', ahead
    if not ahead then verdict, detail = admit(prefix, rules, key, now) end
    if verdict == 'drop' then
      ack(id)
      end_cancelled(prefix, key, now, ttl)
      out[#out + 1] = 'cancelled'
    elseif verdict == 'defer' then
      ack(id)
      schedule_run(prefix, key, current[4], current[5], detail, current[6], now, '', '')
      out[#out + 1] = 'deferred'
    elseif verdict == 'wait' then
      ack(id)
      redis.call('RPUSH', detail, key)
      redis.call('SADD', prefix .. 'lines', detail)
      redis.call('HSET', runs, 'waiting', detail)
      redis.call('HDEL', runs, 'streamId')
      out[#out + 1] = 'waiting'
    else
      -- not acknowledged: the message stays pending while it runs, for redelivery
      redis.call('HSET', runs, 'state', 'running', 'worker', worker, 'startedAt', now)
      redis.call('HDEL', runs, 'streamId', 'reserved', 'reservedMax')
      redis.call('DEL', prefix .. 'progress:' .. key)
      redis.call('PUBLISH', prefix .. 'state:' .. key,
        cjson.encode({ type = 'state', key = key, state = 'running', worker = worker, startedAt = nowN }))
      out[#out + 1] = 'run'
    end
  end
end
return out

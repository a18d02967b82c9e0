--[[
  claim: decide for each delivered message whether it runs now, and mark the ones that do.

  KEYS[1] stream
  ARGV[1] key prefix         ARGV[2] consumer group   ARGV[3] worker name
  ARGV[4] now (epoch ms)     ARGV[5] executionTtl (ms; 0 = keep nothing)
  ARGV[6..] groups of 4: task key, message generation, message id, admission
    admission: '' or a JSON array of the task's admission rules, checked in order:
      { "t": "cooldown", "k": key, "w": window ms }          first start wins, other keys dropped
      { "t": "debounce", "k": key, "s": settle ms }          one start, settle after the last
      { "t": "rate", "k": key, "l": limit, "p": per ms, "d": drop }   sliding window of starts
      { "t": "conc", "k": key, "m": max, "s": stale ms }     at most max running at once

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

local function release_all(rules, key)
  for _, r in ipairs(rules) do
    if r.t == 'conc' and redis.call('ZSCORE', r.k, key) then release_slot(prefix, r.k, r.m, key, now) end
  end
end

local function cancel(runs, key)
  redis.call('HSET', runs, 'state', 'cancelled', 'completedAt', now)
  redis.call('HDEL', runs, 'streamId', 'cancel', 'waiting')
  if ttl > 0 then redis.call('PEXPIRE', runs, ttl) else redis.call('DEL', runs) end
  redis.call('PUBLISH', prefix .. 'state:' .. key,
    cjson.encode({ type = 'state', key = key, state = 'cancelled', completedAt = nowN }))
end

-- Returns nil when every rule admits the task, else 'drop' | 'defer', when | 'wait', line.
local function admit(rules, key)
  for _, r in ipairs(rules) do
    if r.t == 'cooldown' then
      local holder = redis.call('GET', r.k)
      if not holder then
        redis.call('SET', r.k, key, 'PX', r.w)
      elseif holder ~= key then
        return 'drop'
      end
    elseif r.t == 'debounce' then
      local winner, last = r.k .. ':winner', r.k .. ':last'
      local current = redis.call('GET', winner)
      if not current then
        redis.call('SET', winner, key, 'PX', r.s * 10)
        redis.call('SET', last, now, 'PX', r.s * 10)
        return 'defer', nowN + r.s
      elseif current == key then
        local seen = tonumber(redis.call('GET', last) or '0')
        if nowN - seen < r.s then
          redis.call('PEXPIRE', winner, r.s * 10)
          return 'defer', seen + r.s
        end
        redis.call('DEL', winner, last)
      else
        redis.call('SET', last, now, 'PX', r.s * 10)
        redis.call('PEXPIRE', winner, r.s * 10)
        return 'drop'
      end
    elseif r.t == 'rate' then
      redis.call('ZREMRANGEBYSCORE', r.k, '-inf', nowN - r.p)
      if redis.call('ZCARD', r.k) >= r.l then
        if r.d then return 'drop' end
        local oldest = redis.call('ZRANGE', r.k, 0, 0, 'WITHSCORES')
        return 'defer', tonumber(oldest[2]) + r.p
      end
    elseif r.t == 'conc' then
      redis.call('ZREMRANGEBYSCORE', r.k, '-inf', nowN - r.s)
      if not redis.call('ZSCORE', r.k, key) and redis.call('ZCARD', r.k) >= r.m then
        return 'wait', r.k .. ':waiters'
      end
    end
  end
  for _, r in ipairs(rules) do
    if r.t == 'rate' then
      redis.call('ZADD', r.k, now, key .. ':' .. now)
      redis.call('PEXPIRE', r.k, r.p)
    elseif r.t == 'conc' then
      redis.call('ZADD', r.k, now, key)
      redis.call('PEXPIRE', r.k, r.s * 4)
    end
  end
  return nil
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
    release_all(rules, key)
    out[#out + 1] = 'superseded'
  elseif current[3] == '1' then
    ack(id)
    release_all(rules, key)
    cancel(runs, key)
    out[#out + 1] = 'cancelled'
  else
    -- a foreign producer's future task waits in the queue for its time, as a rule would defer it
    local verdict, detail = 'defer', ahead
    if not ahead then verdict, detail = admit(rules, key) end
    if verdict == 'drop' then
      ack(id)
      cancel(runs, key)
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

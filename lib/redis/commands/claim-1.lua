--[[
  claim: mark delivered messages as running, or skip the ones that must not run.

  KEYS[1] stream
  ARGV[1] key prefix         ARGV[2] consumer group   ARGV[3] worker name
  ARGV[4] now (epoch ms)     ARGV[5] executionTtl (ms; 0 = keep nothing)
  ARGV[6..] triples: task key, message generation, message id

  Returns one status per triple:
    'run'        the runs hash now says running (worker, startedAt); 'running' is published
    'superseded' the key was rescheduled, replaced or cleared since this message was written:
                 the message is acknowledged and deleted, the runs hash untouched
    'cancelled'  the key was cancelled: the message is acknowledged and deleted, the runs hash
                 says cancelled and 'cancelled' is published
]]
local prefix, group, worker, now, ttl = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local out = {}
for i = 6, #ARGV, 3 do
  local key, generation, id = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local runs = prefix .. 'runs:' .. key
  local current = redis.call('HMGET', runs, 'generation', 'state', 'cancel')
  if current[1] == false or current[1] ~= generation
      or current[2] == 'completed' or current[2] == 'failed' or current[2] == 'cancelled' then
    redis.call('XACK', KEYS[1], group, id)
    redis.call('XDEL', KEYS[1], id)
    out[#out + 1] = 'superseded'
  elseif current[3] == '1' then
    redis.call('XACK', KEYS[1], group, id)
    redis.call('XDEL', KEYS[1], id)
    redis.call('HSET', runs, 'state', 'cancelled', 'completedAt', now)
    redis.call('HDEL', runs, 'streamId', 'cancel')
    if ttl > 0 then redis.call('PEXPIRE', runs, ttl) else redis.call('DEL', runs) end
    redis.call('PUBLISH', prefix .. 'state:' .. key,
      cjson.encode({ type = 'state', key = key, state = 'cancelled', completedAt = tonumber(now) }))
    out[#out + 1] = 'cancelled'
  else
    redis.call('HSET', runs, 'state', 'running', 'worker', worker, 'startedAt', now)
    redis.call('HDEL', runs, 'streamId')
    redis.call('PUBLISH', prefix .. 'state:' .. key,
      cjson.encode({ type = 'state', key = key, state = 'running', worker = worker, startedAt = tonumber(now) }))
    out[#out + 1] = 'run'
  end
end
return out

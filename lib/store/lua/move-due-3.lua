#!lua flags=allow-oom
--- @include "queue"
--- @include "lanes"
--[[
  move-due: move future tasks whose time has come from the queue to the stream.

  KEYS[1] queue              KEYS[2] stream           KEYS[3] dead (dead-letter stream)
  ARGV[1] now (epoch ms)     ARGV[2] key prefix       ARGV[3] most tasks to move in this call
  ARGV[4] dead-letter retention (ms)                   ARGV[5] executionTtl (ms)

  Returns { moved, next } where next is the due time (epoch ms) of the earliest task left in
  the queue, or -1 when the queue is empty. Each moved task's parked message goes to the lane of
  its priority as it is (its generation unchanged), its runs hash records state 'queued' and the stream id
  (so that cancel and replace can still remove it), and 'queued' is published. A task whose
  records cannot be read (a wrong-typed key) leaves the queue for the dead letters, with the
  reason, and its execution fails when its record can still be written; the others go on.
]]
local now, prefix = ARGV[1], ARGV[2]
local deadTtl, ttl = tonumber(ARGV[4]), tonumber(ARGV[5])

local function move(key)
  local parked = prefix .. 'parked:' .. key
  local fields = redis.call('HGETALL', parked)
  if #fields > 0 then
    local priority = '5'
    for i = 1, #fields, 2 do
      if fields[i] == 'priority' then priority = fields[i + 1] end
    end
    local id = lane_push(prefix, lane_for(priority), fields)
    local runs = prefix .. 'runs:' .. key
    redis.call('HSET', runs, 'state', 'queued', 'streamId', id)
    redis.call('DEL', parked)
    local when = redis.call('HGET', runs, 'when')
    redis.call('PUBLISH', prefix .. 'state:' .. key,
      cjson.encode({ type = 'state', key = key, state = 'queued', when = tonumber(when) }))
  end
end

local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', queue_due(now), 'LIMIT', 0, tonumber(ARGV[3]))
for _, key in ipairs(due) do
  local ok, problem = pcall(move, key)
  if not ok then
    local err = 'UnreadableRecordError: ' .. (type(problem) == 'table' and problem.err or tostring(problem))
    redis.call('XADD', KEYS[3], 'MINID', '~', tonumber(now) - deadTtl, '*',
      'key', key, 'task', '', 'args', '', 'error', err, 'attempt', '1', 'deadAt', now)
    redis.call('DEL', prefix .. 'parked:' .. key)
    local runs = prefix .. 'runs:' .. key
    local written = redis.pcall('HSET', runs, 'state', 'failed', 'completedAt', now, 'error', err)
    if type(written) ~= 'table' then
      if ttl > 0 then redis.call('PEXPIRE', runs, ttl) else redis.call('DEL', runs) end
      redis.call('PUBLISH', prefix .. 'state:' .. key,
        cjson.encode({ type = 'state', key = key, state = 'failed', completedAt = tonumber(now), error = err }))
    end
  end
  redis.call('ZREM', KEYS[1], key)
end
return { #due, queue_head(KEYS[1]) }

--[[
  move-due: move future tasks whose time has come from the queue to the stream.

  KEYS[1] queue              KEYS[2] stream
  ARGV[1] now (epoch ms)     ARGV[2] key prefix       ARGV[3] most tasks to move in this call

  Returns { moved, next } where next is the due time (epoch ms) of the earliest task left in
  the queue, or -1 when the queue is empty. Each moved task's parked message goes to the stream
  as it is (its generation unchanged), its runs hash records state 'queued' and the stream id
  (so that cancel and replace can still remove it), and 'queued' is published.
]]
local prefix = ARGV[2]
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, key in ipairs(due) do
  local parked = prefix .. 'parked:' .. key
  local fields = redis.call('HGETALL', parked)
  if #fields > 0 then
    local id = redis.call('XADD', KEYS[2], '*', unpack(fields))
    local runs = prefix .. 'runs:' .. key
    redis.call('HSET', runs, 'state', 'queued', 'streamId', id)
    redis.call('DEL', parked)
    local when = redis.call('HGET', runs, 'when')
    redis.call('PUBLISH', prefix .. 'state:' .. key,
      cjson.encode({ type = 'state', key = key, state = 'queued', when = tonumber(when) }))
  end
  redis.call('ZREM', KEYS[1], key)
end
local nextDue = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { #due, nextDue[2] or '-1' }

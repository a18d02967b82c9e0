--- @include "queue"
--[[
  Pause: <prefix>paused (set) names what is paused: '*' for the whole docket, else task names.
  A worker's claim holds the messages of paused work instead of starting them: the message
  leaves its lane, its fields wait in <prefix>parked:<key>, the key waits in
  <prefix>held:<task> (zset, scored by the message's place in its lane, so that resume keeps
  the order) and <prefix>held (set) lists the tasks with held work; the runs hash stays
  'queued' and names the line in its field 'held'.

  paused_set(prefix)                  what is paused, read once (one SMEMBERS) into a Lua set
  is_paused(set, task)                whether the docket or this task is paused, in such a set
  held_count(prefix)                  how many keys are held, over every task
  hold(prefix, key, task, mid, fields) hold a message (message id, its fields)
  unpark(prefix, key)                 the runs field 'held' and the parked message of a key go;
                                      whether it was held (its held:<task> entry is the caller's)
  unhold(prefix, key, task)           a held key's records go (cancel, replace); `task` is its
                                      runs field 'held' (the task it is held under)
]]
local function paused_set(prefix)
  local set = {}
  for _, name in ipairs(redis.call('SMEMBERS', prefix .. 'paused')) do set[name] = true end
  return set
end

local function is_paused(set, task)
  return set['*'] == true or (task ~= nil and set[task] == true)
end

local function held_count(prefix)
  local n = 0
  for _, task in ipairs(redis.call('SMEMBERS', prefix .. 'held')) do
    n = n + redis.call('ZCARD', prefix .. 'held:' .. task)
  end
  return n
end

-- a message's place in its lane, scored as the queue scores a time (ms of its id, then its sequence)
local function hold_score(mid)
  local ms, seq = string.match(mid, '(%d+)-(%d+)$')
  if not ms then return 0 end
  return queue_place(ms, tonumber(seq))
end

local function hold(prefix, key, task, mid, fields)
  local parked = prefix .. 'parked:' .. key
  redis.call('DEL', parked)
  if fields and #fields > 0 then redis.call('HSET', parked, unpack(fields)) end
  redis.call('ZADD', prefix .. 'held:' .. task, hold_score(mid), key)
  redis.call('SADD', prefix .. 'held', task)
  local runs = prefix .. 'runs:' .. key
  redis.call('HSET', runs, 'held', task)
  redis.call('HDEL', runs, 'streamId')
end

local function unpark(prefix, key)
  if redis.call('HDEL', prefix .. 'runs:' .. key, 'held') == 0 then return false end
  redis.call('DEL', prefix .. 'parked:' .. key)
  return true
end

local function unhold(prefix, key, task)
  local line = prefix .. 'held:' .. task
  redis.call('ZREM', line, key)
  if redis.call('ZCARD', line) == 0 then redis.call('SREM', prefix .. 'held', task) end
  unpark(prefix, key)
end

--[[
  The queue (zset of future tasks) scores a task by its due time and its place among the
  tasks due in the same millisecond: score = when * 1024 + n, n counting up in add order (the
  1 024th and later of one millisecond share n = 1023). So tasks leave the queue in due-time
  order, ties in add order.

  queue_place(ms, n)         the score of place n (from 0) in millisecond `ms`: ms * 1024 + n
                             (n capped at 1023)
  queue_score(queue, when)   the score of a task due at `when` (epoch ms) added now
  queue_time(score)          the due time (epoch ms) of a score
  queue_due(now)             the highest score that is due at `now`
  queue_head(queue)          the due time of the earliest task, or -1 when the queue is empty
  (Scores go to Redis as numbers, never concatenated into text: Lua 5.1 prints a number with
  14 digits.)
]]
local function queue_place(ms, n)
  return tonumber(ms) * 1024 + math.min(n, 1023)
end

local function queue_score(queue, when)
  local base, top = queue_place(when, 0), queue_place(when, 1023)
  -- beyond 2^53 a double holds no more exact integers: far-future tasks keep their time only
  if base >= 9007199254740992 then return base end
  local last = redis.call('ZREVRANGEBYSCORE', queue, top, base, 'WITHSCORES', 'LIMIT', 0, 1)
  if last[2] == nil then return base end
  return math.min(tonumber(last[2]) + 1, top)
end

local function queue_time(score)
  return math.floor(tonumber(score) / 1024)
end

local function queue_due(now)
  return queue_place(now, 1023)
end

local function queue_head(queue)
  local first = redis.call('ZRANGE', queue, 0, 0, 'WITHSCORES')
  if first[2] == nil then return -1 end
  return queue_time(first[2])
end

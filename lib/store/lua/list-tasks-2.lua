#!lua flags=no-writes
--- @include "lanes"
--- @include "dependency-forget"
--- @include "members"
--[[
  list-tasks: one page of the live executions (running, queued, scheduled) that pass a filter,
  and how many pass it.

  KEYS[1] stream             KEYS[2] queue
  ARGV[1] key prefix
  ARGV[2] the states listed, comma-separated (of running, queued, scheduled)
  ARGV[3] task name ('' = any task)
  ARGV[4] search text in lower case ('' = none): it passes a key that starts with it, and a
          task name or arguments (their stored text) that contain it, case aside
  ARGV[5] offset             ARGV[6] page size (0: count only)
  ARGV[7] filtered: where this piece begins, the cursor the previous piece returned ('' = at
          the start)
  ARGV[8] filtered: the most places of executions this piece reads

  Places, in list order: the lanes (stream order: what runs and what is due), the concurrency
  waiting lines and the work held while paused, the queue by due time, then the executions
  waiting for their dependencies by add time. A place lists a key when the key's record is in a
  state it holds: running or queued (a lane), queued (a line, held work), scheduled (the queue,
  the waiting ones).

  Unfiltered (no task, no search): the places are counted, not read, as counts-2.lua counts
  them (a lane's messages less those whose execution runs, …), and only the page is read where
  it lies. Cost O(running + page), plus the lane messages between the page and the nearer end
  of its lane. Returns { total, { row, … }, '' }.

  Filtered: the places are read in order, at most ARGV[8] of them in one call (each call holds
  Redis that long, not for the whole docket). Returns { how many passed in this piece, { row, … }
  of this piece from the offset on, cursor }: the cursor is '' once every place is read; else the
  caller calls again with it, the offset less what passed and the page size less the rows it has.

  A row is as in snapshot-2.lua: { key, state, task, args, when, attempt, worker, startedAt,
  generation, { keys it still waits for } }.
]]
local prefix, task, q = ARGV[1], ARGV[3], ARGV[4]
local offset, size = tonumber(ARGV[5]), tonumber(ARGV[6])
local states = {}
for state in string.gmatch(ARGV[2], '[^,]+') do states[state] = true end

local function read(key)
  return redis.call('HMGET', prefix .. 'runs:' .. key, 'state', 'task', 'args', 'when', 'attempt',
    'worker', 'startedAt', 'generation', 'open')
end
local function row(key, r)
  return { key, r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9] and deps_open(prefix, key) or {} }
end

-- the keys of the lane's messages whose execution runs: { id → true }, and the keys in order
local function running_in(lane)
  local ids, keys = {}, {}
  local summary = redis.pcall('XPENDING', lane, LANE_GROUP)
  if type(summary) ~= 'table' or summary.err or tonumber(summary[1]) == 0 then return ids, keys end
  for _, pending in ipairs(redis.call('XPENDING', lane, LANE_GROUP, '-', '+', summary[1])) do
    local entry = redis.call('XRANGE', lane, pending[1], pending[1])[1]
    local key = entry and field_of(entry[2], 'key')
    -- a record that cannot be read (a wrong-typed key) counts as not running
    if key and redis.pcall('HGET', prefix .. 'runs:' .. key, 'state') == 'running' then
      ids[pending[1]] = true
      keys[#keys + 1] = key
    end
  end
  return ids, keys
end

-- the keys of a lane's messages [from, from + n) among those not in `skip` (`passing` of them,
-- `skipped` skipped), read from the nearer end of the lane
local function lane_slice(lane, from, n, skip, passing, skipped)
  local keys = {}
  n = math.min(n, passing - from)
  if n <= 0 then return keys end
  if from <= passing - from - n then
    local i = 0
    for _, entry in ipairs(redis.call('XRANGE', lane, '-', '+', 'COUNT', from + n + skipped)) do
      if not skip[entry[1]] then
        if i >= from then keys[#keys + 1] = field_of(entry[2], 'key') or '' end
        i = i + 1
        if i >= from + n then break end
      end
    end
  else
    local back, j = {}, 0
    for _, entry in ipairs(redis.call('XREVRANGE', lane, '+', '-', 'COUNT', passing - from + skipped)) do
      if not skip[entry[1]] then
        local at = passing - 1 - j
        if at < from + n then back[#back + 1] = field_of(entry[2], 'key') or '' end
        j = j + 1
        if at <= from then break end
      end
    end
    for k = #back, 1, -1 do keys[#keys + 1] = back[k] end
  end
  return keys
end

if task == '' and q == '' then
  -- { how many the place lists, function(from, n) → the keys [from, from + n) of the place }
  local places = {}
  if states.running or states.queued then
    for _, name in ipairs(lane_names(prefix)) do
      local lane = prefix .. name
      local length = redis.call('XLEN', lane)
      if states.running and states.queued then
        places[#places + 1] = { length, function(from, n) return lane_slice(lane, from, n, {}, length, 0) end }
      else
        local ids, keys = running_in(lane)
        if states.queued then
          local passing = math.max(0, length - #keys)
          places[#places + 1] = { passing, function(from, n)
            return lane_slice(lane, from, n, ids, passing, #keys)
          end }
        else
          places[#places + 1] = { #keys, function(from, n)
            return { unpack(keys, from + 1, math.min(#keys, from + n)) }
          end }
        end
      end
    end
  end
  if states.queued then
    for _, line in ipairs(members_sorted(prefix .. 'lines')) do
      places[#places + 1] = { redis.call('LLEN', line), function(from, n)
        return redis.call('LRANGE', line, from, from + n - 1)
      end }
    end
    for _, held in ipairs(members_sorted(prefix .. 'held')) do
      local zset = prefix .. 'held:' .. held
      places[#places + 1] = { redis.call('ZCARD', zset), function(from, n)
        return redis.call('ZRANGE', zset, from, from + n - 1)
      end }
    end
  end
  if states.scheduled then
    for _, zset in ipairs({ KEYS[2], prefix .. 'waiting' }) do
      places[#places + 1] = { redis.call('ZCARD', zset), function(from, n)
        return redis.call('ZRANGE', zset, from, from + n - 1)
      end }
    end
  end
  local total, skip, out = 0, offset, {}
  for _, place in ipairs(places) do total = total + place[1] end
  for _, place in ipairs(places) do
    if #out >= size then break end
    if skip >= place[1] then
      skip = skip - place[1]
    else
      for _, key in ipairs(place[2](skip, size - #out)) do
        local r = read(key)
        if r[1] and states[r[1]] then out[#out + 1] = row(key, r) end
      end
      skip = 0
    end
  end
  return { total, out, '' }
end

-- filtered: the places in order, at most `budget` of them in this call
local budget = math.max(1, tonumber(ARGV[8]) or 10000)
local CHUNK = 1000
local spent, total, out = 0, 0, {}
local phase, at, name = 1, '', ''
if ARGV[7] ~= '' then
  local p, a, n = string.match(ARGV[7], '^(%d)|([^|]*)|(.*)$')
  phase, at, name = tonumber(p) or 6, a, n
end
local function cursor(p, a, n)
  return { total, out, p .. '|' .. a .. '|' .. n }
end

local lowered = {}
-- the filter reads what it tests, the task first (one field for a task filter), the state of
-- what passes it last
local function consider(key, holds)
  if not key then return end
  spent = spent + 1
  local runs = prefix .. 'runs:' .. key
  if q == '' then
    if redis.call('HGET', runs, 'task') ~= task then return end
  else
    local r = redis.call('HMGET', runs, 'task', 'args')
    local name, args = r[1], r[2]
    if task ~= '' and name ~= task then return end
    local name_of = name and (lowered[name] or string.lower(name))
    if name_of then lowered[name] = name_of end
    if not (string.lower(string.sub(key, 1, #q)) == q
      or (name_of and string.find(name_of, q, 1, true) ~= nil)
      or (args and string.find(string.lower(args), q, 1, true) ~= nil)) then
      return
    end
  end
  local state = redis.call('HGET', runs, 'state')
  if not state or not states[state] or not holds[state] then return end
  total = total + 1
  if total > offset and #out < size then out[#out + 1] = row(key, read(key)) end
end

local LANE = { running = true, queued = true }
local QUEUED = { queued = true }
local SCHEDULED = { scheduled = true }

-- phase 1: the lanes, by message id
if phase <= 1 and (states.running or states.queued) then
  local names = lane_names(prefix)
  local first = 1
  if phase == 1 and name ~= '' then
    first = #names + 1
    for i, lane in ipairs(names) do
      if lane == name then first = i end
    end
  end
  for i = first, #names do
    local lane = prefix .. names[i]
    local after = (phase == 1 and i == first) and at or ''
    while true do
      if spent >= budget then return cursor(1, after, names[i]) end
      local want = math.min(CHUNK, budget - spent)
      local entries = redis.call('XRANGE', lane, after == '' and '-' or ('(' .. after), '+', 'COUNT', want)
      for _, entry in ipairs(entries) do
        consider(field_of(entry[2], 'key'), LANE)
        after = entry[1]
      end
      if #entries < want then break end
    end
  end
end

-- a list of places (by name, sorted) read by rank: range(place, from, to) gives its keys
local function ranked(p, places, holds, range)
  if phase > p then return nil end
  local first = 1
  if phase == p then
    first = #places + 1
    for i = #places, 1, -1 do
      if places[i] >= name then first = i end
    end
  end
  for i = first, #places do
    local from = (phase == p and places[i] == name) and (tonumber(at) or 0) or 0
    while true do
      if spent >= budget then return cursor(p, from, places[i]) end
      local want = math.min(CHUNK, budget - spent)
      local keys = range(places[i], from, from + want - 1)
      for _, key in ipairs(keys) do consider(key, holds) end
      from = from + #keys
      if #keys < want then break end
    end
  end
  return nil
end

local function list_range(line, from, to) return redis.call('LRANGE', line, from, to) end
local function held_range(held, from, to) return redis.call('ZRANGE', prefix .. 'held:' .. held, from, to) end
local function zset_range(zset, from, to) return redis.call('ZRANGE', zset, from, to) end

local stop
if states.queued then
  stop = ranked(2, members_sorted(prefix .. 'lines'), QUEUED, list_range)
    or ranked(3, members_sorted(prefix .. 'held'), QUEUED, held_range)
  if stop then return stop end
end
if states.scheduled then
  stop = ranked(4, { KEYS[2] }, SCHEDULED, zset_range)
    or ranked(5, { prefix .. 'waiting' }, SCHEDULED, zset_range)
  if stop then return stop end
end
return { total, out, '' }

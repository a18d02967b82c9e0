--- @include "lanes"
--[[
  schedule_refusal(prefix, first, width, after)
    The pre-check of an all-or-none schedule: every record the call would read (the stream and
    the queue, then each request's runs and parked hashes and the lane of its priority) is of
    the right type. Requests are groups of `width` ARGV from ARGV[first] (task key first,
    priority at +8); `after` nil, or the offset in a group of a JSON array of keys whose runs
    hashes are read too ('' = none). Returns nil when every record can be read, else
    { 'refused', <1-based number of the group, 0 for the stream or the queue>, <reason> }.
]]
-- the type of `key` when it is not one of `allowed` (a set of type names), else nil
local function schedule_unreadable(key, allowed)
  local found = redis.call('TYPE', key)['ok']
  if found == 'none' or allowed[found] then return nil end
  return found
end

local function schedule_refusal(prefix, first, width, after)
  local docket_wide = { { KEYS[1], { stream = true } }, { KEYS[2], { zset = true } } }
  for _, check in ipairs(docket_wide) do
    local found = schedule_unreadable(check[1], check[2])
    if found then
      return { 'refused', '0', 'UnreadableRecordError: WRONGTYPE ' .. check[1] .. ' is a ' .. found }
    end
  end
  local hash, stream = { hash = true }, { stream = true }
  local n = 0
  for i = first, #ARGV, width do
    n = n + 1
    local key = ARGV[i]
    local records = {
      { prefix .. 'runs:' .. key, hash },
      { prefix .. 'parked:' .. key, hash },
      { prefix .. lane_for(ARGV[i + 8]), stream },
    }
    if after and ARGV[i + after] ~= '' then
      for _, d in ipairs(cjson.decode(ARGV[i + after])) do
        records[#records + 1] = { prefix .. 'runs:' .. d, hash }
      end
    end
    for _, check in ipairs(records) do
      local found = schedule_unreadable(check[1], check[2])
      if found then
        return { 'refused', tostring(n), 'UnreadableRecordError: WRONGTYPE ' .. check[1] .. ' is a ' .. found }
      end
    end
  end
  return nil
end

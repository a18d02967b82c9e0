#!lua flags=no-writes
--[[
  read-dead-letters: one page of the dead letters, newest first, that pass a filter, and how
  many pass it.

  KEYS[1] dead (the dead-letter stream)
  ARGV[1] task name ('' = any task)
  ARGV[2] search text in lower case ('' = none): it passes a letter whose key starts with it, or
          whose task name, error or (with ARGV[3]) arguments (their stored text) contain it,
          case aside
  ARGV[3] '1': the search looks into the arguments too; '0': it does not
  ARGV[4] offset             ARGV[5] page size (0: count only)
  ARGV[6] filtered: the id of the letter the previous piece read last ('' = from the newest)
  ARGV[7] filtered: the most letters this piece reads

  Unfiltered (no task, no search): { how many letters there are, { entry, … } of the page, '' },
  the page read from the nearer end of the stream: O(page + the letters between the page and
  that end).
  Filtered: the letters are read newest first, at most ARGV[7] of them in one call (each call
  holds Redis that long, not for every letter). Returns { how many passed in this piece,
  { entry, … } of this piece from the offset on, cursor }: the cursor is '' once the oldest
  letter is read; else the caller calls again with it, the offset less what passed and the page
  size less the entries it has.

  An entry is { id, { field, value, … } }, as XRANGE gives it.
]]
local dead, task, q, inArgs = KEYS[1], ARGV[1], ARGV[2], ARGV[3] == '1'
local offset, size = tonumber(ARGV[4]), tonumber(ARGV[5])

if task == '' and q == '' then
  local total = redis.call('XLEN', dead)
  local n = math.min(size, total - offset)
  if n <= 0 then return { total, {}, '' } end
  local out = {}
  if offset <= total - offset - n then
    local got = redis.call('XREVRANGE', dead, '+', '-', 'COUNT', offset + n)
    for i = offset + 1, math.min(#got, offset + n) do out[#out + 1] = got[i] end
  else
    -- oldest first up to the page: its last entry is the offset-th newest
    local got = redis.call('XRANGE', dead, '-', '+', 'COUNT', total - offset)
    for i = #got, math.max(1, #got - n + 1), -1 do out[#out + 1] = got[i] end
  end
  return { total, out, '' }
end

local function contains(text, wanted)
  return text ~= nil and string.find(string.lower(text), wanted, 1, true) ~= nil
end

local function passes(fields)
  local key, name, args, err
  for i = 1, #fields, 2 do
    local field = fields[i]
    if field == 'key' then key = fields[i + 1]
    elseif field == 'task' then name = fields[i + 1]
    elseif field == 'args' then args = fields[i + 1]
    elseif field == 'error' then err = fields[i + 1] end
  end
  if task ~= '' and name ~= task then return false end
  if q == '' then return true end
  return (key ~= nil and string.lower(string.sub(key, 1, #q)) == q)
    or contains(name, q) or contains(err, q) or (inArgs and contains(args, q))
end

local budget = math.max(1, tonumber(ARGV[7]) or 5000)
local before = ARGV[6]
local spent, total, out = 0, 0, {}
while true do
  if spent >= budget then return { total, out, before } end
  local want = math.min(1000, budget - spent)
  local got = redis.call('XREVRANGE', dead, before == '' and '+' or ('(' .. before), '-', 'COUNT', want)
  for _, entry in ipairs(got) do
    spent = spent + 1
    if passes(entry[2]) then
      total = total + 1
      if total > offset and #out < size then out[#out + 1] = entry end
    end
    before = entry[1]
  end
  if #got < want then return { total, out, '' } end
end

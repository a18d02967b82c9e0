#!lua flags=no-writes
--[[
  read-dead-letters: one page of the dead letters, newest first, and how many there are.

  KEYS[1] dead (the dead-letter stream)
  ARGV[1] offset             ARGV[2] page size

  Returns { how many letters there are, { entry, … } }, an entry { id, { field, value, … } } as
  XRANGE gives it. The page is read from the nearer end of the stream: O(page + the letters
  between the page and that end), so the last page costs no more than the first.
]]
local dead, offset, size = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2])
local total = redis.call('XLEN', dead)
local n = math.min(size, total - offset)
if n <= 0 then return { total, {} } end
local out = {}
if offset <= total - offset - n then
  local got = redis.call('XREVRANGE', dead, '+', '-', 'COUNT', offset + n)
  for i = offset + 1, math.min(#got, offset + n) do out[#out + 1] = got[i] end
else
  -- oldest first up to the page: its last entry is the offset-th newest
  local got = redis.call('XRANGE', dead, '-', '+', 'COUNT', total - offset)
  for i = #got, math.max(1, #got - n + 1), -1 do out[#out + 1] = got[i] end
end
return { total, out }

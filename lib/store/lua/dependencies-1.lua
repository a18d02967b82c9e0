#!lua flags=no-writes
--[[
  dependencies: the outcomes of the keys an execution waited for (see includes/dependencies.lua).

  KEYS[1] runs:<key>
  ARGV[1] key prefix         ARGV[2] task key

  Returns { after, { { key, state, result, error }, … } }: after is the runs field (a JSON
  array of keys; '' when the execution has none) and one row per key of its deps:<key> hash:
  state 'completed' | 'failed' | 'cancelled', 'unknown' for a key that never existed, or
  'open' for one that has not ended; result and error '' when none.
]]
local prefix, key = ARGV[1], ARGV[2]
local after = redis.call('HGET', KEYS[1], 'after')
if not after then return { '', {} } end
local rows = {}
local got = redis.call('HGETALL', prefix .. 'deps:' .. key)
for i = 1, #got, 2 do
  local d, gen = got[i], got[i + 1]
  if gen == '' then
    rows[#rows + 1] = { d, 'open', '', '' }
  elseif gen == '!' then
    rows[#rows + 1] = { d, 'unknown', '', '' }
  else
    local o = redis.call('HMGET', prefix .. 'outcome:' .. gen .. ':' .. d, 'state', 'result', 'error')
    rows[#rows + 1] = { d, o[1] or 'unknown', o[2] or '', o[3] or '' }
  end
end
return { after, rows }

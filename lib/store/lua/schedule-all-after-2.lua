#!lua
--- @include "schedule-waiter"
--- @include "schedule-check"
--[[
  schedule-all-after: schedule-all-2.lua for an agenda some of whose tasks wait for other keys
  (see includes/schedule-waiter.lua): all or none, every record the call would read checked
  first (the runs hashes of the keys waited for included).

  KEYS[1] stream             KEYS[2] queue
  ARGV[1] now (epoch ms)     ARGV[2] consumer group   ARGV[3] key prefix
  ARGV[4] executionTtl (ms; 0 = keep nothing)
  ARGV[5..] groups of 11, as schedule-after-2.lua takes them

  Returns what schedule-all-2.lua returns.
]]
local now, group, prefix, ttl = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local refused = schedule_refusal(prefix, 5, 11, 9)
if refused then return refused end
local out = { 'ok' }
for i = 5, #ARGV, 11 do
  local reply
  if ARGV[i + 9] == '' then
    reply = schedule_key(prefix, group, ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], now,
      ARGV[i + 5], ARGV[i + 6], ARGV[i + 7], ARGV[i + 8])
  else
    reply = schedule_waiter(prefix, group, ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], now,
      ARGV[i + 5], ARGV[i + 6], ARGV[i + 7], ARGV[i + 8], ARGV[i + 9], ARGV[i + 10], ttl)
  end
  for j = 1, 7 do out[#out + 1] = reply[j] end
end
events_flush(prefix)
return out

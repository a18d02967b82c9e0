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
local out = schedule_after_groups(schedule_key, schedule_waiter, prefix, group, now, ttl, { 'ok' })
events_flush(prefix)
return out

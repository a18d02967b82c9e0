#!lua flags=allow-oom
--- @include "admission"
--- @include "lane-claim"
--[[
  renew-leases: keep the messages a worker holds from being redelivered, keep the concurrency
  slots of its running tasks, and tell it which of them were cancelled.

  KEYS[1] stream (message ids name their lanes: includes/lanes.lua)
  ARGV[1] key prefix         ARGV[2] consumer group   ARGV[3] consumer (worker name)
  ARGV[4] now (epoch ms)     ARGV[5] n: number of message ids that follow
  ARGV[6 .. 5+n] ids of the messages the worker holds (running or read ahead): their idle
            time starts again (XCLAIM … JUSTID, which leaves the delivery count alone)
  ARGV[6+n ..] groups of 2: task key of a running task, its admission rules ('' = none)

  Returns the keys (of the groups) whose runs hash carries a cancel flag: a cancel the worker
  may not have heard of.
]]
local prefix, group, consumer, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local n = tonumber(ARGV[5])
local mids = {}
for i = 6, 5 + n do mids[#mids + 1] = ARGV[i] end
lane_claim(prefix, consumer, mids, {})
local cancelled = {}
for i = 6 + n, #ARGV, 2 do
  local key, admission = ARGV[i], ARGV[i + 1]
  if redis.call('HGET', prefix .. 'runs:' .. key, 'cancel') == '1' then cancelled[#cancelled + 1] = key end
  if admission ~= '' then renew_slots(prefix, cjson.decode(admission), key, now) end
end
return cancelled

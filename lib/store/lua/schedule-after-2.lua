#!lua
--- @include "schedule-waiter"
--[[
  schedule-after: add or replace task keys, in order, each as schedule-4.lua does or, when it
  has an `after`, as a waiter (see includes/schedule-waiter.lua and includes/dependencies.lua).
  Used only for requests that carry dependencies, so that other adds keep their scripts.

  KEYS[1] stream             KEYS[2] queue
  ARGV[1] now (epoch ms)     ARGV[2] consumer group   ARGV[3] key prefix
  ARGV[4] executionTtl (ms; 0 = keep nothing)
  ARGV[5..] groups of 11: task key, task name, encoded args, when (epoch ms), attempt, mode
            ('add' | 'replace'), traceparent ('' = none), tracestate ('' = none), priority,
            after (JSON array of keys; '' = none), onDependencyFailure ('fail' | 'run')

  Returns the replies of schedule-4.lua one after another, 7 values per group; a key whose
  records cannot be read fails alone ('error' and the reason), and a replace whose `after`
  reaches its own key answers 'cycle' and the reason, writing nothing for that key.
]]
local now, group, prefix, ttl = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local out = {}
for i = 5, #ARGV, 11 do
  local reply
  if ARGV[i + 9] == '' then
    reply = schedule_key_isolated(prefix, group, ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], now,
      ARGV[i + 5], ARGV[i + 6], ARGV[i + 7], ARGV[i + 8])
  else
    reply = schedule_waiter_isolated(prefix, group, ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], now,
      ARGV[i + 5], ARGV[i + 6], ARGV[i + 7], ARGV[i + 8], ARGV[i + 9], ARGV[i + 10], ttl)
  end
  for j = 1, 7 do out[#out + 1] = reply[j] end
end
events_flush(prefix)
return out

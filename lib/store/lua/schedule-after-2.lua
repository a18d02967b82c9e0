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
local out = schedule_after_groups(schedule_key_isolated, schedule_waiter_isolated, prefix, group, now, ttl, {})
events_flush(prefix)
return out

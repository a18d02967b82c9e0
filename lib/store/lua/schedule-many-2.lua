#!lua
--- @include "schedule-key"
--[[
  schedule-many: add or replace several task keys in one call, each as schedule-4.lua does (in
  order: a key given twice answers 'already_scheduled' the second time when mode is 'add').
  The client sends the adds made in one turn of its event loop this way.

  KEYS[1] stream             KEYS[2] queue
  ARGV[1] now (epoch ms)     ARGV[2] consumer group   ARGV[3] key prefix
  ARGV[4..] groups of 9: task key, task name, encoded args, when (epoch ms), attempt, mode
            ('add' | 'replace'), traceparent ('' = none), tracestate ('' = none), priority

  Returns the replies of schedule-4.lua one after another, 7 values per group (a key whose
  records cannot be read fails alone: 'error' and the reason).
]]
local now, group, prefix = ARGV[1], ARGV[2], ARGV[3]
local out = schedule_groups(schedule_key_isolated, prefix, group, now, {})
events_flush(prefix)
return out

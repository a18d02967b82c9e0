#!lua
--- @include "schedule-key"
--- @include "schedule-check"
--[[
  schedule-all: add or replace several task keys in one call, all or none (an agenda's
  scatter). Every record the call would read is checked before anything is written: when one
  cannot be read (a wrong-typed key), nothing is written and the call answers which request it
  was. Then each request is scheduled in order as schedule-4.lua does (a key given twice
  answers 'already_scheduled' the second time when mode is 'add').

  KEYS[1] stream             KEYS[2] queue
  ARGV[1] now (epoch ms)     ARGV[2] consumer group   ARGV[3] key prefix
  ARGV[4..] groups of 9: task key, task name, encoded args, when (epoch ms), attempt, mode
            ('add' | 'replace'), traceparent ('' = none), tracestate ('' = none), priority

  Returns { 'ok', <the replies of schedule-4.lua, 7 values per group> }, or
  { 'refused', <1-based number of the group, 0 for the stream or the queue>, <reason> } with
  nothing written.
]]
local now, group, prefix = ARGV[1], ARGV[2], ARGV[3]

local refused = schedule_refusal(prefix, 4, 9, nil)
if refused then return refused end

local out = schedule_groups(schedule_key, prefix, group, now, { 'ok' })
events_flush(prefix)
return out

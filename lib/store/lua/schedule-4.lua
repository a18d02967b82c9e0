#!lua
--- @include "schedule-key"
--[[
  schedule: add or replace one execution of a task key.

  KEYS[1] stream             KEYS[2] queue
  KEYS[3] parked:<key>       KEYS[4] runs:<key>
  ARGV[1] task key           ARGV[2] task name        ARGV[3] encoded args
  ARGV[4] when (epoch ms)    ARGV[5] attempt          ARGV[6] now (epoch ms)
  ARGV[7] mode: 'add' refuses a live key, 'replace' removes its scheduled or queued copy
  ARGV[8] consumer group     ARGV[9] key prefix       ARGV[10] traceparent ('' = none)
  ARGV[11] tracestate ('' = none)                      ARGV[12] priority ('0'…'9')

  Returns { disposition, state, when, generation, task, args, attempt }:
    { 'already_scheduled', <live state>, <its when>, <its generation>, <its task>, <its args>,
    <its attempt> } when mode is 'add' and the key is scheduled, queued or running (nothing
    changes), else { 'scheduled', 'queued' | 'scheduled', when, <new generation>, task, args,
    attempt }, or { 'error', <reason>, … } when a record of the key cannot be read (a
    wrong-typed key).
  Every schedule bumps the key's generation; the message carries it so that a stale copy is
  skipped by the worker. The new state is published on <prefix>state:<key>; a task that becomes
  the earliest in the queue is announced on <prefix>wake.
]]
-- KEYS are the keys the script writes; the work (schedule_key in includes/schedule-key.lua) derives the same
-- names from the prefix.
local reply = schedule_key_isolated(ARGV[9], ARGV[8], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6],
  ARGV[7], ARGV[10], ARGV[11], ARGV[12])
events_flush(ARGV[9])
return reply

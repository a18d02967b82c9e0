#!lua flags=allow-oom
--- @include "claim-one"
--[[
  claim: decide for each delivered message whether it runs now, and mark the ones that do.

  KEYS[1] stream (the lanes of the messages are named by their ids; see includes/lanes.lua)
  KEYS[2] dead (dead-letter stream)
  ARGV[1] key prefix         ARGV[2] consumer group   ARGV[3] worker name
  ARGV[4] now (epoch ms)     ARGV[5] executionTtl (ms; 0 = keep nothing)
  ARGV[6] dead-letter retention (ms)
  ARGV[7] most starts of one attempt (maxRedeliveries + 1)
  ARGV[8] the messages: a JSON array with one array per message (one argument, not 4 per
    message: see store/scripts/packed.ts): task key, message generation, message id and,
    when the task has any, its admission rules (an array; see includes/admission.lua)
  ARGV[9] most new messages the worker (ARGV[3], its consumer name) reads along ('0' = none)

  A message with generation 0 whose key has no runs hash comes from a producer that writes
  only the stream (see the wire format): its runs hash is made from the message, and when its
  `when` is still ahead the task waits in the queue until then ('deferred'), as if it had
  been scheduled here.

  Every start of an attempt is counted (runs field 'starts', reset when the key is scheduled
  again); an attempt that already started ARGV[7] times without an end was taken down with
  its worker each time: it is not started again.

  After the claims, the worker reads up to ARGV[9] new messages of the lanes in rank order (as
  finish-2.lua does), so that the messages for the slots after these are on their way in this
  call.

  Returns, as one JSON text, [ statuses, messages read along ] (an empty list encodes as {}),
  one status per message:
    'run'        the runs hash says running (worker, startedAt); 'running' is published
    'superseded' the key was rescheduled, replaced or cleared since this message was written;
                 the message is acknowledged and deleted, the runs hash untouched (a
                 concurrency slot the key held is given back)
    'cancelled'  the key was cancelled (or dropped by a rule): it ends 'cancelled'
    'deferred'   a rule moved the task to a later time (new generation, in the queue; runs
                 fields 'deferredBy' (rate | debounce) and 'deferredUntil' say why, for explain)
    'waiting'    every concurrency slot is taken: the task waits in line (runs field
                 'waiting' names the line, <prefix>lines holds every non-empty line) and is
                 put back on the stream when a slot frees
    'poisoned'   the attempt started ARGV[7] times without an end: it is dead-lettered with
                 PoisonMessageError and ends 'failed'
    'held'       the docket or the task is paused: the message is held (see includes/pause.lua)
                 and any concurrency slot reserved for it is given back; it stays 'queued'
    'error'      a record of the message cannot be read (a wrong-typed key): the message is
                 dead-lettered alone with the reason; the others go on
]]
local c = claim_context(ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], KEYS[2])
-- a message without admission rules (shared: the rules are only read)
local NO_RULES = {}
local out = {}
for _, m in ipairs(cjson.decode(ARGV[8])) do
  out[#out + 1] = claim_one(c, m[1], m[2], m[3], type(m[4]) == 'table' and m[4] or NO_RULES)
end
local read = {}
local want = tonumber(ARGV[9]) or 0
if want > 0 then read = lane_read(c.prefix, ARGV[3], want, lane_names(c.prefix)) end
events_flush(c.prefix)
return cjson.encode({ out, read })

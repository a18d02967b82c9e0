#!lua flags=no-writes
--- @include "lanes"
--- @include "pause"
--[[
  counts: how many tasks of the docket are running, queued and scheduled, counted in full (a
  snapshot lists only some of them).

  KEYS[1] stream             KEYS[2] queue
  ARGV[1] key prefix         ARGV[2] consumer group

  Returns { running, queued, scheduled, held }:
    running    messages a worker has read (pending in the group) whose execution runs
    queued     the other messages of the lanes, the tasks waiting for a concurrency slot and
               the tasks held while paused
    scheduled  the tasks of the queue (not yet moved to a lane) and those waiting for their
               dependencies
    held       of queued, the tasks held while paused (see includes/pause.lua)
  The pending messages are few (at most what the workers hold), so this costs O(pending).
]]
local prefix = ARGV[1]
local length, _, busy = lane_depths(prefix, ARGV[2])
local running = 0
for _, lane in ipairs(busy) do
  for _, pending in ipairs(redis.call('XPENDING', lane[1], ARGV[2], '-', '+', lane[2])) do
    local entry = redis.call('XRANGE', lane[1], pending[1], pending[1])[1]
    local key = entry and field_of(entry[2], 'key')
    -- a record that cannot be read (a wrong-typed key) counts as not running
    if key and redis.pcall('HGET', prefix .. 'runs:' .. key, 'state') == 'running' then running = running + 1 end
  end
end
local waiting = 0
for _, line in ipairs(redis.call('SMEMBERS', prefix .. 'lines')) do
  waiting = waiting + redis.call('LLEN', line)
end
local held = held_count(prefix)
return { running, length - running + waiting + held,
  redis.call('ZCARD', KEYS[2]) + redis.call('ZCARD', prefix .. 'waiting'), held }

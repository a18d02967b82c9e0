#!lua flags=allow-oom
--- @include "states"
--- @include "lane-claim"
--[[
  release: an orderly shutdown hands back what its worker holds, so that another worker takes
  it at once instead of after redeliveryTimeout.

  KEYS[1] stream (message ids name their lanes: includes/lanes.lua)
  ARGV[1] key prefix         ARGV[2] consumer group   ARGV[3] consumer (the stopping worker)
  ARGV[4] now (epoch ms)     ARGV[5] n: number of message ids that follow
  ARGV[6 .. 5+n] ids of every message the worker holds (started or not)
  ARGV[6+n ..] groups of 3: task key, generation, message id of each task it started

  Each message's idle time is set as if it had been delivered long ago, so the next XAUTOCLAIM
  of any worker takes it. A started task whose execution is still running on this worker goes
  back to 'queued' (published), and its start is not counted: it was handed back, not lost.
  Returns the number of executions handed back.
]]
local prefix, group, consumer, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local n = tonumber(ARGV[5])
local mids = {}
for i = 6, 5 + n do mids[#mids + 1] = ARGV[i] end
lane_claim(prefix, consumer, mids, { 'IDLE', now })
local released = 0
for i = 6 + n, #ARGV, 3 do
  local key, generation, id = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local runs = prefix .. 'runs:' .. key
  local run = redis.pcall('HMGET', runs, 'generation', 'state', 'worker', 'starts', 'when')
  if type(run) == 'table' and not run.err and run[1] == generation and run[2] == 'running' and run[3] == consumer then
    local starts = tonumber(run[4] or '1') - 1
    redis.call('HSET', runs, 'state', 'queued', 'streamId', id, 'starts', starts > 0 and starts or 0)
    redis.call('HDEL', runs, 'worker', 'startedAt')
    state_publish(prefix, key, { type = 'state', key = key, state = 'queued', when = tonumber(run[5]) })
    released = released + 1
  end
end
return released

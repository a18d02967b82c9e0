#!lua
--- @include "schedule-key"
--[[
  retry-dead: schedule dead letters again, now, with their key, task and arguments (attempt 1).

  KEYS[1] dead (dead-letter stream)                    KEYS[2] stream
  ARGV[1] now (epoch ms)     ARGV[2] consumer group   ARGV[3] key prefix
  ARGV[4..] ids of the dead letters to retry

  A letter whose key is live again (scheduled, queued or running) stays: nothing is scheduled
  for it; a retried letter is deleted in the same call. Returns the ids retried.
]]
local now, group, prefix = ARGV[1], ARGV[2], ARGV[3]
local out = {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local entry = redis.call('XRANGE', KEYS[1], id, id)[1]
  if entry then
    local f = {}
    for j = 1, #entry[2], 2 do f[entry[2][j]] = entry[2][j + 1] end
    if f.key and f.key ~= '' and f.task and f.task ~= '' then
      local reply = schedule_key_isolated(prefix, group, f.key, f.task, f.args or '[]', now, 1, now, 'add', '', '')
      if reply[1] == 'scheduled' then
        redis.call('XDEL', KEYS[1], id)
        out[#out + 1] = id
      end
    end
  end
end
events_flush(prefix)
return out

#!lua flags=allow-oom
--[[
  unregister: remove a stopping worker from the registry (and what it told about itself).

  KEYS[1] workers            KEYS[2] worker-tasks:<worker>
  ARGV[1] worker name        ARGV[2] key prefix

  Returns 1.
]]
local tasks = redis.call('SMEMBERS', KEYS[2])
for _, task in ipairs(tasks) do
  redis.call('ZREM', ARGV[2] .. 'task-workers:' .. task, ARGV[1])
end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
redis.call('DEL', ARGV[2] .. 'worker-info:' .. ARGV[1])
return 1

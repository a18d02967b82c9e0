#!lua flags=no-writes
--[[
  read-execution: the record and the progress of one execution, read together.

  KEYS[1] runs:<key>         KEYS[2] progress:<key>

  Returns { runs hash, progress hash }, each as a flat field/value list (empty when absent).
]]
return { redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2]) }

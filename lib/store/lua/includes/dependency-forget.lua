--- @include "fields"
--[[
  What a waiter holds of its dependencies (see includes/dependencies.lua), and letting go of it.

  deps_outcome(prefix, gen, d)   the name of the outcome of the end of `d` at generation `gen`
  deps_outcome_fields(state, err, result)
                                 the fields of an outcome: its state, its error and its result
                                 when there are ('' and nil count as none)
  deps_open(prefix, w)           the keys waiter w still waits for (none once it has ended)
  deps_unref(prefix, gen, d)     one waiter less holds that outcome (the last one deletes it)
  deps_forget(prefix, w)         w is no longer a waiter: its outcomes are let go of, and its
                                 runs fields after, open and onDependencyFailure go
]]
local function deps_outcome(prefix, gen, d)
  return prefix .. 'outcome:' .. gen .. ':' .. d
end

local function deps_outcome_fields(state, err, result)
  return field_push(field_push({ 'state', state }, 'error', err), 'result', result)
end

local function deps_open(prefix, w)
  local open = {}
  local got = redis.call('HGETALL', prefix .. 'deps:' .. w)
  for i = 1, #got, 2 do
    if got[i + 1] == '' then open[#open + 1] = got[i] end
  end
  return open
end

local function deps_unref(prefix, gen, d)
  local outcome = deps_outcome(prefix, gen, d)
  if redis.call('HINCRBY', outcome, 'left', -1) <= 0 then redis.call('DEL', outcome) end
end

local function deps_forget(prefix, w)
  local deps = prefix .. 'deps:' .. w
  local got = redis.call('HGETALL', deps)
  for i = 1, #got, 2 do
    local gen = got[i + 1]
    if gen ~= '' and gen ~= '!' then deps_unref(prefix, gen, got[i]) end
  end
  redis.call('DEL', deps)
  redis.call('ZREM', prefix .. 'waiting', w)
  redis.call('HDEL', prefix .. 'runs:' .. w, 'after', 'open', 'onDependencyFailure')
end

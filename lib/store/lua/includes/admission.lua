--- @include "lines"
--[[
  The admission rules of a message (claim-2.lua), a JSON array checked in order; each rule's
  k is its key under the docket's prefix:
    { "t": "cooldown", "k": key, "w": window ms }          first start wins, other keys dropped
    { "t": "debounce", "k": key, "s": settle ms }          one start, settle after the last
    { "t": "rate", "k": key, "l": limit, "p": per ms, "d": drop }   sliding window of starts
    { "t": "conc", "k": key, "m": max, "s": stale ms }     at most max running at once

  admit(prefix, rules, key, now)
    Returns nil when every rule admits the task (its starts are then counted and its
    concurrency slots taken), else 'drop' | 'defer', when, rule kind | 'wait', line.
  release_slots(prefix, rules, key, now)
    Give back every concurrency slot `key` holds under `rules` (waiters are woken).
]]
local function admit(prefix, rules, key, now)
  local nowN = tonumber(now)
  for _, r in ipairs(rules) do
    local k = prefix .. r.k
    if r.t == 'cooldown' then
      local holder = redis.call('GET', k)
      if not holder then
        redis.call('SET', k, key, 'PX', r.w)
      elseif holder ~= key then
        return 'drop'
      end
    elseif r.t == 'debounce' then
      local winner, last = k .. ':winner', k .. ':last'
      local current = redis.call('GET', winner)
      if not current then
        redis.call('SET', winner, key, 'PX', r.s * 10)
        redis.call('SET', last, now, 'PX', r.s * 10)
        return 'defer', nowN + r.s, 'debounce'
      elseif current == key then
        local seen = tonumber(redis.call('GET', last) or '0')
        if nowN - seen < r.s then
          redis.call('PEXPIRE', winner, r.s * 10)
          return 'defer', seen + r.s, 'debounce'
        end
        redis.call('DEL', winner, last)
      else
        redis.call('SET', last, now, 'PX', r.s * 10)
        redis.call('PEXPIRE', winner, r.s * 10)
        return 'drop'
      end
    elseif r.t == 'rate' then
      redis.call('ZREMRANGEBYSCORE', k, '-inf', nowN - r.p)
      if redis.call('ZCARD', k) >= r.l then
        if r.d then return 'drop' end
        local oldest = redis.call('ZRANGE', k, 0, 0, 'WITHSCORES')
        return 'defer', tonumber(oldest[2]) + r.p, 'rate'
      end
    elseif r.t == 'conc' then
      redis.call('ZREMRANGEBYSCORE', k, '-inf', nowN - r.s)
      if not redis.call('ZSCORE', k, key) and redis.call('ZCARD', k) >= r.m then
        return 'wait', k .. ':waiters'
      end
    end
  end
  for _, r in ipairs(rules) do
    local k = prefix .. r.k
    if r.t == 'rate' then
      redis.call('ZADD', k, now, key .. ':' .. now)
      redis.call('PEXPIRE', k, r.p)
    elseif r.t == 'conc' then
      redis.call('ZADD', k, now, key)
      redis.call('PEXPIRE', k, r.s * 4)
    end
  end
  return nil
end

local function release_slots(prefix, rules, key, now)
  for _, r in ipairs(rules) do
    local k = prefix .. r.k
    if r.t == 'conc' and redis.call('ZSCORE', k, key) then release_slot(prefix, k, r.m, key, now) end
  end
end

--[[
  renew_slots(prefix, rules, key, now)
    A running task's concurrency slots stay taken while its worker renews them (a slot not
    renewed for the rule's stale time goes to the next task).
]]
local function renew_slots(prefix, rules, key, now)
  for _, r in ipairs(rules) do
    if r.t == 'conc' then
      local k = prefix .. r.k
      redis.call('ZADD', k, 'XX', now, key)
      redis.call('PEXPIRE', k, r.s * 4)
    end
  end
end

--[[
  members_sorted(key)
    The members of a set, sorted: a set has no order, and Redis' differs from server to server
    (and from memory://), so wherever the order shows (a list, the order work resumes in) the
    members are read sorted.
]]
local function members_sorted(key)
  local members = redis.call('SMEMBERS', key)
  table.sort(members)
  return members
end

--[[
  field_push(list, name, value)
    Append `name`, `value` to a flat field list (HSET / XADD arguments) when there is a value
    (nil, false, as HMGET gives a missing field, and '' count as none); returns the list.
]]
local function field_push(list, name, value)
  if value and value ~= '' then
    list[#list + 1] = name
    list[#list + 1] = value
  end
  return list
end

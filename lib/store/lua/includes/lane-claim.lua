--- @include "lanes"
--[[
  lane_claim(prefix, consumer, mids, extra)
    XCLAIM … 0 <ids> <extra…> JUSTID for message ids of any lanes, lane by lane and in pages
    (unpack takes a few thousand values at most); a lane that is gone is skipped.
]]
local function lane_claim(prefix, consumer, mids, extra)
  local byLane, order = {}, {}
  for _, mid in ipairs(mids) do
    local lane, id = lane_of(prefix, mid)
    if not byLane[lane] then
      byLane[lane] = {}
      order[#order + 1] = lane
    end
    local ids = byLane[lane]
    ids[#ids + 1] = id
  end
  for _, lane in ipairs(order) do
    local ids = byLane[lane]
    for first = 1, #ids, 500 do
      local claim = { 'XCLAIM', lane, LANE_GROUP, consumer, 0 }
      for i = first, math.min(first + 499, #ids) do claim[#claim + 1] = ids[i] end
      for _, word in ipairs(extra) do claim[#claim + 1] = word end
      claim[#claim + 1] = 'JUSTID'
      redis.pcall(unpack(claim))
    end
  end
end

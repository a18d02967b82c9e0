--[[
  Lanes: the streams that due messages wait in, read in rank order (see the wire format).
  Priority p (0 first … 9 last; 5 when not given) has two lanes: 'resumed:<p>' (rank 2p),
  where work held while paused comes back in its own order, ahead of what was read after it,
  and the lane of new work (rank 2p + 1): 'stream' for priority 5 (the lane every producer of
  the wire format writes to) and 'stream:<p>' otherwise. <prefix>lanes (zset: lane → rank)
  lists the lanes other than 'stream' that were used; each has the consumer group.
  Outside the scripts a message id names its lane: '<id>' in 'stream', '<lane>/<id>' elsewhere.

  LANE_GROUP                         the consumer group (CONSUMER_GROUP of store/keys.ts)
  lane_for(priority, resumed)        the lane of a priority
  field_of(fields, name)             the value of a field in a message's flat field list (the
                                     last one, as the worker reads it), or nil
  priority_of(fields)                the priority a message's fields carry ('5' when none)
  lane_group(prefix, lane)           create the lane's group (and the lane): XGROUP CREATE's
                                     reply, as redis.pcall gives it (BUSYGROUP when it exists)
  lane_ensure(prefix, lane)          a new lane gets the group, is listed and announced on
                                     <prefix>lanes (a future task's lane exists from its add,
                                     so that workers know it before it comes due); once per
                                     lane in a call
  lane_push(prefix, lane, fields)    XADD to a lane (made as lane_ensure does); returns the
                                     message id
  lane_of(prefix, mid)               the stream key and stream id of a message id
  lane_drop(prefix, group, mid)      acknowledge and delete a message
  lane_drop_later(prefix, group, mid)
                                     the same, done by lane_drops_flush for every message of
                                     a lane together (one XACK and one XDEL per lane and call)
  lane_drops_flush()                 acknowledge and delete what lane_drop_later gathered
  lane_names(prefix)                 every lane ('stream' included), in rank order
  lane_depths(prefix, group)         the messages of every lane and, of them, the pending ones
                                     (read by a worker, not ended; none without the group):
                                     length, pending, { { lane key, its pending count }, … } of
                                     the lanes that have pending messages
  lane_read(prefix, consumer, count, lanes)
                                     up to `count` new messages for `consumer` from `lanes`
                                     (lane_names), in their order: { { message id, fields }, … }
]]
local LANE_GROUP = 'docket-workers'
local DEFAULT_RANK = 11

local function lane_for(priority, resumed)
  local p = math.floor(tonumber(priority) or 5)
  if resumed then return 'resumed:' .. p end
  if p == 5 then return 'stream' end
  return 'stream:' .. p
end

local function field_of(fields, name)
  local value = nil
  for i = 1, #fields, 2 do
    if fields[i] == name then value = fields[i + 1] end
  end
  return value
end

local function priority_of(fields)
  return field_of(fields, 'priority') or '5'
end

local function lane_rank(lane)
  local kind, p = string.match(lane, '^(%a+):(%d)$')
  if not kind then return DEFAULT_RANK end
  if kind == 'resumed' then return 2 * tonumber(p) end
  return 2 * tonumber(p) + 1
end

local function lane_group(prefix, lane)
  -- the group starts at 0, so that every message of the lane is read
  return redis.pcall('XGROUP', 'CREATE', prefix .. lane, LANE_GROUP, '0', 'MKSTREAM')
end

-- the lanes this call has ensured already (a script's locals are its call's)
local LANES_ENSURED = {}

local function lane_ensure(prefix, lane)
  if lane == 'stream' or LANES_ENSURED[prefix .. lane] then return end
  if redis.call('ZADD', prefix .. 'lanes', 'NX', lane_rank(lane), lane) == 1 then
    lane_group(prefix, lane)
    redis.call('PUBLISH', prefix .. 'lanes', lane)
  end
  LANES_ENSURED[prefix .. lane] = true
end

local function lane_push(prefix, lane, fields)
  local id = redis.call('XADD', prefix .. lane, '*', unpack(fields))
  if lane == 'stream' then return id end
  lane_ensure(prefix, lane)
  return lane .. '/' .. id
end

local function lane_of(prefix, mid)
  local slash = string.find(mid, '/', 1, true)
  if not slash then return prefix .. 'stream', mid end
  return prefix .. string.sub(mid, 1, slash - 1), string.sub(mid, slash + 1)
end

local function lane_drop(prefix, group, mid)
  local lane, id = lane_of(prefix, mid)
  redis.call('XACK', lane, group, id)
  redis.call('XDEL', lane, id)
end

-- the messages lane_drop_later gathered: { [lane key] = { group, { id, … } } }
local LANE_DROPS = {}
-- most ids of one XACK / XDEL
local LANE_DROPS_MAX = 500

local function lane_drops_write(lane, drops)
  redis.call('XACK', lane, drops[1], unpack(drops[2]))
  redis.call('XDEL', lane, unpack(drops[2]))
end

local function lane_drop_later(prefix, group, mid)
  local lane, id = lane_of(prefix, mid)
  local drops = LANE_DROPS[lane]
  if not drops then
    drops = { group, {} }
    LANE_DROPS[lane] = drops
  end
  drops[2][#drops[2] + 1] = id
  if #drops[2] >= LANE_DROPS_MAX then
    lane_drops_write(lane, drops)
    LANE_DROPS[lane] = nil
  end
end

local function lane_drops_flush()
  for lane, drops in pairs(LANE_DROPS) do lane_drops_write(lane, drops) end
  LANE_DROPS = {}
end

local function lane_names(prefix)
  local listed = redis.call('ZRANGE', prefix .. 'lanes', 0, -1, 'WITHSCORES')
  local out, placed = {}, false
  for i = 1, #listed, 2 do
    if not placed and tonumber(listed[i + 1]) > DEFAULT_RANK then
      out[#out + 1] = 'stream'
      placed = true
    end
    out[#out + 1] = listed[i]
  end
  if not placed then out[#out + 1] = 'stream' end
  return out
end

local function lane_depths(prefix, group)
  local length, pending, busy = 0, 0, {}
  for _, name in ipairs(lane_names(prefix)) do
    local lane = prefix .. name
    length = length + redis.call('XLEN', lane)
    local summary = redis.pcall('XPENDING', lane, group)
    if type(summary) == 'table' and not summary.err and tonumber(summary[1]) > 0 then
      pending = pending + summary[1]
      busy[#busy + 1] = { lane, summary[1] }
    end
  end
  return length, pending, busy
end

local function lane_read(prefix, consumer, count, lanes)
  local out = {}
  for _, lane in ipairs(lanes) do
    if count <= 0 then break end
    local reply = redis.pcall('XREADGROUP', 'GROUP', LANE_GROUP, consumer, 'COUNT', count, 'STREAMS',
      prefix .. lane, '>')
    if type(reply) == 'table' and not reply.err and reply[1] then
      for _, entry in ipairs(reply[1][2]) do
        out[#out + 1] = { lane == 'stream' and entry[1] or (lane .. '/' .. entry[1]), entry[2] }
        count = count - 1
      end
    end
  end
  return out
end

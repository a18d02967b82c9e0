#!lua flags=allow-oom
--- @include "lanes"
--[[
  read-lanes: read new messages for a consumer from every lane, in rank order (see
  includes/lanes.lua), as a worker does when the docket has more lanes than 'stream'.

  KEYS[1] stream
  ARGV[1] key prefix         ARGV[2] consumer         ARGV[3] most messages to read

  Returns { lanes, last ids, messages }: every lane in rank order, the id of the last entry of
  each ('0-0' when empty: a reader that found nothing waits for entries after these; none when
  a message was read), and the messages read ({ id, { field, value, … } } each, the id naming
  its lane). A lane without its group is skipped.
]]
local prefix = ARGV[1]
local lanes = lane_names(prefix)
local read = lane_read(prefix, ARGV[2], tonumber(ARGV[3]), lanes)
local last = {}
if #read == 0 then
  for i, name in ipairs(lanes) do
    local tail = redis.call('XREVRANGE', prefix .. name, '+', '-', 'COUNT', 1)[1]
    last[i] = tail and tail[1] or '0-0'
  end
end
return { lanes, last, read }

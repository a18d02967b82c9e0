#!lua flags=allow-oom
--- @include "lanes"
--[[
  read-lanes: read new messages for a consumer from every lane, in rank order (see
  includes/lanes.lua), as a worker does when the docket has more lanes than 'stream'.

  KEYS[1] stream
  ARGV[1] key prefix         ARGV[2] consumer         ARGV[3] most messages to read

  Returns { lanes, messages }: every lane in rank order, and the messages read ({ id, { field,
  value, … } } each, the id naming its lane). A lane without its group is skipped.
]]
return { lane_names(ARGV[1]), lane_read(ARGV[1], ARGV[2], tonumber(ARGV[3])) }

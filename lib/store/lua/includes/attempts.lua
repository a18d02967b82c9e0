--[[
  An execution's earlier attempts: runs field 'attempts', one JSON object a line, oldest first,
  each { attempt, outcome, worker, dueAt, startedAt, endedAt, error, stack, retryAt } in that order
  (absent values left out). Written only when an attempt ends without ending the execution: a
  retry ('failed', with its error, stack and the time of the next attempt) or a start whose
  worker went silent ('lost'; found when its message is claimed again). The last attempt
  is the record itself (worker, startedAt, completedAt, error, stack). A new execution of the
  key starts without. Runs field 'past' ('1') says that the record holds attempts or a stack:
  the scripts read that small field on every claim and end, and the text itself only to
  append to it or to delete it.

  ATTEMPTS_KEPT                      most entries kept (the oldest go first)
  attempts_push(lines, entry)        the field's text (false or nil: none yet) with `entry`
                                     appended (a table of the fields above; numbers are epoch
                                     ms or counts)
]]
local ATTEMPTS_KEPT = 20
local ATTEMPT_FIELDS = { 'attempt', 'outcome', 'worker', 'dueAt', 'startedAt', 'endedAt', 'error', 'stack', 'retryAt' }

-- One entry as a JSON object, its fields in a fixed order (so that every Lua gives the same text).
local function attempt_json(entry)
  local parts = {}
  for _, name in ipairs(ATTEMPT_FIELDS) do
    local value = entry[name]
    if type(value) == 'number' then
      parts[#parts + 1] = '"' .. name .. '":' .. string.format('%.0f', value)
    elseif type(value) == 'string' then
      parts[#parts + 1] = '"' .. name .. '":' .. cjson.encode(value)
    end
  end
  return '{' .. table.concat(parts, ',') .. '}'
end

local function attempts_push(lines, entry)
  local text = attempt_json(entry)
  if not lines or lines == '' then return text end
  local kept, count = lines, 1
  for _ in string.gmatch(lines, '\n') do count = count + 1 end
  while count >= ATTEMPTS_KEPT do
    kept = string.sub(kept, (string.find(kept, '\n', 1, true) or #kept) + 1)
    count = count - 1
  end
  if kept == '' then return text end
  return kept .. '\n' .. text
end

@@codec@@

local rs_calls = assert(io.open('/dev/fd/3', 'wb'))
local rs_replies = assert(io.open('/dev/fd/4', 'rb'))
local rs_exit = os.exit   -- luaunit's, while it runs, raises an error

-- One call sent across, its result read back; a table argument gets what the function did to it
local function rs_call(...)
  local args = table.pack(...)
  local out = { 'C' .. args.n .. ':' }
  for i = 1, args.n do
    local sent, why = pcall(rs_write, args[i], out)
    if not sent then   -- the benchmark's argument, not the program's doing
      io.stderr:write('@@unsupported@@' .. tostring(why) .. '\n')
      rs_exit(1)
    end
  end
  rs_calls:write(table.concat(out))
  rs_calls:flush()
  local tag = rs_replies:read(1)
  if tag == 'R' then
    local result, after = rs_read(rs_replies), rs_read(rs_replies)
    for i = 1, args.n do
      local arg, changed = args[i], type(after) == 'table' and after[i]
      if type(arg) == 'table' and type(changed) == 'table' then
        for key in pairs(arg) do arg[key] = nil end
        for key, value in pairs(changed) do arg[key] = value end
      end
    end
    return result
  end
  if tag == 'X' then
    local _, message = rs_read(rs_replies), rs_read(rs_replies)
    error(message, 0)
  end
  error(tag == nil and 'the program ended during a call' or "the program's reply is not a value", 0)
end

@@local@@function @@entry@@(...)
  return rs_call(...)
end

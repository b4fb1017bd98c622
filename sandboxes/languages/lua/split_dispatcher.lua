@@codec@@

-- The calls of `entry` read from the prologue's rs_calls and answered on its rs_replies, one reply each (the prologue
-- took stdin and stdout before the program's first line: what it prints goes to stderr, never among the replies)
local function rs_serve(entry)
  while rs_calls:read(1) == 'C' do
    local count, args = rs_number(rs_calls, ':'), {}
    for i = 1, count do args[i] = rs_read(rs_calls) end
    local out = { 'R' }
    local answered, why = pcall(function()
      rs_write((entry(table.unpack(args, 1, count))), out)
      out[#out + 1] = 'l' .. count .. ':'
      for i = 1, count do rs_write(args[i], out) end
    end)
    if not answered then
      out = { 'X' }
      rs_write('error', out)
      rs_write(tostring(why), out)
    end
    rs_replies:write(table.concat(out))
    rs_replies:flush()
  end
end

rs_serve(@@entry@@)

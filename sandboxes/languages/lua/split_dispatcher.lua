@@codec@@

-- The calls of `entry` answered on the standard output, one reply each, through files of their own (whatever the
-- program made of io.stdin and io.stdout); what it prints from now on goes to stderr, never among the replies
local function rs_serve(entry)
  local calls, replies = assert(io.open('/dev/fd/0', 'rb')), assert(io.open('/dev/fd/1', 'wb'))
  io.stdout = io.stderr
  io.output(io.stderr)
  print = function(...)   -- Lua's own writes to the C library's stdout
    local texts = table.pack(...)
    for i = 1, texts.n do texts[i] = tostring(texts[i]) end
    io.stderr:write(table.concat(texts, '\t', 1, texts.n), '\n')
  end
  while calls:read(1) == 'C' do
    local count, args = rs_number(calls, ':'), {}
    for i = 1, count do args[i] = rs_read(calls) end
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
    replies:write(table.concat(out))
    replies:flush()
  end
end

rs_serve(@@entry@@)

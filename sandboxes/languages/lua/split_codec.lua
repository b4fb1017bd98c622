-- The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer: data only, never code.

-- `value`'s encoding appended to the list of strings `out`: a table whose keys are 1..n is a list, any other a map
local function rs_write(value, out)
  local kind = type(value)
  if value == nil then
    out[#out + 1] = 'N'
  elseif kind == 'boolean' then
    out[#out + 1] = value and 'T' or 'F'
  elseif math.type(value) == 'integer' then
    out[#out + 1] = string.format('i%d;', value)
  elseif kind == 'number' then
    out[#out + 1] = 'd' .. string.pack('>d', value):gsub('.', function(c) return string.format('%02x', c:byte()) end)
  elseif kind == 'string' then
    out[#out + 1] = 's' .. #value .. ':' .. value
  elseif kind == 'table' then
    local count = 0
    for _ in pairs(value) do count = count + 1 end
    local list = true
    for i = 1, count do list = list and rawget(value, i) ~= nil end
    out[#out + 1] = (list and 'l' or 'm') .. count .. ':'
    if list then
      for i = 1, count do rs_write(value[i], out) end
    else
      for key, item in pairs(value) do
        rs_write(key, out)
        rs_write(item, out)
      end
    end
  else
    error('a ' .. kind .. ' is not a value that crosses to the tests', 0)
  end
end

local function rs_exactly(stream, count)
  local data = count == 0 and '' or stream:read(count)
  if data == nil or #data ~= count then error('the other side ended in the middle of a value', 0) end
  return data
end

local function rs_number(stream, ending)
  local digits = {}
  while true do
    local char = stream:read(1)
    if char == ending then break end
    if char == nil or #digits > 100000 then error('a number without its end in the wire format', 0) end
    digits[#digits + 1] = char
  end
  local text = table.concat(digits)
  local number = text:match('^-?%d+$') and math.tointeger(tonumber(text))
  if not number then error(text .. ' is not an integer of this side', 0) end
  return number
end

-- One value read from `stream`: Lua's own values (tuples and sets as lists)
local function rs_read(stream)
  local tag = rs_exactly(stream, 1)
  if tag == 'N' or tag == 'U' then return nil end
  if tag == 'T' or tag == 'F' then return tag == 'T' end
  if tag == 'i' then return rs_number(stream, ';') end
  if tag == 'd' then
    local bits = rs_exactly(stream, 16)
    if not bits:match('^%x+$') then error('a float that is not 16 hex digits', 0) end
    return (string.unpack('>d', (bits:gsub('%x%x', function(pair) return string.char(tonumber(pair, 16)) end))))
  end
  local count = rs_number(stream, ':')
  if tag == 's' or tag == 'c' or tag == 'y' then return rs_exactly(stream, count) end
  local items = {}
  if tag == 'l' or tag == 't' or tag == 'e' then
    for i = 1, count do items[i] = rs_read(stream) end
  elseif tag == 'm' then
    for _ = 1, count do
      local key = rs_read(stream)
      items[key] = rs_read(stream)
    end
  else
    error(string.format('%q is no tag of the wire format', tag), 0)
  end
  return items
end

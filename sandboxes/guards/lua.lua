-- The trusted loader that runs a function-style Lua program and then its tests (docs/guards.md).
--
-- This file is the run's source file, so a program that reads its own source (arg[0]) finds neither the tests nor
-- the end-of-tests marker: both arrive on stdin (graders/guarded.prepare: a line "marker, prompt length, completion
-- length", then prompt, completion and tests), read to the end before the program runs. Before the program runs, too:
-- the tests are compiled in an environment of their own that holds a copy of every global and of every library
-- table as they are now (pristine first: what the program assigns or patches in _G, os, string... is not what the
-- tests find), the modules the tests require (luaunit) are loaded into that environment, and the write that proves
-- the tests ended is taken. The program then runs as a chunk of its own with _G as its environment (its globals are
-- where it expects them); the prompt's top-level locals (MultiPL-E's `local function add`) are handed to the tests
-- by a `return` appended to the program (one that returns before it ends the run, as a plain run ends there), which
-- runs without the debug library (it would read this loader's locals,
-- the marker among them). Before the tests run, the metatables shared by every string and every file get back their
-- methods, pristine first, and a decoy for the program's getmetatable. The tests' os.exit writes the marker for a
-- success status; tests that return write it too.
-- Standard library only: this runs under the sandbox's lua.

local assert, error, load, loadfile, next, setmetatable, getmetatable, rawset, tostring =
  assert, error, load, loadfile, next, setmetatable, getmetatable, rawset, tostring
local byte, find, gmatch, match, rep, sub = string.byte, string.find, string.gmatch, string.match, string.rep,
  string.sub
local concat, pack, unpack = table.concat, table.pack, table.unpack
local exit, searchpath = os.exit, package.searchpath
local stderr, write = io.stderr, io.stderr.write

local CHUNK = '=program'   -- what errors call the program (and its tests, on the lines after it)
local LIBRARIES = { 'coroutine', 'debug', 'io', 'math', 'os', 'package', 'string', 'table', 'utf8' }
local STRING, STRING_MT, FILE_MT = string, getmetatable(''), getmetatable(stderr)

local function copy(t)
  local c = {}
  for k, v in next, t do c[k] = v end
  return c
end

-- The tables shared by what the program and the tests run, as they are now: restored before the tests run.
local STRING_MT_FIELDS, FILE_MT_FIELDS = copy(STRING_MT), copy(FILE_MT)
local FILE, FILE_METHODS = FILE_MT.__index, copy(FILE_MT.__index)

--- (marker, prompt, completion, tests) from what graders/guarded.prepare wrote (lengths in bytes).
local function read_request()
  local data = io.read('a')
  local newline = find(data, '\n', 1, true)
  local marker, prompt_length, completion_length = match(sub(data, 1, newline - 1), '^(%S+) (%d+) (%d+)$')
  local program_end = newline + prompt_length + completion_length
  return marker, sub(data, newline + 1, newline + prompt_length), sub(data, newline + prompt_length + 1, program_end),
    sub(data, program_end + 1)
end

--- The names the prompt defines at its top level: the tests' names for the program's (never a pristine copy), and
--- its locals, which the program hands back by an appended `return`.
local function prompt_names(prompt)
  local locals, names = {}, {}
  for line in gmatch('\n' .. prompt, '\n([^\n]*)') do
    local name = match(line, '^local%s+function%s+([%a_][%w_]*)') or match(line, '^local%s+([%a_][%w_]*)')
    if name and name ~= 'function' then
      locals[#locals + 1] = name
      names[name] = true
    end
    name = match(line, '^function%s+([%a_][%w_]*)%s*%(')
    if name then names[name] = true end
  end
  return locals, names
end

local function count_lines(text)
  local lines = 1
  for i = 1, #text do
    if byte(text, i) == 10 then lines = lines + 1 end
  end
  return lines
end

--- The tests' environment: every global and a copy of every library table as they are now, the prompt's names left
--- out (they are the program's), its own _G; what it lacks is looked up in the prompt's locals, then in _G.
local function tests_environment(prompt_defines, exported, proof)
  local env = copy(_G)
  for _, name in next, LIBRARIES do env[name] = copy(_G[name]) end
  for name in next, prompt_defines do env[name] = nil end
  env._G, env.arg = env, copy(arg or {})
  env.os.exit = function(status, close)
    if status == nil or status == true or status == 0 then write(stderr, proof) end
    return exit(status, close)
  end
  return setmetatable(env, { __index = function(_, name)
    local value = exported[name]
    if value ~= nil then return value end
    return _G[name]
  end })
end

--- The tests' `require`: the libraries' copies, and the modules the tests name, loaded into their environment now.
local function tests_require(env, tests)
  local modules = {}
  for _, name in next, LIBRARIES do modules[name] = env[name] end
  env.require = function(name)
    local module = modules[name]
    if module == nil then
      error("module '" .. tostring(name) .. "' not found (the tests may require what they name)", 2)
    end
    return module
  end
  for _, name in gmatch(tests, 'require%s*%(?%s*([\'"])([%w_%.%-]+)%1') do
    local path = modules[name] == nil and searchpath(name, package.path)
    local chunk = path and loadfile(path, 't', env)
    if chunk then modules[name] = chunk(name, path) or true end
  end
end

--- A shared metatable back as it was before the program ran, its methods pristine first (then what the program
--- added to the table it patched), and getmetatable answering a decoy, so that the program's code, called by the
--- tests, cannot patch them again.
local function restore(mt, fields, methods, patched)
  for k in next, copy(mt) do rawset(mt, k, nil) end
  for k, v in next, fields do rawset(mt, k, v) end
  rawset(mt, '__index', setmetatable(copy(methods), { __index = patched }))
  rawset(mt, '__metatable', { __index = patched })
end

--- Out of the program's reach: what would read this loader's locals (the marker, the tests) or the tests' frames
--- and locals, the debug library, and what could open it again: package.loadlib and require's C searchers. The
--- tests keep their copy (luaunit's tracebacks).
local function withhold()
  _G.debug, package.loaded.debug, package.loadlib = nil, nil, nil
  package.searchers = { package.searchers[1], package.searchers[2] }
end

local function main()
  local marker, prompt, completion, tests = read_request()
  local program = prompt .. completion
  local locals, defines = prompt_names(prompt)
  local exported = {}
  local env = tests_environment(defines, exported, marker .. '\n')
  local run_tests = assert(load(rep('\n', count_lines(program)) .. tests, CHUNK, 't', env))
  tests_require(env, tests)
  local run_program, problem = load(program .. '\nreturn ' .. concat(pack('true', unpack(locals)), ', '), CHUNK)
  if not run_program then error(problem, 0) end
  withhold()
  local values = pack(run_program())
  if values[1] ~= true then exit(0) end    -- a top-level return ended the program: a plain run would end there
  for i, name in next, locals do exported[name] = values[i + 1] end
  restore(STRING_MT, STRING_MT_FIELDS, env.string, STRING)
  restore(FILE_MT, FILE_MT_FIELDS, FILE_METHODS, FILE)
  run_tests()
  write(stderr, marker .. '\n')
end

main()

-- Runs sup's protocol conformance suite (ipc/testdata/conformance) with the
-- plugin's Lua client, inside nvim:
--
--   nvim --headless -u NONE --cmd 'set rtp^=editors/nvim' \
--     -c 'luafile editors/nvim/tests/conformance.lua' -- CASES.json live=SOCK exited=SOCK halted=SOCK
--
-- Prints one line per case and CONFORMANCE PASS when every case passed
-- (exit 0); otherwise exits 1. The format: ipc/testdata/conformance/README.md.
local client = require("sup.client")

local CASE_TIMEOUT = 20000

local function out(line)
  io.stdout:write(line .. "\n")
end

local function is_list(t)
  if getmetatable(t) == getmetatable(vim.empty_dict()) then
    return false
  end
  return (vim.islist or vim.tbl_islist)(t)
end

local function type_name(v)
  if v == nil or v == vim.NIL then
    return "nil"
  elseif type(v) == "boolean" then
    return "bool"
  elseif type(v) == "string" then
    return "str"
  elseif type(v) == "number" then
    return math.floor(v) == v and "int" or "float"
  elseif type(v) == "table" then
    -- An empty table decoded from msgpack may be either.
    if next(v) == nil and getmetatable(v) == nil then
      return "array"
    end
    return is_list(v) and "array" or "map"
  end
  return type(v)
end

local function show(v)
  return vim.inspect(v, { newline = "", indent = "" })
end

local function scalar_equal(w, g)
  return type(w) == type(g) and w == g
end

local match

local function match_op(op, arg, got, path)
  if op == "$type" then
    local t = type_name(got)
    if t ~= arg and not (arg == "map" and type(got) == "table" and next(got) == nil) then
      error(("%s: got %s %s, want %s"):format(path, t, show(got), arg), 0)
    end
  elseif op == "$gte" then
    if type_name(got) ~= "int" or got < arg then
      error(("%s: got %s, want an integer >= %s"):format(path, show(got), arg), 0)
    end
  elseif op == "$substr" then
    if type(got) ~= "string" or not got:find(arg, 1, true) then
      error(("%s: got %s, want a string containing %s"):format(path, show(got), show(arg)), 0)
    end
  elseif op == "$contains" then
    for _, w in ipairs(arg) do
      local found = false
      for _, g in ipairs(type(got) == "table" and got or {}) do
        found = found or scalar_equal(w, g)
      end
      if not found then
        error(("%s: got %s, want it to contain %s"):format(path, show(got), show(w)), 0)
      end
    end
  elseif op == "$one_of" then
    for _, w in ipairs(arg) do
      if scalar_equal(w, got) then
        return
      end
    end
    error(("%s: got %s, want one of %s"):format(path, show(got), show(arg)), 0)
  else
    error(("%s: unknown matcher %s"):format(path, op), 0)
  end
end

function match(want, got, path)
  path = path or "value"
  if got == vim.NIL then
    got = nil
  end
  if want == vim.NIL then
    if got ~= nil then
      error(("%s: got %s, want nil or absent"):format(path, show(got)), 0)
    end
  elseif type(want) == "table" and not is_list(want) then
    local k1, v1 = next(want)
    if k1 and next(want, k1) == nil and k1:sub(1, 1) == "$" then
      return match_op(k1, v1, got, path)
    end
    if type(got) ~= "table" or (next(got) ~= nil and is_list(got)) then
      error(("%s: got %s, want a map"):format(path, show(got)), 0)
    end
    local keys = vim.tbl_keys(want)
    table.sort(keys)
    for _, k in ipairs(keys) do
      match(want[k], got[k], path == "value" and k or path .. "." .. k)
    end
  elseif type(want) == "table" then
    if type(got) ~= "table" or #got ~= #want then
      error(("%s: got %s, want %d elements"):format(path, show(got), #want), 0)
    end
    for i, w in ipairs(want) do
      match(w, got[i], ("%s[%d]"):format(path, i - 1))
    end
  elseif not scalar_equal(want, got) then
    error(("%s: got %s, want %s"):format(path, show(got), show(want)), 0)
  end
end

-- expand turns {"$repeat": [s, n]} into s repeated n times.
local function expand(v)
  if type(v) ~= "table" then
    return v
  end
  if v["$repeat"] then
    return string.rep(v["$repeat"][1], v["$repeat"][2])
  end
  local o = is_list(v) and {} or vim.empty_dict()
  for k, e in pairs(v) do
    o[k] = expand(e)
  end
  return o
end

local function check(err, what)
  if err then
    error((what and what .. ": " or "") .. (err.code and err.code .. ": " or "") .. (err.message or ""), 0)
  end
end

-- raw opens a bare connection whose frames and EOF can be awaited.
local function raw(path)
  local conn = { values = {}, eof = false }
  local err, s = client.await(CASE_TIMEOUT, function(done)
    client.open(path, {
      value = function(v)
        table.insert(conn.values, v)
      end,
      error = function(msg)
        conn.bad = msg
        conn.eof = true
      end,
      eof = function()
        conn.eof = true
      end,
    }, done)
  end)
  check(err, "connect")
  conn.stream = s
  function conn.next()
    vim.wait(CASE_TIMEOUT, function()
      return #conn.values > 0 or conn.eof
    end, 5)
    if #conn.values == 0 then
      error(conn.bad or "connection closed before an answer", 0)
    end
    return table.remove(conn.values, 1)
  end
  function conn.wait_eof()
    vim.wait(CASE_TIMEOUT, function()
      return #conn.values > 0 or conn.eof
    end, 5)
    if not conn.eof or #conn.values > 0 then
      error("want the server to close the connection", 0)
    end
  end
  return conn
end

local function hello_on(conn)
  conn.stream:write(client.frame({ v = 1, id = 99, method = "hello" }))
  match({ id = 99, ok = true }, conn.next(), "hello")
end

-- connect opens a client connection, or fails the case.
local function connect(path)
  local err, c = client.await(CASE_TIMEOUT, function(done)
    client.connect(path, done)
  end)
  check(err, "connect")
  return c
end

local function run_call(case, path)
  local c = connect(path)
  local params = case.call.params
  if params == vim.NIL then
    params = nil
  end
  local cerr, result = client.await(CASE_TIMEOUT, function(done)
    c:call(case.call.method, params and expand(params), done)
  end)
  c:close()
  if case.error then
    if not cerr or not cerr.code then
      error(("got result %s (err %s), want error %s"):format(show(result), show(cerr), show(case.error)), 0)
    end
    return match(case.error, { code = cerr.code, message = cerr.message })
  end
  check(cerr)
  match(case.result, result)
end

local function run_subscribe(case, path)
  local c = connect(path)
  local events = {}
  local serr, names = client.await(CASE_TIMEOUT, function(done)
    c:subscribe(case.subscribe.events, function(ev)
      table.insert(events, ev)
    end, nil, done)
  end)
  check(serr, "subscribe")
  match(case.result, { events = names })
  local other = raw(path) -- provoke: connect
  other.stream:close()
  vim.wait(CASE_TIMEOUT, function()
    return #events > 0
  end, 5)
  c:close()
  if #events == 0 then
    error("no event arrived", 0)
  end
  match(case.event, events[1])
end

local function run_raw(r, path)
  local held = {}
  local ok, e = pcall(function()
    for _ = 1, (r.hold or 0) do
      local h = raw(path)
      table.insert(held, h)
      hello_on(h)
    end
    local conn = raw(path)
    local bytes = {}
    for _, s in ipairs(r.send) do
      if s.msg then
        table.insert(bytes, client.frame(expand(s.msg)))
      else
        table.insert(bytes, (s.hex:gsub(" ", ""):gsub("%x%x", function(h)
          return string.char(tonumber(h, 16))
        end)))
      end
    end
    if #bytes > 0 then
      conn.stream:write(table.concat(bytes))
    end
    for i, want in ipairs(r.expect) do
      match(want, conn.next(), "answer " .. i)
    end
    if r["then"] == "open" then
      hello_on(conn)
    elseif r["then"] == "closed" then
      conn.wait_eof()
    elseif r["then"] == "byte_closes" then
      conn.stream:write("\0")
      conn.wait_eof()
    else -- client_close: the server lives on
      conn.stream:close()
      local live = raw(path)
      hello_on(live)
      live.stream:close()
    end
    conn.stream:close()
  end)
  for _, h in ipairs(held) do
    h.stream:close()
  end
  if not ok then
    error(e, 0)
  end
end

local function main()
  local args, seen = {}, false
  for _, a in ipairs(vim.v.argv) do
    if seen then
      table.insert(args, a)
    end
    seen = seen or a == "--"
  end
  local f = assert(io.open(args[1] or "", "r"), "usage: ... -- CASES.json NAME=SOCKET...")
  local suite = vim.json.decode(f:read("*a"))
  f:close()
  local sockets = {}
  for i = 2, #args do
    local k, v = args[i]:match("^([^=]+)=(.*)$")
    sockets[k] = v
  end
  local failed = 0
  for _, case in ipairs(suite.cases) do
    local t0 = vim.loop.hrtime()
    local ok, err = pcall(function()
      local path = sockets[case.socket] or error("no socket " .. case.socket .. " given", 0)
      if case.call then
        run_call(case, path)
      elseif case.subscribe then
        run_subscribe(case, path)
      else
        run_raw(case.raw, path)
      end
    end)
    if ok then
      out(("ok   %s (%d ms)"):format(case.name, (vim.loop.hrtime() - t0) / 1e6))
    else
      failed = failed + 1
      out(("FAIL %s: %s"):format(case.name, tostring(err)))
    end
  end
  if failed > 0 then
    out(("CONFORMANCE FAILED %d of %d"):format(failed, #suite.cases))
    vim.cmd("cquit 1")
  end
  out(("CONFORMANCE PASS %d cases"):format(#suite.cases))
  vim.cmd("qall!")
end

local ok, err = pcall(main)
if not ok then
  out("conformance runner failed: " .. tostring(err))
  vim.cmd("cquit 1")
end

-- sup's control-socket protocol (specs/ipc.md) over vim.loop pipes and
-- vim.mpack: no dependencies. Everything is asynchronous; every callback
-- runs on the main loop (vim.schedule), so callers may use any API.
--
--   local client = require("sup.client")
--   client.connect(path, function(err, c)
--     c:call("hello", { client = "me/1" }, function(err, result) ... end)
--   end)
--
-- Errors are tables { code = "BAD_REQUEST", message = "..." }; code is nil
-- for local failures (no such socket, connection refused, closed).
local uv = vim.uv or vim.loop -- vim.loop before 0.10

local M = {}

M.PROTOCOL = 1
M.MAX_FRAME = 1048576 -- the frame limit, both directions

local function be32(n)
  return string.char(math.floor(n / 16777216) % 256, math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
end

--- value as one frame: a 4-byte big-endian length, then msgpack.
function M.frame(value)
  local body = vim.mpack.encode(value)
  return be32(#body) .. body
end

-- nil_to_lua turns vim.NIL (msgpack nil inside tables) into plain nil, so
-- that "nil means absent" (specs/ipc.md) holds for callers.
local function nil_to_lua(v)
  if v == vim.NIL then
    return nil
  end
  if type(v) == "table" then
    for k, e in pairs(v) do
      if e == vim.NIL then
        v[k] = nil
      elseif type(e) == "table" then
        nil_to_lua(e)
      end
    end
  end
  return v
end

--- describe turns a libuv error for path into words a user can act on.
function M.describe(err, path)
  local e = tostring(err)
  if e:match("ECONNREFUSED") then
    return ("stale socket %s: connection refused (its supervisor is gone; `sup ls` removes it)"):format(path)
  elseif e:match("ENOENT") then
    return ("no socket %s (the session ended)"):format(path)
  elseif e:match("EACCES") then
    return ("socket %s: permission denied (it belongs to another user)"):format(path)
  end
  return ("socket %s: %s"):format(path, e)
end

-- Stream: one connection that splits incoming bytes into decoded values.
local Stream = {}
Stream.__index = Stream

--- open connects to path; handlers.value(v), handlers.error(msg) (a bad
--- frame from the server) and handlers.eof() run on the main loop.
--- cb(err, stream) runs once.
function M.open(path, handlers, cb)
  local pipe = uv.new_pipe(false)
  pipe:connect(path, function(err)
    if err then
      pipe:close()
      vim.schedule(function()
        cb({ message = M.describe(err, path) })
      end)
      return
    end
    local s = setmetatable({ pipe = pipe, buf = "", h = handlers, path = path }, Stream)
    pipe:read_start(function(rerr, chunk)
      s:_read(rerr, chunk)
    end)
    vim.schedule(function()
      cb(nil, s)
    end)
  end)
end

function Stream:_read(err, chunk)
  if err or not chunk then
    self:close()
    vim.schedule(function()
      if self.h.eof then
        self.h.eof(err and M.describe(err, self.path) or nil)
      end
    end)
    return
  end
  self.buf = self.buf .. chunk
  while #self.buf >= 4 do
    local b1, b2, b3, b4 = self.buf:byte(1, 4)
    local n = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
    if n == 0 or n > M.MAX_FRAME then
      self:_bad(("frame length %d: must be 1..%d"):format(n, M.MAX_FRAME))
      return
    end
    if #self.buf < 4 + n then
      return
    end
    local body = self.buf:sub(5, 4 + n)
    self.buf = self.buf:sub(5 + n)
    local ok, v = pcall(vim.mpack.decode, body)
    if not ok then
      self:_bad("undecodable frame: " .. tostring(v))
      return
    end
    vim.schedule(function()
      self.h.value(nil_to_lua(v))
    end)
  end
end

function Stream:_bad(msg)
  self:close()
  vim.schedule(function()
    if self.h.error then
      self.h.error(msg)
    end
  end)
end

--- write sends bytes in one write.
function Stream:write(bytes)
  if not self.closed then
    self.pipe:write(bytes)
  end
end

function Stream:close()
  if not self.closed then
    self.closed = true
    self.pipe:read_stop()
    self.pipe:close()
  end
end

-- Client: requests and answers, in order, on one connection.
local Client = {}
Client.__index = Client

--- connect opens a request connection; cb(err, client).
function M.connect(path, cb)
  local c = setmetatable({ pending = {}, next_id = 1, path = path }, Client)
  M.open(path, {
    value = function(v)
      c:_answer(v)
    end,
    error = function(msg)
      c:_fail({ message = msg })
    end,
    eof = function(msg)
      c:_fail({ message = msg or ("%s: the server closed the connection"):format(path) })
      if c.on_end then
        c.on_end()
      end
    end,
  }, function(err, s)
    if err then
      return cb(err)
    end
    c.stream = s
    cb(nil, c)
  end)
end

function Client:_answer(v)
  if self.on_event then
    return self.on_event(v)
  end
  local p = self.pending[1]
  if type(v) ~= "table" then
    return self:_fail({ message = "answer is not a map" })
  end
  -- An id-0 error that answers nothing is about the connection itself.
  if v.id == 0 and not v.ok and (not p or p.id ~= 0) then
    local e = v.error or {}
    return self:_fail({ code = e.code, message = e.message or "" })
  end
  if not p then
    return self:_fail({ message = "an answer nobody asked for" })
  end
  table.remove(self.pending, 1)
  if v.id ~= p.id then
    return p.cb({ message = ("answer id %s for request %d"):format(tostring(v.id), p.id) })
  end
  if v.ok then
    p.cb(nil, v.result)
  else
    local e = v.error or {}
    p.cb({ code = e.code or "INTERNAL", message = e.message or "" })
  end
end

function Client:_fail(err)
  local pending = self.pending
  self.pending = {}
  self.stream_err = self.stream_err or err
  for _, p in ipairs(pending) do
    p.cb(err)
  end
  if self.stream then
    self.stream:close()
  end
end

--- call sends one request; cb(err, result). params nil means none; an
--- empty params table is sent as an empty map.
function Client:call(method, params, cb)
  if self.stream.closed then
    return vim.schedule(function()
      cb(self.stream_err or { message = "connection closed" })
    end)
  end
  local id = self.next_id
  self.next_id = id + 1
  local req = { v = M.PROTOCOL, id = id, method = method }
  if params ~= nil then
    req.params = next(params) == nil and vim.empty_dict() or params
  end
  table.insert(self.pending, { id = id, cb = cb })
  self.stream:write(M.frame(req))
end

--- subscribe turns the connection into an event stream: cb(err, names)
--- once, then on_event(event) per event and on_end() at EOF. Nothing else
--- may be sent on it afterwards.
function Client:subscribe(events, on_event, on_end, cb)
  local params = (events and #events > 0) and { events = events } or nil
  self.on_end = on_end
  self:call("subscribe", params, function(err, result)
    if err then
      return cb(err)
    end
    self.on_event = on_event
    cb(nil, result.events)
  end)
end

function Client:close()
  if self.stream then
    self.stream:close()
  end
end

--- request is connect + one call + close: cb(err, result).
function M.request(path, method, params, cb)
  M.connect(path, function(err, c)
    if err then
      return cb(err)
    end
    c:call(method, params, function(cerr, result)
      c:close()
      cb(cerr, result)
    end)
  end)
end

--- await runs fn(done) and waits up to timeout_ms for done(...) to be
--- called, returning its arguments: for tests and completion only, never
--- the statusline.
function M.await(timeout_ms, fn)
  local res
  fn(function(...)
    res = { n = select("#", ...), ... }
  end)
  if not vim.wait(timeout_ms, function()
    return res ~= nil
  end, 5) then
    return { message = ("timed out after %d ms"):format(timeout_ms) }
  end
  return (table.unpack or unpack)(res, 1, res.n)
end

return M

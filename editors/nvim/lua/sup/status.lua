-- The statusline: the stuck count and the head's name, kept current by
-- events. One `subscribe` connection per session (activity, lifecycle)
-- plus a filesystem watch on the runtime dir for sessions that start;
-- no polling. statusline() only returns a string computed when something
-- changed, so a statusline redraw never waits on a socket.
local client = require("sup.client")
local safetext = require("sup.safetext")
local discover = require("sup.discover")
local queue = require("sup.queue")
local uv = vim.uv or vim.loop -- vim.loop before 0.10

local M = {}

local W = {
  started = false,
  text = "",
  sessions = {}, -- socket path → { name, session_id, waiting_since, skip_until }
  watching = {}, -- socket path → true while a subscription is being set up or runs
  clients = {}, -- socket path → its subscribed connection
  stale = {}, -- socket path → true: refused, retried when the dir changes
  stuck = 0,
  head = nil,
}
M.watch = W -- for tests and :checkhealth

local function format(n, head)
  if n == 0 then
    return ""
  end
  return ("⚠ %d stuck · next: %s"):format(n, head.name)
end

local recompute

-- cooling_timer fires when the next skip cooldown ends: the queue changes
-- then without any event.
local cooling_timer

local function schedule_cooling(now)
  local next_end
  for _, s in pairs(W.sessions) do
    if (s.waiting_since or 0) ~= 0 and (s.skip_until or 0) > now then
      next_end = math.min(next_end or s.skip_until, s.skip_until)
    end
  end
  if cooling_timer then
    cooling_timer:stop()
  end
  if next_end then
    cooling_timer = cooling_timer or uv.new_timer()
    cooling_timer:start(next_end - now + 1, 0, vim.schedule_wrap(function()
      recompute()
    end))
  end
end

function recompute()
  local list = {}
  for _, s in pairs(W.sessions) do
    table.insert(list, s)
  end
  local now = queue.now_ms()
  local n, head = queue.eligible(queue.order(list, now))
  W.stuck, W.head = n, head and head.name or nil
  local text = format(n, head)
  schedule_cooling(now)
  if text ~= W.text then
    W.text = text
    vim.cmd("redrawstatus!")
    vim.cmd("doautocmd <nomodeline> User SupStatus")
  end
end

local function forget(path)
  W.watching[path] = nil
  W.clients[path] = nil
  if W.sessions[path] then
    W.sessions[path] = nil
    recompute()
  end
end

local function refresh_state(path)
  client.request(path, "state", nil, function(err, st)
    if err or not W.watching[path] then
      return
    end
    W.sessions[path] = {
      name = safetext.field(st.name),
      session_id = st.session_id,
      waiting_since = st.waiting_since,
      skip_until = st.skip_until,
    }
    recompute()
  end)
end

-- A socket is bound before it listens: in between, connects are refused
-- as on a stale one. A refused socket is tried again after these delays
-- (ms), which cover that window; after them it counts as stale, tried
-- again only when the runtime dir changes.
local refused_retries = { 20, 50, 100, 200, 400, 800 }

-- watch_session subscribes first, then reads state: the state answer
-- covers every event that arrived before it, and every later event is
-- applied on top.
local function watch_session(path, attempt)
  attempt = attempt or 1
  W.watching[path] = true
  W.stale[path] = nil
  client.connect(path, function(err, c)
    if err then
      if not W.started then
        return
      end
      if attempt <= #refused_retries and (err.message or ""):match("connection refused") then
        return vim.defer_fn(function()
          if W.started and W.watching[path] and not W.clients[path] then
            watch_session(path, attempt + 1)
          end
        end, refused_retries[attempt])
      end
      W.stale[path] = true
      return
    end
    W.clients[path] = c
    c:subscribe({ "activity", "lifecycle" }, function(ev)
      local s = W.sessions[path]
      if not s or type(ev.data) ~= "table" then
        return
      end
      if ev.event == "activity" then
        s.waiting_since = ev.data.waiting_since or s.waiting_since
        s.skip_until = ev.data.skip_until or s.skip_until
        recompute()
      elseif ev.event == "lifecycle" then
        -- Exits and halts stamp waiting_since too: re-read the facts.
        refresh_state(path)
      end
    end, function()
      forget(path)
    end, function(serr)
      if serr then
        return forget(path)
      end
      refresh_state(path)
    end)
  end)
end

local function rescan()
  for _, path in ipairs(discover.sockets(W.dir)) do
    if not W.watching[path] or W.stale[path] then
      watch_session(path)
    end
  end
  -- A socket path that disappeared is forgotten: a new session may reuse it.
  for path in pairs(W.watching) do
    if not W.sessions[path] and not uv.fs_stat(path) then
      W.watching[path], W.stale[path] = nil, nil
    end
  end
end

local rescan_pending = false
local watch_dir -- defined below; a change of the dir may create the watch

local function on_dir_change()
  if rescan_pending then
    return
  end
  rescan_pending = true
  vim.schedule(function()
    rescan_pending = false
    watch_dir()
    rescan()
  end)
end

local function close_event(name)
  if W[name] then
    W[name]:stop()
    W[name]:close()
    W[name] = nil
  end
end

function watch_dir()
  if W.fs_event then
    return
  end
  if uv.fs_stat(W.dir) then
    close_event("parent_event")
    W.fs_event = uv.new_fs_event()
    W.fs_event:start(W.dir, {}, on_dir_change)
  elseif not W.parent_event and uv.fs_stat(vim.fn.fnamemodify(W.dir, ":h")) then
    -- No runtime dir yet (no session ever started): watch its parent for
    -- its creation.
    W.parent_event = uv.new_fs_event()
    W.parent_event:start(vim.fn.fnamemodify(W.dir, ":h"), {}, on_dir_change)
  end
end

--- start begins watching (statusline() calls it the first time).
function M.start()
  if W.started then
    return
  end
  W.started = true
  W.dir = discover.runtime_dir()
  watch_dir()
  rescan()
end

local start_scheduled = false

--- statusline returns "⚠ N stuck · next: NAME", or "" when no session is
--- eligible (the format of `sup status-line`). It never blocks: it returns
--- what the events last computed, and its first call only schedules the
--- start of watching (a scan of the runtime dir and a connect per socket)
--- for after the redraw.
function M.statusline()
  if not W.started and not start_scheduled then
    start_scheduled = true
    vim.schedule(function()
      start_scheduled = false
      M.start()
    end)
  end
  return W.text
end

--- stop closes every connection and watch (for tests and reloads).
function M.stop()
  close_event("fs_event")
  close_event("parent_event")
  for _, c in pairs(W.clients) do
    c:close()
  end
  W.started, W.sessions, W.watching, W.clients, W.stale, W.text = false, {}, {}, {}, {}, ""
end

return M

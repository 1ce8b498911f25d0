-- Finding sessions: the runtime dir rules of specs/ipc.md and one `state`
-- per socket, all asynchronous. Stale sockets (connection refused) are
-- reported, never an error.
local client = require("sup.client")
local safetext = require("sup.safetext")
local uv = vim.uv or vim.loop -- vim.loop before 0.10

local M = {}

--- The runtime dir: $SUP_RUNTIME_DIR, else $XDG_RUNTIME_DIR/sup (an
--- absolute XDG_RUNTIME_DIR only, per the XDG spec), else
--- $TMPDIR/sup-<euid> (TMPDIR defaulting to /tmp).
function M.runtime_dir()
  local env = vim.env
  if env.SUP_RUNTIME_DIR and env.SUP_RUNTIME_DIR ~= "" then
    return env.SUP_RUNTIME_DIR
  end
  local xdg = env.XDG_RUNTIME_DIR
  if xdg and xdg:sub(1, 1) == "/" then
    return xdg .. "/sup"
  end
  local tmp = (env.TMPDIR and env.TMPDIR ~= "") and env.TMPDIR or "/tmp"
  return ("%s/sup-%d"):format(tmp:gsub("/+$", ""), uv.geteuid and uv.geteuid() or uv.getuid())
end

--- Every *.sock path in dir, sorted; an empty list when dir is missing.
function M.sockets(dir)
  local out = {}
  local handle = uv.fs_scandir(dir)
  while handle do
    local name, typ = uv.fs_scandir_next(handle)
    if not name then
      break
    end
    if name:match("%.sock$") and (typ == "socket" or typ == nil) then
      table.insert(out, dir .. "/" .. name)
    end
  end
  table.sort(out)
  return out
end

--- sessions asks every socket of the runtime dir for its state, in
--- parallel, and calls cb({ sessions, stale, errors }) once all answered
--- or timeout_ms passed: sessions are states with .socket added, sorted
--- by name; stale are the refused socket paths; errors the other failures.
function M.sessions(cb, timeout_ms)
  local dir = M.runtime_dir()
  local socks = M.sockets(dir)
  local res = { dir = dir, sessions = {}, stale = {}, errors = {} }
  local left, finished = #socks, false
  local timer = uv.new_timer()
  local function finish()
    if finished then
      return
    end
    finished = true
    timer:stop()
    timer:close()
    table.sort(res.sessions, function(a, b)
      return a.name < b.name or (a.name == b.name and a.session_id < b.session_id)
    end)
    cb(res)
  end
  if left == 0 then
    return vim.schedule(finish)
  end
  timer:start(timeout_ms or 2000, 0, function()
    vim.schedule(function()
      if not finished then
        table.insert(res.errors, ("%d socket(s) did not answer in time"):format(left))
        finish()
      end
    end)
  end)
  for _, path in ipairs(socks) do
    client.request(path, "state", nil, function(err, st)
      if finished then
        return
      end
      if err and (err.message or ""):match("connection refused") then
        table.insert(res.stale, path)
      elseif err then
        table.insert(res.errors, safetext.field((err.code and err.code .. ": " or "") .. err.message))
      else
        st = safetext.state(st) -- the agent's words, before any buffer shows them
        st.socket = path
        table.insert(res.sessions, st)
      end
      left = left - 1
      if left == 0 then
        finish()
      end
    end)
  end
end

--- find picks the session a user named, as `sup` does (broker FindTarget):
--- an exact session id, a name, the session's document path, or a unique
--- id prefix. Returns the session, or nil and an error listing candidates.
function M.find(sessions, target)
  local doc = vim.fn.fnamemodify(target, ":p")
  local by_prefix = {}
  for _, s in ipairs(sessions) do
    if s.session_id == target then
      return s
    end
  end
  local named = {}
  for _, s in ipairs(sessions) do
    if s.name == target or s.document == doc then
      table.insert(named, s)
    elseif s.session_id:sub(1, #target) == target then
      table.insert(by_prefix, s)
    end
  end
  local hits = #named > 0 and named or by_prefix
  if #hits == 1 then
    return hits[1]
  end
  local names = {}
  for _, s in ipairs(sessions) do
    table.insert(names, ("%s (%s)"):format(s.name, s.session_id))
  end
  local list = #names > 0 and table.concat(names, ", ") or "none are running"
  if #hits > 1 then
    return nil, ("target %q is ambiguous: use a session id; sessions: %s"):format(target, list)
  end
  return nil, ("no session %q: a target is a session name, id, id prefix or document; sessions: %s"):format(target, list)
end

return M

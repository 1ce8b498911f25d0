-- :checkhealth sup — the runtime dir, its and the sockets' permissions,
-- and the protocol version each live supervisor's hello reports.
local client = require("sup.client")
local discover = require("sup.discover")
local uv = vim.uv or vim.loop -- vim.loop before 0.10
local bit = require("bit") -- LuaJIT's, or the one Neovim bundles for PUC Lua

local M = {}

-- Neovim 0.10+ has vim.health; 0.7-0.9 the "health" module's report_*.
local h = vim.health or require("health")
local start = h.start or h.report_start
local ok = h.ok or h.report_ok
local warn = h.warn or h.report_warn
local err = h.error or h.report_error
local info = h.info or h.report_info

local function mode_of(stat)
  return bit.band(stat.mode, 511) -- permission bits
end

function M.check()
  start("sup: runtime dir")
  if not vim.mpack or not uv then
    err("this Neovim has no vim.mpack: sup.nvim needs Neovim 0.7 or later")
    return
  end
  local dir = discover.runtime_dir()
  local st = uv.fs_lstat(dir)
  if not st then
    warn(("runtime dir %s does not exist: no sup session has started as this user"):format(dir),
      { "start one with `sup start DOC` (in tmux), or set SUP_RUNTIME_DIR to where yours are" })
    return
  end
  if st.type ~= "directory" then
    err(("runtime dir %s is a %s, not a directory: sup refuses to use it"):format(dir, st.type))
    return
  end
  local euid = uv.geteuid and uv.geteuid() or uv.getuid()
  if st.uid ~= euid then
    err(("runtime dir %s is owned by uid %d, not you (%d): sup refuses to use it"):format(dir, st.uid, euid))
  elseif mode_of(st) ~= 448 then
    err(("runtime dir %s has mode %o, want 700"):format(dir, mode_of(st)))
  else
    ok(("runtime dir %s found (mode 700, yours)"):format(dir))
  end

  start("sup: sessions")
  local socks = discover.sockets(dir)
  if #socks == 0 then
    info("no session sockets in " .. dir)
  end
  for _, path in ipairs(socks) do
    local sst = uv.fs_lstat(path)
    local name = vim.fn.fnamemodify(path, ":t")
    if sst and mode_of(sst) ~= 384 then
      err(("%s has mode %o, want 600"):format(name, mode_of(sst)))
    end
    local herr, hello = client.await(3000, function(done)
      client.request(path, "hello", { client = "sup.nvim/health" }, done)
    end)
    if herr then
      if (herr.message or ""):match("connection refused") then
        warn(("%s is stale: connection refused, its supervisor is gone"):format(name),
          { "`sup ls` removes stale sockets" })
      else
        err(("%s: %s%s"):format(name, herr.code and herr.code .. ": " or "", herr.message or ""))
      end
    elseif hello.protocol ~= client.PROTOCOL then
      err(("%s speaks protocol %s; this plugin speaks %d"):format(name, tostring(hello.protocol), client.PROTOCOL))
    else
      local _, st = client.await(3000, function(done)
        client.request(path, "state", nil, done)
      end)
      local session = type(st) == "table" and st.name and ("session %s, "):format(st.name) or ""
      ok(("%s: %smode 600, sup %s, protocol %d"):format(name, session, hello.server, hello.protocol))
    end
  end
end

return M

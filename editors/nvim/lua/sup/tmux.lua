-- Moving the tmux client to a session's pane, as `sup pick` does
-- (broker/tmux.go): switch-client to the pane's session, select-window,
-- select-pane, all by id. Asynchronous; cb(err_message, done_message).
local M = {}

local function tmux(socket, args, cb)
  local argv = { "tmux" }
  if socket and socket ~= "" then
    vim.list_extend(argv, { "-S", socket })
  end
  vim.list_extend(argv, args)
  local out = {}
  local ok, job = pcall(vim.fn.jobstart, argv, {
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = function(_, data)
      out.stdout = table.concat(data, "\n")
    end,
    on_stderr = function(_, data)
      out.stderr = table.concat(data, "\n")
    end,
    on_exit = function(_, code)
      if code ~= 0 then
        return cb(("tmux %s: %s"):format(table.concat(args, " "), vim.trim(out.stderr or "")))
      end
      cb(nil, vim.trim(out.stdout or ""))
    end,
  })
  if not ok or job <= 0 then
    cb("tmux is not installed (or not in PATH)")
  end
end

--- The tmux server of this nvim ($TMUX's socket), "" outside tmux.
function M.caller_socket()
  return ((vim.env.TMUX or ""):match("^([^,]*)")) or ""
end

--- jump moves this nvim's tmux client to session st's pane.
function M.jump(st, cb)
  local socket = M.caller_socket()
  if socket == "" then
    return cb(("not inside tmux ($TMUX is unset); %s is in pane %s"):format(st.name, st.tmux_pane ~= "" and st.tmux_pane or "(none)"))
  end
  if (st.tmux_pane or "") == "" then
    return cb(("%s does not run in a tmux pane"):format(st.name))
  end
  if (st.tmux_socket or "") ~= "" and st.tmux_socket ~= socket then
    return cb(("%s runs in pane %s of another tmux server (%s, yours is %s)"):format(st.name, st.tmux_pane, st.tmux_socket, socket))
  end
  local fmt = "#{session_id}\t#{window_id}\t#{pane_id}"
  tmux(socket, { "display-message", "-p", "-t", st.tmux_pane, fmt }, function(err, where)
    if err then
      return cb(("%s: its pane %s is gone: %s"):format(st.name, st.tmux_pane, err))
    end
    local sess, win, pane = where:match("^(%S+)\t(%S+)\t(%S+)$")
    if pane ~= st.tmux_pane then
      return cb(("%s: pane %s: unexpected answer %q"):format(st.name, st.tmux_pane, where))
    end
    tmux(socket, { "switch-client", "-t", sess, ";", "select-window", "-t", win, ";", "select-pane", "-t", pane }, function(jerr)
      if jerr then
        return cb(("jump to %s: %s"):format(st.name, jerr))
      end
      cb(nil, ("switched to %s (pane %s)"):format(st.name, pane))
    end)
  end)
end

return M

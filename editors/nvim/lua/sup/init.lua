-- sup.nvim: sup's sessions, triggers, stuck queue and status from Neovim.
-- Everything talks to the supervisors' sockets directly (specs/ipc.md);
-- nothing blocks the editor except target completion (bounded, 500 ms).
local client = require("sup.client")
local discover = require("sup.discover")
local queue = require("sup.queue")
local safetext = require("sup.safetext")
local status = require("sup.status")
local tmux = require("sup.tmux")

local M = {}

M.version = "0.1.0"
M.client_name = "sup.nvim/" .. M.version

M.config = {
  thread_id = "nvim", -- trigger thread: rate limit and loop guard count per thread
  discover_timeout_ms = 2000,
}

--- setup merges opts into M.config (all optional).
function M.setup(opts)
  M.config = vim.tbl_extend("force", M.config, opts or {})
end

local function notify(msg, level)
  -- msg may quote a supervisor's error or an agent's name: safe lines.
  vim.notify("sup: " .. safetext.text(msg), level or vim.log.levels.INFO)
end

local function errtext(err)
  return (err.code and err.code .. ": " or "") .. (err.message or "")
end

local function stale_note(res)
  if #res.stale == 0 then
    return nil
  end
  local names = {}
  for _, p in ipairs(res.stale) do
    table.insert(names, vim.fn.fnamemodify(p, ":t"))
  end
  return ("%d stale socket(s) ignored (supervisor gone, `sup ls` removes them): %s"):format(#res.stale, table.concat(names, ", "))
end

-- with_target discovers the sessions and calls fn(session) for target,
-- or notifies why there is none.
local function with_target(target, fn)
  discover.sessions(function(res)
    local s, err = discover.find(res.sessions, target or "")
    if not s then
      local note = stale_note(res)
      return notify(err .. (note and "\n" .. note or ""), vim.log.levels.ERROR)
    end
    fn(s)
  end, M.config.discover_timeout_ms)
end

local function ago(ms)
  local s = math.max(0, math.floor((queue.now_ms() - ms) / 1000))
  if s < 60 then
    return s .. "s"
  elseif s < 3600 then
    return ("%dm%02ds"):format(s / 60, s % 60)
  end
  return ("%dh%02dm"):format(s / 3600, (s % 3600) / 60)
end

local function waiting_text(s, now)
  if (s.waiting_since or 0) == 0 then
    return "-"
  end
  local t = ago(s.waiting_since)
  if (s.skip_until or 0) > now then
    t = t .. " (skipped)"
  end
  return t
end

local function jump(s)
  tmux.jump(s, function(err, msg)
    if err then
      notify(err, vim.log.levels.ERROR)
    else
      notify(msg)
    end
  end)
end

--- session_lines renders sessions as the :Sup buffer's lines; the i-th
--- session is on line i + 1 (after the header).
function M.session_lines(res)
  local now = queue.now_ms()
  local rows = { { "NAME", "WORKSPACE/ROLE", "ACTIVITY", "WAITING" } }
  for _, s in ipairs(res.sessions) do
    local wr = (s.workspace ~= "" or s.role ~= "") and (s.workspace .. "/" .. s.role) or "-"
    local act = s.activity
    if s.lifecycle ~= "running" then
      act = act .. " (" .. s.lifecycle .. ")"
    end
    table.insert(rows, { s.name, wr, act, waiting_text(s, now) })
  end
  local widths = {}
  for _, r in ipairs(rows) do
    for i, c in ipairs(r) do
      widths[i] = math.max(widths[i] or 0, vim.fn.strdisplaywidth(c))
    end
  end
  local lines = {}
  for _, r in ipairs(rows) do
    local cells = {}
    for i, c in ipairs(r) do
      cells[i] = c .. string.rep(" ", widths[i] - vim.fn.strdisplaywidth(c))
    end
    table.insert(lines, vim.trim(table.concat(cells, "  ")))
  end
  if #res.sessions == 0 then
    table.insert(lines, ("(no sessions in %s)"):format(res.dir))
  end
  for _, extra in ipairs({ stale_note(res), #res.errors > 0 and table.concat(res.errors, "; ") or nil }) do
    table.insert(lines, "")
    table.insert(lines, extra)
  end
  return lines
end

--- sessions_buffer is :Sup: the sessions in a scratch buffer; <CR> jumps
--- to the session's pane, r refreshes, q closes.
function M.sessions_buffer()
  discover.sessions(function(res)
    local buf = vim.fn.bufnr("sup://sessions")
    if buf == -1 then
      buf = vim.api.nvim_create_buf(false, true)
      vim.api.nvim_buf_set_name(buf, "sup://sessions")
      vim.bo[buf].bufhidden = "wipe"
      vim.bo[buf].filetype = "sup"
    end
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, M.session_lines(res))
    vim.bo[buf].modifiable = false
    vim.b[buf].sup_sessions = res.sessions
    local map = function(lhs, fn, desc)
      vim.keymap.set("n", lhs, fn, { buffer = buf, nowait = true, desc = desc })
    end
    map("<CR>", function()
      local s = res.sessions[vim.api.nvim_win_get_cursor(0)[1] - 1]
      if s then
        jump(s)
      end
    end, "sup: jump to the session's pane")
    map("r", M.sessions_buffer, "sup: refresh")
    map("q", "<cmd>close<cr>", "sup: close")
    if vim.fn.bufwinid(buf) == -1 then
      vim.cmd("botright split")
      vim.api.nvim_win_set_buf(0, buf)
    end
  end, M.config.discover_timeout_ms)
end

--- complete lists the live session names starting with arglead (for
--- command-line completion; waits at most 500 ms).
function M.complete(arglead)
  local res = client.await(500, function(done)
    discover.sessions(done, 450)
  end)
  local out = {}
  for _, s in ipairs((res and res.sessions) or {}) do
    if s.name:sub(1, #arglead) == arglead then
      table.insert(out, s.name)
    end
  end
  return out
end

local trigger_seq = 0

--- selection_prompt builds a trigger from lines l1..l2 of buf: the text
--- with its file:line context, and a reason naming the file.
function M.selection_prompt(buf, l1, l2)
  local name = vim.api.nvim_buf_get_name(buf)
  local file = name ~= "" and vim.fn.fnamemodify(name, ":~:.") or "[No Name]"
  local loc = l1 == l2 and ("%s:%d"):format(file, l1) or ("%s:%d-%d"):format(file, l1, l2)
  local lines = vim.api.nvim_buf_get_lines(buf, l1 - 1, l2, false)
  local prompt = loc .. "\n" .. table.concat(lines, "\n")
  -- Only [A-Za-z0-9._:-] survive in a reason (specs/triggers.md).
  local reason = ("nvim:%s:%s"):format((file:gsub("[^%w._:-]+", "_")), l1 == l2 and l1 or (l1 .. "-" .. l2))
  return prompt, reason, loc
end

local final = { delivered = true, timeout = true, failed = true }

local function report(target, loc, r)
  if r.result == "delivered" then
    notify(("%s delivered to %s (%d attempt%s)"):format(loc, target, r.attempts or 1, (r.attempts or 1) == 1 and "" or "s"))
  elseif r.result == "deferred" then
    notify(("%s deferred by %s (%s): it goes when the session is free"):format(loc, target, r.error_code or "?"), vim.log.levels.WARN)
  elseif r.result == "accepted" or r.result == "already_active" then
    return
  else
    notify(("%s %s at %s: %s%s"):format(loc, r.result, target, r.error_code and r.error_code ~= "" and r.error_code .. ": " or "", r.message or ""), vim.log.levels.ERROR)
  end
end

--- trigger is :SupTrigger: sends lines l1..l2 of the current buffer to
--- target. The outcome arrives through vim.notify: the immediate one
--- (deferred, refused) from the answer, the final one (delivered, timeout,
--- failed) from the session's `trigger` event. Returns the trigger id.
function M.trigger(target, l1, l2, opts)
  opts = opts or {}
  local prompt, reason, loc = M.selection_prompt(0, l1, l2)
  trigger_seq = trigger_seq + 1
  local id = ("nvim-%d-%d-%d"):format(os.time(), vim.fn.getpid(), trigger_seq)
  local params = { trigger_id = id, thread_id = M.config.thread_id, reason = reason, prompt = prompt, requester = M.client_name }
  if opts.force then
    local why = opts.override_reason ~= nil and opts.override_reason ~= "" and opts.override_reason or ("forced from " .. loc)
    params.force_override = true
    params.override_reason = why:match("^%a+_override:") and why or ("human_override: " .. why)
  end
  with_target(target, function(s)
    -- Subscribe before sending, so the final outcome cannot be missed.
    client.connect(s.socket, function(err, sub)
      if err then
        return notify(err.message, vim.log.levels.ERROR)
      end
      local done = false
      local function finish(r)
        if not done then
          done = true
          sub:close()
          report(s.name, loc, r)
        end
      end
      sub:subscribe({ "trigger" }, function(ev)
        if ev.data and ev.data.trigger_id == id and final[ev.data.result] then
          finish(ev.data)
        end
      end, function()
        if not done then
          done = true
          notify(("%s: %s ended before the trigger's outcome"):format(loc, s.name), vim.log.levels.ERROR)
        end
      end, function(serr)
        if serr then
          sub:close()
          return notify(errtext(serr), vim.log.levels.ERROR)
        end
        client.request(s.socket, "trigger", params, function(terr, r)
          if terr then
            done = true
            sub:close()
            return notify(("%s not sent to %s: %s"):format(loc, s.name, errtext(terr)), vim.log.levels.ERROR)
          end
          if final[r.result] then
            return finish(r) -- a repeated id: its first outcome
          end
          report(s.name, loc, r)
        end)
      end)
    end)
  end)
  return id
end

--- queue_select is :SupQueue: the stuck queue in `sup queue` order through
--- vim.ui.select; the choice's pane gets the tmux client.
function M.queue_select()
  discover.sessions(function(res)
    local now = queue.now_ms()
    local q = queue.order(res.sessions, now)
    if #q == 0 then
      return notify("nobody is stuck" .. (#res.stale > 0 and " (" .. stale_note(res) .. ")" or ""))
    end
    vim.ui.select(q, {
      prompt = "sup: stuck queue",
      format_item = function(s)
        return ("%s  %s  waiting %s%s"):format(s.name, s.activity, waiting_text(s, now), s.reason ~= "" and "  " .. s.reason or "")
      end,
    }, function(choice)
      if choice then
        jump(choice)
      end
    end)
  end, M.config.discover_timeout_ms)
end

--- answer is :SupAnswer: answers target's prompt with choice (yes, no,
--- always, 1-9 or text) through the `answer` method, sending `expect`: the
--- prompt_id of the prompt the session showed when it was looked up, so a
--- prompt that changed meanwhile is refused (PROMPT_CHANGED), never
--- answered. A sup without the method, and a session at no prompt, are
--- told apart from a failure.
function M.answer(target, choice)
  with_target(target, function(s)
    client.request(s.socket, "hello", { client = M.client_name }, function(err, hello)
      if err then
        return notify(errtext(err), vim.log.levels.ERROR)
      end
      if not vim.tbl_contains(hello.methods or {}, "answer") then
        return notify(("%s's sup (%s) has no `answer` method: answer in its pane (:Sup, <CR>)"):format(s.name, hello.server or "?"), vim.log.levels.WARN)
      end
      if type(s.prompt_id) ~= "string" or s.prompt_id == "" then
        return notify(("%s shows no prompt to answer (activity %s)"):format(s.name, tostring(s.activity)), vim.log.levels.WARN)
      end
      client.request(s.socket, "answer", { choice = choice, expect = s.prompt_id, requester = M.client_name }, function(aerr)
        if aerr then
          return notify(("answer to %s: %s"):format(s.name, errtext(aerr)), vim.log.levels.ERROR)
        end
        notify(("answered %s: %s"):format(s.name, choice))
      end)
    end)
  end)
end

--- statusline returns "⚠ N stuck · next: NAME", or "" when nobody waits;
--- kept current by events, never blocking. For a plain 'statusline':
---   set statusline=%{v:lua.require'sup'.statusline()}
M.statusline = status.statusline

return M

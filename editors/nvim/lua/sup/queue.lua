-- The stuck queue, ordered as `sup queue` orders it (broker/queue.go):
-- sessions waiting on the human (waiting_since ≠ 0), eligible ones first,
-- oldest waiting_since first, then the ones cooling down after a skip;
-- ties by session id.
local M = {}

--- queue returns the waiting sessions in queue order; each entry is the
--- session with .cooling set.
function M.order(sessions, now_ms)
  local q = {}
  for _, s in ipairs(sessions) do
    if (s.waiting_since or 0) ~= 0 then
      s.cooling = (s.skip_until or 0) > now_ms
      table.insert(q, s)
    end
  end
  table.sort(q, function(a, b)
    if a.cooling ~= b.cooling then
      return not a.cooling
    end
    if a.waiting_since ~= b.waiting_since then
      return a.waiting_since < b.waiting_since
    end
    return a.session_id < b.session_id
  end)
  return q
end

--- eligible counts the entries that may be head; head is the first.
function M.eligible(q)
  local n = 0
  for _, s in ipairs(q) do
    if not s.cooling then
      n = n + 1
    end
  end
  return n, (q[1] and not q[1].cooling) and q[1] or nil
end

--- now_ms is the wall clock in unix milliseconds (the protocol's times).
function M.now_ms()
  local sec, usec = (vim.uv or vim.loop).gettimeofday()
  return sec * 1000 + math.floor(usec / 1000)
end

return M

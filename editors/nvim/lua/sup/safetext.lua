-- sup's one rule for untrusted text, in Lua (internal/safetext in Go;
-- specs/security.md, "Untrusted text"). Everything a session's state says
-- came from an agent; before a buffer, the statusline or vim.notify shows
-- it, C0 controls (newline and tab too: a field is one line), DEL, C1
-- controls, bidi/isolate controls and line separators become visible
-- escapes (\x1b, \n, \u202e), invalid UTF-8 bytes become \xNN, and a
-- field keeps at most MAX_FIELD bytes of its input, then "…".
-- plugin_test.go checks field() against Go's safetext.Field on the same
-- hostile corpus.
local M = {}

M.MAX_FIELD = 1024

local named = { [10] = "\\n", [13] = "\\r", [9] = "\\t" }

-- unsafe reports whether code point cp is escaped.
local function unsafe(cp)
  return cp < 0x20 or cp == 0x7f or (cp >= 0x80 and cp <= 0x9f) or cp == 0x061c or cp == 0x200e or cp == 0x200f
    or (cp >= 0x202a and cp <= 0x202e) or (cp >= 0x2066 and cp <= 0x2069) or cp == 0x2028 or cp == 0x2029
end

-- decode is the code point at byte i of s and its length, or nil when the
-- bytes there are not valid UTF-8 (as Go's decoder: no overlong forms,
-- no surrogates, nothing above U+10FFFF).
local function decode(s, i)
  local c = s:byte(i)
  if c < 0x80 then
    return c, 1
  end
  local n, lo, hi, cp
  if c >= 0xc2 and c <= 0xdf then
    n, cp = 2, c - 0xc0
  elseif c >= 0xe0 and c <= 0xef then
    n, cp = 3, c - 0xe0
  elseif c >= 0xf0 and c <= 0xf4 then
    n, cp = 4, c - 0xf0
  else
    return nil
  end
  lo, hi = 0x80, 0xbf
  if c == 0xe0 then
    lo = 0xa0
  elseif c == 0xed then
    hi = 0x9f
  elseif c == 0xf0 then
    lo = 0x90
  elseif c == 0xf4 then
    hi = 0x8f
  end
  for k = 1, n - 1 do
    local b = s:byte(i + k)
    if not b or b < lo or b > hi then
      return nil
    end
    lo, hi = 0x80, 0xbf
    cp = cp * 64 + (b - 0x80)
  end
  return cp, n
end

local function clean(s, keep_nl, limit)
  if type(s) ~= "string" then
    return s
  end
  if not s:find("[%z\1-\31\127-\255]") and (not limit or #s <= limit) then
    return s -- printable ASCII: as it is
  end
  local out, i = {}, 1
  while i <= #s do
    if limit and i > limit then
      table.insert(out, "…")
      break
    end
    local cp, n = decode(s, i)
    if not cp then
      table.insert(out, ("\\x%02x"):format(s:byte(i)))
      n = 1
    elseif cp == 10 and keep_nl then
      table.insert(out, "\n")
    elseif cp == 13 and keep_nl and s:byte(i + 1) == 10 then
      table.insert(out, "\r") -- CR LF is a line ending where lines are kept
    elseif named[cp] then
      table.insert(out, named[cp])
    elseif cp < 0x80 and unsafe(cp) then
      table.insert(out, ("\\x%02x"):format(cp))
    elseif unsafe(cp) then
      table.insert(out, ("\\u%04x"):format(cp))
    else
      table.insert(out, s:sub(i, i + n - 1))
    end
    i = i + n
  end
  return table.concat(out)
end

--- field is s as one safe line of at most MAX_FIELD input bytes.
function M.field(s)
  return clean(s, false, M.MAX_FIELD)
end

--- text is s as safe lines: newlines kept, no cap.
function M.text(s)
  return clean(s, true, nil)
end

-- ids are the fields the plugin sends back to a supervisor: kept as they
-- came (they only ever reach a socket, never the screen unescaped).
local ids = { session_id = true, prompt_id = true, tmux_pane = true, tmux_socket = true, socket = true }

--- state is a copy of a session's state with every string in it a field,
--- but the ids the plugin sends back.
function M.state(st)
  local function copy(v, top)
    if type(v) == "string" then
      return M.field(v)
    elseif type(v) ~= "table" then
      return v
    end
    local out = {}
    for k, x in pairs(v) do
      if top and ids[k] then
        out[k] = x
      else
        out[M.field(k)] = copy(x, false)
      end
    end
    return setmetatable(out, getmetatable(v))
  end
  return copy(st, true)
end

return M

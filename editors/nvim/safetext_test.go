//go:build linux

package nvim_test

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/internal/safetext"
	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestSafetextMirrorsGo: the plugin's field() and text() give what Go's
// safetext.Field and Text give, byte for byte, on the hostile corpus and
// the UTF-8 edge cases (overlong forms, surrogates, 4-byte runes, a cut
// rune), so the buffers follow the one rule.
func TestSafetextMirrorsGo(t *testing.T) {
	inputs := []string{"\xc0\xaf", "\xed\xa0\x80", "\xf0\x9f\x98\x80 emoji", "cut \xe2\x80", "\xf4\x90\x80\x80",
		"\u061c\u200e\u200f\u2028\u2029\u2066", "rows\r\nkept\rnot\r", "é" + strings.Repeat("x", 1030), strings.Repeat("\x1b", 1030), ""}
	for _, h := range testutil.Hostile {
		if h.Name != "bigline" { // the cap is tested by the 1,030-byte inputs; a MB would overflow the RESULT line
			inputs = append(inputs, h.Text)
		}
	}
	var in strings.Builder
	for _, s := range inputs {
		in.WriteString(hex.EncodeToString([]byte(s)) + "\n")
	}
	file := filepath.Join(t.TempDir(), "corpus.hex")
	if err := os.WriteFile(file, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sup := testutil.NewRig(t, "")
	n := startNvim(t, sup, t.TempDir(), `
function test()
  local st = require("sup.safetext")
  local function unhex(h) return (h:gsub("%x%x", function(b) return string.char(tonumber(b, 16)) end)) end
  local function tohex(s) return (s:gsub(".", function(c) return ("%02x"):format(c:byte()) end)) end
  local out = {}
  for line in io.lines(`+strconv.Quote(file)+`) do
    local s = unhex(line)
    table.insert(out, { field = tohex(st.field(s)), text = tohex(st.text(s)) })
  end
  emit("RESULT", out)
end
`)
	var out []struct{ Field, Text string }
	n.next("RESULT", &out)
	n.finish()
	if len(out) != len(inputs) {
		t.Fatalf("%d results for %d inputs", len(out), len(inputs))
	}
	for i, s := range inputs {
		f, _ := hex.DecodeString(out[i].Field)
		x, _ := hex.DecodeString(out[i].Text)
		if want := safetext.Field(s); string(f) != want {
			t.Errorf("field(%.40q) = %.60q, Go's Field = %.60q", s, f, want)
		}
		if want := safetext.Text(s); string(x) != want {
			t.Errorf("text(%.40q) = %.60q, Go's Text = %.60q", s, x, want)
		}
	}
}

// TestSupBufferHostile: a session whose summary and name are hostile
// shows in the :Sup buffer, :SupQueue and the statusline as escapes: no
// raw control byte, no newline splitting a line.
func TestSupBufferHostile(t *testing.T) {
	sup := testutil.NewRig(t, "")
	name := "evil#(touch x)#[fg=red]"
	sup.Write("evil.md", "---\nsup:\n  name: "+strconv.Quote(name)+"\n  role: \"r\u00e9le\"\n---\n# evil\n")
	sup.Start("evil", "-echo")
	sock := sup.Socket(name)
	ipctest.Call(t, sock, ipc.MethodHook, ipc.HookParams{Agent: "claude", Event: "Stop", SessionID: "c1",
		Message: "x\x1b]52;c;cHduZWQ=\x07\x1b]0;T\x07\t\u009b2J\u202e"}, nil)
	n := startNvim(t, sup, t.TempDir(), `
function test()
  local items
  vim.ui.select = function(list, opts, on_choice)
    items = {}
    for _, it in ipairs(list) do table.insert(items, opts.format_item(it)) end
    on_choice(nil)
  end
  vim.cmd("SupQueue")
  vim.wait(5000, function() return items ~= nil end, 5)
  vim.cmd("Sup")
  vim.wait(5000, function() return vim.fn.bufnr("sup://sessions") ~= -1 and #vim.api.nvim_buf_get_lines(0, 0, -1, false) > 1 end, 5)
  local sessions
  require("sup.discover").sessions(function(res) sessions = res.sessions end)
  vim.wait(5000, function() return sessions ~= nil end, 5)
  emit("RESULT", { lines = vim.api.nvim_buf_get_lines(0, 0, -1, false), items = items, summary = sessions[1].summary, notes = _G.notes })
end
`)
	var res struct {
		Lines   []string `json:"lines"`
		Items   []string `json:"items"`
		Summary string   `json:"summary"`
	}
	n.next("RESULT", &res)
	n.finish()
	all := strings.Join(append(append(res.Lines, res.Items...), res.Summary), "\n")
	if bad := testutil.RawControl(all); bad != "" {
		t.Errorf("the plugin shows a raw control near %q:\n%s", bad, all)
	}
	if want := `x\x1b]52;c;cHduZWQ=\x07\x1b]0;T\x07\t\u009b2J\u202e`; res.Summary != want {
		t.Errorf("summary %q, want %q", res.Summary, want)
	}
	if !strings.Contains(all, name) {
		t.Errorf("the name is not shown as written:\n%s", all)
	}
}

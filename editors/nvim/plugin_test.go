//go:build linux

package nvim_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

// TestSupTriggerVisualSelection: :'<,'>SupTrigger on a two-line visual
// selection delivers ONE paste holding both lines and the file name, one
// submit, and the outcome arrives through vim.notify.
func TestSupTriggerVisualSelection(t *testing.T) {
	sup, rec, work := recordingAgent(t, "first line\nsecond line\nthird line\n")
	n := startNvim(t, sup, work, `
function test()
  vim.cmd("normal! ggVj\27")
  vim.cmd("'<,'>SupTrigger agent")
  wait_notes(1)
  emit("RESULT", _G.notes)
end
`, "notes.txt")
	wantOneNote(t, n.notes(), "notes.txt:1-2 delivered to agent")
	got := string(readFile(t, rec))
	if c := strings.Count(got, "[BRIDGE_TRIGGER"); c != 1 {
		t.Fatalf("the agent read %d triggers, want 1:\n%q", c, got)
	}
	mustContain(t, "the paste", got, "reason=nvim:notes.txt:1-2]", "\nnotes.txt:1-2\nfirst line\nsecond line\n[/BRIDGE_TRIGGER]")
	if strings.Contains(got, "third line") || strings.Count(got, "\r") != 1 {
		t.Fatalf("the agent read %q: want the two selected lines and one submit", got)
	}
}

// TestStatuslineFollowsEvents: the statusline shows the stuck count and
// head, changes when sessions get stuck, make progress or are skipped
// (events, no polling), and when a skip's cooldown ends (a timer set for
// that moment); no call waits or does I/O.
func TestStatuslineFollowsEvents(t *testing.T) {
	sup := testutil.NewRig(t, "")
	sup.Start("a", "-echo")
	sup.Start("b", "-echo")
	socks := map[string]string{"a": sup.Socket("a"), "b": sup.Socket("b")}
	n := startNvim(t, sup, t.TempDir(), `
function test()
  local sup = require("sup")
  local uv = vim.uv or vim.loop
  -- Every call that could block or do I/O, counted while the statusline
  -- runs: it must make none (it reads what events left; a start it needs
  -- is scheduled outside the call).
  local inside, blocking = false, {}
  local function watch(tbl, name, label)
    local f = tbl[name]
    if type(f) ~= "function" then return end
    rawset(tbl, name, function(...)
      if inside then blocking[label] = (blocking[label] or 0) + 1 end
      return f(...)
    end)
  end
  watch(vim, "wait", "vim.wait")
  watch(vim, "system", "vim.system")
  watch(vim.fn, "system", "vim.fn.system")
  watch(vim.fn, "systemlist", "vim.fn.systemlist")
  watch(vim.fn, "jobstart", "vim.fn.jobstart")
  watch(io, "open", "io.open")
  watch(io, "popen", "io.popen")
  for _, n in ipairs({ "fs_stat", "fs_lstat", "fs_scandir", "fs_open", "fs_read", "new_pipe", "pipe_connect", "new_timer", "new_fs_event", "spawn" }) do
    watch(uv, n, "uv." .. n)
  end
  local max_ns, max_at, calls = 0, 0, 0
  local function sl()
    local t0 = uv.hrtime()
    inside = true
    local s = sup.statusline()
    inside = false
    local d = uv.hrtime() - t0
    calls = calls + 1
    if d > max_ns then max_ns, max_at = d, calls end
    return s
  end
  local w = require("sup.status").watch
  local function watched()
    local n = 0
    for _ in pairs(w.sessions) do n = n + 1 end
    return n
  end
  sl()
  if not vim.wait(10000, function() sl() return watched() == 2 end, 1) then
    error("the two sessions are not watched: " .. vim.inspect(w))
  end
  local cur = sl()
  emit("READY", cur)
  for _ = 1, 6 do
    local prev = cur
    if not vim.wait(15000, function() cur = sl() return cur ~= prev end, 1) then
      error("the statusline stayed " .. vim.inspect(prev))
    end
    emit("LINE", cur)
  end
  -- The same string through a plain 'statusline'.
  vim.o.statusline = "%{v:lua.require'sup'.statusline()}"
  emit("PLAIN", vim.api.nvim_eval_statusline(vim.o.statusline, {}).str)
  emit("COST", { max_us = max_ns / 1000, max_at = max_at, calls = calls, blocking = next(blocking) and blocking or vim.empty_dict() })
end
`)
	var line string
	n.next("READY", &line)
	if line != "" {
		t.Fatalf("statusline before anyone is stuck: %q, want empty", line)
	}
	for _, step := range []struct {
		session, event, want string
	}{
		{"a", "Stop", "⚠ 1 stuck · next: a"},
		{"b", "Stop", "⚠ 2 stuck · next: a"},
		{"a", "UserPromptSubmit", "⚠ 1 stuck · next: b"},
		{"a", "Stop", "⚠ 2 stuck · next: b"},
		// Skipped: b cools down for 700 ms and goes to the queue's tail.
		{"b", "skip", "⚠ 1 stuck · next: a"},
		// The cooldown's end changes the queue without an event.
		{"", "", "⚠ 2 stuck · next: a"},
	} {
		switch step.event {
		case "skip":
			ipctest.Call(t, socks[step.session], ipc.MethodSkip, map[string]any{"cooldown_ms": 700}, nil)
		case "":
		default:
			ipctest.Hook(t, socks[step.session], step.session, step.event)
		}
		n.next("LINE", &line)
		if line != step.want {
			t.Fatalf("after %q on %q the statusline is %q, want %q", step.event, step.session, line, step.want)
		}
	}
	n.next("PLAIN", &line)
	if line != "⚠ 2 stuck · next: a" {
		t.Fatalf("a plain 'statusline' of %%{v:lua.require'sup'.statusline()} shows %q", line)
	}
	var cost struct {
		MaxUS    float64        `json:"max_us"`
		MaxAt    int            `json:"max_at"`
		Calls    int            `json:"calls"`
		Blocking map[string]int `json:"blocking"`
	}
	n.next("COST", &cost)
	n.finish()
	// The time is a figure, not the check: a loaded CI machine once took
	// 7 ms for a call that does no I/O. What must hold is that no call
	// waits or does I/O.
	t.Logf("statusline: %d calls, the slowest (number %d) %.1f µs", cost.Calls, cost.MaxAt, cost.MaxUS)
	if len(cost.Blocking) > 0 {
		t.Fatalf("statusline calls made calls that block or do I/O (name: count): %v; it must only read what events left", cost.Blocking)
	}
}

// TestCheckhealth: :checkhealth sup finds the runtime dir with its modes
// and each live session's protocol version, all OK.
func TestCheckhealth(t *testing.T) {
	sup := testutil.NewRig(t, "")
	sup.Start("agent", "-echo")
	sock := sup.Socket("agent")
	n := startNvim(t, sup, t.TempDir(), `
function test()
  vim.cmd("checkhealth sup")
  emit("RESULT", vim.api.nvim_buf_get_lines(0, 0, -1, false))
end
`)
	var lines []string
	n.next("RESULT", &lines)
	n.finish()
	report := strings.Join(lines, "\n")
	mustContain(t, ":checkhealth sup", report, "runtime dir "+sup.RuntimeDir()+" found (mode 700, yours)",
		filepath.Base(sock)+": session agent, mode 600, sup ", "protocol 1")
	if strings.Contains(report, "ERROR") || strings.Contains(report, "WARN") {
		t.Fatalf(":checkhealth sup is not all OK:\n%s", report)
	}
}

// staleSocket leaves a socket file nobody listens on in dir, as a
// SIGKILLed supervisor does: connecting to it is refused.
func staleSocket(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDeadSocket: a stale socket beside a live session gives clear words
// in :Sup, :checkhealth sup and :SupTrigger, never a Lua error.
func TestDeadSocket(t *testing.T) {
	sup := testutil.NewRig(t, "")
	sup.Start("agent", "-echo")
	sup.Socket("agent")
	staleSocket(t, sup.RuntimeDir(), "deadbeef0000.sock")
	n := startNvim(t, sup, t.TempDir(), `
function test()
  vim.cmd("Sup")
  vim.wait(5000, function() return vim.fn.bufnr("sup://sessions") ~= -1 end, 5)
  emit("SUP", vim.api.nvim_buf_get_lines(vim.fn.bufnr("sup://sessions"), 0, -1, false))
  vim.cmd("checkhealth sup")
  emit("HEALTH", vim.api.nvim_buf_get_lines(0, 0, -1, false))
  vim.cmd("SupTrigger deadbeef0000")
  wait_notes(1)
  local sl = require("sup").statusline()
  vim.wait(300)
  emit("RESULT", { notes = _G.notes, statusline = require("sup").statusline(), errmsg = vim.v.errmsg })
end
`)
	var sup1, health []string
	n.next("SUP", &sup1)
	n.next("HEALTH", &health)
	var res struct {
		Notes      []note `json:"notes"`
		Statusline string `json:"statusline"`
		Errmsg     string `json:"errmsg"`
	}
	n.next("RESULT", &res)
	n.finish()
	mustContain(t, ":Sup", strings.Join(sup1, "\n"), "agent", "1 stale socket(s) ignored (supervisor gone, `sup ls` removes them): deadbeef0000.sock")
	mustContain(t, ":checkhealth sup", strings.Join(health, "\n"), "deadbeef0000.sock is stale: connection refused, its supervisor is gone")
	if len(res.Notes) != 1 {
		t.Fatalf("notifications %+v, want one", res.Notes)
	}
	mustContain(t, ":SupTrigger deadbeef0000", res.Notes[0].Msg, `no session "deadbeef0000"`, "sessions: agent (", "deadbeef0000.sock")
	if res.Statusline != "" || res.Errmsg != "" {
		t.Fatalf("statusline %q, v:errmsg %q: want both empty", res.Statusline, res.Errmsg)
	}
}

// TestSupQueueAndAnswer: :SupQueue offers the stuck sessions in FIFO
// order through vim.ui.select; :SupAnswer says plainly that the session
// shows no prompt; TARGET completes the live session names.
func TestSupQueueAndAnswer(t *testing.T) {
	sup := testutil.NewRig(t, "")
	sup.Start("a", "-echo")
	sup.Start("b", "-echo")
	ipctest.Stuck(t, sup.Socket("b"), "b")
	ipctest.Stuck(t, sup.Socket("a"), "a")
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
  vim.cmd("SupAnswer a 1")
  wait_notes(1)
  emit("RESULT", { items = items, notes = _G.notes, completion = vim.fn.getcompletion("SupTrigger ", "cmdline"),
    completion_b = vim.fn.getcompletion("SupTrigger b", "cmdline") })
end
`)
	var res struct {
		Items       []string `json:"items"`
		Notes       []note   `json:"notes"`
		Completion  []string `json:"completion"`
		CompletionB []string `json:"completion_b"`
	}
	n.next("RESULT", &res)
	n.finish()
	if len(res.Items) != 2 || !strings.HasPrefix(res.Items[0], "b  ") || !strings.HasPrefix(res.Items[1], "a  ") {
		t.Fatalf(":SupQueue offered %q, want b then a (FIFO)", res.Items)
	}
	if strings.Join(res.Completion, ",") != "a,b" || strings.Join(res.CompletionB, ",") != "b" {
		t.Fatalf(":SupTrigger completes %q and, after b, %q: want the live sessions a,b and b", res.Completion, res.CompletionB)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0].Msg, "a shows no prompt to answer (activity ready)") {
		t.Fatalf(":SupAnswer notified %+v, want that a shows no prompt", res.Notes)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSupJump: <CR> on a session in the :Sup buffer moves the attached
// tmux client to that session's pane.
func TestSupJump(t *testing.T) {
	sup := testutil.NewRig(t, "")
	paneA := sup.Start("a", "-echo")
	paneB := sup.Start("b", "-echo")
	sup.Socket("a")
	sup.Socket("b")
	client := sup.Tmux.AttachClient(t)
	sup.Tmux.Run("select-window", "-t", paneB)
	testutil.WaitUntil(t, 20*time.Second, "the client to show b", func() bool { return sup.Tmux.ClientPane(t, client) == paneB })
	tmuxEnv := fmt.Sprintf("TMUX=%s,%d,0", sup.Tmux.SocketPath, sup.Tmux.ServerPID)
	n := startNvimEnv(t, sup, []string{tmuxEnv}, t.TempDir(), `
function test()
  vim.cmd("Sup")
  vim.wait(5000, function() return vim.fn.bufnr("sup://sessions") ~= -1 end, 5)
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  for i, l in ipairs(lines) do
    if l:match("^a ") then vim.api.nvim_win_set_cursor(0, { i, 0 }) end
  end
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<CR>", true, false, true), "x", false)
  wait_notes(1)
  emit("RESULT", _G.notes)
end
`)
	wantOneNote(t, n.notes(), "switched to a (pane "+paneA+")")
	if got := sup.Tmux.ClientPane(t, client); got != paneA {
		t.Fatalf("the client shows %s, want a's pane %s", got, paneA)
	}
}

// TestHelp: doc/sup.txt builds tags and :help sup and :help :SupTrigger
// open it.
func TestHelp(t *testing.T) {
	sup := testutil.NewRig(t, "")
	docs := filepath.Join(t.TempDir(), "rt")
	if err := os.MkdirAll(filepath.Join(docs, "doc"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(docs, "doc", "sup.txt"), string(readFile(t, filepath.Join("doc", "sup.txt"))))
	n := startNvim(t, sup, t.TempDir(), `
function test()
  vim.opt.rtp:prepend("`+docs+`")
  vim.cmd("helptags `+filepath.Join(docs, "doc")+`")
  local got = {}
  for _, topic in ipairs({ "sup", ":SupTrigger", "sup-install", "sup.statusline()" }) do
    vim.cmd("help " .. topic)
    table.insert(got, vim.fn.expand("%:t") .. " " .. vim.api.nvim_get_current_line())
  end
  emit("RESULT", got)
end
`)
	var got []string
	n.next("RESULT", &got)
	n.finish()
	for i, want := range []string{"*sup*", "*:SupTrigger*", "*sup-install*", "*sup.statusline()*"} {
		if !strings.HasPrefix(got[i], "sup.txt ") || !strings.Contains(got[i], want) {
			t.Errorf("help topic %d: %q, want sup.txt at %s", i, got[i], want)
		}
	}
}

// operatorBusy types a key into the agent's pane and waits until its
// supervisor counts the operator as busy.
func operatorBusy(t *testing.T, sup *testutil.Rig, pane, sock, key string) {
	t.Helper()
	sup.Tmux.SendLiteral(pane, key)
	testutil.WaitUntil(t, 20*time.Second, "operator busy", func() bool {
		return ipctest.State(t, sock).OperatorBusy
	})
}

// TestSupTriggerDeferredAndForced: while the operator types in the pane a
// trigger is deferred (OPERATOR_BUSY, told at once) and delivered later
// (told again); :SupTrigger! goes at once, with the human_override reason
// sup requires.
func TestSupTriggerDeferredAndForced(t *testing.T) {
	sup := testutil.NewRig(t, triggerConfig)
	pane := sup.Start("agent", "-ready", "-raw", "-ack")
	sock := sup.Socket("agent")
	work := t.TempDir()
	writeFile(t, filepath.Join(work, "notes.txt"), "only line\n")
	lua := func(cmd string, notes int) string {
		return fmt.Sprintf(`
function test()
  vim.cmd(%q)
  wait_notes(%d)
  emit("RESULT", _G.notes)
end
`, cmd, notes)
	}

	operatorBusy(t, sup, pane, sock, "x")
	n := startNvim(t, sup, work, lua("SupTrigger agent", 2), "notes.txt")
	notes := n.notes()
	if len(notes) != 2 || !strings.Contains(notes[0].Msg, "notes.txt:1 deferred by agent (OPERATOR_BUSY)") || notes[0].Level != 3 ||
		!strings.Contains(notes[1].Msg, "notes.txt:1 delivered to agent") {
		t.Fatalf("notifications %+v, want deferred (OPERATOR_BUSY, a warning), then delivered", notes)
	}

	operatorBusy(t, sup, pane, sock, "y")
	n = startNvim(t, sup, work, lua("SupTrigger! agent I asked for it", 1), "notes.txt")
	wantOneNote(t, n.notes(), "notes.txt:1 delivered to agent")
	audit := string(readFile(t, filepath.Join(sup.Env["XDG_STATE_HOME"], "sup", "audit.jsonl")))
	mustContain(t, "the audit", audit, `"override_reason":"human_override: I asked for it"`, `"collision_gate":"bypassed"`, `"requester":"sup.nvim/`)
}

// TestStatuslineSeesNewSessions: watching starts before the runtime dir
// exists; a session started later is picked up through the filesystem
// watch (no polling), and one that ends drops out.
func TestStatuslineSeesNewSessions(t *testing.T) {
	sup := testutil.NewRig(t, "")
	parent, err := os.MkdirTemp("", "sup-nv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	sup.Env["SUP_RUNTIME_DIR"] = filepath.Join(parent, "rt") // not there yet
	n := startNvim(t, sup, t.TempDir(), `
function test()
  local sup = require("sup")
  sup.statusline()
  vim.wait(200)
  emit("READY", sup.statusline())
  local cur = sup.statusline()
  for _ = 1, 2 do
    local prev = cur
    if not vim.wait(20000, function() cur = sup.statusline() return cur ~= prev end, 5) then
      error("the statusline stayed " .. vim.inspect(prev))
    end
    emit("LINE", cur)
  end
end
`)
	var line string
	n.next("READY", &line)
	pane := sup.Start("late", "-echo")
	ipctest.Hook(t, sup.Socket("late"), "late", "Stop")
	n.next("LINE", &line)
	if line != "⚠ 1 stuck · next: late" {
		t.Fatalf("after a new session got stuck the statusline is %q", line)
	}
	sup.Tmux.KillPane(pane) // its supervisor ends: EOF on the subscription
	n.next("LINE", &line)
	if line != "" {
		t.Fatalf("after the session ended the statusline is %q, want empty", line)
	}
	n.finish()
}

// TestSupAnswerSendsExpect: against a server that has the `answer` method
// (an ipc.Server in this process, so the params it gets can be read),
// :SupAnswer sends the choice and `expect`, the prompt_id of the prompt
// the user saw.
func TestSupAnswerSendsExpect(t *testing.T) {
	sup := testutil.NewRig(t, "")
	future := ipctest.Serve(t, sup.RuntimeDir(), ipc.State{SessionID: "0123456789ab", Name: "future", Document: "/x.md",
		Activity: "needs_confirmation", Lifecycle: "running", WaitingSince: 1700000000123, PromptID: "0f1e2d3c4b5a6978"})
	answers := make(chan map[string]any, 1)
	future.Server.Handle("answer", func(_ context.Context, req *ipc.Request) (any, error) {
		var p map[string]any
		if err := req.DecodeParams(&p); err != nil {
			return nil, err
		}
		answers <- p
		return map[string]any{"answered": true}, nil
	})
	n := startNvim(t, sup, t.TempDir(), `
function test()
  vim.cmd("SupAnswer future 2")
  wait_notes(1)
  emit("RESULT", _G.notes)
end
`)
	wantOneNote(t, n.notes(), "answered future: 2")
	p := <-answers
	if p["choice"] != "2" || p["expect"] != "0f1e2d3c4b5a6978" || p["requester"] == "" || len(p) != 3 {
		t.Fatalf("answer params %v, want choice 2, expect 0f1e2d3c4b5a6978 and the requester", p)
	}
}

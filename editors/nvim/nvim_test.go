//go:build linux

// Tests of the Neovim plugin: a real nvim --headless with the plugin on its
// runtimepath, against live supervisors of fakeagent.
package nvim_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testutil.RemoveBuilds()
	os.Exit(code)
}

// triggerConfig: quick acks through fakeagent's marker, and room for the
// benchmark's rounds on one thread.
const triggerConfig = `activity: {quiet_window: 1s}
trigger:
  recheck: 100ms
  ack_timeout: 3s
  retry_backoff: 100ms
  ack_marker: "ACK_TRIGGER:{id}"
  rate_limit: 1000
  loop_no_progress: 1000
  loop_same_prompt: 1000
`

// prelude runs before each test's Lua: vim.notify is collected, emit()
// prints one RESULT line of JSON for the Go side, and any Lua error ends
// nvim with LUAERROR and exit 1.
const prelude = `
_G.notes = {}
vim.notify = function(msg, level)
  table.insert(_G.notes, { msg = msg, level = level or vim.log.levels.INFO })
end
function _G.emit(tag, v)
  io.stdout:write(tag .. " " .. vim.json.encode(v) .. "\n")
  io.stdout:flush()
end
function _G.wait_notes(n, ms)
  if not vim.wait(ms or 30000, function() return #_G.notes >= n end, 5) then
    error("timed out waiting for " .. n .. " notification(s), have " .. vim.inspect(_G.notes))
  end
end
`

const epilogue = `
local ok, err = xpcall(test, debug.traceback)
if not ok then
  io.stdout:write("LUAERROR " .. tostring(err) .. "\n")
  vim.cmd("cquit 1")
end
vim.cmd("qall!")
`

// nvim is one headless Neovim running a test's Lua.
type nvim struct {
	t      testing.TB
	cmd    *exec.Cmd
	lines  chan string
	stderr strings.Builder
	done   chan error
}

// requireNvim finds nvim: missing, the test skips locally and fails in CI.
// recordingAgent supervises the session "agent": a fakeagent that acks
// triggers and records every byte it reads in rec. work is a fresh dir
// holding notes.txt with notes in it, for nvim to open.
func recordingAgent(t testing.TB, notes string) (sup *testutil.Rig, rec, work string) {
	t.Helper()
	sup = testutil.NewRig(t, triggerConfig)
	rec = filepath.Join(sup.Dir, "rec")
	sup.Start("agent", "-ready", "-raw", "-ack", "-bracketed", "-record", rec)
	sup.Socket("agent")
	work = t.TempDir()
	writeFile(t, filepath.Join(work, "notes.txt"), notes)
	return sup, rec, work
}

func requireNvim(t testing.TB) string {
	t.Helper()
	return testutil.Program(t, "nvim", "apt-get install -y neovim")
}

// startNvim runs nvim --headless with the plugin loaded, in dir, with the
// supervisors' environment, opening files, and runs lua (which defines a
// function test).
func startNvim(t testing.TB, sup *testutil.Rig, dir, lua string, files ...string) *nvim {
	t.Helper()
	return startNvimEnv(t, sup, nil, dir, lua, files...)
}

// startNvimEnv is startNvim with env added to the environment.
func startNvimEnv(t testing.TB, sup *testutil.Rig, env []string, dir, lua string, files ...string) *nvim {
	t.Helper()
	bin := requireNvim(t)
	plugin, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "test.lua")
	if err := os.WriteFile(script, []byte(prelude+lua+epilogue), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--headless", "--clean", "-u", "NONE", "-i", "NONE", "-n",
		"--cmd", "set rtp^=" + plugin, "-c", "runtime! plugin/sup.lua", "-c", "luafile " + script}
	args = append(args, files...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	n := &nvim{t: t, cmd: exec.CommandContext(ctx, bin, args...), lines: make(chan string, 100), done: make(chan error, 1)}
	n.cmd.Dir = dir
	n.cmd.Env = append(withoutTmux(sup.Environ()), env...)
	n.cmd.Stderr = &n.stderr
	out, err := n.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go n.read(out)
	t.Cleanup(func() {
		_ = n.cmd.Process.Kill() // Best effort: usually gone already.
		<-n.done
	})
	return n
}

func withoutTmux(env []string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, "TMUX=") && !strings.HasPrefix(e, "TMUX_PANE=") {
			out = append(out, e)
		}
	}
	return out
}

func (n *nvim) read(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		n.lines <- sc.Text()
	}
	close(n.lines)
	n.done <- n.cmd.Wait()
}

// next waits for the next line tagged tag (RESULT, READY, …) and decodes
// its JSON into v; a LUAERROR or nvim's end fails the test.
func (n *nvim) next(tag string, v any) {
	n.t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-n.lines:
			if !ok {
				n.t.Fatalf("nvim ended before %s; stderr:\n%s", tag, n.stderr.String())
			}
			if strings.HasPrefix(line, "LUAERROR ") {
				n.t.Fatalf("Lua error: %s\nstderr:\n%s", line, n.stderr.String())
			}
			if rest, ok := strings.CutPrefix(line, tag+" "); ok {
				if err := json.Unmarshal([]byte(rest), v); err != nil {
					n.t.Fatalf("%s line %q: %v", tag, line, err)
				}
				return
			}
		case <-timeout:
			n.t.Fatalf("timed out waiting for %s from nvim; stderr:\n%s", tag, n.stderr.String())
		}
	}
}

// finish waits for nvim to exit cleanly, with no Lua error on stderr.
func (n *nvim) finish() {
	n.t.Helper()
	for line := range n.lines {
		if strings.HasPrefix(line, "LUAERROR ") {
			n.t.Fatalf("Lua error: %s", line)
		}
	}
	if err := <-n.done; err != nil {
		n.t.Fatalf("nvim: %v\nstderr:\n%s", err, n.stderr.String())
	}
	n.done <- nil // for the cleanup
	noTraceback(n.t, n.stderr.String())
}

func noTraceback(t testing.TB, s string) {
	t.Helper()
	for _, bad := range []string{"traceback", "E5108", "Error executing", "E5113"} {
		if strings.Contains(s, bad) {
			t.Fatalf("nvim printed a Lua error (%s):\n%s", bad, s)
		}
	}
}

// notes reads the RESULT line as the test's notifications and waits for
// nvim to end cleanly.
func (n *nvim) notes() []note {
	n.t.Helper()
	var notes []note
	n.next("RESULT", &notes)
	n.finish()
	return notes
}

// wantOneNote: exactly one notification, containing want.
func wantOneNote(t testing.TB, notes []note, want string) {
	t.Helper()
	if len(notes) != 1 || !strings.Contains(notes[0].Msg, want) {
		t.Fatalf("notifications %+v, want one containing %q", notes, want)
	}
}

// note is one vim.notify call.
type note struct {
	Msg   string `json:"msg"`
	Level int    `json:"level"`
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustContain(t testing.TB, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Fatalf("%s lacks %q:\n%s", what, sub, s)
		}
	}
}

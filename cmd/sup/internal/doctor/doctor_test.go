//go:build linux

package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/ipc"
)

func TestPinsMatchPackageJSON(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), ".agents", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Dependencies map[string]string }
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	for agent, npm := range npmPackages {
		if pkg.Dependencies[npm] != TestedVersions[agent] {
			t.Errorf("%s: .agents/package.json pins %s@%s, TestedVersions says %s: update pins.go", agent, npm, pkg.Dependencies[npm], TestedVersions[agent])
		}
	}
	if len(pkg.Dependencies) != len(npmPackages) {
		t.Errorf(".agents/package.json has %d agents, pins.go %d", len(pkg.Dependencies), len(npmPackages))
	}
}

// env is a private installation: runtime, state and config dirs, and a
// PATH with tmux only.
type env struct {
	vars map[string]string
	rt   string
}

func newEnv(t *testing.T) *env {
	rt, err := os.MkdirTemp("", "doc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	os.Chmod(rt, 0o700)
	work := t.TempDir()
	path := ""
	if tmux, err := exec.LookPath("tmux"); err == nil {
		path = filepath.Dir(tmux)
	}
	os.MkdirAll(filepath.Join(work, "tmux"), 0o700)
	return &env{rt: rt, vars: map[string]string{
		"HOME": filepath.Join(work, "home"), "XDG_STATE_HOME": filepath.Join(work, "state"),
		"XDG_CONFIG_HOME": filepath.Join(work, "config"), "SUP_RUNTIME_DIR": rt, "PATH": path,
		"TMUX_TMPDIR": filepath.Join(work, "tmux"),
	}}
}

func (e *env) getenv(k string) string { return e.vars[k] }

func (e *env) stateDir() string { return filepath.Join(e.vars["XDG_STATE_HOME"], "sup") }

func (e *env) run(t *testing.T, fix bool) []Finding {
	t.Helper()
	return Run(context.Background(), Options{Getenv: e.getenv, Fix: fix})
}

func find(fs []Finding, check, contains string) *Finding {
	for i := range fs {
		if fs[i].Check == check && strings.Contains(fs[i].Message, contains) {
			return &fs[i]
		}
	}
	return nil
}

func TestFixPrunesEndedLogsNeverLive(t *testing.T) {
	e := newEnv(t)
	ipctest.Serve(t, e.rt, ipc.State{SessionID: "111111111111"})
	state := e.stateDir()
	os.MkdirAll(state, 0o700)
	old := time.Now().AddDate(0, 0, -40)
	for _, id := range []string{"111111111111", "222222222222"} {
		p := filepath.Join(state, id+".log")
		os.WriteFile(p, []byte("x\n"), 0o600)
		os.Chtimes(p, old, old)
	}
	fs := e.run(t, false)
	f := find(fs, "logs", "past the limits")
	if f == nil || f.Severity != Warning || !f.Fixable || f.Fixed != "" {
		t.Fatalf("logs finding %+v, want a fixable warning", f)
	}
	if _, err := os.Stat(filepath.Join(state, "222222222222.log")); err != nil {
		t.Fatal("a report without --fix removed a log")
	}
	fs = e.run(t, true)
	if f := find(fs, "logs", "past the limits"); f == nil || f.Fixed != "pruned 1 log file (0.0 MB)" {
		t.Errorf("after --fix: %+v", f)
	}
	if _, err := os.Stat(filepath.Join(state, "222222222222.log")); err == nil {
		t.Error("the ended session's 40-day-old log is still there")
	}
	if _, err := os.Stat(filepath.Join(state, "111111111111.log")); err != nil {
		t.Error("the live session's log was pruned")
	}
	if HasProblem(fs) {
		t.Errorf("problems: %+v", fs)
	}
}

// TestSymlinkedSessionDir: a symlink in the queue dir's place is a
// problem --fix removes (the link, not what it names).
func TestSymlinkedSessionDir(t *testing.T) {
	e := newEnv(t)
	target := t.TempDir()
	os.WriteFile(filepath.Join(target, "config.json"), []byte("{}"), 0o600)
	if err := os.Symlink(target, paths.QueueDir(e.rt)); err != nil {
		t.Fatal(err)
	}
	fs := e.run(t, false)
	if f := find(fs, "queue_file", "is a symlink, not sup's directory"); f == nil || f.Severity != Problem || !f.Fixable {
		t.Fatalf("symlinked queue dir finding %+v", f)
	}
	fs = e.run(t, true)
	if f := find(fs, "queue_file", "not sup's directory"); f == nil || !strings.HasPrefix(f.Fixed, "removed ") {
		t.Fatalf("after --fix: %+v", f)
	}
	if _, err := os.Lstat(paths.QueueDir(e.rt)); !os.IsNotExist(err) {
		t.Fatalf("the symlink is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(target, "config.json")); err != nil {
		t.Fatalf("what the symlink named was touched: %v", err)
	}
}

func TestStaleSessionFilesAndRuntimeDirMode(t *testing.T) {
	e := newEnv(t)
	os.MkdirAll(paths.QueueDir(e.rt), 0o700)
	q := paths.QueueFile(e.rt, "333333333333")
	os.WriteFile(q, []byte(`{"session_id":"333333333333","sup_pid":1}`), 0o600)
	os.MkdirAll(paths.StateFileDir(e.rt), 0o700)
	sf := paths.StateFile(e.rt, "444444444444")
	os.WriteFile(sf, []byte(`{"session_id":"444444444444","sup_pid":1,"name":"x"}`), 0o600)
	// A FIFO under a live-looking session's name: reported, not read (a
	// read would block doctor).
	fifo := paths.StateFile(e.rt, "555555555555")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.rt, "555555555555.sock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(e.rt, 0o755)
	fs := e.run(t, false)
	if f := find(fs, "runtime_dir", "mode 0755"); f == nil || f.Severity != Problem || f.Fix != "chmod 700 "+e.rt || f.Fixable {
		t.Errorf("runtime dir finding %+v, want a problem with its chmod, not done by --fix", f)
	}
	if f := find(fs, "queue_file", "its socket is gone"); f == nil || f.Severity != Problem || !f.Fixable {
		t.Errorf("queue file finding %+v", f)
	}
	if f := find(fs, "state_file", "its socket is gone"); f == nil || f.Severity != Problem || !f.Fixable || !strings.Contains(f.Fix, "sup ls") {
		t.Errorf("state file finding %+v", f)
	}
	if f := find(fs, "state_file", "not a regular file"); f == nil || f.Severity != Problem || f.Fix != "sup doctor --fix removes it" {
		t.Errorf("FIFO state file finding %+v", f)
	}
	if !HasProblem(fs) {
		t.Error("no problem reported")
	}
	fs = e.run(t, true)
	if f := find(fs, "queue_file", "333333333333"); f == nil || !strings.HasPrefix(f.Fixed, "removed ") {
		t.Errorf("after --fix: %+v", f)
	}
	if _, err := os.Stat(q); err == nil {
		t.Error("the stale queue file is still there")
	}
	if _, err := os.Stat(sf); err == nil {
		t.Error("the stale state file is still there")
	}
	if fi, _ := os.Stat(e.rt); fi.Mode().Perm() != 0o755 {
		t.Error("--fix changed the runtime dir's mode: not a safe fix")
	}
}

// TestTmuxServerOptions reads focus-events and the queue's bindings from
// the user's tmux server (here a private one named in $TMUX).
func TestTmuxServerOptions(t *testing.T) {
	e := newEnv(t)
	tm := testutil.NewTmux(t)
	e.vars["TMUX"] = fmt.Sprintf("%s,%d,0", tm.SocketPath, tm.ServerPID)
	fs := e.run(t, false)
	if f := find(fs, "tmux", "focus-events is off"); f == nil || f.Severity != Warning || !strings.Contains(f.Fix, "focus-events on") {
		t.Errorf("focus-events finding %+v", f)
	}
	if f := find(fs, "tmux", "not loaded"); f == nil || f.Fix == "" {
		t.Errorf("keys finding %+v", f)
	}
	if _, err := tm.Run("set-option", "-g", "focus-events", "on", ";",
		"bind-key", "Tab", "run-shell", "-b", "sup next --client '#{client_name}' --display", ";",
		"bind-key", "g", "run-shell", "-b", "sup pick --client '#{client_name}'"); err != nil {
		t.Fatal(err)
	}
	fs = e.run(t, false)
	if find(fs, "tmux", "focus-events on") == nil || find(fs, "tmux", "bindings are loaded") == nil {
		t.Errorf("after setting them: %+v", fs)
	}
}

// BenchmarkDoctor50 is `sup doctor`'s checks with 50 live sessions (in-process
// servers on real sockets, as in broker's BenchmarkDiscover200), no agent
// CLI on PATH. Goal: ≤ 300 ms.
func BenchmarkDoctor50(b *testing.B) {
	rt, err := os.MkdirTemp("", "doc")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(rt) })
	work := b.TempDir()
	for i := range 50 {
		ipctest.Serve(b, rt, ipc.State{SessionID: fmt.Sprintf("%012x", i)})
	}
	path := ""
	if tmux, err := exec.LookPath("tmux"); err == nil {
		path = filepath.Dir(tmux)
	}
	vars := map[string]string{"HOME": work, "SUP_RUNTIME_DIR": rt, "PATH": path, "TMUX_TMPDIR": work}
	getenv := func(k string) string { return vars[k] }
	for b.Loop() {
		fs := Run(context.Background(), Options{Getenv: getenv})
		if f := find(fs, "socket", "50 live sessions"); f == nil {
			b.Fatalf("%+v", fs)
		}
	}
}

// TestAgentVersionFromNPMPackage: an npm-installed agent's version comes
// from its package.json (no node start-up); a version other than the pin
// is a warning naming the npm install that fixes it.
func TestAgentVersionFromNPMPackage(t *testing.T) {
	e := newEnv(t)
	mods := filepath.Join(t.TempDir(), "node_modules")
	pkg := filepath.Join(mods, "@google", "gemini-cli")
	os.MkdirAll(filepath.Join(pkg, "bundle"), 0o755)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"@google/gemini-cli","version":"0.1.2"}`), 0o644)
	os.WriteFile(filepath.Join(pkg, "bundle", "gemini.js"), []byte("#!/bin/sh\nexit 3\n"), 0o755) // --version would fail
	bin := filepath.Join(mods, ".bin")
	os.MkdirAll(bin, 0o755)
	os.Symlink("../@google/gemini-cli/bundle/gemini.js", filepath.Join(bin, "gemini"))
	e.vars["PATH"] = bin + ":" + e.vars["PATH"]
	fs := e.run(t, false)
	f := find(fs, "agent", "gemini 0.1.2")
	if f == nil || f.Severity != Warning || f.Fix != "npm install -g @google/gemini-cli@0.61.0" {
		t.Errorf("gemini finding %+v", f)
	}
	if f := find(fs, "hooks", "gemini hooks not installed"); f == nil || f.Fix != "sup hooks install --user gemini" {
		t.Errorf("hooks finding %+v", f)
	}
}

// TestAgentVersionFromPlatformBinary: the native binary of an agent's
// platform package first in PATH is read as the agent's version, not the
// package's (Codex's platform package says 0.169.0-linux-x64; Claude
// Code's is named claude-code-linux-x64).
func TestAgentVersionFromPlatformBinary(t *testing.T) {
	e := newEnv(t)
	mods := filepath.Join(t.TempDir(), "node_modules")
	codex := filepath.Join(mods, "@openai", "codex-linux-x64")
	os.MkdirAll(filepath.Join(codex, "vendor", "x86_64-unknown-linux-musl", "bin"), 0o755)
	os.WriteFile(filepath.Join(codex, "package.json"), []byte(`{"name":"@openai/codex","version":"0.169.0-linux-x64"}`), 0o644)
	os.WriteFile(filepath.Join(codex, "vendor", "x86_64-unknown-linux-musl", "bin", "codex"), []byte("#!/bin/sh\nexit 3\n"), 0o755)
	claude := filepath.Join(mods, "@anthropic-ai", "claude-code-linux-x64")
	os.MkdirAll(claude, 0o755)
	os.WriteFile(filepath.Join(claude, "package.json"), []byte(`{"name":"@anthropic-ai/claude-code-linux-x64","version":"2.1.330"}`), 0o644)
	os.WriteFile(filepath.Join(claude, "claude"), []byte("#!/bin/sh\nexit 3\n"), 0o755)
	e.vars["PATH"] = filepath.Join(codex, "vendor", "x86_64-unknown-linux-musl", "bin") + ":" + claude + ":" + e.vars["PATH"]
	fs := e.run(t, false)
	if f := find(fs, "agent", "codex 0.169.0 at"); f == nil || f.Severity != OK {
		t.Errorf("codex finding %+v, want OK at the pin", f)
	}
	if f := find(fs, "agent", "claude 2.1.330 at"); f == nil || f.Severity != OK {
		t.Errorf("claude finding %+v, want OK at the pin", f)
	}
}

// TestForeignSocket: a live socket in your runtime dir that belongs to
// another uid is no session of yours (every verb refuses it): doctor says
// so and whose it is, and does not count it as live.
func TestForeignSocket(t *testing.T) {
	if os.Getuid() != 0 {
		testutil.Missing(t, "root, to give a socket to another uid")
	}
	e := newEnv(t)
	sv := ipctest.Serve(t, e.rt, ipc.State{SessionID: "444444444444", Name: "impostor"})
	if err := os.Chown(sv.Socket, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	fs := e.run(t, false)
	if f := find(fs, "socket", "belongs to uid 65534"); f == nil || f.Severity != Problem || f.Fixable {
		t.Errorf("foreign socket finding %+v, want a problem naming uid 65534, not fixed by --fix", f)
	}
	if f := find(fs, "socket", "0 live sessions"); f == nil {
		t.Errorf("the foreign socket counted as a live session: %+v", fs)
	}
}

// TestPrintHostileFileName: a file any agent can create in the runtime dir
// or the queue dir, named with an OSC 52 clipboard write, a bidi override
// and a newline, reaches the terminal as visible escapes, one line each.
func TestPrintHostileFileName(t *testing.T) {
	e := newEnv(t)
	hostile := "\x1b]52;c;aGk=\x07\u202eevil\nline"
	if err := os.WriteFile(filepath.Join(e.rt, hostile+".sock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(paths.QueueDir(e.rt), 0o700)
	os.WriteFile(filepath.Join(paths.QueueDir(e.rt), hostile+"-q.json"), []byte(`{"sup_pid":1}`), 0o600)
	fs := e.run(t, true)
	var out strings.Builder
	Print(&out, fs)
	got := out.String()
	if strings.ContainsAny(got, "\x1b\x07\u202e") || strings.Contains(got, "evil\nline") {
		t.Fatalf("a hostile file name reached the output raw:\n%q", got)
	}
	if n := strings.Count(got, `\x1b]52;c;aGk=\x07\u202eevil\nline`); n < 2 {
		t.Fatalf("the hostile names are not shown escaped (%d times, want the socket and the queue file):\n%s", n, got)
	}
}

// TestStatusLineResolves: a #(sup status-line) in status-right runs with
// the tmux server's PATH; a sup that PATH does not find is a problem whose
// fix names sup's absolute path; an absolute path, or a PATH that has
// sup, is fine.
func TestStatusLineResolves(t *testing.T) {
	e := newEnv(t)
	tm := testutil.NewTmux(t)
	e.vars["TMUX"] = fmt.Sprintf("%s,%d,0", tm.SocketPath, tm.ServerPID)
	bin := t.TempDir()
	sup := filepath.Join(bin, "sup")
	if err := os.WriteFile(sup, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func() []Finding {
		return Run(context.Background(), Options{Getenv: e.getenv, Executable: sup})
	}
	if _, err := tm.Run("set-environment", "-g", "PATH", "/usr/bin:/bin", ";",
		"set-option", "-g", "status-right", "#(sup status-line) %H:%M"); err != nil {
		t.Fatal(err)
	}
	f := find(run(), "tmux", "status-right runs sup status-line, but the tmux server finds no sup (its PATH: /usr/bin:/bin)")
	if f == nil || f.Severity != Problem ||
		f.Fix != "name sup by its absolute path in ~/.tmux.conf: set-option -g status-right '#("+sup+" status-line) %H:%M' (then tmux source-file ~/.tmux.conf)" {
		t.Fatalf("status-right with a sup the server cannot find: %+v", f)
	}
	if _, err := tm.Run("set-option", "-g", "status-right", "#("+sup+" status-line)"); err != nil {
		t.Fatal(err)
	}
	if f := find(run(), "tmux", "status-right runs "+sup+" status-line ("+sup+")"); f == nil || f.Severity != OK {
		t.Fatalf("status-right with sup's absolute path: %+v", f)
	}
	if _, err := tm.Run("set-environment", "-g", "PATH", bin+":/usr/bin", ";", "set-option", "-g", "status-right", "#(sup status-line)"); err != nil {
		t.Fatal(err)
	}
	if f := find(run(), "tmux", "status-right runs sup status-line ("+sup+")"); f == nil || f.Severity != OK {
		t.Fatalf("status-right with sup on the server's PATH: %+v", f)
	}
}

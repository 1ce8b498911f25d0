//go:build linux

package supervisor_test

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// hook runs `sup hook` as an agent's hook would: the payload on stdin,
// SUP_SOCKET in the environment. It returns how long sup hook took.
func (r *rig) hook(payload string, args ...string) time.Duration {
	r.t.Helper()
	return r.hookTo(r.sockets()[0], payload, args...)
}

func (r *rig) hookTo(sock, payload string, args ...string) time.Duration {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bins.SupCLI, append([]string{"hook"}, args...)...)
	cmd.Env = append(r.environ(), "SUP_SOCKET="+sock)
	cmd.Stdin = strings.NewReader(payload)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	if err != nil || len(out) != 0 {
		r.t.Fatalf("sup hook: %v, printed %q (want exit 0, silence)", err, out)
	}
	return took
}

// TestE2EHooksDriveActivity follows a Claude permission turn through
// `sup hook` and checks state after each step.
func TestE2EHooksDriveActivity(t *testing.T) {
	t.Parallel()
	r := newRig(t, "")
	r.start("-echo")
	if st := r.state("doc"); st.Activity != "unknown" || st.WaitingSince != 0 {
		t.Fatalf("before any hook: %+v", st)
	}
	r.hook(`{"session_id":"6f1e2d3c-4b5a-4978-8a1b-2c3d4e5f6a7b","transcript_path":"/t.jsonl","hook_event_name":"SessionStart","source":"startup"}`)
	r.hook(`{"session_id":"6f1e2d3c-4b5a-4978-8a1b-2c3d4e5f6a7b","hook_event_name":"UserPromptSubmit","prompt":"make a file"}`)
	if st := r.state("doc"); st.Activity != "busy" || st.AgentSessionID != "6f1e2d3c-4b5a-4978-8a1b-2c3d4e5f6a7b" {
		t.Fatalf("after UserPromptSubmit: activity %q agent session %q", st.Activity, st.AgentSessionID)
	}
	before := time.Now().UnixMilli()
	r.hook(`{"session_id":"6f1e2d3c-4b5a-4978-8a1b-2c3d4e5f6a7b","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"touch made.txt"}}`)
	st := r.state("doc")
	if st.Activity != "needs_confirmation" || st.Reason != "permission" || st.Summary != "Bash: touch made.txt" || st.WaitingSince < before {
		t.Fatalf("after PermissionRequest: %+v", st)
	}
	// Another conversation's hook (a stale agent, another document) is ignored.
	r.hook(`{"session_id":"9d3c1a77-0000-4000-8000-0000000000ff","hook_event_name":"Stop","last_assistant_message":"not mine"}`)
	if got := r.state("doc"); got.Activity != "needs_confirmation" {
		t.Fatalf("a foreign hook changed activity to %q", got.Activity)
	}
	var m ipc.MetricsResult
	if err := r.call(ipc.MethodMetrics, nil, &m); err != nil || m.Counters["ipc_hook_ignored_total"] != 1 {
		t.Fatalf("metrics %v, %v: want the ignored hook counted as ipc_hook_ignored_total 1", m.Counters, err)
	}
	// The applied hooks, by event, and the activity changes they made
	// (SessionStart changes nothing; the ignored one is not counted).
	for name, want := range map[string]int64{"hook_SessionStart_total": 1, "hook_UserPromptSubmit_total": 1,
		"hook_PermissionRequest_total": 1, "hook_Stop_total": 0, "detection_hook_total": 2} {
		if got := m.Counters[name]; got != want {
			t.Errorf("metrics %s = %d, want %d (all: %v)", name, got, want, m.Counters)
		}
	}
	r.hook(`{"session_id":"6f1e2d3c-4b5a-4978-8a1b-2c3d4e5f6a7b","hook_event_name":"PostToolUse","tool_name":"Bash"}`)
	if got := r.state("doc"); got.Activity != "busy" || got.WaitingSince != 0 {
		t.Fatalf("after approval: %+v", got)
	}
	r.hook(`{"session_id":"6f1e2d3c-4b5a-4978-8a1b-2c3d4e5f6a7b","hook_event_name":"Stop","last_assistant_message":"Made it.\nMore text."}`)
	if got := r.state("doc"); got.Activity != "ready" || got.Reason != "stopped" || got.Summary != "Made it." || got.WaitingSince == 0 {
		t.Fatalf("after Stop: %+v", got)
	}
}

// TestE2EHookNeverHangs: sup hook returns within its budget when the
// socket accepts but never answers (a wedged supervisor), and a huge
// payload costs nothing. (A SIGSTOPped supervisor in a tmux pane would not
// do: tmux sends SIGCONT to a pane process that stops.)
func TestE2EHookNeverHangs(t *testing.T) {
	// Not parallel: it bounds how long sup hook takes (5 s) against a mute
	// supervisor.
	r := newRig(t, "")
	r.start("-echo")
	huge := `{"hook_event_name":"Stop","last_assistant_message":"` + strings.Repeat("x", 8<<20) + `"}`
	// Bounds here only catch a hang: process start-up of a race-built
	// binary on a loaded CI machine takes most of them.
	if took := r.hook(huge); took > 5*time.Second {
		t.Fatalf("sup hook with a huge payload took %v", took)
	}
	mute := filepath.Join(r.env["SUP_RUNTIME_DIR"], "mute.sock")
	ln, err := net.Listen("unix", mute)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	took := r.hookTo(mute, `{"session_id":"c","hook_event_name":"UserPromptSubmit"}`)
	t.Logf("sup hook against a mute supervisor returned in %v", took)
	if took > 5*time.Second { // its budget is 1 s after start-up
		t.Fatalf("sup hook against a mute supervisor took %v", took)
	}
	var worst time.Duration
	for range 20 {
		worst = max(worst, r.hook(`{"session_id":"c","hook_event_name":"UserPromptSubmit"}`))
	}
	t.Logf("sup hook round trip, worst of 20: %v", worst)
	if st := r.state("doc"); st.Activity != "busy" {
		t.Fatalf("activity %q after UserPromptSubmit", st.Activity)
	}
}

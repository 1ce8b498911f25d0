package activity

import (
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func hook(event string, d time.Duration) Signal {
	s, ok := HookSignal(HookEvent{Event: event, ToolName: "Bash", Command: "touch x", Message: "done it"}, at(d))
	if !ok {
		panic("no signal for " + event)
	}
	return s
}

// A Claude turn with a permission prompt: the prompt fires no Stop, the
// approval fires PostToolUse then Stop.
func TestPermissionTurn(t *testing.T) {
	tr := NewTracker(Config{})
	steps := []struct {
		sig          Signal
		want         Activity
		waitingSince time.Duration // -1: not stuck
	}{
		{hook("UserPromptSubmit", 0), Busy, -1},
		{hook("PreToolUse", time.Second), Busy, -1},
		{hook("PermissionRequest", 2*time.Second), NeedsConfirmation, 2 * time.Second},
		{hook("PostToolUse", 10*time.Second), Busy, -1},
		{hook("Stop", 11*time.Second), Ready, 11 * time.Second},
	}
	for i, st := range steps {
		tr.Observe(st.sig)
		got := tr.State(st.sig.At)
		if got.Activity != st.want {
			t.Fatalf("step %d (%s): activity %s, want %s", i, st.sig.Rule, got.Activity, st.want)
		}
		if st.waitingSince < 0 && !got.WaitingSince.IsZero() || st.waitingSince >= 0 && !got.WaitingSince.Equal(at(st.waitingSince)) {
			t.Fatalf("step %d (%s): waiting since %v, want %v", i, st.sig.Rule, got.WaitingSince, st.waitingSince)
		}
	}
	if st := tr.State(at(12 * time.Second)); st.Reason != "stopped" || st.Summary != "done it" || st.Source != SourceHook {
		t.Fatalf("after Stop: %+v", st)
	}
}

func TestPermissionSummaryAndNotification(t *testing.T) {
	s, _ := HookSignal(HookEvent{Event: "PermissionRequest", ToolName: "Bash", Command: "rm -rf build\necho more"}, t0)
	if s.Summary != "Bash: rm -rf build (+1 line)" || s.Reason != "permission" { // never the bare first line (issue 28)
		t.Fatalf("summary %q reason %q", s.Summary, s.Reason)
	}
	if _, ok := HookSignal(HookEvent{Event: "Notification", NotificationType: "idle_prompt"}, t0); ok {
		t.Fatal("an idle reminder must not change activity")
	}
	s, ok := HookSignal(HookEvent{Event: "Notification", NotificationType: "permission_prompt", Message: "Claude needs your permission"}, t0)
	if !ok || s.Activity != NeedsConfirmation {
		t.Fatalf("permission notification: %+v %v", s, ok)
	}
	// Gemini CLI's permission notification: the tool and command come
	// from its details (hooks.Parse), else its message stands.
	s, ok = HookSignal(HookEvent{Agent: "gemini", Event: "Notification", NotificationType: "ToolPermission", ToolName: "Shell", Command: "touch m2.txt",
		Message: "Tool Confirm Shell Command requires execution"}, t0)
	if !ok || s.Activity != NeedsConfirmation || s.Reason != "permission" || s.Summary != "Shell: touch m2.txt" {
		t.Fatalf("gemini ToolPermission: %+v %v", s, ok)
	}
	s, _ = HookSignal(HookEvent{Agent: "gemini", Event: "Notification", NotificationType: "ToolPermission", Message: "Tool requires confirmation"}, t0)
	if s.Summary != "Tool requires confirmation" {
		t.Fatalf("gemini ToolPermission without details: summary %q", s.Summary)
	}
	for _, ev := range []string{"SessionStart", "SessionEnd", "Nonsense"} {
		if _, ok := HookSignal(HookEvent{Event: ev}, t0); ok {
			t.Fatalf("%s must not change activity", ev)
		}
	}
	long := strings.Repeat("é", 500)
	if s, _ := HookSignal(HookEvent{Event: "Stop", Message: long}, t0); len([]rune(s.Summary)) != maxSummary {
		t.Fatalf("summary of %d runes, want %d", len([]rune(s.Summary)), maxSummary)
	}
}

// Stuck → stuck keeps the queue position: the human has not acted.
func TestStuckToStuckKeepsWaitingSince(t *testing.T) {
	tr := NewTracker(Config{})
	tr.Observe(hook("Stop", 0))
	tr.Observe(Signal{Source: SourceLifecycle, Rule: "halted", Activity: Error, Reason: "halted", Stuck: true, At: at(5 * time.Second)})
	if ws := tr.State(at(6 * time.Second)).WaitingSince; !ws.Equal(t0) {
		t.Fatalf("waiting since %v, want %v", ws, t0)
	}
}

// A lower-ranked source cannot contradict a fresh hook, but may after the
// hold (an Esc at a permission prompt fires no hook).
func TestRanking(t *testing.T) {
	tr := NewTracker(Config{HookHold: 3 * time.Second})
	tr.Observe(hook("PermissionRequest", 0))
	screen := func(d time.Duration) Signal {
		return Signal{Source: SourceScreen, Rule: "screen:prompt", Activity: Ready, Reason: "idle", At: at(d)}
	}
	if tr.Observe(screen(time.Second)) {
		t.Fatal("screen overrode a 1s-old hook")
	}
	if !tr.Observe(screen(4*time.Second)) || tr.State(at(4*time.Second)).Activity != Ready {
		t.Fatal("screen could not correct a 4s-old hook")
	}
	// Lifecycle always applies.
	tr.Observe(hook("UserPromptSubmit", 5*time.Second))
	if !tr.Observe(Signal{Source: SourceLifecycle, Rule: "spawn", Activity: Unknown, At: at(5*time.Second + time.Millisecond)}) {
		t.Fatal("lifecycle signal ignored")
	}
}

func TestOperatorBusy(t *testing.T) {
	tr := NewTracker(Config{QuietWindow: 20 * time.Second})
	if tr.State(t0).OperatorBusy {
		t.Fatal("busy before any key")
	}
	tr.Key(t0)
	if !tr.State(at(19 * time.Second)).OperatorBusy {
		t.Fatal("not busy 19s after a key")
	}
	if st := tr.State(at(20 * time.Second)); st.OperatorBusy || !st.LastInputAt.Equal(t0) {
		t.Fatalf("20s after a key: %+v", st)
	}
}

// The screen seeing the same prompt as a hook must not erase the hook's
// summary, whichever arrives first.
func TestLowerRankKeepsHookDetails(t *testing.T) {
	screen := Signal{Source: SourceScreen, Rule: "screen:permission", Activity: NeedsConfirmation, Reason: "permission", Stuck: true}
	for _, hookFirst := range []bool{true, false} {
		tr := NewTracker(Config{})
		h := hook("PermissionRequest", time.Second)
		s := screen
		s.At = at(time.Second)
		if hookFirst {
			tr.Observe(h)
			tr.Observe(s)
		} else {
			tr.Observe(s)
			if !tr.Observe(h) {
				t.Fatal("the hook's details after the screen's: no change reported")
			}
		}
		if st := tr.State(at(2 * time.Second)); st.Summary != "Bash: touch x" || st.Source != SourceHook {
			t.Fatalf("hook first %v: summary %q source %v", hookFirst, st.Summary, st.Source)
		}
	}
}

// An Esc during a hook-reported turn, or an answer typed at a hook-reported
// prompt, lets the screen's word through at once: no hook comes for either
// (Claude Code), and the hold would keep the session busy for HookHold.
func TestReleaseLiftsTheHookHold(t *testing.T) {
	tr := NewTracker(Config{HookHold: 3 * time.Second})
	t0 := time.Unix(100, 0)
	tr.Observe(Signal{Source: SourceHook, Rule: "hook:UserPromptSubmit", Activity: Busy, At: t0})
	ready := Signal{Source: SourceScreen, Rule: "screen:prompt", Activity: Ready, Reason: "idle", Stuck: true, At: t0.Add(time.Second)}
	if tr.Observe(ready) {
		t.Fatal("a screen signal within the hook's hold applied without a key")
	}
	tr.Release(t0.Add(1100 * time.Millisecond))
	ready.At = t0.Add(1200 * time.Millisecond)
	if !tr.Observe(ready) {
		t.Fatal("after an interrupt key, the screen's ready did not apply within the hold")
	}
	if st := tr.State(ready.At); st.Activity != Ready || st.LastInputAt != t0.Add(1100*time.Millisecond) {
		t.Fatalf("state %+v, want ready with the key's time", st)
	}
	// The release is spent: the next hook holds again.
	tr.Observe(Signal{Source: SourceHook, Rule: "hook:UserPromptSubmit", Activity: Busy, At: t0.Add(2 * time.Second)})
	if tr.Observe(Signal{Source: SourceScreen, Rule: "screen:prompt", Activity: Ready, Stuck: true, At: t0.Add(2500 * time.Millisecond)}) {
		t.Fatal("a release outlived the state it was pressed in")
	}
}

// A release while ready changes nothing: there is no hold to lift.
func TestReleaseWhileReady(t *testing.T) {
	tr := NewTracker(Config{})
	t0 := time.Unix(100, 0)
	tr.Observe(Signal{Source: SourceHook, Rule: "hook:Stop", Activity: Ready, Stuck: true, At: t0})
	tr.Release(t0.Add(time.Second))
	if tr.Observe(Signal{Source: SourceScreen, Rule: "screen:spin", Activity: Busy, At: t0.Add(1500 * time.Millisecond)}) {
		t.Fatal("a release at a ready prompt lifted the Stop hook's hold")
	}
}

// TestLastWord: the loop guard's word is the last summary of a state that
// was not busy; a busy spell and a screen reading ready without a summary
// keep it, a new message or a prompt replaces it.
func TestLastWord(t *testing.T) {
	tr := NewTracker(Config{})
	screen := func(a Activity, d time.Duration) Signal {
		return Signal{Source: SourceScreen, Rule: "screen:x", Activity: a, Reason: "x", At: at(d)}
	}
	stop := func(msg string, d time.Duration) Signal {
		s, _ := HookSignal(HookEvent{Event: "Stop", Message: msg}, at(d))
		return s
	}
	steps := []struct {
		sig  Signal
		want string
	}{
		{screen(Ready, 0), ""},
		{stop("first answer", time.Second), "first answer"},
		{screen(Busy, 10*time.Second), "first answer"},  // past the hook's hold: busy replaces it
		{screen(Ready, 12*time.Second), "first answer"}, // ready, no summary
		{hook("PermissionRequest", 20*time.Second), "Bash: touch x"},
		{hook("PostToolUse", 21*time.Second), "Bash: touch x"},
		{stop("second answer", 22*time.Second), "second answer"},
		{stop("second answer", 30*time.Second), "second answer"},
	}
	for i, st := range steps {
		tr.Observe(st.sig)
		if got := tr.LastWord(); got != st.want {
			t.Fatalf("step %d (%s %s): last word %q, want %q (state %+v)", i, st.sig.Rule, st.sig.Activity, got, st.want, tr.State(st.sig.At))
		}
	}
}

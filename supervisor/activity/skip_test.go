package activity

import (
	"testing"
	"time"
)

// TestSkip: a skip moves the session to the tail with a cooldown; a new
// stuck event or progress ends the cooldown; the screen rewording a prompt
// does not.
func TestSkip(t *testing.T) {
	tr := NewTracker(Config{})
	if _, ok := tr.Skip(at(0), time.Minute); ok {
		t.Fatal("skip of a session that is not stuck succeeded")
	}
	tr.Observe(hook("Stop", time.Second))
	st, ok := tr.Skip(at(5*time.Second), time.Minute)
	if !ok || !st.WaitingSince.Equal(at(5*time.Second)) || !st.SkipUntil.Equal(at(65*time.Second)) {
		t.Fatalf("after skip: ok %v %+v", ok, st)
	}
	// The screen saying the same thing in other words keeps the cooldown.
	tr.Observe(Signal{Source: SourceScreen, Rule: "prompt", Activity: Ready, Reason: "idle", Summary: "other", Stuck: true, At: at(10 * time.Second)})
	if st := tr.State(at(10 * time.Second)); st.SkipUntil.IsZero() {
		t.Fatalf("a screen rewording ended the cooldown: %+v", st)
	}
	// A new prompt (another activity) is a new stuck event.
	tr.Observe(hook("PermissionRequest", 20*time.Second))
	st = tr.State(at(20 * time.Second))
	if !st.SkipUntil.IsZero() || !st.WaitingSince.Equal(at(5*time.Second)) {
		t.Fatalf("after a new prompt: %+v (want no cooldown, place kept)", st)
	}
	// Progress clears both.
	tr.Skip(at(21*time.Second), time.Minute)
	tr.Observe(hook("PostToolUse", 22*time.Second))
	if st := tr.State(at(22 * time.Second)); !st.SkipUntil.IsZero() || !st.WaitingSince.IsZero() {
		t.Fatalf("after progress: %+v", st)
	}
	// The agent's own hook with a new prompt on the same activity ends it too.
	tr.Observe(hook("PermissionRequest", 30*time.Second))
	tr.Skip(at(31*time.Second), time.Minute)
	s, _ := HookSignal(HookEvent{Event: "PermissionRequest", ToolName: "Bash", Command: "rm other"}, at(40*time.Second))
	tr.Observe(s)
	if st := tr.State(at(40 * time.Second)); !st.SkipUntil.IsZero() {
		t.Fatalf("a hook's new prompt kept the cooldown: %+v", st)
	}
}

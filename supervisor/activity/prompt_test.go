package activity

import (
	"strings"
	"testing"
	"time"
)

// Claude fires PermissionRequest (naming the command), then ~5 s later a
// Notification that says only "Claude needs your permission": the
// command stays the summary, and the prompt keeps its identity.
func TestGenericNotificationKeepsTheCommand(t *testing.T) {
	tr := NewTracker(Config{})
	tr.Observe(hook("PermissionRequest", 0))
	before := tr.State(at(time.Second))
	n, ok := HookSignal(HookEvent{Event: "Notification", NotificationType: "permission_prompt", Message: "Claude needs your permission to use Bash"}, at(5*time.Second))
	if !ok || !n.Generic {
		t.Fatalf("the permission Notification: %+v %v, want a generic needs_confirmation", n, ok)
	}
	if tr.Observe(n) {
		t.Fatal("the generic Notification changed the state")
	}
	st := tr.State(at(6 * time.Second))
	if st.Summary != "Bash: touch x" || !st.PromptSince.Equal(before.PromptSince) || st.Rule != "hook:PermissionRequest" {
		t.Fatalf("after the Notification: summary %q since %v rule %s, want the command, %v, hook:PermissionRequest", st.Summary, st.PromptSince, st.Rule, before.PromptSince)
	}
	// Alone (no specific report before it), it is the best there is.
	tr = NewTracker(Config{})
	tr.Observe(n)
	if st := tr.State(at(6 * time.Second)); st.Activity != NeedsConfirmation || st.Summary != "Claude needs your permission to use Bash" {
		t.Fatalf("the Notification alone: %+v", st)
	}
}

// PromptSince marks when a prompt appeared: kept while it stays, renewed
// when the agent reports another one, cleared when it leaves.
func TestPromptSince(t *testing.T) {
	tr := NewTracker(Config{})
	tr.Observe(hook("UserPromptSubmit", 0))
	if !tr.State(at(0)).PromptSince.IsZero() {
		t.Fatal("busy has a prompt")
	}
	tr.Observe(hook("PermissionRequest", time.Second))
	if got := tr.State(at(time.Second)).PromptSince; !got.Equal(at(time.Second)) {
		t.Fatalf("prompt since %v, want 1s", got)
	}
	// The screen sees the same prompt: no new one.
	tr.Observe(Signal{Source: SourceScreen, Rule: "screen:permission", Activity: NeedsConfirmation, Reason: "permission", Summary: "touch x", Stuck: true, At: at(2 * time.Second)})
	if got := tr.State(at(2 * time.Second)).PromptSince; !got.Equal(at(time.Second)) {
		t.Fatalf("after the screen: prompt since %v, want 1s", got)
	}
	// The agent reports another command: another prompt.
	s, _ := HookSignal(HookEvent{Event: "PermissionRequest", ToolName: "Bash", Command: "touch y"}, at(3*time.Second))
	tr.Observe(s)
	st := tr.State(at(3 * time.Second))
	if !st.PromptSince.Equal(at(3 * time.Second)) {
		t.Fatalf("another prompt since %v, want 3s", st.PromptSince)
	}
	id := PromptID(st.Reason, st.Summary, "dialog", st.PromptSince)
	if id == "" || id == PromptID(st.Reason, st.Summary, "dialog", at(time.Second)) || id != PromptID(st.Reason, st.Summary, "dialog", st.PromptSince) {
		t.Fatalf("prompt ids: %q must be stable and differ by time", id)
	}
	tr.Observe(hook("PostToolUse", 4*time.Second))
	if st := tr.State(at(4 * time.Second)); !st.PromptSince.IsZero() || PromptID(st.Reason, st.Summary, "", st.PromptSince) != "" {
		t.Fatalf("busy after the answer: prompt since %v", st.PromptSince)
	}
}

// The screen sees a dialog before the agent's hook reports it (Claude's
// PermissionRequest under load comes ~200 ms after the dialog is drawn):
// the hook tells the same prompt better — its summary, its source — and
// the prompt's appearance, so its id, stays (issue 22, one prompt one id).
func TestPromptHookAfterScreenSamePrompt(t *testing.T) {
	tr := NewTracker(Config{HookHold: time.Second})
	tr.Observe(hook("UserPromptSubmit", 0))
	tr.Observe(Signal{Source: SourceScreen, Rule: "screen:permission", Activity: NeedsConfirmation, Reason: "permission", Summary: "touch x", Stuck: true, At: at(2 * time.Second)})
	if st := tr.State(at(2 * time.Second)); st.Activity != NeedsConfirmation {
		t.Fatalf("the screen's dialog past the hold: %+v", st)
	}
	s, _ := HookSignal(HookEvent{Event: "PermissionRequest", ToolName: "Bash", Command: "touch x"}, at(2200*time.Millisecond))
	tr.Observe(s)
	st := tr.State(at(2200 * time.Millisecond))
	if !st.PromptSince.Equal(at(2*time.Second)) || st.Summary != "Bash: touch x" || st.Source != SourceHook {
		t.Fatalf("after the late hook: since %v summary %q source %v, want 2s, the hook's summary and source", st.PromptSince, st.Summary, st.Source)
	}
}

// Last keeps each source's latest signal, even one the ranking ignored.
func TestLastPerSource(t *testing.T) {
	tr := NewTracker(Config{})
	tr.Observe(hook("PermissionRequest", 0))
	ignored := Signal{Source: SourceScreen, Rule: "screen:prompt", Activity: Ready, Reason: "prompt", Stuck: true, At: at(time.Second)}
	if tr.Observe(ignored) {
		t.Fatal("a young hook was overruled by the screen")
	}
	last := tr.Last()
	if len(last) != 2 || last[0].Rule != "screen:prompt" || last[1].Rule != "hook:PermissionRequest" {
		t.Fatalf("last signals %+v, want the screen's then the hook's", last)
	}
}

// A question a finished turn asked is a prompt: PromptSince from when the
// hook reported it (a ready screen before it does not count), renewed by
// another question, kept by the screen's ready looks, cleared when a turn
// ends without one or the next turn starts.
func TestPromptSinceAsked(t *testing.T) {
	stop := func(msg string, d time.Duration) Signal {
		e := HookEvent{Event: "Stop", Message: msg}
		if strings.HasSuffix(msg, "?") {
			e.Question = msg // what the profile's rule says (supervisor/question)
		}
		s, ok := HookSignal(e, at(d))
		if !ok {
			t.Fatal("Stop gave no signal")
		}
		return s
	}
	tr := NewTracker(Config{})
	tr.Observe(Signal{Source: SourceScreen, Rule: "screen:idle", Activity: Ready, Reason: "idle", Stuck: true, At: at(0)})
	if !tr.State(at(0)).PromptSince.IsZero() {
		t.Fatal("a ready screen has a prompt")
	}
	tr.Observe(stop("Should I delete them?", time.Second))
	if got := tr.State(at(time.Second)).PromptSince; !got.Equal(at(time.Second)) {
		t.Fatalf("asked: prompt since %v, want 1s", got)
	}
	tr.Observe(Signal{Source: SourceScreen, Rule: "screen:idle", Activity: Ready, Reason: "idle", Stuck: true, At: at(2 * time.Second)})
	if st := tr.State(at(2 * time.Second)); st.Reason != ReasonAsked || !st.PromptSince.Equal(at(time.Second)) {
		t.Fatalf("after the screen's ready: %+v, want the question since 1s", st)
	}
	tr.Observe(stop("Which branch?", 3*time.Second))
	if got := tr.State(at(3 * time.Second)).PromptSince; !got.Equal(at(3 * time.Second)) {
		t.Fatalf("another question: prompt since %v, want 3s", got)
	}
	tr.Observe(stop("Done.", 4*time.Second))
	if st := tr.State(at(4 * time.Second)); !st.PromptSince.IsZero() || Prompting(st.Activity, st.Reason) {
		t.Fatalf("a turn that asked nothing: %+v", st)
	}
	tr.Observe(stop("Should I push?", 5*time.Second))
	tr.Observe(hook("UserPromptSubmit", 6*time.Second))
	if st := tr.State(at(6 * time.Second)); !st.PromptSince.IsZero() {
		t.Fatalf("answered, busy: prompt since %v", st.PromptSince)
	}
}

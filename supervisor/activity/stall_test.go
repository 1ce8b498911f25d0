package activity

import (
	"testing"
	"time"
)

func hookSig(event string, a Activity, d time.Duration) Signal {
	return Signal{Source: SourceHook, Rule: "hook:" + event, Activity: a, Reason: "working", Stuck: Stuck(a), At: at(d)}
}

// Lines: only a line that was not there, shown by two looks in a row, is
// progress. A turning spinner, status lines coming and going (and the
// blank lines they move), a frame half drawn for two looks and its
// completion, and a one-look blip are not.
func TestLinesProgress(t *testing.T) {
	st, err := CompileStatus([]string{`^[✶✻] `, `esc to interrupt`})
	if err != nil {
		t.Fatal(err)
	}
	const full = "● Running tests\n✶ Pondering… (3s · ↓ 12 tokens)\n> \nesc to interrupt 3s"
	looks := []struct {
		screen  string
		changed bool   // the fingerprint differs from the look before
		added   string // the line the look added
		status  string
	}{
		{full, true, "", "✶ Pondering… (3s · ↓ 12 tokens)"}, // the first look is where the watch starts from
		{full, false, "", ""},
		{"● Running tests\n✻ Musing… (4m 58s · ↓ 9k tokens)\n>\nesc to interrupt 298s", false, "", "✻ Musing… (4m 58s · ↓ 9k tokens)"},
		{"● Running tests\n\n\n✶ Pondering…\nesc to interrupt: focus-events off\n> \n\n", false, "", ""},
		{"● Running tests", false, "", ""}, // half drawn, two looks
		{"● Running tests", false, "", ""},
		{full, false, "", ""},                                  // completed: nothing new
		{"● Running tests\n● PA\n✶ Pondering…", false, "", ""}, // a one-look blip
		{full, false, "", ""},
		{"● Running tests\n● PASS\n✶ Pondering…", false, "", ""}, // new, first look
		{"● Running tests\n● PASS\n✶ Pondering…", true, "● PASS", ""},
		{"● Running tests\n● PASS\n✶ Pondering…", false, "", ""},
	}
	l := NewLines(st)
	var fp uint64
	for i, lk := range looks {
		got, status, added := l.Look(lk.screen)
		if changed := got != fp; changed != lk.changed || added != lk.added || lk.status != "" && status != lk.status {
			t.Fatalf("look %d: changed %v added %q status %q, want %v %q %q", i, changed, added, status, lk.changed, lk.added, lk.status)
		}
		fp = got
	}
	if _, err := CompileStatus([]string{"ok", "("}); err == nil || err.Error()[:15] != "status_lines[1]" {
		t.Fatalf("err = %v, want it to name status_lines[1]", err)
	}
}

// Busy with no hook and the same screen for stall_after: stalled, stuck,
// still busy; the spinner's screen signals do not lift it, a screen change
// or a hook does.
func TestStallAndProgress(t *testing.T) {
	const after = 5 * time.Minute
	tr := NewTracker(Config{})
	tr.Observe(spawn(0))
	tr.Observe(hookSig("PreToolUse", Busy, time.Second))
	if changed, wait := tr.Stall(at(time.Second), after, 7, "Bash: curl x"); changed || wait != after {
		t.Fatalf("at once: changed %v wait %v, want false %s", changed, wait, after)
	}
	tr.Observe(screenSig(Busy, "spinner", 2*time.Minute))
	if changed, wait := tr.Stall(at(3*time.Minute), after, 7, "Bash: curl x"); changed || wait != 2*time.Minute+time.Second {
		t.Fatalf("3m in: changed %v wait %v, want false 2m1s (the spinner is no progress)", changed, wait)
	}
	changed, wait := tr.Stall(at(after+time.Second), after, 7, "Bash: curl x")
	st := tr.State(at(after + time.Second))
	if !changed || wait != 0 || st.Activity != Busy || st.Reason != ReasonStalled || st.Rule != StallRule ||
		!st.Stuck || !st.WaitingSince.Equal(at(after+time.Second)) || st.Summary != "Bash: curl x" {
		t.Fatalf("after stall_after: changed %v wait %v state %+v", changed, wait, st)
	}
	if tr.Observe(screenSig(Busy, "spinner", after+2*time.Second)) {
		t.Fatal("the spinner's busy must not lift a stall")
	}
	if changed, _ := tr.Stall(at(after+3*time.Second), after, 7, "x"); changed {
		t.Fatal("still the same screen: no change")
	}
	// One look at another screen, then the old one again: half a frame
	// (written in two reads), no progress.
	if changed, _ := tr.Stall(at(after+3500*time.Millisecond), after, 9, "x"); changed {
		t.Fatal("one look at another screen lifted the stall")
	}
	if changed, _ := tr.Stall(at(after+3600*time.Millisecond), after, 7, "x"); changed || tr.State(at(after+3600*time.Millisecond)).Reason != ReasonStalled {
		t.Fatal("a blip lifted the stall")
	}
	// Real output: seen on two looks; busy again, out of the queue, and a
	// new clock from when it was first seen.
	if changed, _ := tr.Stall(at(after+4*time.Second), after, 8, "x"); changed {
		t.Fatal("one look at a new screen lifted the stall")
	}
	changed, _ = tr.Stall(at(after+4500*time.Millisecond), after, 8, "x")
	st = tr.State(at(after + 4500*time.Millisecond))
	if !changed || st.Reason != "working" || st.Stuck || !st.WaitingSince.IsZero() || st.Activity != Busy {
		t.Fatalf("after progress: changed %v %+v", changed, st)
	}
	if p, what := tr.LastProgress(); !p.Equal(at(after+4*time.Second)) || what != "screen" {
		t.Fatalf("last progress %v %q", p, what)
	}
	if _, wait := tr.Stall(at(after+5*time.Second), after, 8, "x"); wait != after-time.Second {
		t.Fatalf("wait %v, want the clock to restart at the progress", wait)
	}
}

// A hook is progress: it restarts the clock and lifts a stall.
func TestHookLiftsStall(t *testing.T) {
	const after = time.Minute
	tr := NewTracker(Config{})
	tr.Observe(spawn(0))
	tr.Observe(hookSig("UserPromptSubmit", Busy, 0))
	tr.Stall(at(0), after, 1, "")
	tr.Observe(hookSig("PostToolUse", Busy, 50*time.Second))
	if changed, _ := tr.Stall(at(70*time.Second), after, 1, ""); changed {
		t.Fatal("a hook 20s ago: not stalled yet")
	}
	if changed, _ := tr.Stall(at(111*time.Second), after, 1, ""); !changed || tr.State(at(111*time.Second)).Reason != ReasonStalled {
		t.Fatal("a minute after the hook: stalled")
	}
	if st := tr.State(at(111 * time.Second)); st.Summary == "" {
		t.Fatalf("a stall without a doing still says something: %+v", st)
	}
	if !tr.Observe(hookSig("PreToolUse", Busy, 112*time.Second)) || tr.State(at(112*time.Second)).Stuck {
		t.Fatal("a hook must lift the stall")
	}
	// A hook with no signal of its own (Progress) lifts it too.
	tr.Stall(at(200*time.Second), after, 1, "")
	if !tr.Progress(at(201*time.Second), "hook:SessionStart") || tr.State(at(201*time.Second)).Stuck {
		t.Fatal("Progress must lift the stall")
	}
}

// Only a running, busy session stalls; 0 turns it off; a finished turn
// is a turn, not a stall.
func TestStallOnlyWhenBusy(t *testing.T) {
	tr := NewTracker(Config{})
	tr.Observe(spawn(0))
	tr.Observe(hookSig("Stop", Ready, time.Second))
	if changed, wait := tr.Stall(at(time.Hour), time.Minute, 1, ""); changed || wait != 0 {
		t.Fatalf("ready: changed %v wait %v", changed, wait)
	}
	tr.Observe(hookSig("UserPromptSubmit", Busy, 2*time.Second))
	if changed, wait := tr.Stall(at(time.Hour), 0, 1, ""); changed || wait != 0 {
		t.Fatalf("off: changed %v wait %v", changed, wait)
	}
	tr.Observe(Signal{Source: SourceLifecycle, Rule: "lifecycle:crashed", Activity: Busy, At: at(3 * time.Second)})
	if changed, _ := tr.Stall(at(time.Hour), time.Minute, 1, ""); changed {
		t.Fatal("not running: no stall")
	}
}

// A Stop whose message asks is ready, reason asked, the question as its
// summary; an MCP elicitation is a question to answer; an auto-mode
// denial is more work.
func TestHookSignalAskedElicitationDenied(t *testing.T) {
	s, ok := HookSignal(HookEvent{Event: "Stop", Message: "Found 3.\n\nShould I delete them?", Question: "Should I delete them?"}, at(0))
	if !ok || s.Activity != Ready || s.Reason != ReasonAsked || s.Summary != "Should I delete them?" || !s.Stuck {
		t.Fatalf("asked Stop: %+v", s)
	}
	s, _ = HookSignal(HookEvent{Event: "Stop", Message: "Done."}, at(0))
	if s.Reason != "stopped" || s.Summary != "Done." {
		t.Fatalf("plain Stop: %+v", s)
	}
	s, ok = HookSignal(HookEvent{Event: "Elicitation", ToolName: "db", Message: "Which table?\nmore"}, at(0))
	if !ok || s.Activity != NeedsConfirmation || s.Reason != "question" || s.Summary != "db: Which table?" || !s.Stuck {
		t.Fatalf("Elicitation: %+v", s)
	}
	s, ok = HookSignal(HookEvent{Event: "PermissionDenied", ToolName: "Bash", Command: "rm -rf /tmp/x"}, at(0))
	if !ok || s.Activity != Busy || s.Reason != "denied" || s.Summary != "Bash: rm -rf /tmp/x" || s.Stuck {
		t.Fatalf("PermissionDenied: %+v", s)
	}
}

// A screen that changes at every look (an answer streaming) is progress
// from the second look on: the blip filter never hides real output.
func TestStreamingScreenIsProgress(t *testing.T) {
	const after = time.Minute
	tr := NewTracker(Config{})
	tr.Observe(spawn(0))
	tr.Observe(screenSig(Busy, "spinner", 0))
	tr.Stall(at(time.Second), after, 1, "")
	for i := 2; i < 100; i++ {
		tr.Stall(at(time.Duration(i)*time.Second), after, uint64(i), "")
	}
	if st := tr.State(at(99 * time.Second)); st.Reason == ReasonStalled {
		t.Fatalf("a screen changing at every look stalled: %+v", st)
	}
	if p, _ := tr.LastProgress(); !p.Equal(at(98 * time.Second)) {
		t.Fatalf("last progress %v, want the look before the last", p)
	}
}

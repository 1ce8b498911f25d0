package activity

import (
	"testing"
	"time"
)

func spawn(d time.Duration) Signal {
	return Signal{Source: SourceLifecycle, Rule: SpawnRule, Activity: Unknown, At: at(d)}
}

func screenSig(a Activity, rule string, d time.Duration) Signal {
	return Signal{Source: SourceScreen, Rule: "screen:" + rule, Activity: a, Reason: rule, Stuck: Stuck(a), At: at(d)}
}

// An unseen dialog: output stops at 1s; the fallback is due 3s later.
func TestFallbackFiresAfterQuiet(t *testing.T) {
	tr := NewTracker(Config{})
	tr.Observe(spawn(0))
	lastOut := at(time.Second)
	if changed, wait := tr.Unrecognized(at(2*time.Second), lastOut, "Pick a theme"); changed || wait != 2*time.Second {
		t.Fatalf("1s after output: changed %v wait %v, want false 2s", changed, wait)
	}
	if st := tr.State(at(2 * time.Second)); st.Activity != Unknown || st.Stuck {
		t.Fatalf("before the window: %+v", st)
	}
	changed, wait := tr.Unrecognized(at(4*time.Second), lastOut, "Pick a theme")
	if !changed || wait != 0 {
		t.Fatalf("3s after output: changed %v wait %v, want true 0", changed, wait)
	}
	st := tr.State(at(4 * time.Second))
	if st.Activity != NeedsConfirmation || st.Reason != "unrecognized" || st.Rule != FallbackRule ||
		st.Summary != "Pick a theme" || !st.Stuck || !st.WaitingSince.Equal(at(4*time.Second)) || st.Source != SourceScreen {
		t.Fatalf("fallback state: %+v", st)
	}
	if changed, _ := tr.Unrecognized(at(5*time.Second), lastOut, "Pick a theme"); changed {
		t.Fatal("the same fallback again must not count as a change")
	}
}

func TestFallbackWaitsForOutputToStop(t *testing.T) {
	tr := NewTracker(Config{UnknownAfter: 500 * time.Millisecond})
	tr.Observe(spawn(0))
	for d := time.Duration(0); d < 10*time.Second; d += 200 * time.Millisecond {
		if changed, wait := tr.Unrecognized(at(d), at(d), "working"); changed || wait != 500*time.Millisecond {
			t.Fatalf("at %v with output flowing: changed %v wait %v", d, changed, wait)
		}
	}
	if changed, _ := tr.Unrecognized(at(10*time.Second+500*time.Millisecond), at(10*time.Second), "done?"); !changed {
		t.Fatal("the configured window did not apply")
	}
}

func TestFallbackNeedsQuietAfterSpawnAndAScreen(t *testing.T) {
	tr := NewTracker(Config{})
	tr.Observe(spawn(10 * time.Second))
	// No output yet (lastOutput zero): the quiet counts from the spawn.
	if changed, wait := tr.Unrecognized(at(11*time.Second), time.Time{}, "x"); changed || wait != 2*time.Second {
		t.Fatalf("1s after the spawn: changed %v wait %v, want false 2s", changed, wait)
	}
	if changed, wait := tr.Unrecognized(at(20*time.Second), time.Time{}, ""); changed || wait != 0 {
		t.Fatalf("a blank screen: changed %v wait %v, want false 0", changed, wait)
	}
}

func TestFallbackNeedsARunningAgent(t *testing.T) {
	tr := NewTracker(Config{})
	if changed, wait := tr.Unrecognized(at(time.Minute), t0, "x"); changed || wait != 0 {
		t.Fatalf("before the first spawn: changed %v wait %v", changed, wait)
	}
	tr.Observe(spawn(0))
	tr.Observe(Signal{Source: SourceLifecycle, Rule: "lifecycle:exited", Activity: Ready, Reason: "exited", Stuck: true, At: at(time.Second)})
	if changed, _ := tr.Unrecognized(at(time.Minute), t0, "x"); changed {
		t.Fatal("fired for an exited session")
	}
	tr.Observe(Signal{Source: SourceLifecycle, Rule: "lifecycle:halted", Activity: Error, Reason: "halted", Stuck: true, At: at(2 * time.Second)})
	if changed, _ := tr.Unrecognized(at(time.Minute), t0, "x"); changed {
		t.Fatal("fired for a halted session")
	}
	if st := tr.State(at(time.Minute)); st.Reason != "halted" {
		t.Fatalf("halted became %+v", st)
	}
	tr.Observe(spawn(2 * time.Minute))
	if changed, _ := tr.Unrecognized(at(3*time.Minute), at(2*time.Minute), "x"); !changed {
		t.Fatal("did not fire after the respawn")
	}
}

// Real signals replace the fallback: a classifier match, a hook, a key.
func TestFallbackReplacedByRealSignals(t *testing.T) {
	fired := func() *Tracker {
		tr := NewTracker(Config{})
		tr.Observe(spawn(0))
		if changed, _ := tr.Unrecognized(at(5*time.Second), at(time.Second), "Pick one"); !changed {
			t.Fatal("fallback did not fire")
		}
		return tr
	}

	tr := fired()
	if !tr.Observe(screenSig(Ready, "prompt", 6*time.Second)) {
		t.Fatal("a classifier match did not replace the fallback")
	}
	if st := tr.State(at(6 * time.Second)); st.Activity != Ready || st.Rule != "screen:prompt" {
		t.Fatalf("after the match: %+v", st)
	}

	tr = fired()
	if !tr.Observe(screenSig(NeedsConfirmation, "trust_dialog", 6*time.Second)) {
		t.Fatal("a rule naming the dialog did not replace the fallback's reason")
	}
	if st := tr.State(at(6 * time.Second)); st.Reason != "trust_dialog" || !st.WaitingSince.Equal(at(5*time.Second)) {
		t.Fatalf("after the rule: %+v (the queue place must stay)", st)
	}

	tr = fired()
	if !tr.Observe(hook("UserPromptSubmit", 6*time.Second)) {
		t.Fatal("a hook did not replace the fallback")
	}

	tr = fired()
	tr.Key(at(6 * time.Second))
	st := tr.State(at(6 * time.Second))
	if st.Activity != Unknown || st.Stuck || !st.WaitingSince.IsZero() || st.Rule != "" {
		t.Fatalf("after a key: %+v", st)
	}
	// The change is reported by the next look; the fallback waits out a
	// new window from the key.
	changed, wait := tr.Unrecognized(at(7*time.Second), at(time.Second), "Pick one")
	if !changed || wait != 2*time.Second {
		t.Fatalf("after a key: changed %v wait %v, want true 2s", changed, wait)
	}
	if changed, _ := tr.Unrecognized(at(9*time.Second), at(time.Second), "Pick one"); !changed {
		t.Fatal("did not fire again after the key's window")
	}
}

// A hook's word stands against the fallback: it is for a session sup knows
// nothing about, not a second opinion on one a hook described (a fake or
// real agent that reported ready stays ready, its permission details stay).
func TestFallbackYieldsToAHook(t *testing.T) {
	tr := NewTracker(Config{})
	tr.Observe(spawn(0))
	tr.Observe(hook("UserPromptSubmit", 10*time.Second))
	for _, after := range []time.Duration{11 * time.Second, 13 * time.Second, time.Minute} {
		if changed, wait := tr.Unrecognized(at(after), at(5*time.Second), "x"); changed || wait != 0 {
			t.Fatalf("%s after a hook: changed %v wait %v, want false 0s", after, changed, wait)
		}
	}
	tr = NewTracker(Config{})
	tr.Observe(spawn(0))
	tr.Observe(hook("PermissionRequest", time.Second))
	if changed, _ := tr.Unrecognized(at(10*time.Second), at(time.Second), "x"); changed {
		t.Fatal("the fallback replaced a hook's permission details")
	}
	if st := tr.State(at(10 * time.Second)); st.Summary != "Bash: touch x" {
		t.Fatalf("summary %q", st.Summary)
	}
}

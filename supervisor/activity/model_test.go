package activity

import (
	"testing"
	"time"
)

func reading(a Activity, summary string) *Signal {
	return &Signal{Rule: "model:m", Activity: a, Reason: "model", Summary: summary, Stuck: Stuck(a)}
}

// A reading of the screen the fallback called a question replaces it, even
// within the hook hold (it arrives a moment after the fallback), keeps the
// queue place, and is undone by a key like the fallback.
func TestReadingReplacesFallback(t *testing.T) {
	tr := NewTracker(Config{})
	tr.Observe(spawn(0))
	lastOut := at(time.Second)
	tr.Unrecognized(at(4*time.Second), lastOut, "Choose a target")
	waiting := tr.State(at(4 * time.Second)).WaitingSince
	r := reading(NeedsConfirmation, "Deploy target: staging or production?")
	if changed, _ := tr.UnrecognizedRead(at(4500*time.Millisecond), lastOut, "Choose a target", r); !changed {
		t.Fatal("the reading did not apply")
	}
	st := tr.State(at(5 * time.Second))
	if st.Source != SourceModel || st.Summary != r.Summary || st.Activity != NeedsConfirmation || !st.WaitingSince.Equal(waiting) {
		t.Fatalf("after the reading: %+v", st)
	}
	if changed, _ := tr.UnrecognizedRead(at(6*time.Second), lastOut, "Choose a target", r); changed {
		t.Fatal("the same reading again is a change")
	}
	if got := tr.Last(); len(got) == 0 || got[0].Source != SourceModel {
		t.Fatalf("explain's signals: %+v", got)
	}
	tr.Key(at(7 * time.Second))
	if st := tr.State(at(7 * time.Second)); st.Activity != Unknown {
		t.Fatalf("a key did not undo the reading: %+v", st)
	}
}

// Any rule outranks a reading at once; a reading applies only where the
// fallback would.
func TestReadingRankedLowest(t *testing.T) {
	tr := NewTracker(Config{})
	tr.Observe(spawn(0))
	tr.UnrecognizedRead(at(4*time.Second), at(time.Second), "x", reading(Ready, "idle"))
	if st := tr.State(at(4 * time.Second)); st.Activity != Ready || st.Source != SourceModel {
		t.Fatalf("reading: %+v", st)
	}
	if !tr.Observe(screenSig(Busy, "spinner", 4100*time.Millisecond)) {
		t.Fatal("a screen rule did not replace the reading within the hold")
	}
	if changed, _ := tr.UnrecognizedRead(at(9*time.Second), at(time.Second), "x", reading(Ready, "idle")); changed {
		t.Fatal("a reading replaced a rule's verdict")
	}
}

// A reading of an earlier screen gives way to the fallback on a new
// screen the model has not read yet.
func TestReadingOfAnotherScreen(t *testing.T) {
	tr := NewTracker(Config{})
	tr.Observe(spawn(0))
	tr.UnrecognizedRead(at(4*time.Second), at(time.Second), "a", reading(Error, "build failed"))
	if changed, _ := tr.Unrecognized(at(9*time.Second), at(5*time.Second), "Next question?"); !changed {
		t.Fatal("the fallback did not replace the old reading")
	}
	if st := tr.State(at(9 * time.Second)); st.Rule != FallbackRule || st.Summary != "Next question?" || st.Source != SourceScreen {
		t.Fatalf("state: %+v", st)
	}
}

// The figure of specs/detection.md ("Prompts of any program"): model
// reads asked by 10 idle shells at their prompts over 10 minutes — 0 —
// and by a program reading its terminal with no rule for its screen —
// one, once it was quiet for UnknownAfter, none after the reading is in.
// Every shell is looked at every second (a real one is looked at only
// when it prints or a key comes: this is the worst case), its clock
// injected.
func TestIdleShellsAskNoReading(t *testing.T) {
	const shells, minutes = 10, 10
	asks := func(rule string, n int) int {
		calls := 0
		for range n {
			tr := NewTracker(Config{})
			tr.Observe(spawn(0))
			lastOut := at(200 * time.Millisecond) // the prompt drawn
			tr.Observe(Signal{Source: SourceScreen, Rule: rule, Activity: Ready, Reason: "idle", Summary: "", Stuck: true, At: at(time.Second)})
			var read *Signal
			for s := time.Second; s <= minutes*time.Minute; s += time.Second {
				_, wait := tr.UnrecognizedRead(at(s), lastOut, "bash$", read)
				if wait == 0 && read == nil && tr.WantsReading() {
					calls++
					read = reading(NeedsConfirmation, "Publish v9 or abort?")
				}
			}
		}
		return calls
	}
	if n := asks("screen:foreground:reading", shells); n != 0 {
		t.Fatalf("%d idle shells at their prompts asked %d model reads in %d minutes, want 0", shells, n, minutes)
	}
	if n := asks(ProgramRule, 1); n != 1 {
		t.Fatalf("a program's unread screen asked %d model reads, want 1", n)
	}
	t.Logf("model reads asked: %d idle shells × %d min: 0; one program's dialog: 1", shells, minutes)
}

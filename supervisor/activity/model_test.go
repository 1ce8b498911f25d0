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

package crash

import (
	"testing"
	"time"
)

func TestRingEmpty(t *testing.T) {
	tr := NewTracker(Policy{})
	if h := tr.History(); len(h) != 0 {
		t.Fatalf("History() = %v, want empty", h)
	}
	if _, ok := tr.Last(); ok {
		t.Fatal("Last() ok on empty tracker")
	}
}

func TestRingWrapsKeepingNewest(t *testing.T) {
	tr := NewTracker(Policy{HistorySize: 4, HaltAfter: 1000})
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= 10; i++ {
		tr.Exited(i, "", base.Add(time.Duration(i)*time.Minute))
		h := tr.History()
		wantLen := min(i, 4)
		if len(h) != wantLen {
			t.Fatalf("after %d exits len(History()) = %d, want %d", i, len(h), wantLen)
		}
		for j, e := range h {
			if want := i - wantLen + 1 + j; e.Code != want {
				t.Fatalf("after %d exits History()[%d].Code = %d, want %d", i, j, e.Code, want)
			}
		}
		last, ok := tr.Last()
		if !ok || last.Code != i {
			t.Fatalf("after %d exits Last() = %+v, %v", i, last, ok)
		}
	}
}

func TestHistoryIsACopy(t *testing.T) {
	tr := NewTracker(Policy{})
	tr.Exited(1, "", time.Unix(0, 0))
	h := tr.History()
	h[0].Code = 99
	if got := tr.History()[0].Code; got != 1 {
		t.Fatalf("History() not a copy: stored code became %d", got)
	}
}

func TestHistoryRecordsFields(t *testing.T) {
	tr := NewTracker(Policy{})
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tr.Exited(137, "SIGKILL", at)
	want := Exit{Code: 137, Signal: "SIGKILL", Class: ClassTransient, At: at}
	if got := tr.History(); len(got) != 1 || got[0] != want {
		t.Fatalf("History() = %+v, want [%+v]", got, want)
	}
}

package screen

import (
	"strings"
	"testing"
	"time"
)

// TestHoldWaitsForWholeScreen: a dialog drawn before a gap is still on
// the desynced screen after it (the lost bytes may have answered it), so
// the hold keeps every look from reading it until a clear makes the
// screen whole; the hold's length is the caller's clock.
func TestHoldWaitsForWholeScreen(t *testing.T) {
	m, release := stalledModel(t, 30, 6, 40, nil)
	defer m.Close()
	m.Feed([]byte("Allow rm? [y/n]\r\n"))               // queued...
	m.Feed([]byte("\x1b[3;1Hlost answer, lost answer")) // ...dropped with it
	m.Feed([]byte("\x1b[4;1Htail"))
	release()
	m.Sync()
	var h Hold
	t0 := time.Unix(1000, 0)
	snap := m.Snapshot()
	if !snap.Desynced {
		t.Fatalf("no gap: %+v", m.Stats())
	}
	if ok, began, held := h.Look(snap, t0); ok || !began || held != 0 {
		t.Fatalf("first look at a desynced screen: ok %v began %v held %v", ok, began, held)
	}
	if ok, began, _ := h.Look(snap, t0.Add(time.Second)); ok || began {
		t.Fatalf("second look: ok %v began %v (want held, not begun again)", ok, began)
	}
	if on, since, off := h.Holding(); !on || !since.Equal(t0) || off != snap.Offset {
		t.Fatalf("Holding: %v %v %d", on, since, off)
	}
	m.Feed([]byte("more text, no clear"))
	m.Sync()
	if ok, _, _ := h.Look(m.Snapshot(), t0.Add(2*time.Second)); ok {
		t.Fatal("output that clears nothing ended the hold")
	}
	m.Feed([]byte("\x1b[2J\x1b[HAllow ls? [y/n]"))
	m.Sync()
	snap = m.Snapshot()
	ok, began, held := h.Look(snap, t0.Add(2500*time.Millisecond))
	if !ok || began || held != 2500*time.Millisecond || snap.Text != "Allow ls? [y/n]" {
		t.Fatalf("after the clear: ok %v began %v held %v text %q", ok, began, held, snap.Text)
	}
	if ok, _, held := h.Look(snap, t0.Add(3*time.Second)); !ok || held != 0 {
		t.Fatalf("next look: ok %v held %v", ok, held)
	}
	if on, _, _ := h.Holding(); on {
		t.Fatal("still holding")
	}
}

// TestModelReplayedTailResyncs: after a gap, output that scrolls a whole
// screen's height off a full-screen region (a flood's kept tail) makes the
// screen whole, every row on it drawn after the gap; fewer rows, or rows
// scrolled inside a scroll region, do not.
func TestModelReplayedTailResyncs(t *testing.T) {
	gap := func() *Model {
		m, release := stalledModel(t, 20, 4, 64, nil)
		m.Feed([]byte(strings.Repeat("d", 60))) // shed by the next two
		m.Feed([]byte("stale bytes"))
		m.Feed([]byte("x"))
		release()
		m.Sync()
		if !m.Stats().Desynced {
			t.Fatal("no gap")
		}
		return m
	}
	m := gap()
	m.Feed([]byte("\r\na\r\nb\r\nc")) // the cursor was on row 0: no scroll yet
	m.Sync()
	if !m.Stats().Desynced {
		t.Fatal("three new rows, no scroll: whole")
	}
	m.Feed([]byte("\r\nd\r\ne\r\nf"))
	m.Sync()
	if !m.Stats().Desynced {
		t.Fatal("three rows scrolled off a four-row screen: whole")
	}
	m.Feed([]byte("\r\ng"))
	m.Sync()
	snap := m.Snapshot()
	if snap.Desynced || strings.Contains(snap.Text, "stale") || snap.Text != "d\ne\nf\ng" {
		t.Fatalf("four rows scrolled off: desynced %v, text %q", snap.Desynced, snap.Text)
	}
	m.Close()

	m = gap()
	defer m.Close()
	m.Feed([]byte("\x1b[2;4r\x1b[4;1H" + strings.Repeat("\r\nrow", 10))) // a region of rows 2-4
	m.Sync()
	if snap := m.Snapshot(); !snap.Desynced || !strings.HasPrefix(snap.Lines[0], "stale") {
		t.Fatalf("scrolling inside a region made the screen whole: %+v", snap)
	}
}

//go:build linux

package supervisor

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestDisplayTextReadsEverythingFed: the text a decision reads (a
// trigger's ack marker, an answer's option lines) includes every byte the
// child wrote before it, however far the model's parser is behind. A
// loaded CI run acked a trigger "by output" while the marker printed with
// that output still sat in the parser's queue.
func TestDisplayTextReadsEverythingFed(t *testing.T) {
	var d display
	v := newView(80, 24, true)
	d.show(v)
	t.Cleanup(v.model.Close)
	for round := range 50 {
		// Enough queued text to keep the parser busy for a while, within
		// the model's budget (nothing shed), then the marker last.
		var b strings.Builder
		for i := range 400 {
			fmt.Fprintf(&b, "round %d line %d of output the parser has to apply\r\n", round, i)
		}
		marker := fmt.Sprintf("ACK_TRIGGER:t%d", round)
		v.model.Feed([]byte(b.String()))
		v.model.Feed([]byte(marker + "\r\n"))
		d.wrote(b.Len() + len(marker) + 2)
		if got := d.text(); !strings.Contains(got, marker) {
			t.Fatalf("round %d: the text lacks %q, fed before it was read:\n%s", round, marker, got)
		}
	}
}

// TestDisplaySyncedReadsEverythingFed: a crash's summary reads the child's
// last line even when the parser is behind (TestE2ECrashLoopWaits named
// the line before the error in a whole run).
func TestDisplaySyncedReadsEverythingFed(t *testing.T) {
	var d display
	v := newView(80, 24, true)
	d.show(v)
	t.Cleanup(v.model.Close)
	for round := range 50 {
		var b strings.Builder
		for i := range 400 {
			fmt.Fprintf(&b, "round %d line %d of output the parser has to apply\r\n", round, i)
		}
		last := fmt.Sprintf("Error: round %d died", round)
		v.model.Feed([]byte(b.String()))
		v.model.Feed([]byte(last + "\r\n"))
		snap, ok := d.synced()
		if !ok || !slices.ContainsFunc(snap.Lines, func(l string) bool { return strings.Contains(l, last) }) {
			t.Fatalf("round %d: the snapshot lacks %q, fed before it was read:\n%s", round, last, strings.Join(snap.Lines, "\n"))
		}
	}
}

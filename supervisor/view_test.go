//go:build linux

package supervisor

import (
	"fmt"
	"strings"
	"testing"
)

// TestDisplayReadsEverythingFed: what a decision reads — the text (a
// trigger's ack marker, an answer's option lines) and the synced snapshot
// (a crash's summary of the child's last words) — includes every byte the
// child wrote before it, however far the model's parser is behind. A loaded
// CI run acked a trigger "by output" while the marker printed with that
// output still sat in the parser's queue, and TestE2ECrashLoopWaits named
// the line before the error.
func TestDisplayReadsEverythingFed(t *testing.T) {
	for name, read := range map[string]func(*display) string{
		"text": (*display).text,
		"synced": func(d *display) string {
			snap, _ := d.synced()
			return strings.Join(snap.Lines, "\n")
		},
	} {
		t.Run(name, func(t *testing.T) {
			var d display
			v := newView(80, 24, true)
			d.show(v)
			t.Cleanup(v.model.Close)
			for round := range 50 {
				// Enough queued text to keep the parser busy for a while,
				// within the model's budget (nothing shed), then the last
				// line.
				var b strings.Builder
				for i := range 400 {
					fmt.Fprintf(&b, "round %d line %d of output the parser has to apply\r\n", round, i)
				}
				last := fmt.Sprintf("ACK_TRIGGER:t%d", round)
				v.model.Feed([]byte(b.String()))
				v.model.Feed([]byte(last + "\r\n"))
				d.wrote(b.Len() + len(last) + 2)
				if got := read(&d); !strings.Contains(got, last) {
					t.Fatalf("round %d: %s lacks %q, fed before it was read:\n%s", round, name, last, got)
				}
			}
		})
	}
}

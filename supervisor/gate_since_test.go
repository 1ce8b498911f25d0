//go:build linux

package supervisor

import (
	"testing"
	"time"

	"github.com/sup-tmux/sup/supervisor/activity"
)

// TestUnitGateSinceEarliest: the answer's operator gate counts keys from
// the earlier of the activity's prompt and the screen's episode, so a key
// that made the screen read the dialog as asked anew (a redraw) still
// counts as the human at the dialog.
func TestUnitGateSinceEarliest(t *testing.T) {
	t1 := time.Unix(1000, 0)
	t2 := t1.Add(2 * time.Second)
	pr := prompt{st: activity.State{PromptSince: t1}, openPrompt: openPrompt{since: t2}}
	if got := gateSince(pr); !got.Equal(t1) {
		t.Fatalf("gateSince = %v, want the activity's %v", got, t1)
	}
	pr = prompt{st: activity.State{}, openPrompt: openPrompt{since: t2}}
	if got := gateSince(pr); !got.Equal(t2) {
		t.Fatalf("without an activity prompt: %v, want %v", got, t2)
	}
}

package classify

import (
	"strings"

	"github.com/sup-tmux/sup/supervisor/screen"
)

// Salient is a screen's most salient line, the summary of a screen no rule
// reads (activity.Tracker.Unrecognized): the last non-blank line at or
// above the cursor — a program waiting for an answer puts its question
// there — or, the cursor hidden (TUIs hide it in dialogs), of the whole
// screen; else the window title. Trimmed; "" if there is neither.
func Salient(snap screen.Snapshot) string {
	lines := snap.Lines
	if lines == nil && snap.Text != "" {
		lines = strings.Split(snap.Text, "\n")
	}
	end := len(lines)
	if snap.CursorOn && snap.CursorRow >= 0 && snap.CursorRow < end {
		end = snap.CursorRow + 1
	}
	for i := end - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return strings.TrimSpace(snap.Signals.Title)
}

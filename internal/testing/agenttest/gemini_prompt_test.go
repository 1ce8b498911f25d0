//go:build linux

package agenttest

import "testing"

// TestGeminiRelaunching: the input box holding the raw console.debug line
// Gemini CLI 0.61's relaunched process writes over the old screen (a CI
// failure's screen) is the relaunch; the empty prompt, a dialog, a draft,
// or the line with no footer under it is not.
func TestGeminiRelaunching(t *testing.T) {
	const footer = "\n                                                                                                                                \n workspace (/directory)                                               sandbox                                    /model\n"
	for _, c := range []struct {
		screen string
		want   bool
	}{
		{" >   Type your message or @path/to/file" + footer, false},
		{" > fix the build" + footer, false},
		{" Shift+Tab to accept edits\n\n > [SessionSummary] No session files found                                      " + footer, true},
		{" > [SessionSummary] No session files found\n workspace (/directory)  sandbox\n", true},
		{"│ Do you trust the files in this folder?\n│ ● 1. Trust folder (project)\n" + footer, false},
		{" > [SessionSummary] No session files found\n", false},
		{" > " + footer, false},
	} {
		if got := GeminiRelaunching(c.screen); got != c.want {
			t.Errorf("GeminiRelaunching(%q) = %v, want %v", c.screen, got, c.want)
		}
	}
}

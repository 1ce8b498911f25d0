package agenttest

import "testing"

// TestGeminiAtPrompt: the empty input box, and the same box with the raw
// console.debug line Gemini CLI 0.61 wrote over its placeholder (a CI
// failure's screen), are the prompt; a dialog, or text in the box with no
// footer under it, is not.
func TestGeminiAtPrompt(t *testing.T) {
	const footer = "\n                                                                                                                                \n workspace (/directory)                                               sandbox                                    /model\n"
	for _, c := range []struct {
		screen string
		want   bool
	}{
		{" >   Type your message or @path/to/file" + footer, true},
		{" Shift+Tab to accept edits\n\n > [SessionSummary] No session files found                                      " + footer, true},
		{" > [SessionSummary] No session files found\n workspace (/directory)  sandbox\n", true},
		{"│ Do you trust the files in this folder?\n│ ● 1. Trust folder (project)\n" + footer, false},
		{" > [SessionSummary] No session files found\n", false},
		{" > " + footer, false},
	} {
		if got := GeminiAtPrompt(c.screen); got != c.want {
			t.Errorf("GeminiAtPrompt(%q) = %v, want %v", c.screen, got, c.want)
		}
	}
}

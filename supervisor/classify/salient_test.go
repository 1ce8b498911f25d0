package classify_test

import (
	"testing"

	"github.com/sup-tmux/sup/supervisor/classify"
)

func TestUnitSalient(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"the line the cursor waits on", raw("installing", "Continue? [y/N] "), "Continue? [y/N]"},
		{"the last non-blank line above the cursor", raw("Pick a theme", "", "") + "\x1b[3;1H", "Pick a theme"},
		{"lines below the cursor do not count", raw("Update available", "Press enter", "", "(v1.2)") + "\x1b[2;12H", "Press enter"},
		{"the cursor hidden: the screen's last non-blank line", raw("top", "Press any key", "") + "\x1b[?25l\x1b[1;1H", "Press any key"},
		{"nothing above the cursor: the title", "\x1b]0;✳ Claude Code\x07\x1b[1;1H", "✳ Claude Code"},
		{"an empty screen, no title", "", ""},
	}
	for _, tt := range tests {
		if got := classify.Salient(render(tt.input)); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

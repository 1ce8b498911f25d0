package classify_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/supervisor/classify"
)

// MatchedLines shows the whole lines a rule's patterns matched: what
// `sup explain` prints as the screen's evidence.
func TestMatchedLines(t *testing.T) {
	pack := builtinPack(t, "claude")
	data, err := os.ReadFile(filepath.Join(corpusDir, "claude/permission_prompt.raw"))
	if err != nil {
		t.Fatal(err)
	}
	snap := classify.Render(data, 120, 40)
	if res := pack.Classify(snap); res.Rule != "permission" {
		t.Fatalf("rule %q", res.Rule)
	}
	got := strings.Join(pack.MatchedLines(snap, "permission"), "|")
	if got != " Esc to cancel · Tab to amend| ❯ 1. Yes" {
		t.Fatalf("matched lines %q", got)
	}
	if pack.MatchedLines(snap, "nonesuch") != nil {
		t.Fatal("lines for a rule the pack lacks")
	}
}

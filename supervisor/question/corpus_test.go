//go:build linux

package question_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/supervisor/question"
)

// turn is one record of testdata/statements.txt or questions.txt.
type turn struct {
	name, text, want string
}

// readTurns parses a file of "=== name" records; a record's first line
// "want: …" is the question sup must show.
func readTurns(t *testing.T, path string) []turn {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []turn
	for _, rec := range strings.Split("\n"+string(data), "\n=== ")[1:] {
		name, body, _ := strings.Cut(rec, "\n")
		tr := turn{name: name}
		if w, rest, ok := strings.Cut(body, "\n"); ok && strings.HasPrefix(w, "want: ") {
			tr.want, body = strings.TrimPrefix(w, "want: "), rest
		}
		tr.text = strings.TrimRight(body, "\n")
		out = append(out, tr)
	}
	return out
}

// detectors are the built-in agent profiles' rules: the pack is data, so
// the tests read it where sup does.
func detectors(t *testing.T) map[string]*question.Detector {
	t.Helper()
	out := map[string]*question.Detector{}
	for _, name := range []string{"claude", "codex", "gemini"} {
		p, err := plan.LoadProfile(t.TempDir(), name)
		if err != nil {
			t.Fatal(err)
		}
		d, err := question.Compile(p.Questions)
		if err != nil || d == nil {
			t.Fatalf("profile %s: questions: %v (nil: %v)", name, err, d == nil)
		}
		out[name] = d
	}
	return out
}

// TestFigures measures the two figures on the recorded turns, per
// agent pack, and prints them (go test -run TestFigures -v
// ./supervisor/question): false `asked` on turns that do not ask (goal 0)
// and missed questions on 20 that do (goal 0). It fails above the goals.
func TestFigures(t *testing.T) {
	statements := readTurns(t, "testdata/statements.txt")
	questions := readTurns(t, "testdata/questions.txt")
	if len(questions) < 20 {
		t.Fatalf("%d question turns; the figure is over at least 20", len(questions))
	}
	for name, d := range detectors(t) {
		falseAsked, missed, wrong := 0, 0, 0
		for _, tr := range statements {
			if r := d.Detect(tr.text); r.Asked {
				falseAsked++
				t.Errorf("%s: %s: asked (%s) %q, but it does not ask", name, tr.name, r.Why, r.Question)
			}
		}
		for _, tr := range questions {
			r := d.Detect(tr.text)
			switch {
			case !r.Asked:
				missed++
				t.Errorf("%s: %s: missed the question %q", name, tr.name, tr.want)
			case r.Question != tr.want:
				wrong++
				t.Errorf("%s: %s: question %q (%s), want %q", name, tr.name, r.Question, r.Why, tr.want)
			}
		}
		t.Logf("pack %s: false asked %d/%d recorded turns, missed questions %d/%d, wrong question text %d",
			name, falseAsked, len(statements), missed, len(questions), wrong)
	}
}

//go:build linux

package plan_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sup-tmux/sup/internal/plan"
	"github.com/sup-tmux/sup/supervisor/classify"
)

// The built-in answer keys, and the options each reads from a recorded
// prompt of its agent (testdata/corpus).
func TestBuiltinAnswers(t *testing.T) {
	cases := []struct {
		profile, kind, recording string
		yes, no, always          string
		options                  []string
	}{
		{"claude", "permission", "claude/permission_prompt.raw", "1", "\x1b", "2", []string{"1", "2", "3", "4"}},
		{"codex", "permission", "codex/approval_prompt.raw", "y", "\x1b", "p", []string{"1", "2", "3"}},
		{"gemini", "permission", "gemini/confirmation.raw", "1", "\x1b", "2", []string{"1", "2", "3"}},
	}
	for _, c := range cases {
		t.Run(c.profile, func(t *testing.T) {
			p, err := plan.LoadProfile(t.TempDir(), c.profile)
			if err != nil {
				t.Fatal(err)
			}
			kind, keys, ok := p.Answers.Dialog("nonesuch", c.kind)
			if !ok || kind != c.kind {
				t.Fatalf("no answer keys for %s", c.kind)
			}
			for choice, want := range map[string]string{"yes": c.yes, "no": c.no, "always": c.always} {
				if got, submit, err := keys.Keys(choice); err != nil || got != want || submit {
					t.Errorf("%s: keys %q submit %v err %v, want %q", choice, got, submit, err, want)
				}
			}
			data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", c.recording))
			if err != nil {
				t.Fatal(err)
			}
			nums, labels := keys.OptionLines(classify.Render(data, 120, 40).Text)
			if !reflect.DeepEqual(nums, c.options) {
				t.Fatalf("options %q (%q), want %q", nums, labels, c.options)
			}
			for _, l := range labels {
				if l == "" || strings.HasSuffix(l, "│") {
					t.Errorf("option label %q", l)
				}
			}
		})
	}
}

// Choices a dialog does not take are refused, naming the valid ones.
func TestAnswerKeysRefuse(t *testing.T) {
	p, err := plan.LoadProfile(t.TempDir(), "codex")
	if err != nil {
		t.Fatal(err)
	}
	_, keys, _ := p.Answers.Dialog("permission")
	for choice, want := range map[string]string{
		"3":           `choice "3": this dialog takes no option numbers; valid choices: yes, no, always`,
		"do it again": `choice "do it again": this dialog takes no free text; valid choices: yes, no, always`,
	} {
		if _, _, err := keys.Keys(choice); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", choice, err, want)
		}
	}
	text := &plan.AnswerKeys{Text: true, No: "\x1b"}
	if k, submit, err := text.Keys("use the other file"); err != nil || k != "use the other file" || !submit {
		t.Fatalf("free text: %q %v %v", k, submit, err)
	}
	// A word or digit the dialog has no keys for is typed as text (an
	// asked question: "yes" is what the human would type).
	for _, choice := range []string{"yes", "always", "2"} {
		if k, submit, err := text.Keys(choice); err != nil || k != choice || !submit {
			t.Errorf("%s on a text dialog without keys for it: %q %v %v", choice, k, submit, err)
		}
	}
	if k, submit, err := text.Keys("no"); err != nil || k != "\x1b" || submit {
		t.Errorf("no on a text dialog with keys for it: %q %v %v", k, submit, err)
	}
}

// A bad answers: section fails the profile's load, naming it.
func TestAnswersValidation(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "profiles"), 0o700)
	for yaml, want := range map[string]string{
		"answers: {permission: {options: '('}}":       "answers: permission: options: bad regex",
		"answers: {permission: {options: '(\\d)'}}":   "needs two groups",
		"answers: {permission: {yes: 1, sure: true}}": "sure",
	} {
		os.WriteFile(filepath.Join(dir, "profiles", "claude.yaml"), []byte(yaml), 0o600)
		if _, err := plan.LoadProfile(dir, "claude"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", yaml, err, want)
		}
	}
}

package modelread

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sup-tmux/sup/internal/config"
)

// FuzzParseReply: any content either fails with a kind or yields a reply
// that keeps the invariants (a valid state, one clean line, keys that
// parse, at most config.MaxActions).
func FuzzParseReply(f *testing.F) {
	f.Add(`{"state":"READY","summary":"idle","actions_needed":[]}`)
	f.Add("```json\n{\"state\":\"NEEDS_CONFIRMATION\",\"summary\":\"a\",\"actions_needed\":[{\"label\":\"Yes\",\"key\":\"y\"}]}\n```")
	f.Add("prose")
	f.Add(`{"state":"ERROR","summary":"x\u202e\u0007"}`)
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseReply(s)
		if err != nil {
			if k := KindOf(err); k != FailNotJSON && k != FailBadReply {
				t.Fatalf("kind %s", k)
			}
			return
		}
		if r.Activity() == "" || strings.ContainsAny(r.Summary, "\r\n\x1b\u202e") || utf8.RuneCountInString(r.Summary) > config.MaxSummary || len(r.Actions) > config.MaxActions {
			t.Fatalf("invalid reply passed: %+v", r)
		}
		for _, a := range r.Actions {
			if _, err := config.ParseKey(a.Key); err != nil || a.Label == "" {
				t.Fatalf("invalid action passed: %+v", a)
			}
		}
	})
}

//go:build linux

package plan

import (
	"bytes"
	"reflect"
	"regexp"
	"strconv"
	"testing"
)

// errLine is how every frontmatter error starts: the document's path and
// a line number, so an editor can jump to it.
var errLine = regexp.MustCompile(`^doc\.md:([0-9]+): `)

// FuzzFrontmatter: whatever a document holds, ParseFrontmatter never
// panics, is deterministic, and every error names the document and a line
// inside it (or the line just past its end, for an unterminated block).
// Seeds are in testdata/fuzz/FuzzFrontmatter; every crash ever found stays
// there.
func FuzzFrontmatter(f *testing.F) {
	f.Add([]byte("---\nsup:\n  cwd: ~/src\n  env: {A: \"$HOME/x\", B: $$lit}\n  command: [claude, --model, x]\n---\n# doc\n"))
	f.Add([]byte("---\nsup: [1, 2]\n---\n"))
	f.Add([]byte("---\nsup:\n  cwd: a\n  cwd: b\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fm, err := ParseFrontmatter("doc.md", data)
		again, err2 := ParseFrontmatter("doc.md", data)
		if (err == nil) != (err2 == nil) || !reflect.DeepEqual(fm, again) || err != nil && err.Error() != err2.Error() {
			t.Fatalf("not deterministic: %+v %v / %+v %v", fm, err, again, err2)
		}
		if err == nil {
			if len(fm.EnvOrder) != len(fm.Env) {
				t.Fatalf("EnvOrder %q does not list Env %v", fm.EnvOrder, fm.Env)
			}
			for _, k := range fm.EnvOrder {
				if _, ok := fm.Env[k]; !ok {
					t.Fatalf("EnvOrder has %q, Env does not", k)
				}
			}
			return
		}
		m := errLine.FindStringSubmatch(err.Error())
		if m == nil {
			t.Fatalf("error does not start with doc.md:LINE: %q", err)
		}
		line, _ := strconv.Atoi(m[1])
		if lines := bytes.Count(data, []byte("\n")) + 1; line < 1 || line > lines+1 {
			t.Fatalf("error names line %d of a %d-line document: %q", line, lines, err)
		}
	})
}

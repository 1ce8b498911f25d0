//go:build linux

package supervisor

import (
	"testing"

	"github.com/sup-tmux/sup/supervisor/classify"
)

// FuzzClassify: random screen bytes and titles, on a screen of random
// size, never make a built-in classifier pack panic, and classifying the
// same screen twice gives the same result. Seeds are in
// testdata/fuzz/FuzzClassify.
func FuzzClassify(f *testing.F) {
	packs := map[string]*classify.Pack{}
	for _, name := range []string{"claude", "codex", "gemini", "shell"} {
		_, pack, err := LoadProfile(f.TempDir(), name)
		if err != nil {
			f.Fatal(err)
		}
		packs[name] = pack
	}
	f.Add([]byte("\x1b[?1049h❯\u00a0fix the bug\r\n  ⏸ manual mode on · ? for shortcuts"), "claude", uint8(120), uint8(40))
	f.Add([]byte(" Do you want to proceed?\r\n ❯ 1. Yes\r\n   2. No\r\n Esc to cancel"), "✳ Claude Code", uint8(80), uint8(24))
	f.Add([]byte("\x1b[2m› Ask Codex to do anything\x1b[0m\r\n"), "codex", uint8(100), uint8(30))
	f.Fuzz(func(t *testing.T, data []byte, title string, cols, rows uint8) {
		c, r := int(cols%200)+1, int(rows%60)+1
		stream := append([]byte("\x1b]0;"+title+"\x07"), data...)
		for name, p := range packs {
			snap := classify.Render(stream, c, r)
			first := p.Classify(snap)
			if again := p.Classify(classify.Render(stream, c, r)); again != first {
				t.Fatalf("%s: not deterministic: %+v then %+v", name, first, again)
			}
			if first.Matched != (first.Rule != "") {
				t.Fatalf("%s: Matched %v with rule %q", name, first.Matched, first.Rule)
			}
		}
	})
}

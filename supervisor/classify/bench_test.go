package classify_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sup-tmux/sup/supervisor/classify"
	"github.com/sup-tmux/sup/supervisor/screen"
)

// BenchmarkClassify: one pass of a pack over a 120x40 screen, averaged over
// the corpus (the supervisor does this at most every 50 ms per session).
func BenchmarkClassify(b *testing.B) {
	type item struct {
		pack *classify.Pack
		snap screen.Snapshot
	}
	var items []item
	packs := map[string]*classify.Pack{}
	for _, e := range loadCorpus(b) {
		if packs[e.Agent] == nil {
			packs[e.Agent] = builtinPack(b, e.Agent)
		}
		data, err := os.ReadFile(filepath.Join(corpusDir, e.File))
		if err != nil {
			b.Fatal(err)
		}
		items = append(items, item{packs[e.Agent], classify.Render(data, e.Cols, e.Rows)})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		it := items[i%len(items)]
		it.pack.Classify(it.snap)
	}
}

//go:build linux

package supervisor

import (
	"runtime/metrics"
	"testing"
)

var trimSink [][]byte

// TestMemTrim: the trimmer collects only after a megabyte or more was
// allocated since its last collection, so a supervisor that looks often
// and allocates little never pays for a collection.
func TestMemTrim(t *testing.T) {
	tr := &memTrim{sample: []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}}
	tr.trim() // whatever the test binary allocated before
	for range 64 {
		trimSink = append(trimSink, make([]byte, 32<<10)) // 2 MiB
	}
	trimSink = nil
	if !tr.due() {
		t.Fatal("2 MiB allocated since the last trim: not due")
	}
	if !tr.trim() {
		t.Fatal("2 MiB allocated since the last trim: no trim")
	}
	if tr.due() || tr.trim() {
		t.Fatal("a second trim right after the first collected again")
	}
}

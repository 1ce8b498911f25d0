package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{}, {Mode: 0o644, Durable: true}} {
		if err := Write(path, []byte("new"), o); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil || string(b) != "new" {
			t.Fatalf("read %q %v, want new", b, err)
		}
		fi, _ := os.Stat(path)
		want := o.Mode
		if want == 0 {
			want = 0o600
		}
		if fi.Mode().Perm() != want {
			t.Fatalf("mode %v, want %v", fi.Mode().Perm(), want)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
}

// A failed rename (the target is a directory) leaves the target as it
// was and no temporary file; the error names the path.
func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "d")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	err := Write(target, []byte("data"), Options{})
	if err == nil || !strings.Contains(err.Error(), target) {
		t.Fatalf("err %v, want one naming %s", err, target)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "d" {
		t.Fatalf("left behind: %v", ents)
	}
	if err := Write(filepath.Join(dir, "missing", "f"), nil, Options{}); err == nil {
		t.Fatal("a write into a missing directory succeeded")
	}
}

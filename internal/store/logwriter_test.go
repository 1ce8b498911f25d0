//go:build linux

package store

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestLogWriterRotatesAtCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "abc.log")
	w, err := OpenLog(path, 4*KiB)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	log := slog.New(slog.NewTextHandler(w, nil))
	var wg sync.WaitGroup
	for g := range 8 { // slog handlers write from many goroutines
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				log.Info("line", "g", g, "i", i, "pad", strings.Repeat("x", 40))
			}
		}()
	}
	wg.Wait()
	for _, p := range []string{path, path + ".1"} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > int(4*KiB) {
			t.Errorf("%s: %d bytes, over the 4 KiB cap", p, len(data))
		}
		if len(data) < int(2*KiB) {
			t.Errorf("%s: %d bytes: rotated long before the cap", p, len(data))
		}
		for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
			if !bytes.HasPrefix(l, []byte("time=")) || !bytes.Contains(l, []byte("pad=x")) {
				t.Fatalf("%s: a record was cut or interleaved: %q", p, l)
			}
		}
	}
	if m, _ := filepath.Glob(path + "*"); len(m) != 2 {
		t.Errorf("files %v, want the log and one .1", m)
	}
}

func TestLogWriterAppendsToExisting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "abc.log")
	os.WriteFile(path, []byte("before\n"), 0o600)
	w, err := OpenLog(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(w, "after\n")
	w.Close()
	if data, _ := os.ReadFile(path); string(data) != "before\nafter\n" {
		t.Errorf("got %q", data)
	}
	if _, err := w.Write([]byte("x")); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("write after close: %v, want an error saying closed", err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestOpenLogBadDir(t *testing.T) {
	_, err := OpenLog(filepath.Join(t.TempDir(), "missing", "abc.log"), 0)
	if err == nil || !strings.Contains(err.Error(), "session log") {
		t.Errorf("err %v, want one naming the session log", err)
	}
}

//go:build linux

package store

import (
	"fmt"
	"sync"
	"testing"
)

// TestUnitRegistryConcurrent: many writers at once lose nothing, and a
// new run without a conversation id keeps the last one known.
func TestUnitRegistryConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			doc := fmt.Sprintf("/docs/%d.md", i)
			if err := RecordSession(dir, RegistryEntry{Document: doc, Workspace: "w", Role: fmt.Sprint(i), Profile: "claude", AgentSessionID: "c" + fmt.Sprint(i)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	reg, err := ReadRegistry(dir)
	if err != nil || len(reg.Sessions) != 20 || reg.Version != 1 {
		t.Fatalf("registry: %d sessions, version %d, %v", len(reg.Sessions), reg.Version, err)
	}
	if err := RecordSession(dir, RegistryEntry{Document: "/docs/3.md", Workspace: "w", Role: "3", Profile: "claude"}); err != nil {
		t.Fatal(err)
	}
	if reg, _ := ReadRegistry(dir); reg.Sessions["/docs/3.md"].AgentSessionID != "c3" {
		t.Fatalf("a run without an id lost the known one: %+v", reg.Sessions["/docs/3.md"])
	}
	if err := RecordSession(dir, RegistryEntry{Document: "/docs/3.md", Profile: "codex"}); err != nil {
		t.Fatal(err)
	}
	if reg, _ := ReadRegistry(dir); reg.Sessions["/docs/3.md"].AgentSessionID != "" {
		t.Fatal("another profile's conversation id was kept")
	}
}

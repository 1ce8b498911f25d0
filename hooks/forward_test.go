//go:build linux

package hooks

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Forward says why it did not forward: a payload
// that is not the agent's, a supervisor that is gone.
func TestForwardErrors(t *testing.T) {
	deadline := time.Now().Add(80 * time.Millisecond)
	if err := Forward(context.Background(), "claude", "/nonexistent.sock", []byte("not json"), deadline); err == nil {
		t.Fatal("a payload that is not JSON was forwarded")
	}
	gone := filepath.Join(t.TempDir(), "gone.sock")
	err := Forward(context.Background(), "claude", gone, []byte(`{"hook_event_name":"Stop","session_id":"c1"}`), deadline)
	if err == nil || !strings.Contains(err.Error(), "Stop") {
		t.Fatalf("err %v, want one naming the event", err)
	}
}

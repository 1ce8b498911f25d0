//go:build linux

package main

import (
	"testing"
	"time"

	"github.com/sup-tmux/sup/broker"
)

// The status line says how old the remote part is and which host failed
// at its newest attempt.
func TestRemoteSuffix(t *testing.T) {
	now := time.UnixMilli(1_000_000_000)
	ok := broker.HostCache{Host: "gpu", At: now.Add(-8 * time.Second).UnixMilli()}
	down := broker.HostCache{Host: "vm", At: now.Add(-90 * time.Second).UnixMilli(), Status: "unreachable", FailedAt: now.UnixMilli()}
	for _, tt := range []struct {
		line   string
		caches []broker.HostCache
		want   string
	}{
		{"⚠ 2 stuck · next: a", nil, ""},
		{"⚠ 2 stuck · next: a", []broker.HostCache{ok}, " · remote 8s old"},
		{"⚠ 2 stuck · next: a", []broker.HostCache{ok, down}, " · remote 1m old, vm unreachable"},
		{"", []broker.HostCache{ok}, ""},
		{"", []broker.HostCache{down}, "remote 1m old, vm unreachable"},
	} {
		if got := remoteSuffix(tt.line, tt.caches, now); got != tt.want {
			t.Errorf("remoteSuffix(%q, %d caches) = %q, want %q", tt.line, len(tt.caches), got, tt.want)
		}
	}
}

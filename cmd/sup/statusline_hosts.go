//go:build linux

package main

import (
	"strings"
	"time"

	"github.com/sup-tmux/sup/broker"
	"github.com/sup-tmux/sup/cmd/sup/internal/view"
)

// remoteSuffix says how old the remote part of a status line is, and
// which hosts failed at their last attempt: " · remote 8s old" or
// " · remote 8s old, gpu unreachable". Nothing without host caches or
// when the line is empty and no host failed.
func remoteSuffix(line string, caches []broker.HostCache, now time.Time) string {
	if len(caches) == 0 {
		return ""
	}
	oldest := now.UnixMilli()
	var failed []string
	for _, c := range caches {
		oldest = min(oldest, c.At)
		if c.FailedAt > c.At {
			failed = append(failed, c.Host+" "+c.Status)
		}
	}
	if line == "" && len(failed) == 0 {
		return ""
	}
	var parts []string
	if oldest > 0 {
		parts = append(parts, "remote "+view.Age(now.Sub(time.UnixMilli(oldest)))+" old")
	}
	parts = append(parts, failed...)
	prefix := " · "
	if line == "" {
		prefix = ""
	}
	return prefix + strings.Join(parts, ", ")
}

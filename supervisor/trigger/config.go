package trigger

import (
	"strings"
	"time"

	"github.com/sup-tmux/sup/internal/config"
)

// Config is the trigger policy's numbers: config.yaml's `trigger:` section
// (config.Trigger, which internal/plan decodes and validates) with the
// policy's methods. Convert with Config(c) from the section.
type Config config.Trigger

// WithDefaults fills zero fields with the defaults (config.Trigger's).
func (c Config) WithDefaults() Config { return Config(config.Trigger(c).WithDefaults()) }

// Marker is the ack marker for id, or "" when none is configured.
func (c Config) Marker(id string) string {
	if c.AckMarker == "" {
		return ""
	}
	return strings.ReplaceAll(c.AckMarker, "{id}", id)
}

// Backoff is the wait before retry n (1-based): RetryBackoff, then doubling.
func (c Config) Backoff(n int) time.Duration {
	return c.RetryBackoff << (n - 1)
}

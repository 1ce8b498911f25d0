package config

import (
	"fmt"
	"strings"
	"time"
)

// Trigger is config.yaml's `trigger:` section: every number of the
// trigger policy (supervisor/trigger.Config is this type with the
// policy's methods); zero fields take the defaults of specs/triggers.md.
type Trigger struct {
	MaxPromptBytes int           `yaml:"max_prompt_bytes"` // larger prompts are refused, never truncated (8192)
	AckTimeout     time.Duration `yaml:"ack_timeout"`      // per attempt, unless the request says (8s)
	Retries        int           `yaml:"retries"`          // attempts after the first (2); -1: none
	RetryBackoff   time.Duration `yaml:"retry_backoff"`    // before the first retry, doubling (2s)
	Recheck        time.Duration `yaml:"recheck"`          // how often a deferred trigger is looked at again (5s)
	MaxDefer       time.Duration `yaml:"max_defer"`        // a trigger deferred longer fails with DEFER_TIMEOUT (60s)
	MaxBusyWait    time.Duration `yaml:"max_busy_wait"`    // how long a trigger waits for a mid-turn agent (10m)
	ReadyTimeout   time.Duration `yaml:"ready_timeout"`    // how long a restarted agent may take to be ready (60s)
	RateLimit      int           `yaml:"rate_limit"`       // attempts per thread per rate window (10)
	RateWindow     time.Duration `yaml:"rate_window"`      // (1m)
	LoopNoProgress int           `yaml:"loop_no_progress"` // triggers on a thread without progress that block it (20)
	LoopSamePrompt int           `yaml:"loop_same_prompt"` // identical prompts without progress that block it (3)
	Remember       int           `yaml:"remember"`         // trigger ids kept for idempotency (1000)
	RememberFor    time.Duration `yaml:"remember_for"`     // how long (24h)
	AckMarker      string        `yaml:"ack_marker"`       // screen text that acks; {id} is the trigger id ("" : none)
	AuditPrompts   bool          `yaml:"audit_prompts"`    // write the prompt text into the audit log
}

// WithDefaults fills zero fields with the defaults.
func (c Trigger) WithDefaults() Trigger {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	defInt := func(n *int, v int) {
		if *n == 0 {
			*n = v
		}
	}
	defInt(&c.MaxPromptBytes, 8<<10)
	def(&c.AckTimeout, 8*time.Second)
	defInt(&c.Retries, 2)
	if c.Retries < 0 {
		c.Retries = 0
	}
	def(&c.RetryBackoff, 2*time.Second)
	def(&c.Recheck, 5*time.Second)
	def(&c.MaxDefer, 60*time.Second)
	def(&c.MaxBusyWait, 10*time.Minute)
	def(&c.ReadyTimeout, 60*time.Second)
	defInt(&c.RateLimit, 10)
	def(&c.RateWindow, time.Minute)
	defInt(&c.LoopNoProgress, 20)
	defInt(&c.LoopSamePrompt, 3)
	defInt(&c.Remember, 1000)
	def(&c.RememberFor, 24*time.Hour)
	return c
}

// Validate rejects negative numbers and a marker without the id.
func (c Trigger) Validate() error {
	for name, d := range map[string]time.Duration{
		"ack_timeout": c.AckTimeout, "retry_backoff": c.RetryBackoff, "recheck": c.Recheck, "max_defer": c.MaxDefer,
		"max_busy_wait": c.MaxBusyWait, "ready_timeout": c.ReadyTimeout, "rate_window": c.RateWindow, "remember_for": c.RememberFor,
	} {
		if d < 0 {
			return fmt.Errorf("%s %s: must be a positive duration such as 5s", name, d)
		}
	}
	for name, n := range map[string]int{
		"max_prompt_bytes": c.MaxPromptBytes, "rate_limit": c.RateLimit, "loop_no_progress": c.LoopNoProgress,
		"loop_same_prompt": c.LoopSamePrompt, "remember": c.Remember,
	} {
		if n < 0 {
			return fmt.Errorf("%s %d: must be a positive number", name, n)
		}
	}
	if c.Retries < -1 {
		return fmt.Errorf("retries %d: must be 0 or more (-1 also means none)", c.Retries)
	}
	if c.AckMarker != "" && !strings.Contains(c.AckMarker, "{id}") {
		return fmt.Errorf("ack_marker %q: must contain {id} (the trigger id), such as ACK_TRIGGER:{id}", c.AckMarker)
	}
	return nil
}

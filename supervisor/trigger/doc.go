// Package trigger holds the pure policy of trigger delivery: payload
// sanitising and the envelope, override validation, the per-thread rate
// limiter and loop guard, the idempotency table and the defer and retry
// schedules. It does no I/O and starts no goroutines; every decision takes
// the time from its caller, so tests drive it with a fake clock. The
// supervisor wires it to the pty, the activity tracker and the audit log
// (see specs/triggers.md).
package trigger

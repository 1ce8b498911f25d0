// Package activity turns what the supervisor observes — agent hooks, stream
// signals, screen classifications, keystrokes and the child's lifecycle —
// into the session's activity (ready, busy, needs_confirmation, error), why,
// and since when it has been waiting on the human.
//
// It is pure logic: every input carries its time, nothing here sleeps or
// starts goroutines, so unit tests are instant and the supervisor owns the
// clock. Signals are ranked: a hook outranks a stream signal, which outranks
// the screen, because screen-only detectors misread prose as prompts.
package activity

// Package crash decides what sup does when its child (the supervised coding
// agent) exits: it classifies each exit, remembers the last few in a ring
// buffer, runs a health state machine and computes the restart delay.
//
// The package is pure logic. It starts no goroutines, performs no I/O, makes
// no system calls and never sleeps; every method that depends on time takes
// the current time as an argument. The supervisor owns all timing (the
// clock, timers, the actual wait before a restart) and feeds events in, so
// the rules here are unit-tested with a hand-advanced fake clock and the
// tests run instantly.
//
// The rules, with the defaults of [DefaultPolicy]:
//
//   - An exit is [ClassClean] if the code is 0 and no signal killed the
//     child; any other exit is a failure. A failure is [ClassFlapping] if it
//     is the 3rd or later failure within 60 s (counting itself; a failure
//     exactly 60 s old no longer counts), otherwise [ClassTransient].
//   - A clean exit yields [ActionPrompt]; a transient failure yields
//     [ActionRestart] after 2 s; a flapping failure yields [ActionRestart]
//     after 30 s and moves health from [Healthy] to [Degraded].
//   - The 5th consecutive failure yields [ActionHalt] and health [Halted].
//     Halted is sticky: every later exit, clean or not, yields [ActionHalt]
//     until [Tracker.Resume] is called.
//   - A run that lasts 60 s (see [Tracker.CheckStable]) resets the
//     consecutive-failure count, forgets earlier failures for flap
//     detection and returns health from [Degraded] to [Healthy]. A clean
//     exit also resets the consecutive-failure count. Neither touches
//     [Halted].
//
// A Tracker is not safe for concurrent use; the supervisor calls it from
// the one goroutine that owns the child.
package crash

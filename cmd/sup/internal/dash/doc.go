// Package dash is `sup dash`: a full-screen live dashboard of every
// session of the selected hosts, kept current from their events (broker
// Watch and WatchHost), with actions on the selected row (jump, trigger,
// answer, restart, skip) through a broker.Fleet.
//
// Invariants:
//   - Every text from a session is drawn as a safetext field: no agent's
//     bytes reach the terminal raw (specs/security.md, "Untrusted text").
//   - An idle dashboard does not wake: there is no renderer ticker, a
//     frame is drawn after a message and only when it changed, and the
//     age column's timer fires when a shown age changes
//     (BenchmarkDashIdle50).
//   - A host that does not answer is a line of its own and never holds up
//     the other hosts' rows.
package dash

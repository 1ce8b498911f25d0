// Package desk is a session's trigger desk: it takes triggers (the
// `trigger` method), answers repeats from the idempotency table, keeps the
// queue that one delivery goroutine works through (so deliveries never
// interleave), holds each one at the collision gates, pastes it into the
// agent, waits for the agent to acknowledge it, retries as the policy
// allows, and books the outcome: the audit line first (synced), then the
// table, the counts, the metrics and a `trigger` event
// (specs/triggers.md). The policy itself — sanitising, envelopes, gates,
// timeouts, the loop guard — is the pure package supervisor/trigger.
//
// The desk talks to its session only through the Port interface, in two
// halves: Delivery (the running child, bringing a stopped one back, the
// one write under the session's input lock with the gates read there,
// releasing the hook's hold, the policy, publishing events) and Reads
// (one read of the session's facts, the open prompt with its answer keys
// as data, the answer's ack, the screen). It is pure logic over them, so
// it builds everywhere and its tests run against a fake session under
// testing/synctest (port_test.go).
//
// Locks: the desk owns one lock, Desk.mu, over its queue, table, guard,
// counts and metrics. It never calls into the Session while holding it
// (the gates and the loop guard's progress token are read before it is
// taken), so no order between the desk's lock and the session's exists.
package desk

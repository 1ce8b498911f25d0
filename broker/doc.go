//go:build linux

// Package broker is sup acting across all supervisors: it finds their
// sockets, asks each for its state in parallel, cleans sockets left by dead
// supervisors and resolves the TARGET a user names. It keeps no state of its
// own: every fact lives in a supervisor, so nothing is lost when no broker
// runs.
package broker

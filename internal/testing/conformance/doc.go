//go:build linux

// Package conformance loads and runs sup's protocol conformance suite,
// ipc/testdata/conformance/cases.json: the protocol's cases as data, which
// every client the project ships (Go, Node.js, Python, the Neovim plugin's
// Lua) runs against live supervisors. A client is correct when it passes
// every case (specs/ipc.md, "Conformance").
//
// The case format and the matcher language are specified in
// ipc/testdata/conformance/README.md; this package is the Go runner, using
// ipc.Client for requests and a bare connection for raw frames.
package conformance

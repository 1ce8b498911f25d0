// Package layering holds no code: its test checks the import rules of
// specs/supervisor.md ("Layout") against what the go command resolves, so a
// change that inverts the layering fails `go test` instead of waiting for
// review:
//
//   - internal/plan, internal/store and internal/config import nothing
//     under supervisor/ (the configuration the supervisor's parts take lives
//     in internal/config, which imports nothing of sup);
//   - internal/store does not import ipc, the public Go API: the audit
//     records hold the protocol's values as strings;
//   - broker imports none of the supervisor's runtime (no supervisor/...
//     package, no pty);
//   - ipc imports nothing of sup but internal/paths, so a client that
//     imports it gets the protocol and nothing else;
//   - no package but ipc calls ipc.RuntimeDir or ipc.SocketPath, the client
//     API's entry points to the layout: sup's own code calls internal/paths.
package layering

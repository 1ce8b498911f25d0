// Package paths owns every path sup uses in its three directories: where
// the runtime, state and config dirs are, and the name of each file and
// directory in them. Everything else asks this package for a path instead
// of joining names itself, so the layout below is the whole layout.
//
// Invariants:
//   - Pure: no function here creates, opens or checks a file (the one
//     exception is the euid in the fallback runtime dir's name). Modes and
//     the runtime dir's trust check belong to the code that creates the
//     files (ipc.EnsureRuntimeDir, store, broker).
//   - A session id becomes a file name only after Socket accepted it (a
//     plain file name, the socket path short enough for sun_path); the
//     other per-session names (QueueFile, StateFile, SessionLog) assume that.
//   - Portable: it builds on every OS; only MaxSocketPath differs (sun_path
//     is 108 bytes on Linux, 104 on the BSDs and macOS).
//   - Hidden names (a leading ".") are temporary files (internal/atomicfile)
//     or stamps; every directory scan skips them.
//
// The layout (R = runtime dir, S = state dir, C = config dir; see
// RuntimeDir, StateDir, ConfigDir):
//
//	path                           written by                          read by
//	R/<id>.sock (0600)             supervisor (ipc.Listen)             every client: sup, broker, editors
//	R/<id>.sock.lock               ipc.Listen, ipc stale cleanup       (flock only)
//	R/queue/<id>.json              supervisor (store.WriteQueueFile)   broker (status line, sup queue)
//	R/state/<id>.json              supervisor (store.WriteStateFile)   broker (listings: sup ls, queue, dash, …)
//	R/hosts/<host>.json            broker (WriteHostCache)             broker (status line)
//	R/hosts/.refresh               sup status-line (refresh stamp)     sup status-line
//	R/ssh/                         ssh ControlMaster (broker.SSH)      ssh
//	R/docs/<hash>.lock             supervisor (one per document)       supervisor (`sup start` duplicate check)
//	R/model-budget                 supervisor (model reader)           supervisor (model reader)
//	R/route-<pid>-<ns>.err         supervisor started by the router    broker (router)
//	S/<id>.log, S/<id>.log.1       supervisor (store.OpenSessionLog)   humans, store.PruneLogs
//	S/sessions.json (+ .lock)      supervisor (store.RecordSession)    broker (router), sup doctor
//	S/audit.jsonl, audit.lock      supervisor (store.Audit)            store.ReadAuditSince, sup doctor
//	S/audit-<stamp>Z[-n].jsonl     store.Audit (rotation)              store.ReadAuditSince, retention
//	S/headless-<ms>.log            broker (router's headless resume)   humans
//	S/demo/                        sup demo                            sup demo
//	C/config.yaml                  the user                            plan.LoadConfig, sup doctor
//	C/profiles/<name>.yaml         the user                            plan (profiles), sup doctor
//	C/tmux.conf                    sup tmux-keys                       tmux (sourced from ~/.tmux.conf)
//
// specs/ipc.md ("Where the socket is") and specs/supervisor.md ("Layout")
// describe the same files for users and client authors.
package paths

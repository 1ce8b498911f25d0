//go:build linux

// Package store is the files sup keeps on disk, shared by the supervisors
// and the broker: the directories (ConfigDir, StateDir), the session
// registry (sessions.json, RecordSession and ReadRegistry), the audit trail
// (audit.jsonl, one writer: Audit) and the queue files `sup status-line`
// reads (WriteQueueFile). Files that readers may see while they change are
// replaced whole (a temporary file renamed over the old one); files many
// processes append to take one write per line with O_APPEND.
//
// It imports no pty, screen or classifier code: the broker reads and
// writes these files without pulling in the supervisor.
package store

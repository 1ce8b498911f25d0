//go:build linux

package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/ipctest"
	"github.com/sup-tmux/sup/ipc"
)

// writeLog writes a log of size bytes last modified at mtime.
func writeLog(t *testing.T, dir, name string, size int, mtime time.Time) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	return p
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestPruneByAgeKeepsLiveAndRecent(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	old := now.AddDate(0, 0, -31)
	ended := writeLog(t, dir, "aaa.log", 100, old)
	ended1 := writeLog(t, dir, "aaa.log.1", 100, old.Add(-time.Hour))
	liveOld := writeLog(t, dir, "bbb.log", 100, old)
	young := writeLog(t, dir, "ccc.log", 100, now.AddDate(0, 0, -29))
	starting := writeLog(t, dir, "ddd.log", 100, now.Add(-time.Minute)) // no socket yet
	other := writeLog(t, dir, "sessions.json", 100, old)
	live := func(id string) bool { return id == "bbb" }

	plan, err := PlanPrune(dir, LogConfig{}, now, live)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 2 || !exists(ended) {
		t.Fatalf("plan %v (and it must remove nothing), want aaa's two files", plan)
	}
	got, err := PruneLogs(dir, LogConfig{}, now, live)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !strings.Contains(got[0].Why, "older than 30 days") {
		t.Errorf("removed %v, want aaa.log and aaa.log.1, older than 30 days", got)
	}
	for p, want := range map[string]bool{ended: false, ended1: false, liveOld: true, young: true, starting: true, other: true} {
		if exists(p) != want {
			t.Errorf("%s exists %v, want %v", filepath.Base(p), !want, want)
		}
	}
}

func TestPruneByTotalOldestFirst(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	// Five ended sessions of 100 KiB, one live of 100 KiB; cap 300 KiB.
	var paths []string
	for i, id := range []string{"s1", "s2", "s3", "s4", "s5"} {
		paths = append(paths, writeLog(t, dir, id+".log", int(100*KiB), now.Add(-time.Duration(10-i)*time.Hour)))
	}
	liveP := writeLog(t, dir, "s0.log", int(100*KiB), now.Add(-20*time.Hour)) // the oldest, but live
	got, err := PruneLogs(dir, LogConfig{MaxTotal: 300 * KiB}, now, func(id string) bool { return id == "s0" })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("removed %v, want the three oldest ended", got)
	}
	for i, p := range paths {
		if exists(p) != (i >= 3) {
			t.Errorf("%s exists %v", filepath.Base(p), exists(p))
		}
	}
	if !exists(liveP) {
		t.Error("the live session's log was pruned")
	}
	u, err := Logs(dir)
	if err != nil || u.Bytes != int64(300*KiB) || u.Sessions != 3 {
		t.Errorf("usage %+v %v, want 3 sessions, 300 KiB", u, err)
	}
}

func TestPruneMissingDir(t *testing.T) {
	got, err := PruneLogs(filepath.Join(t.TempDir(), "none"), LogConfig{}, time.Now(), func(string) bool { return false })
	if err != nil || len(got) != 0 {
		t.Errorf("got %v %v, want nothing", got, err)
	}
}

// TestPruneWithSocketLiveness: a session whose supervisor answers on its
// socket keeps its old log; one whose socket is gone or stale loses it.
func TestPruneWithSocketLiveness(t *testing.T) {
	rt, err := os.MkdirTemp("", "rot")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	ipctest.Serve(t, rt, ipc.State{SessionID: "aaaaaaaaaaaa"})
	state := filepath.Join(t.TempDir(), "state")
	old := time.Now().AddDate(0, 0, -60)
	for _, id := range []string{"aaaaaaaaaaaa", "bbbbbbbbbbbb"} {
		w, err := OpenSessionLog(state, id, LogConfig{})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("x\n"))
		w.Close()
		os.Chtimes(filepath.Join(state, id+".log"), old, old)
	}
	got, err := PruneLogs(state, LogConfig{}, time.Now(), func(id string) bool { return ipc.SessionLive(rt, id) })
	if err != nil || len(got) != 1 || filepath.Base(got[0].Path) != "bbbbbbbbbbbb.log" {
		t.Errorf("removed %v (%v), want only the ended session's log", got, err)
	}
	if fi, err := os.Stat(state); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("state dir %v %v, want 0700", fi, err)
	}
}

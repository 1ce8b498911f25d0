//go:build linux

package agenttest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/shellquote"
	"github.com/sup-tmux/sup/internal/testing/testutil"
)

// MaxRecording is the most a screen recording may hold; the corpus keeps
// each to a few hundred KB.
const MaxRecording = 1 << 20

// Recorder saves the raw byte stream an agent writes to its pty, from its
// first byte up to a moment the test picks, into a file: tmux pipe-pane
// -O, opened before sup starts (Recorder.Option), closed by Stop. sup
// writes nothing of its own while its child runs, so the file holds
// exactly the agent's output as tmux read it from the pty (after the
// line discipline: raw mode, so byte for byte what the agent wrote).
type Recorder struct {
	Path string
	t    testing.TB
	a    *Agent
}

// NewRecorder makes a recorder writing to path, which it creates empty.
func NewRecorder(t testing.TB, path string) *Recorder {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return &Recorder{Path: path, t: t}
}

// Option attaches the recorder to the agent's pane before sup starts in
// it; pass it to a Start helper.
func (r *Recorder) Option() Option {
	return WithBeforeStart(func(a *Agent) {
		r.t.Helper()
		r.a = a
		cmd := "exec cat >> " + shellquote.Quote(r.Path)
		if _, err := a.Tmux.Run("pipe-pane", "-O", "-t", a.Pane, cmd); err != nil {
			r.t.Fatalf("recorder: %v", err)
		}
	})
}

// Recording settle times: Stop waits for the pane to be quiet for
// settleQuiet, but no longer than settleMax, so that the frame on screen
// is written whole; after closing the pipe it waits for the file to stay
// the same size for flushQuiet.
const (
	settleQuiet = 100 * time.Millisecond
	settleMax   = 300 * time.Millisecond
	flushQuiet  = 200 * time.Millisecond
)

// Stop ends the recording at the moment on screen now: after a short
// settle it closes the pipe and waits until the file stops growing. The
// test fails if the recording is empty or over MaxRecording.
func (r *Recorder) Stop() {
	r.t.Helper()
	if r.a == nil {
		r.t.Fatal("recorder: Stop before the agent started (pass Option to the Start helper)")
	}
	testutil.WaitFileQuiet(r.Path, settleQuiet, settleMax)
	if _, err := r.a.Tmux.Run("pipe-pane", "-t", r.a.Pane); err != nil {
		r.t.Fatalf("recorder: close the pipe: %v", err)
	}
	testutil.WaitFileQuiet(r.Path, flushQuiet, 10*time.Second)
	data, err := os.ReadFile(r.Path)
	if err != nil {
		r.t.Fatal(err)
	}
	if whole := completeFrames(data); len(whole) < len(data) {
		r.t.Logf("recorder: %s: dropping the last %d bytes, a synchronized-output frame the close cut off", r.Path, len(data)-len(whole))
		data = whole
		if err := os.WriteFile(r.Path, data, 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	switch {
	case len(data) == 0:
		r.t.Fatalf("recorder: %s is empty", r.Path)
	case len(data) > MaxRecording:
		r.t.Fatalf("recorder: %s holds %d bytes, over the %d limit", r.Path, len(data), MaxRecording)
	}
}

// Synchronized output (mode 2026): an agent that brackets each frame in
// these (Codex does) draws it at syncEnd.
var (
	syncBegin = []byte("\x1b[?2026h")
	syncEnd   = []byte("\x1b[?2026l")
)

// completeFrames returns data without a trailing synchronized-output
// frame that never ended: the prefix up to the last frame's end. Closing
// the pipe while the agent animates can cut a frame; the rest of the
// stream is whole.
func completeFrames(data []byte) []byte {
	begin := bytes.LastIndex(data, syncBegin)
	if begin < 0 || bytes.LastIndex(data, syncEnd) > begin {
		return data
	}
	if end := bytes.LastIndex(data[:begin], syncEnd); end >= 0 {
		return data[:end+len(syncEnd)]
	}
	return data
}

// ReplayScreen writes the recording at path into a fresh pane of tm,
// cols x rows, whose tty is raw (no echo, no output processing, as the
// agent had it), and returns the visible screen once all of it is in.
func ReplayScreen(t testing.TB, tm *testutil.Tmux, path string, cols, rows int) string {
	t.Helper()
	tmuxBin, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatalf("tmux: %v", err)
	}
	done := fmt.Sprintf("agenttest-replay-%d", replays.Add(1))
	script := `stty raw -echo && cat "$1"; "$2" -S "$3" wait-for -S "$4"; exec sleep 86400`
	pane := tm.NewWindowSize("", cols, rows, nil, "/bin/sh", "-c", script, "sh", path, tmuxBin, tm.SocketPath, done)
	if _, err := tm.Run("wait-for", done); err != nil {
		t.Fatalf("replay %s: %v", path, err)
	}
	screen := tm.Capture(pane)
	tm.KillPane(pane)
	return screen
}

// replays numbers ReplayScreen's wait channels.
var replays atomic.Int64

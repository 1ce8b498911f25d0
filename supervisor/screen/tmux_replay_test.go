//go:build linux

package screen

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sup-tmux/sup/internal/testing/testutil"
	"github.com/sup-tmux/sup/internal/tmux"
)

// replay is one stream for tmux to show: the file holding the bytes and
// the pane's size.
type replay struct {
	path       string
	cols, rows int
}

// tmuxShot is what tmux showed after a replay: the pane's text with its
// escapes (capture-pane -e), the cursor, and the pane's size as tmux made
// it ("80x24").
type tmuxShot struct {
	capture string
	cx, cy  int
	size    string
}

// replayBatch bounds the bytes of one tmux command line: tmux sends a
// client's whole command to the server as one message, which it refuses
// past 16 KiB ("command too long").
const replayBatch = 12 << 10

// replayTimeout bounds one batch: each of its replays waits on its pane's
// shell and tmux in turn, seconds under the suite's load.
const replayTimeout = 2 * time.Minute

// shotEnd ends each replay's output in a batch; no recording or case
// shows it.
const shotEnd = "@@sup-screen-replay-end"

// replayClients is how many tmux clients replay at once: each replay
// waits on processes starting in turn (its pane's shell, stty, cat and
// tmux), so a few side by side finish sooner on an idle core.
const replayClients = 4

// tmuxReplay shows each replay in a fresh tmux session of its size on m
// and returns what tmux showed, in order. Two tmux clients run a batch of
// replays as command sequences (new-session and wait-for for each, then
// capture-pane, display and kill-session for each: replayRange), not five
// clients per replay: the screen tests replayed ~200 streams, 1,000 tmux
// clients, the most of any package's tests (specs/testing.md, "Fourth
// pass"). Each pane's shell still signals its own channel once cat has
// written the stream.
func tmuxReplay(t *testing.T, m *testutil.Tmux, replays []replay) []tmuxShot {
	t.Helper()
	srv := m.Server()
	srv.Timeout = replayTimeout
	per := (len(replays) + replayClients - 1) / replayClients
	shots := make([][]tmuxShot, replayClients)
	errs := make([]error, replayClients)
	var wg sync.WaitGroup
	for c := range replayClients {
		lo, hi := min(c*per, len(replays)), min((c+1)*per, len(replays))
		wg.Add(1)
		go func() {
			defer wg.Done()
			shots[c], errs[c] = replayRange(srv, m.SocketPath, replays, lo, hi)
		}()
	}
	wg.Wait()
	var all []tmuxShot
	for c := range replayClients {
		if errs[c] != nil {
			t.Fatal(errs[c])
		}
		all = append(all, shots[c]...)
	}
	if len(all) != len(replays) {
		t.Fatalf("tmux showed %d replays, want %d", len(all), len(replays))
	}
	return all
}

// replayRange replays replays[lo:hi] in batches of at most replayBatch
// bytes of command line, each two tmux clients: the first starts each
// replay's session and waits for its pane to say cat is done, the second
// captures them all. Not one: a pane's signal can reach tmux before tmux
// has read the last of the pane's output, and a capture in the same
// command sequence, run the moment the wait ends, caught a Gemini screen
// half drawn (a whole run); the second client's start is the moment the
// replays always had before the capture (a client per command).
func replayRange(srv tmux.Server, socket string, replays []replay, lo, hi int) ([]tmuxShot, error) {
	var shots []tmuxShot
	var start, read []string
	size := 0
	flush := func() error {
		if len(start) == 0 {
			return nil
		}
		if out, err := srv.Exec(context.Background(), tmux.Authored(start...)); err != nil {
			return fmt.Errorf("replay in tmux: %v\n%s", err, out)
		}
		out, err := srv.Exec(context.Background(), tmux.Authored(read...))
		if err != nil {
			return fmt.Errorf("capture replays: %v\n%s", err, out)
		}
		got, err := parseShots(out)
		if err != nil {
			return err
		}
		shots = append(shots, got...)
		start, read, size = start[:0], read[:0], 0
		return nil
	}
	for i := lo; i < hi; i++ {
		r := replays[i]
		sess := fmt.Sprintf("replay%d", i)
		done := fmt.Sprintf("replayed-%d", i)
		script := fmt.Sprintf("stty raw -echo; cat '%s'; tmux -S '%s' wait-for -S %s; exec sleep 600", r.path, socket, done)
		one := []string{
			"new-session", "-d", "-s", sess, "-x", fmt.Sprint(r.cols), "-y", fmt.Sprint(r.rows), script, ";",
			"wait-for", done, ";",
		}
		look := []string{
			"capture-pane", "-p", "-e", "-t", sess, ";",
			"display-message", "-p", "-t", sess, shotEnd + " #{cursor_x} #{cursor_y} #{pane_width}x#{pane_height}", ";",
			"kill-session", "-t", sess, ";",
		}
		n := max(words(one), words(look)) // each client's line stays under the bound
		if size+n > replayBatch {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		start = append(start, one...)
		read = append(read, look...)
		size += n
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(shots) != hi-lo {
		return nil, fmt.Errorf("tmux showed %d of replays %d to %d", len(shots), lo, hi-1)
	}
	return shots, nil
}

// words is the length of a command line holding ws.
func words(ws []string) int {
	n := 0
	for _, w := range ws {
		n += len(w) + 1
	}
	return n
}

// parseShots splits a batch's output at each shotEnd line (at a line's
// start: capture-pane ends each row with a newline).
func parseShots(out string) ([]tmuxShot, error) {
	var shots []tmuxShot
	rest := "\n" + out
	for rest != "\n" && rest != "" {
		i := strings.Index(rest, "\n"+shotEnd+" ")
		if i < 0 {
			return nil, fmt.Errorf("replay output ends without %s: %q", shotEnd, rest)
		}
		var s tmuxShot
		s.capture = strings.TrimPrefix(rest[:i], "\n")
		line, after, _ := strings.Cut(rest[i+1+len(shotEnd)+1:], "\n")
		if _, err := fmt.Sscan(line, &s.cx, &s.cy, &s.size); err != nil {
			return nil, fmt.Errorf("replay cursor and size %q: %v", line, err)
		}
		shots = append(shots, s)
		rest = "\n" + after
	}
	return shots, nil
}

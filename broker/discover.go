//go:build linux

package broker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sup-tmux/sup/ipc"
)

// Listing is one live supervisor as discovery found it.
type Listing struct {
	Socket string // on Host, when Host is set
	State  ipc.State
	Host   string // another host's name (hosts: in config.yaml); "" for this host
}

// SocketError is a socket that could not be asked for its state.
type SocketError struct {
	Socket string
	Err    error
}

// Result is what Discover found.
type Result struct {
	Sessions []Listing     // sorted by name, then session id
	Errors   []SocketError // sockets that did not answer
	Cleaned  []string      // stale sockets removed
}

// Discover dials every socket in dir at once, each bounded by timeout, and
// asks for its state: the read of the verbs that act on what they list or
// show it for a decision (queue, next, skip, pick, dash, web, route,
// metrics, a relay's relay.list). A socket that refuses connections is
// stale (its supervisor died without cleaning up) and is removed by the
// lock-retry-unlink rule; a live one is never removed. Listing is where
// stale sockets are cleaned (specs/broker.md, "Finding one session"):
// acting on one session (Fleet.Find) never removes anything.
func Discover(ctx context.Context, dir string, timeout time.Duration) (Result, error) {
	return discover(ctx, dir, timeout, nil, true, false)
}

// List is Discover for display (sup ls, shell completion): each
// supervisor's state comes from its state file (specs/broker.md, "The
// state files"), which it rewrites at every change, so listing wakes no
// supervisor; only a socket without a usable file is dialled. A file is
// any process of the user's to write, so what List returns is shown, never
// acted on and never offered for consent: those read Discover.
func List(ctx context.Context, dir string, timeout time.Duration) (Result, error) {
	return discover(ctx, dir, timeout, nil, true, true)
}

// discover is Discover and List; also, when not nil, is called on each connection
// that answered state, to ask more on it (one dial per supervisor, no
// file read). clean false leaves stale sockets and files where they are (a
// read without side effects); files false asks every socket (a cache miss
// is checked against the supervisors themselves).
func discover(ctx context.Context, dir string, timeout time.Duration, also func(context.Context, *ipc.Client, string), clean, files bool) (Result, error) {
	var (
		stateDir   *os.File
		stateFiles []string
	)
	if files && also == nil {
		if stateDir, stateFiles = stateNames(dir); stateDir != nil {
			defer stateDir.Close()
		}
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return Result{}, nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("list runtime dir: %w", err)
	}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		res  Result
		have map[string]bool // sessions read from their state files
	)
	if stateDir != nil {
		res.Sessions, have = readStateFiles(dir, stateDir, stateFiles, entries, clean)
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".sock")
		if !ok || have[id] {
			continue
		}
		path := filepath.Join(dir, e.Name())
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := askState(ctx, path, timeout, also)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				res.Sessions = append(res.Sessions, Listing{Socket: path, State: st})
			case errors.Is(err, syscall.ENOENT):
				// Its supervisor exited while we listed: it removed its
				// socket, which is exactly what a gone session should do.
			case isStale(err) && !clean:
				// Gone; the next listing removes its socket.
			case isStale(err):
				if removed, cerr := ipc.CleanStale(path); cerr != nil {
					res.Errors = append(res.Errors, SocketError{path, cerr})
				} else if removed {
					res.Cleaned = append(res.Cleaned, path)
				}
			default:
				res.Errors = append(res.Errors, SocketError{path, err})
			}
		}()
	}
	wg.Wait()
	sort.Slice(res.Sessions, func(i, j int) bool {
		a, b := res.Sessions[i].State, res.Sessions[j].State
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.SessionID < b.SessionID
	})
	sort.Slice(res.Errors, func(i, j int) bool { return res.Errors[i].Socket < res.Errors[j].Socket })
	sort.Strings(res.Cleaned)
	return res, nil
}

func askState(ctx context.Context, path string, timeout time.Duration, also func(context.Context, *ipc.Client, string)) (ipc.State, error) {
	var st ipc.State
	c, err := ipc.Dial(path, timeout)
	if err != nil {
		return st, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err = c.Call(ctx, ipc.MethodState, nil, &st)
	if err == nil && also != nil {
		also(ctx, c, path)
	}
	return st, err
}

// isStale reports a socket file with no listener behind it.
func isStale(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED)
}

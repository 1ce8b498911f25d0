//go:build linux

package supervisor

import (
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"reflect"
	"sync"
	"time"

	"github.com/sup-tmux/sup/internal/store"
	"github.com/sup-tmux/sup/ipc"
)

// stateFile publishes the session's whole state — what the socket's
// `state` answers — to <runtime dir>/state/<id>.json, so that `sup ls`
// reads the fleet without waking it: asking 200 idle supervisors over
// their sockets wakes 200 processes (issue 30; specs/broker.md, "The state
// files"). The verbs that act, or show a prompt for a decision, still ask
// the socket: a file is any process of the user's to write.
//
// publish writes it when the state differs from the last one written, under the file's own lock, so two writers never leave an older
// state after a newer one. It runs in the path of every change a reader
// may act on before the change is announced: every event the socket
// publishes but a client's connect (activity, lifecycle, trigger, …: the
// file is written before the event goes out) and every publication of the
// queue facts, so a client that saw a change, or a verb that returned,
// then lists, reads it. A goroutine catches the rest (the screen's looks,
// the draft, the title, the output's clock) on the session's change
// signal. A fact is written at once; a change of only the output's stamps
// (last_output_at, the title) waits until stampGap after the previous
// write, so a busy agent's output costs a few writes a second, and in a
// flood the goroutine's reads are readGap apart, so its looks do not each
// encode the state. Nothing is armed while nothing changes, except the end
// of the operator's quiet window (operator_busy is a function of the
// clock), once, when a key made it true. A nil *stateFile publishes
// nothing.
type stateFile struct {
	path    string
	state   func() ipc.State
	quiet   func() time.Duration // the operator's quiet window
	changes *changes
	log     *slog.Logger
	kick    chan struct{} // publish held something back: the goroutine arms its timer
	quit    chan struct{} // closed by remove
	done    chan struct{} // closed when run returns

	mu        sync.Mutex
	last      ipc.State // the state written last
	written   bool      // the file holds last
	lastWrite time.Time
	failing   error // the last write's error, logged once, until one succeeds
	closed    bool  // sup is exiting: late changes must not bring the file back
}

const (
	// stampGap spaces writes that change only the output's stamps.
	stampGap = 250 * time.Millisecond
	// readGap spaces the goroutine's reads of the state once burstReads
	// came in a row, each within readGap of the one before (a flood).
	readGap    = 20 * time.Millisecond
	burstReads = 4
)

// newStateFile publishes state at path; quiet is the operator's quiet
// window, ch the session's change signal.
func newStateFile(path string, state func() ipc.State, quiet func() time.Duration, ch *changes, log *slog.Logger) *stateFile {
	return &stateFile{path: path, state: state, quiet: quiet, changes: ch, log: log,
		kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
}

// start writes the file and keeps it current until remove.
func (f *stateFile) start() {
	f.write()
	go f.run()
}

// publish writes the file if the state changed: a fact at once, the
// stamps alone once stampGap passed since the last write. It returns the
// state it read and, when it held back a change of the stamps, how long
// until it may write it; then, or when operator_busy will end by the
// clock, the goroutine is told to look again and arm its timer.
func (f *stateFile) publish() (st ipc.State, due time.Duration) {
	if f == nil {
		return st, 0
	}
	st, due = f.write()
	if due > 0 || quietEnd(st, f.quiet()) > 0 {
		select {
		case f.kick <- struct{}{}:
		default: // one is pending
		}
	}
	return st, due
}

// write is publish without the kick: the goroutine's own read.
func (f *stateFile) write() (st ipc.State, due time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return st, 0
	}
	st = f.state()
	if f.written && reflect.DeepEqual(st, f.last) {
		return st, 0 // the common case, an idle look's: no encoding
	}
	now := time.Now()
	// A change of the stamps alone waits stampGap after the last write;
	// so does a retry after a failed write (a busy agent's output would
	// otherwise retry, and log, at every look).
	if (f.failing != nil || f.written && sameFacts(st, f.last)) && now.Sub(f.lastWrite) < stampGap {
		return st, stampGap - now.Sub(f.lastWrite)
	}
	data, err := json.Marshal(st)
	if err == nil {
		err = store.WriteStateFile(f.path, data)
	}
	f.lastWrite = now
	if err != nil {
		f.written = false // retried at the next change
		if f.failing == nil || f.failing.Error() != err.Error() {
			f.log.Warn("state_file_failed", "path", f.path, "err", err)
		}
		f.failing = err
		return st, stampGap
	}
	if f.failing != nil {
		f.log.Info("state_file_written", "path", f.path, "after", f.failing.Error())
		f.failing = nil
	}
	f.last, f.written = st, true
	return st, 0
}

// republish rewrites the file even if nothing changed: the runtime dir
// was deleted and recreated under the session.
func (f *stateFile) republish() {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.written = false
	f.mu.Unlock()
	f.publish()
}

// remove stops the goroutine and deletes the file for good: later changes
// do not bring it back.
func (f *stateFile) remove() {
	close(f.quit)
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		f.log.Warn("state_file_remove_failed", "path", f.path, "err", err)
	}
}

func (f *stateFile) run() {
	defer close(f.done)
	wake := time.NewTimer(time.Hour)
	wake.Stop()
	defer wake.Stop()
	var (
		read  time.Time // the last read
		quick int       // reads in a row, each within readGap of the one before
	)
	for {
		changed := f.changes.wait() // before the read: no change is missed
		if time.Since(read) < readGap {
			quick++
		} else {
			quick = 0
		}
		read = time.Now()
		st, due := f.write()
		if q := quietEnd(st, f.quiet()); q > 0 && (due == 0 || q < due) {
			due = q
		}
		if due > 0 {
			wake.Reset(due)
		}
		select {
		case <-changed:
		case <-f.kick:
		case <-wake.C:
		case <-f.quit:
			return
		}
		wake.Stop()
		// A flood's looks settle into one read per readGap. Not the few
		// changes of one look: a timer after them would wake an idle
		// process a second time.
		if wait := readGap - time.Since(read); quick >= burstReads && wait > 0 {
			select {
			case <-time.After(wait):
			case <-f.quit:
				return
			}
		}
	}
}

// quietEnd is how long until operator_busy turns false by the clock alone
// (the human's last key leaves the quiet window); 0: it will not.
func quietEnd(st ipc.State, quiet time.Duration) time.Duration {
	if !st.OperatorBusy || st.Draft != "" || st.LastInputAt == 0 {
		return 0
	}
	return max(time.Until(time.UnixMilli(st.LastInputAt).Add(quiet))+time.Millisecond, time.Millisecond)
}

// sameFacts reports whether a and b differ at most in the stamps output
// moves (last_output_at, the title), which a writer may hold back for
// stampGap.
func sameFacts(a, b ipc.State) bool {
	a.LastOutputAt, a.Title = b.LastOutputAt, b.Title
	return reflect.DeepEqual(a, b)
}

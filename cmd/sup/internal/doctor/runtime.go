//go:build linux

package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/sup-tmux/sup/internal/store"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/sup-tmux/sup/internal/paths"
	"github.com/sup-tmux/sup/ipc"
)

// checkRuntime: the runtime dir's owner and mode, each socket's mode and
// liveness, and queue files whose supervisor is gone.
func checkRuntime(ctx context.Context, o *Options) []Finding {
	dir := o.RuntimeDir
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []Finding{{Check: "runtime_dir", Severity: OK, Subject: dir,
			Message: dir + " does not exist yet: no supervisor ran since it was cleared (sup start creates it)"}}
	}
	if err != nil {
		return []Finding{{Check: "runtime_dir", Severity: Problem, Subject: dir, Message: err.Error(),
			Fix: "check the path, or point SUP_RUNTIME_DIR at a directory of yours"}}
	}
	var out []Finding
	euid := os.Geteuid()
	switch st, _ := fi.Sys().(*syscall.Stat_t); {
	case !fi.IsDir():
		out = append(out, Finding{Check: "runtime_dir", Severity: Problem, Subject: dir,
			Message: fmt.Sprintf("%s is not a directory (mode %v)", dir, fi.Mode()),
			Fix:     "remove it (sup start recreates the dir), or point SUP_RUNTIME_DIR elsewhere"})
		return out
	case st != nil && int(st.Uid) != euid:
		out = append(out, Finding{Check: "runtime_dir", Severity: Problem, Subject: dir,
			Message: fmt.Sprintf("%s belongs to uid %d, not you (uid %d): sup refuses to use it", dir, st.Uid, euid),
			Fix:     "point SUP_RUNTIME_DIR at a directory of yours"})
		return out // its sockets are not ours to probe or remove
	case fi.Mode().Perm() != 0o700:
		out = append(out, Finding{Check: "runtime_dir", Severity: Problem, Subject: dir,
			Message: fmt.Sprintf("%s has mode %04o; want 0700 so no other user can reach the sockets", dir, fi.Mode().Perm()),
			Fix:     "chmod 700 " + dir})
	default:
		out = append(out, Finding{Check: "runtime_dir", Severity: OK, Subject: dir, Message: dir + " is yours, mode 0700"})
	}
	out = append(out, checkSockets(o, dir)...)
	out = append(out, checkSessionFiles(o, dir, "queue_file", "queue file", paths.QueueDir(dir), "sup status-line")...)
	return append(out, checkSessionFiles(o, dir, "state_file", "state file", paths.StateFileDir(dir), "sup ls")...)
}

// checkSockets probes every *.sock (never removing one unless o.Fix).
func checkSockets(o *Options, dir string) []Finding {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.sock")) // Best effort: the pattern is valid.
	var out []Finding
	live := 0
	for _, p := range paths {
		stale, err := ipc.SocketStale(p)
		switch {
		case err != nil:
			out = append(out, Finding{Check: "socket", Severity: Problem, Subject: p, Message: err.Error(),
				Fix: "move the file away: sup only puts sockets there"})
		case stale:
			f := Finding{Check: "socket", Severity: Problem, Subject: p,
				Message: "stale socket " + p + ": no supervisor listens (one was killed)",
				Fix:     "sup doctor --fix (or any sup ls) removes it", Fixable: true}
			if o.Fix {
				if removed, err := ipc.CleanStale(p); err != nil {
					f.Message += "; removing it failed: " + err.Error()
				} else if removed {
					f.Fixed = "removed " + p
				} else {
					f.Fixed = p + " was gone already (another cleaner won)"
				}
			}
			out = append(out, f)
		default:
			fi, err := os.Lstat(p)
			if err != nil {
				live++ // gone since the probe: it answered, so it was live
				continue
			}
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
				// Not a session of yours: every verb refuses to talk to
				// it (the runtime dir is yours, so someone with more
				// rights put it there).
				out = append(out, Finding{Check: "socket", Severity: Problem, Subject: p,
					Message: fmt.Sprintf("socket %s belongs to uid %d, not you (uid %d): sup's verbs refuse it; another user may pose as a session", p, st.Uid, os.Getuid()),
					Fix:     "find out who put it there; then remove it: rm " + p})
				continue
			}
			live++
			if fi.Mode().Perm()&0o077 != 0 {
				out = append(out, Finding{Check: "socket", Severity: Problem, Subject: p,
					Message: fmt.Sprintf("socket %s has mode %04o; want 0600", p, fi.Mode().Perm()),
					Fix:     "chmod 600 " + p})
			}
		}
	}
	out = sortBySubject(out)
	return append(out, Finding{Check: "socket", Severity: OK, Subject: dir,
		Message: plural(live, "live session") + " in " + dir})
}

// checkSessionFiles finds the files a supervisor publishes in fdir (the
// queue files, the state files) whose supervisor is gone: no socket
// listed, or its sup_pid dead (the broker's rule, broker.ReadQueueFiles).
// check names the finding, what the file; reader is the verb that also
// removes such a file.
func checkSessionFiles(o *Options, dir, check, what, fdir, reader string) []Finding {
	if fi, err := os.Lstat(fdir); err == nil && !fi.IsDir() {
		// The readers refuse it (broker's openSubdir) and the supervisors
		// cannot write into it: removing it is safe (a symlink goes, not
		// what it names), and the next write recreates the dir.
		f := Finding{Check: check, Severity: Problem, Subject: fdir,
			Message: fmt.Sprintf("%s is %s, not sup's directory: sup refuses to read or write %ss through it", fdir, store.TypeName(fi.Mode()), what),
			Fix:     "sup doctor --fix removes it (rm " + fdir + "); the supervisors recreate the directory", Fixable: true}
		if o.Fix {
			if err := os.Remove(fdir); err != nil {
				f.Message += "; removing it failed: " + err.Error()
			} else {
				f.Fixed = "removed " + fdir
			}
		}
		return []Finding{f}
	}
	entries, err := os.ReadDir(fdir)
	if err != nil {
		return nil // none yet
	}
	var out []Finding
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || strings.HasPrefix(id, ".") {
			continue
		}
		path := filepath.Join(fdir, e.Name())
		why := sessionFileStale(dir, id, path)
		if why == "" {
			continue
		}
		f := Finding{Check: check, Severity: Problem, Subject: path,
			Message: "stale " + what + " " + path + ": " + why,
			Fix:     "sup doctor --fix (or " + reader + ") removes it", Fixable: true}
		if strings.HasPrefix(why, "it is not a regular file") {
			// Not stale: planted. The readers skip it and ask the socket.
			f.Message = what + " " + path + ": " + why
			f.Fix = "sup doctor --fix removes it"
		}
		if o.Fix {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				f.Message += "; removing it failed: " + err.Error()
			} else {
				f.Fixed = "removed " + path
			}
		}
		out = append(out, f)
	}
	return sortBySubject(out)
}

// sessionFileStale says why a session's file has no live supervisor, or
// "".
func sessionFileStale(dir, id, path string) string {
	sock, err := paths.Socket(dir, id)
	if err != nil {
		return err.Error()
	}
	if _, err := os.Lstat(sock); err != nil {
		return "its socket is gone"
	}
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		// A FIFO would block the read below; sup writes only files.
		return "it is not a regular file (" + fi.Mode().Type().String() + "): sup never writes one; readers skip it"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var f struct {
		SupPID int `json:"sup_pid"` // ipc.QueueFacts' and ipc.State's
	}
	if json.Unmarshal(data, &f) != nil {
		return "" // being rewritten, or not ours: the broker decides by the socket
	}
	if !ipc.PIDAlive(f.SupPID) {
		return fmt.Sprintf("its supervisor (pid %d) is gone", f.SupPID)
	}
	return ""
}
